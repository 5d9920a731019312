//! Multiresolution bounding volumes of one terrain quad by constrained optimisation
//! (seed 002, §3.5, Alg 8; objective Eq 3.18–3.19, constraints Eq 3.20–3.22).
//!
//! # Input
//!
//! A quad of `size × size` cells of the displacement map (`size` ∈ {16, 8, 4, 2}) given
//! by its `(size + 1)²` sample nodes, row-major (`index = t (size + 1) + s`): each node's
//! base position `p_j`, projection direction `r_j` (not normalised) and displacement
//! `l_j`; the surface point over it is `P_j = p_j + r_j l_j` (Eq 2.2).
//!
//! # One level (Alg 8's loop body)
//!
//! For a bounding size `b` (a power of two dividing `size`), the *bounding points* are
//! the nodes at multiples of `b`; each gets one variable per surface, its length `x_i`,
//! placing the bounding vertex at `p_i + r_i x_i`. Every `b × b` block of cells is a
//! *bounding cell*, split into two triangles per surface. The upper surface is solved
//! from `x = l + 5`, the lower from `l − 5` (Alg 8), each as
//!
//! ```text
//! minimise   Σ_i (x_i − l_i)²                                  (Eq 3.18–3.19)
//! subject to Q_j(x) = ((V1 − V0) × (V2 − V0)) · (P_j − V0) / |(p1 − p0) × (p2 − p0)| ≤ 0
//! ```
//!
//! for every sample node `j` and every bounding triangle `(V0, V1, V2)` whose cell
//! contains `j` in the map (boundary nodes belong to every cell and triangle that touch
//! them). `V_k = p_k + r_k x_k` are the triangle's bounding vertices (Eq 3.21), ordered so
//! that the normal points along `+r` for the upper surface (`Q ≤ 0`: the node is below
//! the triangle's plane) and along `−r` for the lower one. The division by the base
//! triangle's doubled area (a constant) is ours: it makes `Q_j` about a signed distance in
//! the caller's length units, so that one feasibility tolerance and one penalty fit every
//! quad. The gradients are Eq 3.22 (divided likewise). With `r = up` everywhere `Q_j` is
//! linear in `x` and the problem is a convex QP.
//!
//! Which diagonal splits a cell follows §3.4.2: with the corners' surface points, if
//! `P11` lies above the plane of `P00, P01, P10` (along `r`), the upper surface uses the
//! diagonal `00–11` and the lower `10–01`; otherwise the reverse. (The volume below is a
//! convex hull, so the choice only shapes the constraints.)
//!
//! # Bounds and iteration caps (§3.5.6–3.5.7)
//!
//! The thesis ran NLopt with infinite bounds because `[−100, 100]` looped forever when
//! the optimum lay beyond it. The solver here needs finite bounds, so each variable gets
//! `l_i ± H` with `H` well beyond any geometric need (see [`LENGTH_BOUND_FACTOR`]); an
//! answer within 1% of that bound is reported as [`SurfaceStatus::AtBound`], Fig 3.14's
//! extreme case, where the caller should use the finer level. Iterations are capped
//! ([`crate::optimize::CcsaOptions`]).
//!
//! # The volume, and lateral containment
//!
//! The volume of a bounding cell is the convex hull of its eight bounding vertices (four
//! upper, four lower; §3.5.1, Fig 3.12: convex volumes leave no gap between quads). A
//! point of the map is inside when it is inside that hull.
//!
//! The constraints only put each node on the inner side of two planes; with skewed
//! directions that does not keep it inside the hull *laterally* (the hull's side faces
//! are not constrained: a node whose `r` leans outwards can be below the roof and above
//! the floor and still outside). So every level is checked afterwards: each sample node
//! of each cell against the cell's hull, by brute force over the hull's facets in `f64`
//! (an independent test of what the optimiser promised). A node found outside is added
//! to that cell's volume as an extra hull vertex ([`VolumeLevel::extra_nodes`]): the hull
//! stays convex, now holds every node, and the storage grows by node indices only. Since
//! every point of a bilinear patch (Eq 3.5) is a convex combination of its four nodes,
//! holding the nodes holds the patches.
//!
//! # Precision
//!
//! The optimisation runs in `f64`. Lengths are then rounded to [`Real`] *outwards*
//! (upper up, lower down, by a few ulps of the lengths and the quad's scale), and the
//! containment check runs on the rounded lengths, so in `f32` too every node is inside
//! the stored volume up to [`CONTAINMENT_SLACK`].

// Dense numerical loops over parallel arrays read best with indices.
#![allow(clippy::needless_range_loop)]

use crate::math::{Point, Real, Vector};
use crate::optimize::{ccsa_minimize, CcsaError, CcsaOptions, CcsaProblem, CcsaStatus};
use crate::shape::{ConvexPolyhedron, ShapeError};
pub use crate::tolerance::{
    MULTIRES_CONTAINMENT_SLACK as CONTAINMENT_SLACK, MULTIRES_LENGTH_BOUND as LENGTH_BOUND_FACTOR,
};

/// Why a quad's volumes could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MultiresVolumeError {
    /// The quad size is not 2, 4, 8 or 16.
    #[error("quad size must be 2, 4, 8 or 16 cells, got {0}")]
    BadQuadSize(usize),
    /// The bounding size is not a power of two in `[2, size]`.
    #[error("bounding size must be a power of two in [2, {size}], got {bounding}")]
    BadBoundingSize {
        /// The quad's size.
        size: usize,
        /// The bounding size asked for.
        bounding: usize,
    },
    /// A slice does not have `(size + 1)²` entries.
    #[error("{what} has {got} entries, expected {expected}")]
    WrongLength {
        /// `"positions"`, `"directions"` or `"lengths"`.
        what: &'static str,
        /// `(size + 1)²`.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A coordinate or length is NaN or infinite.
    #[error("{what}[{index}] must be finite")]
    NonFinite {
        /// `"positions"`, `"directions"` or `"lengths"`.
        what: &'static str,
        /// The node.
        index: usize,
    },
    /// A direction is zero.
    #[error("directions[{0}] is zero")]
    ZeroDirection(usize),
    /// A bounding triangle's base is degenerate (collinear nodes): no plane to bound by.
    #[error("the base positions of a bounding triangle at node {0} are collinear")]
    DegenerateBase(usize),
    /// The solver refused its options.
    #[error("solver: {0}")]
    Solver(#[from] CcsaError),
    /// A cell's volume could not be built as a convex shape.
    #[error("cell volume: {0}")]
    Shape(#[from] ShapeError),
}

/// One quad's sample nodes, row-major (`index = t (size + 1) + s`), in the caller's
/// frame and length units.
#[derive(Debug, Clone, Copy)]
pub struct QuadSamples<'a> {
    /// Cells per side: 2, 4, 8 or 16.
    pub size: usize,
    /// Base positions `p_j`.
    pub positions: &'a [Point],
    /// Projection directions `r_j` (not normalised; lengths are relative to them).
    pub directions: &'a [Vector],
    /// Displacements `l_j` (relative to `|r_j|`).
    pub lengths: &'a [Real],
}

impl QuadSamples<'_> {
    fn side(&self) -> usize {
        self.size + 1
    }

    fn validate(&self) -> Result<(), MultiresVolumeError> {
        if !matches!(self.size, 2 | 4 | 8 | 16) {
            return Err(MultiresVolumeError::BadQuadSize(self.size));
        }
        let expected = self.side() * self.side();
        for (what, got) in [
            ("positions", self.positions.len()),
            ("directions", self.directions.len()),
            ("lengths", self.lengths.len()),
        ] {
            if got != expected {
                return Err(MultiresVolumeError::WrongLength {
                    what,
                    expected,
                    got,
                });
            }
        }
        for i in 0..expected {
            if !self.positions[i].is_finite() {
                return Err(MultiresVolumeError::NonFinite {
                    what: "positions",
                    index: i,
                });
            }
            if !self.directions[i].is_finite() {
                return Err(MultiresVolumeError::NonFinite {
                    what: "directions",
                    index: i,
                });
            }
            if !self.lengths[i].is_finite() {
                return Err(MultiresVolumeError::NonFinite {
                    what: "lengths",
                    index: i,
                });
            }
            if self.directions[i].length_squared() == 0.0 {
                return Err(MultiresVolumeError::ZeroDirection(i));
            }
        }
        Ok(())
    }

    fn p(&self, i: usize) -> [f64; 3] {
        let v = self.positions[i];
        [v.x as f64, v.y as f64, v.z as f64]
    }

    fn r(&self, i: usize) -> [f64; 3] {
        let v = self.directions[i];
        [v.x as f64, v.y as f64, v.z as f64]
    }

    /// The surface point `P_j = p_j + r_j l_j` in `f64`.
    fn surface(&self, i: usize) -> [f64; 3] {
        add(self.p(i), scale(self.r(i), self.lengths[i] as f64))
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

/// Which surface of a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// The upper bounding surface: every node below it (along `r`).
    Upper,
    /// The lower bounding surface: every node above it.
    Lower,
}

/// How one surface's optimisation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceStatus {
    /// The solver converged to a feasible optimum.
    Converged,
    /// A length ended within 1% of its bound: Fig 3.14's extreme case; the lengths are
    /// valid (feasible) but loose, and the finer level should be preferred here.
    AtBound,
    /// The solver stopped for another reason (its status is kept); the lengths are its
    /// last point, and the containment check below still decides what the volume holds.
    Stopped(CcsaStatus),
}

/// One constraint: sample node `node` against the triangle of bounding-point variables
/// `v` (ordered so the outward normal is first), scaled by `inv_area`.
#[derive(Debug, Clone, Copy)]
struct Constraint {
    node: usize,
    v: [usize; 3],
    inv_area: f64,
}

/// The optimisation problem of one surface of one level (Eq 3.18–3.22), as
/// [`volume_level`] hands it to the solver: variables are the bounding points' lengths
/// (row-major over the bounding points), constraints the scaled `Q_j` of the module
/// notes. Public so that other solvers can be run on exactly the same problem (the bench
/// crate compares NLopt's `LD_MMA` and `LD_CCSAQ` with [`ccsa_minimize`] on it).
#[derive(Debug, Clone)]
pub struct BoundingSurfaceProblem<'a> {
    quad: QuadSamples<'a>,
    surface: Surface,
    /// Node index of each bounding point.
    points: Vec<usize>,
    constraints: Vec<Constraint>,
    half_width: f64,
    /// `extent / shortest |r|`: the scale of the outward rounding.
    reach: f64,
}

impl<'a> BoundingSurfaceProblem<'a> {
    /// The problem of `surface` at bounding size `b` (a power of two in `[2, size]`).
    ///
    /// # Errors
    /// [`MultiresVolumeError`] for bad input (see [`QuadSamples`]), a bad `b`, or a
    /// bounding triangle whose base nodes are collinear.
    pub fn new(
        quad: &QuadSamples<'a>,
        b: usize,
        surface: Surface,
    ) -> Result<Self, MultiresVolumeError> {
        quad.validate()?;
        if !b.is_power_of_two() || b < 2 || b > quad.size {
            return Err(MultiresVolumeError::BadBoundingSize {
                size: quad.size,
                bounding: b,
            });
        }
        let side = quad.side();
        let cells = quad.size / b;
        let pps = cells + 1;
        let points: Vec<usize> = (0..pps * pps)
            .map(|i| (i / pps) * b * side + (i % pps) * b)
            .collect();
        // Geometric scale for the bounds.
        let mut lmin = f64::INFINITY;
        let mut lmax = f64::NEG_INFINITY;
        let mut rmin = f64::INFINITY;
        let (mut lo3, mut hi3) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for i in 0..side * side {
            let l = quad.lengths[i] as f64;
            lmin = lmin.min(l);
            lmax = lmax.max(l);
            rmin = rmin.min(norm(quad.r(i)));
            let p = quad.p(i);
            for k in 0..3 {
                lo3[k] = lo3[k].min(p[k]);
                hi3[k] = hi3[k].max(p[k]);
            }
        }
        let reach = norm(sub(hi3, lo3)) / rmin;
        let half_width = LENGTH_BOUND_FACTOR * (5.0_f64).max(lmax - lmin + reach);
        let mut constraints = Vec::new();
        for cy in 0..cells {
            for cx in 0..cells {
                let (vars, nodes) = cell_corners(quad, b, cx, cy);
                let diag = upper_diagonal_00_11(quad, nodes) == (surface == Surface::Upper);
                for (k, tri) in cell_triangles(diag).iter().enumerate() {
                    let mut v = tri.map(|c| vars[c]);
                    let tn = tri.map(|c| nodes[c]);
                    let base = cross(
                        sub(quad.p(tn[1]), quad.p(tn[0])),
                        sub(quad.p(tn[2]), quad.p(tn[0])),
                    );
                    let area2 = norm(base);
                    let up = add(add(quad.r(tn[0]), quad.r(tn[1])), quad.r(tn[2]));
                    let across = dot(base, up);
                    if area2 <= 0.0 || !area2.is_finite() || across == 0.0 {
                        return Err(MultiresVolumeError::DegenerateBase(tn[0]));
                    }
                    if (across > 0.0) != (surface == Surface::Upper) {
                        v.swap(1, 2);
                    }
                    for t in 0..=b {
                        for s in 0..=b {
                            if in_triangle(diag, k, s, t, b) {
                                constraints.push(Constraint {
                                    node: (cy * b + t) * side + cx * b + s,
                                    v,
                                    inv_area: 1.0 / area2,
                                });
                            }
                        }
                    }
                }
            }
        }
        Ok(BoundingSurfaceProblem {
            quad: *quad,
            surface,
            points,
            constraints,
            half_width,
            reach,
        })
    }

    /// Alg 8's start: `l_i + 5` (upper) or `l_i − 5` (lower).
    pub fn start(&self) -> Vec<f64> {
        let offset = self.offset();
        self.points
            .iter()
            .map(|&i| self.quad.lengths[i] as f64 + offset)
            .collect()
    }

    /// The bounds `l_i ± H` (see the module notes), as `(lower, upper)`.
    pub fn bounds(&self) -> (Vec<f64>, Vec<f64>) {
        let l = self.points.iter().map(|&i| self.quad.lengths[i] as f64);
        (
            l.clone().map(|v| v - self.half_width).collect(),
            l.map(|v| v + self.half_width).collect(),
        )
    }

    fn offset(&self) -> f64 {
        if self.surface == Surface::Upper {
            5.0
        } else {
            -5.0
        }
    }
}

impl CcsaProblem for BoundingSurfaceProblem<'_> {
    fn dimension(&self) -> usize {
        self.points.len()
    }

    fn constraint_count(&self) -> usize {
        self.constraints.len()
    }

    fn evaluate(&mut self, x: &[f64], values: &mut [f64], gradients: &mut [f64]) {
        let n = self.points.len();
        gradients.iter_mut().for_each(|g| *g = 0.0);
        values[0] = 0.0;
        for (i, &node) in self.points.iter().enumerate() {
            let d = x[i] - self.quad.lengths[node] as f64;
            values[0] += d * d;
            gradients[i] = 2.0 * d;
        }
        for (c, con) in self.constraints.iter().enumerate() {
            let nodes = con.v.map(|i| self.points[i]);
            let r = nodes.map(|k| self.quad.r(k));
            let vtx: [[f64; 3]; 3] =
                std::array::from_fn(|k| add(self.quad.p(nodes[k]), scale(r[k], x[con.v[k]])));
            let (e1, e2) = (sub(vtx[1], vtx[0]), sub(vtx[2], vtx[0]));
            let pj = sub(self.quad.surface(con.node), vtx[0]);
            let nrm = cross(e1, e2);
            let s = con.inv_area;
            values[c + 1] = dot(nrm, pj) * s;
            let row = &mut gradients[(c + 1) * n..(c + 2) * n];
            // Eq 3.22.
            let d0 = dot(sub(scale(cross(r[0], e2), -1.0), cross(e1, r[0])), pj) - dot(nrm, r[0]);
            let d1 = dot(cross(r[1], e2), pj);
            let d2 = dot(cross(e1, r[2]), pj);
            row[con.v[0]] += d0 * s;
            row[con.v[1]] += d1 * s;
            row[con.v[2]] += d2 * s;
        }
    }
}

/// The volumes of one bounding size of a quad.
#[derive(Debug, Clone, PartialEq)]
pub struct VolumeLevel {
    /// The bounding size `b` (cells per bounding cell side).
    pub bounding_size: usize,
    /// Bounding points per side, `size / b + 1`.
    pub points_per_side: usize,
    /// Upper lengths per bounding point, row-major over the bounding points.
    pub upper: Vec<Real>,
    /// Lower lengths, likewise.
    pub lower: Vec<Real>,
    /// How the upper surface's optimisation ended.
    pub upper_status: SurfaceStatus,
    /// How the lower surface's optimisation ended.
    pub lower_status: SurfaceStatus,
    /// The optimal objectives `Σ (x_i − l_i)²` (upper, lower), in `f64` before rounding.
    pub objectives: (f64, f64),
    /// Outer CCSA iterations (upper, lower).
    pub iterations: (usize, usize),
    /// Sample nodes that the containment check found outside their cell's hull of
    /// bounding vertices, as `(cell index, node index)`; each is added to that cell's
    /// volume. Empty in every case the thesis's constraints suffice (in particular with
    /// parallel directions).
    pub extra_nodes: Vec<(usize, usize)>,
}

/// Every level of one quad, stored as in Fig 3.13: a header per level (resolution and
/// offset), then the lengths from upper to lower, each from the coarsest level to the
/// finest.
#[derive(Debug, Clone, PartialEq)]
pub struct QuadVolumes {
    /// Cells per side of the quad.
    pub size: usize,
    /// Per level, coarsest first: `(bounding size, offset of its upper lengths in
    /// lengths)`; its lower lengths start at `offset + lower_start`.
    pub header: Vec<(usize, usize)>,
    /// Where the lower block starts in `lengths` (the total count of upper lengths).
    pub lower_start: usize,
    /// All upper lengths (coarsest level first), then all lower lengths (likewise).
    pub lengths: Vec<Real>,
    /// The levels with their statuses and extra nodes, coarsest first.
    pub levels: Vec<VolumeLevel>,
}

/// Builds Alg 8's volumes of one quad at every bounding size from
/// `min(coarsest, size)` down to 2, halving, with the default solver options.
///
/// # Errors
/// [`MultiresVolumeError`] for bad input (sizes, lengths, non-finite values, zero
/// directions, collinear base triangles).
pub fn quad_volumes(
    quad: &QuadSamples<'_>,
    coarsest: usize,
) -> Result<QuadVolumes, MultiresVolumeError> {
    quad.validate()?;
    let mut b = coarsest.min(quad.size);
    if !b.is_power_of_two() || b < 2 {
        return Err(MultiresVolumeError::BadBoundingSize {
            size: quad.size,
            bounding: coarsest,
        });
    }
    let mut levels = Vec::new();
    while b >= 2 {
        levels.push(volume_level(quad, b, &CcsaOptions::default())?);
        b /= 2;
    }
    let mut header = Vec::new();
    let mut lengths = Vec::new();
    for l in &levels {
        header.push((l.bounding_size, lengths.len()));
        lengths.extend_from_slice(&l.upper);
    }
    let lower_start = lengths.len();
    for l in &levels {
        lengths.extend_from_slice(&l.lower);
    }
    Ok(QuadVolumes {
        size: quad.size,
        header,
        lower_start,
        lengths,
        levels,
    })
}

/// The diagonal of a bounding cell's upper surface (§3.4.2): true for `00–11`.
fn upper_diagonal_00_11(quad: &QuadSamples<'_>, c: [usize; 4]) -> bool {
    // c = [00, 10, 01, 11] node indices.
    let [p00, p10, p01, p11] = c.map(|i| quad.surface(i));
    let up = add(
        add(quad.r(c[0]), quad.r(c[1])),
        add(quad.r(c[2]), quad.r(c[3])),
    );
    let mut nrm = cross(sub(p10, p00), sub(p01, p00));
    if dot(nrm, up) < 0.0 {
        nrm = scale(nrm, -1.0);
    }
    dot(nrm, sub(p11, p00)) > 0.0
}

/// The bounding-point indices (into the level's variables) of cell `(cx, cy)`:
/// `[00, 10, 01, 11]`, and the node indices.
fn cell_corners(
    quad: &QuadSamples<'_>,
    b: usize,
    cx: usize,
    cy: usize,
) -> ([usize; 4], [usize; 4]) {
    let pps = quad.size / b + 1;
    let vars = [
        cy * pps + cx,
        cy * pps + cx + 1,
        (cy + 1) * pps + cx,
        (cy + 1) * pps + cx + 1,
    ];
    let side = quad.side();
    let (s0, t0) = (cx * b, cy * b);
    let nodes = [
        t0 * side + s0,
        t0 * side + s0 + b,
        (t0 + b) * side + s0,
        (t0 + b) * side + s0 + b,
    ];
    (vars, nodes)
}

/// The triangles of a cell's surface, as corner slots into `[00, 10, 01, 11]`, and the
/// test of whether a local `(u, v)` (in `[0, b]²`, integers) lies in each (closed).
fn cell_triangles(diag_00_11: bool) -> [[usize; 3]; 2] {
    if diag_00_11 {
        [[0, 1, 3], [0, 3, 2]]
    } else {
        [[0, 1, 2], [1, 3, 2]]
    }
}

fn in_triangle(diag_00_11: bool, k: usize, u: usize, v: usize, b: usize) -> bool {
    match (diag_00_11, k) {
        (true, 0) => u >= v,
        (true, _) => v >= u,
        (false, 0) => u + v <= b,
        (false, _) => u + v >= b,
    }
}

/// Alg 8's body for one bounding size `b` of one quad: both surfaces optimised, lengths
/// rounded outwards to [`Real`], every node checked against its cell's hull.
///
/// # Errors
/// [`MultiresVolumeError`] for bad input.
pub fn volume_level(
    quad: &QuadSamples<'_>,
    b: usize,
    options: &CcsaOptions,
) -> Result<VolumeLevel, MultiresVolumeError> {
    quad.validate()?;
    if !b.is_power_of_two() || b < 2 || b > quad.size {
        return Err(MultiresVolumeError::BadBoundingSize {
            size: quad.size,
            bounding: b,
        });
    }
    let pps = quad.size / b + 1;
    let mut volumes = [Vec::new(), Vec::new()];
    let mut statuses = [SurfaceStatus::Converged; 2];
    let mut objectives = [0.0; 2];
    let mut iterations = [0; 2];
    for (si, surface) in [Surface::Upper, Surface::Lower].into_iter().enumerate() {
        let mut problem = BoundingSurfaceProblem::new(quad, b, surface)?;
        let (offset, half_width, reach) = (problem.offset(), problem.half_width, problem.reach);
        let l: Vec<f64> = problem
            .points
            .iter()
            .map(|&i| quad.lengths[i] as f64)
            .collect();
        let x0 = problem.start();
        let (lower, upper) = problem.bounds();
        let result = ccsa_minimize(&mut problem, &x0, &lower, &upper, options)?;
        let at_bound = result
            .x
            .iter()
            .zip(&l)
            .any(|(x, l)| (x - l).abs() >= 0.99 * half_width);
        statuses[si] = match result.status {
            CcsaStatus::Converged if at_bound => SurfaceStatus::AtBound,
            CcsaStatus::Converged => SurfaceStatus::Converged,
            other => SurfaceStatus::Stopped(other),
        };
        objectives[si] = result.objective;
        iterations[si] = result.iterations;
        // Outward rounding to Real.
        let ulp_scale = 8.0 * (crate::math::EPSILON as f64) * (1.0 + reach);
        volumes[si] = result
            .x
            .iter()
            .map(|&x| {
                let widened = x + offset.signum() * ulp_scale * (1.0 + x.abs());
                widened as Real
            })
            .collect();
    }
    let [upper, lower] = volumes;
    let mut level = VolumeLevel {
        bounding_size: b,
        points_per_side: pps,
        upper,
        lower,
        upper_status: statuses[0],
        lower_status: statuses[1],
        objectives: (objectives[0], objectives[1]),
        iterations: (iterations[0], iterations[1]),
        extra_nodes: Vec::new(),
    };
    level.extra_nodes = nodes_outside(quad, &level);
    Ok(level)
}

/// The eight bounding vertices of cell `cell` (row-major over the level's cells): upper
/// `00, 10, 01, 11`, then lower likewise, in the quad's frame.
pub fn cell_vertices(quad: &QuadSamples<'_>, level: &VolumeLevel, cell: usize) -> [Point; 8] {
    let cells = level.points_per_side - 1;
    let (vars, nodes) = cell_corners(quad, level.bounding_size, cell % cells, cell / cells);
    std::array::from_fn(|k| {
        let (len, c) = if k < 4 {
            (level.upper[vars[k]], k)
        } else {
            (level.lower[vars[k - 4]], k - 4)
        };
        quad.positions[nodes[c]] + quad.directions[nodes[c]] * len
    })
}

/// The convex volume of cell `cell`, for GJK: the hull of its eight bounding vertices
/// and of the sample nodes the containment check added to it.
///
/// # Errors
/// [`ShapeError`] from [`ConvexPolyhedron::new`] (coordinates beyond the shapes'
/// range).
pub fn cell_volume(
    quad: &QuadSamples<'_>,
    level: &VolumeLevel,
    cell: usize,
) -> Result<ConvexPolyhedron, ShapeError> {
    let mut pts = cell_vertices(quad, level, cell).to_vec();
    for &(c, node) in &level.extra_nodes {
        if c == cell {
            pts.push(quad.positions[node] + quad.directions[node] * quad.lengths[node]);
        }
    }
    ConvexPolyhedron::new(pts)
}

/// Whether `q` lies in the convex hull of `pts` (up to `slack`, a length), by brute force
/// over every plane through three of the points that has all of them on one side: `f64`,
/// independent of the hull builder. A flat or degenerate point set is treated by its
/// supporting planes only, so a point beside a flat hull's edge is reported outside.
pub fn hull_contains(pts: &[[f64; 3]], q: [f64; 3], slack: f64) -> bool {
    let n = pts.len();
    let mut any_plane = false;
    for a in 0..n {
        for b in a + 1..n {
            for c in b + 1..n {
                let nrm = cross(sub(pts[b], pts[a]), sub(pts[c], pts[a]));
                let len = norm(nrm);
                if len <= 1e-300 {
                    continue;
                }
                let u = scale(nrm, 1.0 / len);
                let h = dot(u, pts[a]);
                let (mut above, mut below) = (false, false);
                for p in pts {
                    let d = dot(u, *p) - h;
                    if d > slack {
                        above = true;
                    }
                    if d < -slack {
                        below = true;
                    }
                }
                if above && below {
                    continue;
                }
                any_plane = true;
                let d = dot(u, q) - h;
                if (!above && d > slack) || (!below && d < -slack) {
                    return false;
                }
                if !above && !below {
                    // A flat set: the point must be on its plane and inside every edge
                    // line of it that has all the points on one side.
                    if d.abs() > slack {
                        return false;
                    }
                    for e in 0..n {
                        for f in e + 1..n {
                            let w = cross(u, sub(pts[f], pts[e]));
                            let wl = norm(w);
                            if wl <= 1e-300 {
                                continue;
                            }
                            let w = scale(w, 1.0 / wl);
                            let he = dot(w, pts[e]);
                            let side = |p: [f64; 3]| dot(w, p) - he;
                            let pos = pts.iter().any(|p| side(*p) > slack);
                            let neg = pts.iter().any(|p| side(*p) < -slack);
                            if (pos && neg) || (!pos && !neg) {
                                continue;
                            }
                            let dq = side(q);
                            if (!pos && dq > slack) || (!neg && dq < -slack) {
                                return false;
                            }
                        }
                    }
                }
            }
        }
    }
    any_plane || pts.iter().any(|p| norm(sub(*p, q)) <= slack)
}

/// The sample nodes outside their cell's hull of bounding vertices at `level`, as
/// `(cell, node)`, by [`hull_contains`] with [`CONTAINMENT_SLACK`] times the quad's
/// size. Used by [`volume_level`] to fill [`VolumeLevel::extra_nodes`].
pub fn nodes_outside(quad: &QuadSamples<'_>, level: &VolumeLevel) -> Vec<(usize, usize)> {
    let side = quad.side();
    let b = level.bounding_size;
    let cells = level.points_per_side - 1;
    let mut size_scale: f64 = 0.0;
    for i in 0..side * side {
        size_scale = size_scale.max(norm(quad.p(i))).max(norm(quad.surface(i)));
    }
    for k in 0..level.upper.len() {
        let node = (k / level.points_per_side) * b * side + (k % level.points_per_side) * b;
        for len in [level.upper[k], level.lower[k]] {
            let r = scale(quad.r(node), len as f64);
            size_scale = size_scale.max(norm(add(quad.p(node), r)));
        }
    }
    let slack = CONTAINMENT_SLACK * size_scale.max(f64::MIN_POSITIVE);
    let mut out = Vec::new();
    for cy in 0..cells {
        for cx in 0..cells {
            let cell = cy * cells + cx;
            let verts =
                cell_vertices(quad, level, cell).map(|v| [v.x as f64, v.y as f64, v.z as f64]);
            for t in 0..=b {
                for s in 0..=b {
                    let node = (cy * b + t) * side + cx * b + s;
                    if !hull_contains(&verts, quad.surface(node), slack) {
                        out.push((cell, node));
                    }
                }
            }
        }
    }
    out
}
