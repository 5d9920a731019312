//! Seeded objects and scenes for the terrain experiment of seed 002 (§4.4, Tables
//! 4.4/4.5): a warship-like compound, small objects, and frames of them resting on,
//! sinking into and flying over a [`SyntheticTerrain`].
//!
//! The thesis measured two frames in the game (no asset exists here): an *ordinary
//! frame* (Table 4.4: the character teleported to a quiet place, a few small dynamic
//! objects near it: 97 backward projections by the old method) and a *warship frame*
//! (Table 4.5: a warship "put in the area with high density of primitives", touching
//! the terrain only with its bottom: 869 backward projections). It gives no vertex or
//! part counts; Fig A.3 shows forts, cabins and conning towers. The generators here
//! mirror that:
//!
//! * [`CompoundObject::warship`]: a hull of 24–36 lofted slabs (half-ellipse sections,
//!   narrowing and rising toward bow and stern) and, on deck, deckhouses, a bridge and
//!   its wings, a conning tower, funnels, masts and yards, main turrets with two or three
//!   barrels each, secondary gun mounts with barrels, lifeboats, bollards, vents,
//!   searchlights, crates, anchors, a rudder and propeller shafts: 100–200 convex parts,
//!   1000–3000 vertices (checked by the tests over many seeds).
//! * [`CompoundObject::crate_box`] (one box), [`CompoundObject::rock`] (the hull of 8–30
//!   random points on a random ellipsoid), [`CompoundObject::vehicle`] (a body, a cabin
//!   and four wheels).
//! * [`TerrainScene::frame`]: the frames. [`FrameKind::Ordinary`]: 4–8 small objects,
//!   each in a region chosen in turn among the ordinary fBm ground, the cliff, the
//!   overhang and the skewed-direction region ([`Region`]), and resting on, sinking into
//!   or flying over it ([`Placement`]). [`FrameKind::Warship`]: the warship alone, its
//!   keel 0.5–1.5 m below the mean ground under it, at the densest of 24 random sites
//!   (the most base triangles under its footprint).
//!
//! Every part is a list of vertices in convex position: the vertices the library's
//! [`quickhull3d`] keeps of the points a builder made (so no vertex is interior, and a
//! detector testing vertices tests only real corners). Parts are in the object's local
//! frame (`x` forward, `y` up, metres, the lowest point at `y = 0`); a
//! [`PlacedObject`] gives them in the world frame. Everything is a deterministic
//! function of the seeds.
//!
//! Heights for placing objects come from the analytic surface's
//! [`AnalyticSurface::approximate_height`](super::synthetic::AnalyticSurface::approximate_height) (exact away from the overhang step), so the
//! [`Placement`] is nominal near the overhang: a detector's answer is what counts.

use std::sync::Arc;

use super::synthetic::{SplitMix, SyntheticTerrain};
use crate::hull::{quickhull3d, HullError};
use crate::math::{Point, Pose, PoseError, Real, Rotation, Vector};

/// Why an object or a scene could not be generated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SyntheticObjectError {
    /// The hull of a part's points failed (not expected for the builders' points).
    #[error("part {part}: {source}")]
    Hull {
        /// The part's index.
        part: usize,
        /// Why.
        source: HullError,
    },
    /// A part's hull is not a polyhedron (a degenerate builder input).
    #[error("part {part}: its points are flat")]
    FlatPart {
        /// The part's index.
        part: usize,
    },
    /// A pose could not be built (a terrain far out of range).
    #[error(transparent)]
    Pose(#[from] PoseError),
    /// The terrain is too small to hold the object.
    #[error("the terrain ({width} x {depth} m) is too small for an object of radius {radius} m")]
    TerrainTooSmall {
        /// The terrain's extent along `x`.
        width: Real,
        /// Its extent along `z`.
        depth: Real,
        /// The object's radius in the ground plane.
        radius: Real,
    },
}

/// What an object is (for reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ObjectKind {
    /// [`CompoundObject::warship`].
    Warship,
    /// [`CompoundObject::crate_box`].
    Crate,
    /// [`CompoundObject::rock`].
    Rock,
    /// [`CompoundObject::vehicle`].
    Vehicle,
}

/// A compound object: convex parts, each a list of vertices in convex position, in the
/// object's local frame (metres, `y` up, lowest point at `y = 0`).
#[derive(Debug, Clone, PartialEq)]
pub struct CompoundObject {
    /// What it is.
    pub kind: ObjectKind,
    /// The parts' vertices (local frame).
    pub parts: Vec<Vec<Point>>,
}

/// Collects parts, each through [`quickhull3d`].
struct Builder {
    parts: Vec<Vec<Point>>,
}

impl Builder {
    fn new() -> Self {
        Self { parts: Vec::new() }
    }

    /// Adds the hull vertices of `points` as a part.
    fn add(&mut self, points: Vec<Point>) -> Result<(), SyntheticObjectError> {
        let part = self.parts.len();
        let hull =
            quickhull3d(&points).map_err(|source| SyntheticObjectError::Hull { part, source })?;
        if hull.dimension() != crate::hull::Dimension::Polyhedron {
            return Err(SyntheticObjectError::FlatPart { part });
        }
        self.parts.push(hull.vertices().to_vec());
        Ok(())
    }

    /// A box centred at `c`, half extents `h`, turned by `yaw` about `y`.
    fn cuboid(&mut self, c: Point, h: Vector, yaw: Real) -> Result<(), SyntheticObjectError> {
        let r = Rotation::from_rotation_y(yaw);
        let mut pts = Vec::with_capacity(8);
        for i in 0..8 {
            let s = |k: i32| if (i >> k) & 1 == 1 { 1.0 } else { -1.0 };
            pts.push(c + r * Vector::new(s(0) * h.x, s(1) * h.y, s(2) * h.z));
        }
        self.add(pts)
    }

    /// A frustum of a regular `sides`-gon along the unit `axis`: radius `r0` at
    /// `c − half_len axis`, `r1` at `c + half_len axis`.
    fn frustum(&mut self, f: Frustum) -> Result<(), SyntheticObjectError> {
        let (a, b) = f.axis.any_orthonormal_pair();
        let mut pts = Vec::with_capacity(2 * f.sides);
        for (end, r) in [(-f.half_len, f.r0), (f.half_len, f.r1)] {
            for k in 0..f.sides {
                let phi = std::f64::consts::TAU as Real * k as Real / f.sides as Real;
                pts.push(f.c + end * f.axis + r * (phi.cos() * a + phi.sin() * b));
            }
        }
        self.add(pts)
    }

    fn finish(self, kind: ObjectKind) -> CompoundObject {
        let mut object = CompoundObject {
            kind,
            parts: self.parts,
        };
        object.rest_on_zero();
        object
    }
}

/// A regular prism or frustum (see [`Builder::frustum`]).
#[derive(Debug, Clone, Copy)]
struct Frustum {
    c: Point,
    axis: Vector,
    r0: Real,
    r1: Real,
    half_len: Real,
    sides: usize,
}

impl Frustum {
    fn upright(c: Point, r: Real, half_len: Real, sides: usize) -> Self {
        Self {
            c,
            axis: Vector::Y,
            r0: r,
            r1: r,
            half_len,
            sides,
        }
    }
}

/// `lo + (hi − lo) u`.
fn lerp(rng: &mut SplitMix, lo: Real, hi: Real) -> Real {
    lo + (hi - lo) * rng.unit()
}

/// An integer in `lo..=hi`.
fn count(rng: &mut SplitMix, lo: usize, hi: usize) -> usize {
    lo + (rng.next() % (hi - lo + 1) as u64) as usize
}

impl CompoundObject {
    /// The number of vertices over all parts.
    pub fn vertex_count(&self) -> usize {
        self.parts.iter().map(Vec::len).sum()
    }

    /// The smallest and largest local coordinates over all vertices.
    pub fn local_bounds(&self) -> (Point, Point) {
        let mut lo = Vector::splat(Real::INFINITY);
        let mut hi = Vector::splat(Real::NEG_INFINITY);
        for p in self.parts.iter().flatten() {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
        (lo, hi)
    }

    /// The largest distance of a vertex from the local `y` axis (metres): the object's
    /// radius in the ground plane whatever its yaw.
    pub fn ground_radius(&self) -> Real {
        self.parts
            .iter()
            .flatten()
            .map(|p| p.x.hypot(p.z))
            .fold(0.0, Real::max)
    }

    /// Shifts the parts so that the lowest vertex is at `y = 0`.
    fn rest_on_zero(&mut self) {
        let (lo, _) = self.local_bounds();
        if lo.y.is_finite() {
            for p in self.parts.iter_mut().flatten() {
                p.y -= lo.y;
            }
        }
    }

    /// The parts' vertices in the world frame at `pose`.
    pub fn world_parts(&self, pose: &Pose) -> Vec<Vec<Point>> {
        self.parts
            .iter()
            .map(|part| part.iter().map(|p| pose.transform_point(*p)).collect())
            .collect()
    }

    /// A warship-like compound (see the module notes): 100–200 convex parts, 1000–3000
    /// vertices, 50–70 m long, `x` toward the bow.
    ///
    /// # Errors
    /// [`SyntheticObjectError::Hull`] or [`SyntheticObjectError::FlatPart`] only for an
    /// internal inconsistency.
    pub fn warship(seed: u64) -> Result<Self, SyntheticObjectError> {
        let mut rng = SplitMix(seed ^ 0x0005_41B5_0002);
        let mut b = Builder::new();
        let length = lerp(&mut rng, 50.0, 70.0);
        let half = 0.5 * length;
        let beam = length / lerp(&mut rng, 6.5, 8.0);
        let depth = lerp(&mut rng, 5.5, 7.0); // keel to deck
                                              // Hull: half-ellipse sections at x, half width w(x), bottom y(x) rising at the
                                              // ends; deck at y = depth.
        let slabs = count(&mut rng, 24, 36);
        let section = |x: Real| -> (Real, Real) {
            let e = (x / half).abs();
            let w = 0.5 * beam * (1.0 - e.powi(3)).max(0.08);
            let bottom = 0.6 * depth * e.powi(4);
            (w, bottom)
        };
        let points_per_side = 7;
        for k in 0..slabs {
            let x0 = -half + length * k as Real / slabs as Real;
            let x1 = -half + length * (k + 1) as Real / slabs as Real;
            let mut pts = Vec::with_capacity(2 * points_per_side);
            for x in [x0, x1] {
                let (w, bottom) = section(x);
                for j in 0..points_per_side {
                    let theta = std::f64::consts::PI as Real
                        * (j as Real / (points_per_side - 1) as Real - 0.5);
                    let z = w * theta.sin();
                    let y = bottom + (depth - bottom) * (1.0 - theta.cos());
                    pts.push(Vector::new(x, y, z));
                }
            }
            b.add(pts)?;
        }
        let deck = depth;
        let half_beam = 0.5 * beam;
        // Deckhouses along the middle, stacked.
        let houses = count(&mut rng, 4, 7);
        let mut x = -0.25 * length;
        for level in 0..houses {
            let hx = lerp(&mut rng, 2.0, 4.5);
            let hz = lerp(&mut rng, 0.5, 0.8) * half_beam;
            let hy = lerp(&mut rng, 1.0, 1.6);
            let base = if level % 2 == 1 { deck + 2.2 } else { deck };
            b.cuboid(
                Vector::new(x + hx, base + hy, 0.0),
                Vector::new(hx, hy, hz),
                0.0,
            )?;
            x += hx * lerp(&mut rng, 1.0, 1.8);
        }
        // Bridge, its wings, the conning tower.
        let bridge_x = 0.12 * length;
        b.cuboid(
            Vector::new(bridge_x, deck + 5.0, 0.0),
            Vector::new(2.0, 1.2, 0.55 * half_beam),
            0.0,
        )?;
        for side in [-1.0, 1.0] {
            b.cuboid(
                Vector::new(bridge_x, deck + 5.6, side * 0.85 * half_beam),
                Vector::new(1.0, 0.3, 0.3 * half_beam),
                0.0,
            )?;
        }
        b.frustum(Frustum {
            c: Vector::new(bridge_x + 2.5, deck + 4.5, 0.0),
            axis: Vector::Y,
            r0: 1.6,
            r1: 1.3,
            half_len: 4.5,
            sides: 8,
        })?;
        // Funnels (12-gon, raked aft).
        let funnels = count(&mut rng, 2, 3);
        for f in 0..funnels {
            let fx = -0.05 * length - 5.0 * f as Real;
            b.frustum(Frustum {
                c: Vector::new(fx, deck + 5.5, 0.0),
                axis: Vector::new(-0.15, 1.0, 0.0).normalize(),
                r0: 1.5,
                r1: 1.3,
                half_len: 3.5,
                sides: 12,
            })?;
        }
        // Masts and yards.
        for mx in [0.2 * length, -0.3 * length] {
            b.cuboid(
                Vector::new(mx, deck + 8.0, 0.0),
                Vector::new(0.2, 8.0, 0.2),
                0.0,
            )?;
            b.cuboid(
                Vector::new(mx, deck + 13.0, 0.0),
                Vector::new(0.12, 0.12, 0.7 * half_beam),
                0.0,
            )?;
        }
        // Main turrets fore and aft, each with 2–3 barrels (8-gon prisms).
        let turrets = count(&mut rng, 3, 5);
        for t in 0..turrets {
            let fore = t % 2 == 0;
            let rank = (t / 2) as Real;
            let tx = if fore {
                0.3 * length + 6.0 * rank
            } else {
                -0.38 * length - 6.0 * rank
            };
            let tx = tx.clamp(-0.42 * length, 0.42 * length);
            let ty = deck + 1.0 + 1.2 * rank;
            b.frustum(Frustum {
                c: Vector::new(tx, ty, 0.0),
                axis: Vector::Y,
                r0: 2.4,
                r1: 1.9,
                half_len: 1.0,
                sides: 8,
            })?;
            let barrels = count(&mut rng, 2, 3);
            let dir = if fore { 1.0 } else { -1.0 };
            let elevation = lerp(&mut rng, 0.0, 0.25);
            let axis = Vector::new(dir, elevation, 0.0).normalize();
            for k in 0..barrels {
                let z = 0.6 * (k as Real - 0.5 * (barrels - 1) as Real);
                b.frustum(Frustum {
                    c: Vector::new(tx, ty + 0.3, z) + 4.0 * axis,
                    axis,
                    r0: 0.22,
                    r1: 0.16,
                    half_len: 3.0,
                    sides: 8,
                })?;
            }
        }
        // Secondary mounts along both sides, each a box with a barrel.
        let secondaries = count(&mut rng, 8, 16);
        for k in 0..secondaries {
            let side = if k % 2 == 0 { 1.0 } else { -1.0 };
            let sx = -0.2 * length + 0.4 * length * (k / 2) as Real / (secondaries / 2) as Real;
            let sz = side * 0.7 * section(sx).0;
            b.cuboid(
                Vector::new(sx, deck + 0.6, sz),
                Vector::new(0.8, 0.6, 0.7),
                0.0,
            )?;
            let axis = Vector::new(0.3, 0.1, side).normalize();
            b.frustum(Frustum {
                c: Vector::new(sx, deck + 0.8, sz) + 1.6 * axis,
                axis,
                r0: 0.1,
                r1: 0.08,
                half_len: 1.2,
                sides: 8,
            })?;
        }
        // Lifeboats on davits (a small lofted hull each: 12 vertices).
        let boats = count(&mut rng, 6, 10);
        for k in 0..boats {
            let side = if k % 2 == 0 { 1.0 } else { -1.0 };
            let bx = -0.15 * length + 2.8 * (k / 2) as Real;
            let bz = side * 0.85 * section(bx).0;
            let mut pts = Vec::with_capacity(12);
            for (x, w) in [(-1.6, 0.3), (-1.0, 0.7), (1.0, 0.7), (1.6, 0.3)] {
                for (z, y) in [(-w, 0.6), (0.0, 0.0), (w, 0.6)] {
                    pts.push(Vector::new(bx + x, deck + 2.5 + y, bz + z));
                }
            }
            b.add(pts)?;
        }
        // Bollards (8-gon posts) along both rails.
        let bollards = count(&mut rng, 10, 20);
        for k in 0..bollards {
            let side = if k % 2 == 0 { 1.0 } else { -1.0 };
            let bx = -0.42 * length + 0.84 * length * (k / 2) as Real / (bollards / 2) as Real;
            let bz = side * (section(bx).0 - 0.5).max(0.2);
            b.frustum(Frustum::upright(
                Vector::new(bx, deck + 0.4, bz),
                0.2,
                0.4,
                8,
            ))?;
        }
        // Vents (8-gon), searchlights and crates (boxes).
        let vents = count(&mut rng, 6, 12);
        for _ in 0..vents {
            let vx = lerp(&mut rng, -0.35, 0.35) * length;
            let vz = lerp(&mut rng, -0.5, 0.5) * section(vx).0;
            b.frustum(Frustum::upright(
                Vector::new(vx, deck + 0.8, vz),
                0.35,
                0.8,
                8,
            ))?;
        }
        let lights = count(&mut rng, 4, 8);
        for k in 0..lights {
            let side = if k % 2 == 0 { 1.0 } else { -1.0 };
            b.cuboid(
                Vector::new(
                    bridge_x - 1.0 + 0.7 * (k / 2) as Real,
                    deck + 6.6,
                    side * 1.0,
                ),
                Vector::new(0.25, 0.25, 0.25),
                lerp(&mut rng, 0.0, 1.5),
            )?;
        }
        let crates = count(&mut rng, 6, 12);
        for _ in 0..crates {
            let cx = lerp(&mut rng, -0.4, 0.4) * length;
            let cz = lerp(&mut rng, -0.6, 0.6) * section(cx).0;
            let h = lerp(&mut rng, 0.3, 0.6);
            b.cuboid(
                Vector::new(cx, deck + h, cz),
                Vector::splat(h),
                lerp(&mut rng, 0.0, 1.5),
            )?;
        }
        // Anchors at the bow, a rudder, propeller shafts under the stern.
        for side in [-1.0, 1.0] {
            let ax = 0.42 * length;
            b.cuboid(
                Vector::new(ax, 0.6 * depth, side * (section(ax).0 + 0.15)),
                Vector::new(0.5, 0.6, 0.15),
                0.0,
            )?;
        }
        let stern = -0.46 * length;
        b.cuboid(
            Vector::new(stern, section(stern).1 + 0.8, 0.0),
            Vector::new(1.0, 1.2, 0.12),
            0.0,
        )?;
        for side in [-1.0, 1.0] {
            let sx = -0.36 * length;
            b.frustum(Frustum {
                c: Vector::new(sx, section(sx).1 + 0.5, side * 0.3 * section(sx).0),
                axis: Vector::new(1.0, 0.05, 0.0).normalize(),
                r0: 0.25,
                r1: 0.25,
                half_len: 3.0,
                sides: 8,
            })?;
        }
        Ok(b.finish(ObjectKind::Warship))
    }

    /// A crate: one box of half extents 0.3–1.2 m.
    ///
    /// # Errors
    /// As [`CompoundObject::warship`].
    pub fn crate_box(seed: u64) -> Result<Self, SyntheticObjectError> {
        let mut rng = SplitMix(seed ^ 0x00C0_A7E0_0002);
        let mut b = Builder::new();
        let h = Vector::new(
            lerp(&mut rng, 0.3, 1.2),
            lerp(&mut rng, 0.3, 1.2),
            lerp(&mut rng, 0.3, 1.2),
        );
        b.cuboid(Vector::ZERO, h, 0.0)?;
        Ok(b.finish(ObjectKind::Crate))
    }

    /// A rock: the hull of 8–30 points uniform on an ellipsoid of radii 0.4–2 m (points
    /// on a strictly convex surface are in convex position: every point is a vertex,
    /// unless two nearly coincide).
    ///
    /// # Errors
    /// As [`CompoundObject::warship`].
    pub fn rock(seed: u64) -> Result<Self, SyntheticObjectError> {
        let mut rng = SplitMix(seed ^ 0x0000_0A0C_0002);
        let mut b = Builder::new();
        let radii = Vector::new(
            lerp(&mut rng, 0.4, 2.0),
            lerp(&mut rng, 0.4, 1.5),
            lerp(&mut rng, 0.4, 2.0),
        );
        let n = count(&mut rng, 8, 30);
        let mut pts = Vec::with_capacity(n);
        while pts.len() < n {
            // A uniform direction: z uniform in [−1, 1], azimuth uniform (Archimedes).
            let z = lerp(&mut rng, -1.0, 1.0);
            let phi = lerp(&mut rng, 0.0, std::f64::consts::TAU as Real);
            let r = (1.0 - z * z).max(0.0).sqrt();
            pts.push(radii * Vector::new(r * phi.cos(), z, r * phi.sin()));
        }
        b.add(pts)?;
        Ok(b.finish(ObjectKind::Rock))
    }

    /// A vehicle: a body box, a cabin box and four 12-gon wheels (6 parts, 112 vertices),
    /// 3.5–5 m long.
    ///
    /// # Errors
    /// As [`CompoundObject::warship`].
    pub fn vehicle(seed: u64) -> Result<Self, SyntheticObjectError> {
        let mut rng = SplitMix(seed ^ 0x0000_CA12_0002);
        let mut b = Builder::new();
        let l = lerp(&mut rng, 1.75, 2.5);
        let w = lerp(&mut rng, 0.8, 1.0);
        let r = lerp(&mut rng, 0.35, 0.5);
        b.cuboid(Vector::new(0.0, r + 0.5, 0.0), Vector::new(l, 0.45, w), 0.0)?;
        b.cuboid(
            Vector::new(-0.2 * l, r + 1.35, 0.0),
            Vector::new(0.5 * l, 0.4, 0.9 * w),
            0.0,
        )?;
        for (sx, sz) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
            b.frustum(Frustum {
                c: Vector::new(sx * 0.7 * l, r, sz * (w + 0.1)),
                axis: Vector::Z,
                r0: r,
                r1: r,
                half_len: 0.12,
                sides: 12,
            })?;
        }
        Ok(b.finish(ObjectKind::Vehicle))
    }
}

/// Where in the synthetic terrain an object is put.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Region {
    /// Anywhere at least 10 m from the cliff's line and outside the skewed region (fBm
    /// ground, smoothed normals).
    Ordinary,
    /// Within 4 m of the cliff's line.
    Cliff,
    /// On or under the overhang strip: `x` from 14 m before to 2 m past its step
    /// (in sheared coordinates), `z` in its band.
    Overhang,
    /// Where the directions turn from the smoothed normals to the skewed direction
    /// (skew weight between 0.2 and 0.8): directions not parallel within a triangle,
    /// where the aligned plane is approximate (in the core of the skewed region, weight
    /// 1, they are all the skewed direction: parallel). In the heightfield mode, which
    /// has no skewed region, as [`Region::Overhang`].
    Skewed,
    /// The densest site for the object (most base triangles under its footprint).
    Dense,
}

/// How an object is put with respect to the ground under it (nominal: see the module
/// notes on heights).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    /// Its lowest point 0.3 m below to 0.1 m above the mean ground under it.
    Resting,
    /// Its lowest point 0.5–2 m below the mean ground under it (0.5–1.5 m for the
    /// warship).
    Sinking,
    /// Its lowest point 0.5–4 m above the highest ground under it.
    Flying,
}

/// An object of a frame, at a pose.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedObject {
    /// The object (shared between frames: the warship is generated once per scene).
    pub object: Arc<CompoundObject>,
    /// Local to world.
    pub pose: Pose,
    /// The region it was put in.
    pub region: Region,
    /// How it was put.
    pub placement: Placement,
}

impl PlacedObject {
    /// The parts' vertices in the world frame.
    pub fn world_parts(&self) -> Vec<Vec<Point>> {
        self.object.world_parts(&self.pose)
    }
}

/// Which frame of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// Table 4.4: a few small objects in turn over every region.
    Ordinary,
    /// Table 4.5: the warship alone at the densest site.
    Warship,
}

/// One frame: objects at poses over the terrain.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneFrame {
    /// Which frame.
    pub kind: FrameKind,
    /// Its index (with the scene's seed, what it was generated from).
    pub index: u64,
    /// The objects.
    pub objects: Vec<PlacedObject>,
}

/// The seeded scenes over one synthetic terrain: the warship (generated once) and the
/// frames.
#[derive(Debug, Clone)]
pub struct TerrainScene<'a> {
    terrain: &'a SyntheticTerrain,
    seed: u64,
    warship: Arc<CompoundObject>,
}

/// The regions small objects visit in turn.
const SMALL_REGIONS: [Region; 4] = [
    Region::Ordinary,
    Region::Cliff,
    Region::Overhang,
    Region::Skewed,
];

impl<'a> TerrainScene<'a> {
    /// The scene of `seed` over `terrain`.
    ///
    /// # Errors
    /// As [`CompoundObject::warship`].
    pub fn new(terrain: &'a SyntheticTerrain, seed: u64) -> Result<Self, SyntheticObjectError> {
        Ok(Self {
            terrain,
            seed,
            warship: Arc::new(CompoundObject::warship(seed)?),
        })
    }

    /// The warship every warship frame places.
    pub fn warship(&self) -> &Arc<CompoundObject> {
        &self.warship
    }

    /// The terrain's extent `(width along x, depth along z)` in metres.
    fn extent(&self) -> (Real, Real) {
        let c = &self.terrain.config;
        (
            c.cells_s as Real * c.cell_size,
            c.cells_t as Real * c.cell_size,
        )
    }

    /// Frame `index` of `kind` (see the module notes): a deterministic function of the
    /// scene's seed, `kind` and `index`.
    ///
    /// # Errors
    /// [`SyntheticObjectError::TerrainTooSmall`] when an object does not fit in the
    /// terrain; the errors of the object generators.
    pub fn frame(&self, kind: FrameKind, index: u64) -> Result<SceneFrame, SyntheticObjectError> {
        let tag = match kind {
            FrameKind::Ordinary => 0x0_0D1,
            FrameKind::Warship => 0x5_417,
        };
        let mut rng = SplitMix(
            self.seed
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .wrapping_add(index.wrapping_mul(0xD1B5_4A32_D192_ED03))
                ^ tag,
        );
        let mut objects = Vec::new();
        match kind {
            FrameKind::Warship => {
                let placement = Placement::Sinking;
                objects.push(self.place(
                    &mut rng,
                    self.warship.clone(),
                    Region::Dense,
                    placement,
                )?);
            }
            FrameKind::Ordinary => {
                let n = count(&mut rng, 4, 8);
                for k in 0..n {
                    let object_seed = rng.next();
                    let object = match rng.next() % 5 {
                        0 | 1 => CompoundObject::rock(object_seed)?,
                        2 | 3 => CompoundObject::crate_box(object_seed)?,
                        _ => CompoundObject::vehicle(object_seed)?,
                    };
                    let region = SMALL_REGIONS[(index as usize + k) % SMALL_REGIONS.len()];
                    let placement = match rng.next() % 4 {
                        0 | 1 => Placement::Resting,
                        2 => Placement::Sinking,
                        _ => Placement::Flying,
                    };
                    objects.push(self.place(&mut rng, Arc::new(object), region, placement)?);
                }
            }
        }
        Ok(SceneFrame {
            kind,
            index,
            objects,
        })
    }

    /// Puts `object` in `region` with `placement`.
    fn place(
        &self,
        rng: &mut SplitMix,
        object: Arc<CompoundObject>,
        region: Region,
        placement: Placement,
    ) -> Result<PlacedObject, SyntheticObjectError> {
        let (width, depth) = self.extent();
        let radius = object.ground_radius();
        let margin = radius + 1.0;
        if 2.0 * margin >= width.min(depth) {
            return Err(SyntheticObjectError::TerrainTooSmall {
                width,
                depth,
                radius,
            });
        }
        let surface = &self.terrain.surface;
        let clamp = |x: Real, z: Real| {
            (
                x.clamp(margin, width - margin),
                z.clamp(margin, depth - margin),
            )
        };
        let uniform = |rng: &mut SplitMix| {
            (
                lerp(rng, margin, width - margin),
                lerp(rng, margin, depth - margin),
            )
        };
        let (cliff_n, cliff_c) = surface.cliff_line();
        let cliff_distance = |x: Real, z: Real| (cliff_n[0] * x + cliff_n[1] * z - cliff_c).abs();
        let overhang = |rng: &mut SplitMix| {
            let (step, band) = surface.overhang_strip();
            let z = lerp(rng, band[0], band[1]);
            let y = surface.approximate_height(step, z);
            let x = step - surface.shear()[0] * y + lerp(rng, -14.0, 2.0);
            clamp(x, z)
        };
        let yaw = lerp(rng, 0.0, std::f64::consts::TAU as Real);
        let (x, z) = match region {
            Region::Ordinary => {
                let mut at = uniform(rng);
                for _ in 0..64 {
                    if cliff_distance(at.0, at.1) >= 10.0 && surface.skew_weight(at.0, at.1) <= 0.0
                    {
                        break;
                    }
                    at = uniform(rng);
                }
                at
            }
            Region::Cliff => {
                let along = [-cliff_n[1], cliff_n[0]];
                let z = lerp(rng, 0.15 * depth, 0.85 * depth);
                // The point of the line at this z, then an offset across it.
                let x0 = if cliff_n[0].abs() > 0.1 {
                    (cliff_c - cliff_n[1] * z) / cliff_n[0]
                } else {
                    0.5 * width
                };
                let off = lerp(rng, -4.0, 4.0);
                let slide = lerp(rng, -1.0, 1.0);
                clamp(
                    x0 + off * cliff_n[0] + slide * along[0],
                    z + off * cliff_n[1] + slide * along[1],
                )
            }
            Region::Overhang => overhang(rng),
            Region::Skewed => {
                if surface.shear() == [0.0, 0.0] {
                    overhang(rng)
                } else {
                    let mut found = None;
                    for _ in 0..1024 {
                        let at = uniform(rng);
                        if (0.2..=0.8).contains(&surface.skew_weight(at.0, at.1)) {
                            found = Some(at);
                            break;
                        }
                    }
                    match found {
                        Some(at) => at,
                        None => overhang(rng),
                    }
                }
            }
            Region::Dense => {
                let mut best = (uniform(rng), 0usize);
                for _ in 0..24 {
                    let at = uniform(rng);
                    let n = self.triangles_under(&object, at, yaw);
                    if n > best.1 {
                        best = (at, n);
                    }
                }
                best.0
            }
        };
        // Ground under the footprint: the centre and the rotated box's corners and
        // edge midpoints.
        let (lo, hi) = object.local_bounds();
        let rot = Rotation::from_rotation_y(yaw);
        let (mut sum, mut n, mut top) = (0.0, 0.0, Real::NEG_INFINITY);
        for fx in [0.0, 0.5, 1.0] {
            for fz in [0.0, 0.5, 1.0] {
                let local = Vector::new(lo.x + fx * (hi.x - lo.x), 0.0, lo.z + fz * (hi.z - lo.z));
                let w = rot * local;
                let g = surface.approximate_height(x + w.x, z + w.z);
                sum += g;
                n += 1.0;
                top = top.max(g);
            }
        }
        let mean = sum / n;
        let warship = object.kind == ObjectKind::Warship;
        let bottom = match placement {
            Placement::Resting => mean + lerp(rng, -0.3, 0.1),
            Placement::Sinking if warship => mean - lerp(rng, 0.5, 1.5),
            Placement::Sinking => mean - lerp(rng, 0.5, 2.0),
            Placement::Flying => top + lerp(rng, 0.5, 4.0),
        };
        // Small objects tilt (rocks any way), the warship pitches and rolls a little.
        let tilt_limit: Real = match object.kind {
            ObjectKind::Rock => 3.0,
            ObjectKind::Warship => 0.03,
            _ => 0.25,
        };
        let tilt = Rotation::from_rotation_x(lerp(rng, -tilt_limit, tilt_limit))
            * Rotation::from_rotation_z(lerp(rng, -tilt_limit, tilt_limit));
        let rotation = rot * tilt;
        // The lowest vertex after rotation goes to `bottom`.
        let low = object
            .parts
            .iter()
            .flatten()
            .map(|p| (rotation * *p).y)
            .fold(Real::INFINITY, Real::min);
        let pose = Pose::new(rotation, Vector::new(x, bottom - low, z))?;
        Ok(PlacedObject {
            object,
            pose,
            region,
            placement,
        })
    }

    /// The number of base triangles whose centroid (in `x, z`) is inside the footprint
    /// of `object` centred at `at` with `yaw`.
    fn triangles_under(&self, object: &CompoundObject, at: (Real, Real), yaw: Real) -> usize {
        let (lo, hi) = object.local_bounds();
        let inv = Rotation::from_rotation_y(-yaw);
        self.terrain
            .terrain
            .triangles()
            .iter()
            .filter(|t| {
                let c = t.base().base_point(1.0 / 3.0, 1.0 / 3.0);
                let local = inv * Vector::new(c.x - at.0, 0.0, c.z - at.1);
                (lo.x..=hi.x).contains(&local.x) && (lo.z..=hi.z).contains(&local.z)
            })
            .count()
    }
}
