//! A seeded synthetic displaced terrain (no game assets exist here; seed 002's terrain
//! is Avalanche Studios' own).
//!
//! # The true surface
//!
//! World frame: `y` up, map column `s` along `x`, row `t` along `z`, `cell_size` metres
//! per cell. The analytic surface is the zero set of
//!
//! ```text
//! F(x, y, z) = y − g(x, z) − o(x + σx y, z + σz y)        (solid where F < 0)
//! g = fbm + cliff,   σ = (σx, σz) = (1.5, 1)  (0 in the heightfield mode)
//! ```
//!
//! * `fbm`: five octaves (wavelength 64 m halving, amplitude 1 m halving) of three plane
//!   waves each, directions and phases drawn from the seed;
//! * `cliff`: a 6 m step across a slanted line at about 30 % of the width, over 1 m
//!   (a smoothstep; slopes up to 9);
//! * `o`: the *overhang strip*: a 5 m step over 1.5 m across the line `x = 70 %` of the
//!   width, within a band of `z` (from 35 % to 65 % of the depth, fading over 8 m),
//!   sheared by `σ`. Along the skewed direction `r = (−σx, 1, −σz)` the overhang term is
//!   constant, so `F` increases at rate `1 + σ · ∇g` (about 1) and every such line meets
//!   the surface once; along the vertical, `∂F/∂y = 1 − σ · ∇o` is negative on the
//!   step (`≈ 1 − 7.5`): the top of the step leans 7.5 m over its foot in `x` — an
//!   overhang no heightfield can hold.
//!
//! # The base mesh and the directions
//!
//! * Quads by roughness: [`QuadLayout::adaptive`] splits a quad (16 → 8 → 4 → 2 cells)
//!   while the approximate height `g + o(x + σx g, z + σz g)` at its nodes departs from
//!   the bilinear interpolation of its corners by more than `roughness` metres.
//! * Base corners `P = (x, b(x, z), z)`, `b` a smooth proxy: the same with the first two
//!   octaves of the fBm and the cliff and the overhang step widened to 8 m. A corner
//!   lying inside the edge of a larger neighbouring quad (a T-junction) takes the
//!   linear interpolation of that edge's ends instead, so the base mesh and the
//!   directions are continuous and so is the surface across quads.
//! * Directions: the unit normal of `b` by central differences over ±1 cell (the
//!   smoothed base normal), blended into `r = (−1.5, 1, −1)` (the thesis's
//!   `(−3, −2, 2)` with `z` up, halved) around the overhang: weight 1 within 6 m of the
//!   strip's footprint (the step shifted back by `σ` times the highest the surface can
//!   be there), falling smoothly to 0 at 22 m. In the
//!   [`SyntheticMode::Heightfield`] mode every direction is `(0, 1, 0)` and `σ = 0`
//!   (the degenerate `r = up` case: a heightfield).
//!
//! # The displacement map
//!
//! Each node's displacement is a ray cast of `F` from its base point along its direction:
//! the crossing nearest the base (smallest `|d|`, within ±[`MAX_DISPLACEMENT`]), found
//! by marching with steps no longer than `|F| / L` (`L` a Lipschitz bound of `F` along
//! the ray: no crossing is stepped over, except pairs closer than 1 cm) and bisecting to
//! [`SYNTHETIC_RAY_TOLERANCE`]. The forward projection of every node lies on the true
//! surface. On the default configuration (seed 2: 238 quads of 16, 8, 4, 2 cells in
//! numbers 1, 37, 56, 144), 98 % of the displacements are within `[−2, 2]` (§3.5.7's
//! range), the largest 3.7; the rest are at the cliff and the overhang. Everything
//! is a deterministic function of the configuration (the seed included).

use super::displaced_terrain::{DisplacedTerrain, DisplacedTerrainError, QuadFrame};
use super::displacement_map::{DisplacementMap, DisplacementMapError};
use super::quad_layout::{Quad, QuadLayout, QuadLayoutError};
use crate::math::{Point, Real, Vector};
use crate::tolerance::SYNTHETIC_RAY_TOLERANCE;

/// The largest displacement (relative to the direction's length) the ray cast looks
/// for, either way.
pub const MAX_DISPLACEMENT: Real = 16.0;

/// The most steps of one ray cast's march (each way) and of its bisection.
const MAX_RAY_STEPS: u32 = 4096;

/// The direction field of the synthetic terrain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SyntheticMode {
    /// Smoothed base normals with a skewed region around the overhang (see the module
    /// notes).
    Skewed,
    /// Every direction up and no shear: a heightfield.
    Heightfield,
}

/// What to generate. [`Default`]: seed 2, 64 × 64 cells of 2 m, [`SyntheticMode::Skewed`],
/// roughness 1 m.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyntheticTerrainConfig {
    /// The seed of every random choice.
    pub seed: u64,
    /// Cells along `s` (`x`): an even number, at least 16.
    pub cells_s: u32,
    /// Cells along `t` (`z`): an even number, at least 16.
    pub cells_t: u32,
    /// Metres per cell (finite, `> 0`); the thesis's resolution is 2 m (§1.1).
    pub cell_size: Real,
    /// The direction field.
    pub mode: SyntheticMode,
    /// The split threshold of the quad layout, in metres (finite, `> 0`).
    pub roughness: Real,
}

impl Default for SyntheticTerrainConfig {
    fn default() -> Self {
        Self {
            seed: 2,
            cells_s: 64,
            cells_t: 64,
            cell_size: 2.0,
            mode: SyntheticMode::Skewed,
            roughness: 1.0,
        }
    }
}

/// Why a synthetic terrain could not be generated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SyntheticTerrainError {
    /// A configuration field is out of range.
    #[error("synthetic terrain {field} must be {expected}")]
    BadConfig {
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// The layout was refused.
    #[error(transparent)]
    Layout(#[from] QuadLayoutError),
    /// The map was refused.
    #[error(transparent)]
    Map(#[from] DisplacementMapError),
    /// The terrain was refused (a degenerate base triangle).
    #[error(transparent)]
    Terrain(#[from] DisplacedTerrainError),
    /// No crossing of the true surface within ±[`MAX_DISPLACEMENT`] along a node's
    /// direction.
    #[error("node ({i}, {j}): no crossing of the true surface along its direction")]
    RayMissed {
        /// The node's column.
        i: u32,
        /// The node's row.
        j: u32,
    },
}

/// SplitMix64: a small, seedable generator (Steele, Lea, Flood 2014).
pub(super) struct SplitMix(pub(super) u64);

impl SplitMix {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub(super) fn unit(&mut self) -> Real {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) as Real
    }
}

/// One plane wave of the fBm: `amplitude · sin(k · (x, z) + phase)`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Wave {
    kx: Real,
    kz: Real,
    phase: Real,
    amplitude: Real,
}

/// `3x² − 2x³` on `[0, 1]`, clamped outside; its derivative is at most 1.5.
fn smoothstep(x: Real) -> Real {
    let x = x.clamp(0.0, 1.0);
    x * x * (3.0 - 2.0 * x)
}

/// The analytic true surface of a synthetic terrain (see the module notes), in the
/// world frame, metres.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalyticSurface {
    waves: Vec<Wave>,
    /// Cliff: unit normal of its line (in `x, z`), offset, height, width.
    cliff: ([Real; 2], Real, Real, Real),
    /// Overhang strip: `x` of the step, `z` band, height, width, band fade.
    overhang: (Real, [Real; 2], Real, Real, Real),
    shear: [Real; 2],
    /// Skewed region: the footprint box `[x0, x1] × [z0, z1]`, inner and outer radius.
    skew_box: [Real; 4],
    skew_radii: [Real; 2],
    lipschitz: Real,
}

/// The skewed direction `(−3, 2, −2) / 2` (the thesis's `(−3, −2, 2)`, `z` up).
pub const SKEW_DIRECTION: Vector = Vector::new(-1.5, 1.0, -1.0);

impl AnalyticSurface {
    fn new(seed: u64, width: Real, depth: Real, mode: SyntheticMode) -> Self {
        let mut rng = SplitMix(seed ^ 0x5EED_0002);
        let mut waves = Vec::new();
        for octave in 0..5 {
            let wavelength = 64.0 / (1u32 << octave) as Real;
            let amplitude = 1.0 / (1u32 << octave) as Real / (3.0 as Real).sqrt();
            for _ in 0..3 {
                let angle = rng.unit() * std::f64::consts::TAU as Real;
                let k = std::f64::consts::TAU as Real / wavelength;
                waves.push(Wave {
                    kx: k * angle.cos(),
                    kz: k * angle.sin(),
                    phase: rng.unit() * std::f64::consts::TAU as Real,
                    amplitude,
                });
            }
        }
        let tilt = 0.3 * (rng.unit() - 0.5);
        let normal = [tilt.cos(), tilt.sin()];
        let cliff_offset = 0.3 * width * normal[0] + 0.5 * depth * normal[1];
        let shear = match mode {
            SyntheticMode::Skewed => [1.5, 1.0],
            SyntheticMode::Heightfield => [0.0, 0.0],
        };
        let ox = 0.7 * width;
        let band = [0.35 * depth, 0.65 * depth];
        let (oh, ow, fade) = (5.0, 1.5, 8.0);
        // The strip's footprint: the step and its top, shifted back by σ times the
        // highest the surface gets there (the fBm's bound, the cliff, the step).
        let wave_bound: Real = waves.iter().map(|w| w.amplitude).sum();
        let top = wave_bound + 6.0 + oh;
        let skew_box = [
            ox - shear[0] * top - ow,
            ox + ow,
            band[0] - fade - shear[1] * top,
            band[1] + fade,
        ];
        let wave_slope: Real = waves.iter().map(|w| w.amplitude * w.kx.hypot(w.kz)).sum();
        let cliff_slope = 1.5 * 6.0 / 1.0;
        let over_slope = 1.5 * oh / ow + 1.5 * oh / fade;
        let sigma = shear[0].hypot(shear[1]);
        let lipschitz = 1.0 + wave_slope + cliff_slope + over_slope * (1.0 + sigma);
        Self {
            waves,
            cliff: (normal, cliff_offset, 6.0, 1.0),
            overhang: (ox, band, oh, ow, fade),
            shear,
            skew_box,
            skew_radii: [6.0, 22.0],
            lipschitz,
        }
    }

    /// The fBm, keeping octaves below `octaves` (each octave is three waves).
    fn fbm(&self, x: Real, z: Real, octaves: usize) -> Real {
        self.waves
            .iter()
            .take(3 * octaves)
            .map(|w| w.amplitude * (w.kx * x + w.kz * z + w.phase).sin())
            .sum()
    }

    fn cliff(&self, x: Real, z: Real, width: Real) -> Real {
        let (n, offset, height, _) = self.cliff;
        height * smoothstep((n[0] * x + n[1] * z - offset) / width + 0.5)
    }

    fn overhang(&self, xi: Real, zeta: Real, width: Real) -> Real {
        let (ox, band, height, _, fade) = self.overhang;
        let across = smoothstep((xi - ox) / width + 0.5);
        let along =
            smoothstep((zeta - band[0]) / fade + 0.5) * smoothstep((band[1] - zeta) / fade + 0.5);
        height * across * along
    }

    /// The cliff's line in the ground plane: `(n, c)` with `n` a unit vector in
    /// `(x, z)` and the step centred on `n · (x, z) = c` (metres), rising toward `+n`.
    pub fn cliff_line(&self) -> ([Real; 2], Real) {
        (self.cliff.0, self.cliff.1)
    }

    /// The overhang strip: the `x` of its step in sheared coordinates (`x + σx y`, so
    /// the step is at `x = step − σx y` at height `y`), and its `z` band (metres).
    pub fn overhang_strip(&self) -> (Real, [Real; 2]) {
        (self.overhang.0, self.overhang.1)
    }

    /// The shear `σ = (σx, σz)` of the overhang (zero in the heightfield mode).
    pub fn shear(&self) -> [Real; 2] {
        self.shear
    }

    /// `F(p)` (see the module notes): negative inside the terrain, zero on its surface,
    /// positive above.
    pub fn implicit(&self, p: Point) -> Real {
        let (_, _, _, cw) = self.cliff;
        let (_, _, _, ow, _) = self.overhang;
        p.y - self.fbm(p.x, p.z, 5)
            - self.cliff(p.x, p.z, cw)
            - self.overhang(p.x + self.shear[0] * p.y, p.z + self.shear[1] * p.y, ow)
    }

    /// A height field near the surface: `g + o(x + σx g, z + σz g)`, the overhang step
    /// moved to where the shear puts it at the height `g` (exact where `o` is flat, and
    /// everywhere in the heightfield mode); the roughness criterion's input.
    pub fn approximate_height(&self, x: Real, z: Real) -> Real {
        let (_, _, _, cw) = self.cliff;
        let (_, _, _, ow, _) = self.overhang;
        let g = self.fbm(x, z, 5) + self.cliff(x, z, cw);
        g + self.overhang(x + self.shear[0] * g, z + self.shear[1] * g, ow)
    }

    /// The base proxy `b(x, z)` (see the module notes): as
    /// [`AnalyticSurface::approximate_height`] with the fBm's first two octaves and the
    /// cliff and the step widened to 8 m.
    pub fn base_height(&self, x: Real, z: Real) -> Real {
        let g = self.fbm(x, z, 2) + self.cliff(x, z, 8.0);
        g + self.overhang(x + self.shear[0] * g, z + self.shear[1] * g, 8.0)
    }

    /// The skew weight at `(x, z)`: 1 near the overhang strip, 0 far from it.
    pub fn skew_weight(&self, x: Real, z: Real) -> Real {
        if self.shear == [0.0, 0.0] {
            return 0.0;
        }
        let [x0, x1, z0, z1] = self.skew_box;
        let dx = (x0 - x).max(x - x1).max(0.0);
        let dz = (z0 - z).max(z - z1).max(0.0);
        let r = dx.hypot(dz);
        let [inner, outer] = self.skew_radii;
        1.0 - smoothstep((r - inner) / (outer - inner))
    }

    /// The crossing of the surface nearest `origin` along `origin + d dir`, `|d| ≤`
    /// [`MAX_DISPLACEMENT`] (see the module notes), or `None`.
    pub fn ray_cast(&self, origin: Point, dir: Vector) -> Option<Real> {
        let len = dir.length();
        if !(len.is_finite() && len > 0.0) {
            return None;
        }
        let f0 = self.implicit(origin);
        if f0 == 0.0 {
            return Some(0.0);
        }
        let min_step = 0.01 / len;
        let march = |sign: Real, limit: Real| -> Option<Real> {
            let (mut d, mut f) = (0.0 as Real, f0);
            for _ in 0..MAX_RAY_STEPS {
                if d.abs() >= limit {
                    return None;
                }
                let step = (f.abs() / (self.lipschitz * len)).max(min_step);
                let next = sign * (d.abs() + step).min(limit);
                let fn_ = self.implicit(origin + next * dir);
                if (fn_ <= 0.0) != (f <= 0.0) {
                    return Some(self.bisect(origin, dir, d, next));
                }
                (d, f) = (next, fn_);
            }
            None
        };
        let up = march(1.0, MAX_DISPLACEMENT);
        let down = march(-1.0, up.map_or(MAX_DISPLACEMENT, Real::abs));
        match (up, down) {
            (Some(a), Some(b)) => Some(if b.abs() < a.abs() { b } else { a }),
            (a, b) => a.or(b),
        }
    }

    /// Bisection of a bracket `[a, b]` (either order) with a sign change of `F`.
    fn bisect(&self, origin: Point, dir: Vector, mut a: Real, mut b: Real) -> Real {
        let fa_neg = self.implicit(origin + a * dir) <= 0.0;
        let tol = SYNTHETIC_RAY_TOLERANCE * a.abs().max(b.abs()).max(1.0);
        for _ in 0..MAX_RAY_STEPS {
            let m = 0.5 * (a + b);
            if (b - a).abs() <= tol || m == a || m == b {
                break;
            }
            if (self.implicit(origin + m * dir) <= 0.0) == fa_neg {
                a = m;
            } else {
                b = m;
            }
        }
        0.5 * (a + b)
    }
}

/// A generated terrain and the analytic surface it was ray-cast from.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticTerrain {
    /// The displaced terrain.
    pub terrain: DisplacedTerrain,
    /// The true surface its displacements were cast against.
    pub surface: AnalyticSurface,
    /// The configuration it was generated from.
    pub config: SyntheticTerrainConfig,
}

impl SyntheticTerrain {
    /// Generates the terrain of `config` (see the module notes).
    ///
    /// # Errors
    /// [`SyntheticTerrainError::BadConfig`] for a field out of range;
    /// [`SyntheticTerrainError::RayMissed`] if a node's ray meets no surface (not
    /// expected for the documented configurations); the other variants only for an
    /// internal inconsistency.
    pub fn generate(config: SyntheticTerrainConfig) -> Result<Self, SyntheticTerrainError> {
        let bad = |field, expected| Err(SyntheticTerrainError::BadConfig { field, expected });
        if config.cells_s < 16 || config.cells_s % 2 == 1 || config.cells_s > 4096 {
            return bad("cells_s", "an even number in 16..=4096");
        }
        if config.cells_t < 16 || config.cells_t % 2 == 1 || config.cells_t > 4096 {
            return bad("cells_t", "an even number in 16..=4096");
        }
        if !(config.cell_size.is_finite() && config.cell_size > 0.0 && config.cell_size <= 1e3) {
            return bad("cell_size", "finite, > 0 and <= 1000");
        }
        if !(config.roughness.is_finite() && config.roughness > 0.0) {
            return bad("roughness", "finite and > 0");
        }
        let h = config.cell_size;
        let surface = AnalyticSurface::new(
            config.seed,
            config.cells_s as Real * h,
            config.cells_t as Real * h,
            config.mode,
        );
        let world = |i: u32, j: u32| (i as Real * h, j as Real * h);
        let layout = QuadLayout::adaptive(config.cells_s, config.cells_t, |q: Quad| {
            let c = q.corners().map(|[i, j]| {
                let (x, z) = world(i, j);
                surface.approximate_height(x, z)
            });
            (0..=q.size).any(|b| {
                (0..=q.size).any(|a| {
                    let (x, z) = world(q.s + a, q.t + b);
                    let (fa, fb) = (a as Real / q.size as Real, b as Real / q.size as Real);
                    let plane = (1.0 - fb) * ((1.0 - fa) * c[0] + fa * c[1])
                        + fb * ((1.0 - fa) * c[2] + fa * c[3]);
                    (surface.approximate_height(x, z) - plane).abs() > config.roughness
                })
            })
        })?;
        let frames: Vec<QuadFrame> = layout
            .quads()
            .iter()
            .map(|q| {
                let c = q
                    .corners()
                    .map(|[i, j]| corner_frame(&layout, &surface, &config, i, j));
                QuadFrame {
                    p: c.map(|f| f.0),
                    n: c.map(|f| f.1),
                }
            })
            .collect();
        let (w, ht) = (config.cells_s as usize + 1, config.cells_t as usize + 1);
        let flat = DisplacedTerrain::new(
            DisplacementMap::new(w, ht, vec![0.0; w * ht])?,
            layout.clone(),
            frames.clone(),
        )?;
        let mut values = Vec::with_capacity(w * ht);
        for j in 0..ht as u32 {
            for i in 0..w as u32 {
                let missed = SyntheticTerrainError::RayMissed { i, j };
                let tri = flat
                    .triangle_at(i as Real, j as Real)
                    .ok_or(missed.clone())?;
                let base = flat.triangles()[tri].base();
                let (u, v) = flat.triangles()[tri].parameters(i as Real, j as Real);
                let d = surface
                    .ray_cast(base.base_point(u, v), base.direction(u, v))
                    .ok_or(missed)?;
                values.push(d);
            }
        }
        let terrain = DisplacedTerrain::new(DisplacementMap::new(w, ht, values)?, layout, frames)?;
        Ok(Self {
            terrain,
            surface,
            config,
        })
    }
}

/// The base point and direction of corner node `(i, j)`: interpolated along the edge of
/// the largest quad it lies strictly inside of (a T-junction), else from the proxy and
/// the direction field.
fn corner_frame(
    layout: &QuadLayout,
    surface: &AnalyticSurface,
    config: &SyntheticTerrainConfig,
    i: u32,
    j: u32,
) -> (Point, Vector) {
    let mut host: Option<Quad> = None;
    for (di, dj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
        let (Some(ci), Some(cj)) = (i.checked_sub(di), j.checked_sub(dj)) else {
            continue;
        };
        let Some(q) = layout.quad_of_cell(ci, cj).map(|k| layout.quads()[k]) else {
            continue;
        };
        let on_corner = (i == q.s || i == q.s + q.size) && (j == q.t || j == q.t + q.size);
        if !on_corner && host.is_none_or(|h| h.size < q.size) {
            host = Some(q);
        }
    }
    if let Some(q) = host {
        // The node is on one side of q (not a corner, not inside: a cell of q touches
        // it, and q's cells do not hold it in their interior's nodes... unless q holds
        // it inside, which cannot be, as then it would not be a corner of any quad).
        let ((a0, b0), (a1, b1), w) = if i == q.s || i == q.s + q.size {
            (
                (i, q.t),
                (i, q.t + q.size),
                (j - q.t) as Real / q.size as Real,
            )
        } else {
            (
                (q.s, j),
                (q.s + q.size, j),
                (i - q.s) as Real / q.size as Real,
            )
        };
        let (p0, n0) = corner_frame(layout, surface, config, a0, b0);
        let (p1, n1) = corner_frame(layout, surface, config, a1, b1);
        return (p0 + w * (p1 - p0), n0 + w * (n1 - n0));
    }
    let h = config.cell_size;
    let (x, z) = (i as Real * h, j as Real * h);
    let p = Point::new(x, surface.base_height(x, z), z);
    let n = match config.mode {
        SyntheticMode::Heightfield => Vector::Y,
        SyntheticMode::Skewed => {
            let dx = (surface.base_height(x + h, z) - surface.base_height(x - h, z)) / (2.0 * h);
            let dz = (surface.base_height(x, z + h) - surface.base_height(x, z - h)) / (2.0 * h);
            let normal = Vector::new(-dx, 1.0, -dz).normalize();
            let w = surface.skew_weight(x, z);
            (1.0 - w) * normal + w * SKEW_DIRECTION
        }
    };
    (p, n)
}
