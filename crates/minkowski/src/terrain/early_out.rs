//! Early-out planes of a base triangle (seed 002 §2.6, §3.3.1, Alg 6, Fig 3.2–3.3).
//!
//! Two planes parallel to the base triangle bound its forward-projected surface: with
//! `N̂b` the unit normal of the base plane, oriented toward the projection directions
//! (`N_i · N̂b > 0`), the *height* of a point is `h(x) = (x − P0) · N̂b`, and the planes
//! are `h = upper` and `h = lower`, the max and min of the heights of the surface's
//! samples. A point with `h > upper` cannot be under the surface of this triangle; a
//! shape wholly above `upper` need not be tested against it (§2.6).
//!
//! # Which samples (Alg 6 and where this departs from it)
//!
//! The thesis takes the samples inside the triangle, then *boundary samples*: where an
//! edge of the triangle crosses a row or column of the map, the displacement
//! interpolated between the inside sample and its outside neighbour, so that a cliff in
//! the neighbouring primitive raises the plane (Fig 3.2; an edge along `s` or `t` has its
//! samples on it and needs none, Fig 3.3).
//!
//! In a [`crate::terrain::QuadLayout`] the triangles' edges along the quad's sides lie on
//! rows and columns of nodes, and the diagonal passes through nodes: every boundary
//! point of Alg 6 is a node. But the surface between samples is made of bilinear patches
//! (Eq 3.5), and the patches of the cells the diagonal cuts reach the node on the far
//! side of the diagonal (the other triangle's sample): a patch's height is a bilinear
//! function of the cell coordinates, and along the diagonal it is quadratic, so its
//! maximum over the triangle's half of the cell can exceed every node the thesis looks
//! at (a twisted cell next to a cliff). Here the samples are:
//!
//! 1. every node of every cell of the triangle ([`DisplacedTerrain::triangle_cells`]):
//!    the inside samples, and, for the cells the diagonal cuts, the outside neighbour
//!    at full weight instead of interpolated (the cliff samples of Fig 3.2), each
//!    forward-projected in its own triangle. A patch is a convex combination of its
//!    corners and `h` is affine, so every patch point is between the planes;
//! 2. per cell, a bound of the Eq 2.2 surface `p(u, v) + d n(u, v)` over the cell (what
//!    the point-in-terrain test compares against, [`DisplacedTerrain::locate`]): its
//!    height is `d · (n(u, v) · N̂b)` (the base point is in the plane), with `d` bilinear
//!    (between the cell's corner samples) and `n · N̂b` linear (between its values at
//!    the cell's corners); the products of the two ranges' ends bound it.
//!
//! The planes are then moved out by [`EARLY_OUT_SLACK`] times the problem's scale, so
//! that rounding in the forward projections does not put a computed surface point
//! outside.

use super::displaced_terrain::DisplacedTerrain;
use crate::bounding::Aabb;
use crate::math::{Point, Pose, Real, Vector};
use crate::support::SupportMap;
use crate::tolerance::EARLY_OUT_SLACK;

/// Where a point or a set is with respect to a triangle's [`EarlyOutPlanes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlaneSide {
    /// Wholly above the upper plane (`h > upper`): it cannot touch or be under this
    /// triangle's surface; skip the triangle.
    Above,
    /// Wholly below the lower plane (`h < lower`): under the surface wherever it is
    /// inside the triangle's prism (the prism is not checked here).
    Below,
    /// Touching the slab `lower ≤ h ≤ upper`: test it further.
    Straddling,
}

/// The early-out planes of one base triangle (see the module notes): heights measured
/// from `origin` along the unit `normal`, in the world frame and length units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EarlyOutPlanes {
    /// `P0`, the triangle's first vertex.
    pub origin: Point,
    /// The unit normal of the base plane, toward the projection directions.
    pub normal: Vector,
    /// The upper plane's height.
    pub upper: Real,
    /// The lower plane's height (`≤ upper`).
    pub lower: Real,
}

impl EarlyOutPlanes {
    /// The height `(x − origin) · normal` of a point (length units).
    pub fn height(&self, x: Point) -> Real {
        (x - self.origin).dot(self.normal)
    }

    /// Which side of the planes `x` is on ([`PlaneSide::Straddling`]: between them, or
    /// on one).
    pub fn classify_point(&self, x: Point) -> PlaneSide {
        self.side(self.height(x), self.height(x))
    }

    fn side(&self, low: Real, high: Real) -> PlaneSide {
        if low > self.upper {
            PlaneSide::Above
        } else if high < self.lower {
            PlaneSide::Below
        } else {
            PlaneSide::Straddling
        }
    }

    /// Which side of the planes a convex shape at `pose` is on, from two support calls
    /// (its lowest and highest points along the normal).
    pub fn classify_shape<S: SupportMap + ?Sized>(&self, shape: &S, pose: &Pose) -> PlaneSide {
        let local = pose.inverse_transform_vector(self.normal);
        let high = self.height(pose.transform_point(shape.local_support(local)));
        let low = self.height(pose.transform_point(shape.local_support(-local)));
        self.side(low, high)
    }

    /// Which side of the planes an axis-aligned box (world frame) is on.
    pub fn classify_aabb(&self, aabb: &Aabb) -> PlaneSide {
        let centre = self.height(aabb.center());
        let reach = aabb.half_extents().dot(self.normal.abs());
        self.side(centre - reach, centre + reach)
    }
}

fn interval_product(a: [Real; 2], b: [Real; 2]) -> [Real; 2] {
    let p = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]];
    [
        p.iter().copied().fold(Real::INFINITY, Real::min),
        p.iter().copied().fold(Real::NEG_INFINITY, Real::max),
    ]
}

impl DisplacedTerrain {
    /// The early-out planes of triangle `triangle` (Alg 6 with the departures in
    /// [`crate::terrain::early_out`]'s notes), or `None` for an index out of range.
    /// Costs a forward projection per node of the triangle's cells.
    pub fn early_out_planes(&self, triangle: usize) -> Option<EarlyOutPlanes> {
        let tri = self.triangles().get(triangle)?;
        let base = tri.base();
        let origin = base.vertices()[0];
        let mut normal = base.base_normal().normalize_or_zero();
        if base.directions()[0].dot(normal) < 0.0 {
            normal = -normal;
        }
        let quad = tri.quad();
        let (mut lower, mut upper) = (Real::INFINITY, Real::NEG_INFINITY);
        let mut scale = origin.abs().max_element();
        for [i, j] in self.triangle_cells(triangle) {
            let mut d_range = [Real::INFINITY, Real::NEG_INFINITY];
            let mut c_range = [Real::INFINITY, Real::NEG_INFINITY];
            for (di, dj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let (ni, nj) = (i + di, j + dj);
                // 1. The node, forward-projected in its own triangle of the quad.
                let x = self.node_point(quad, ni, nj)?;
                let h = (x - origin).dot(normal);
                lower = lower.min(h);
                upper = upper.max(h);
                scale = scale.max((x - origin).length());
                // 2. The Eq 2.2 surface's factors at the corner, with this triangle's
                // (linearly extended) direction.
                let d = self.map().sample(ni as usize, nj as usize)?;
                let (u, v) = tri.parameters(ni as Real, nj as Real);
                let c = base.direction(u, v).dot(normal);
                d_range = [d_range[0].min(d), d_range[1].max(d)];
                c_range = [c_range[0].min(c), c_range[1].max(c)];
            }
            let [lo, hi] = interval_product(d_range, c_range);
            lower = lower.min(lo);
            upper = upper.max(hi);
        }
        if !(lower.is_finite() && upper.is_finite()) {
            return None;
        }
        let slack = EARLY_OUT_SLACK * scale.max(upper.abs()).max(lower.abs());
        Some(EarlyOutPlanes {
            origin,
            normal,
            upper: upper + slack,
            lower: lower - slack,
        })
    }
}
