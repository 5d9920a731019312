//! The bilinear patch: the terrain surface over one cell of the displacement map
//! (seed 002 §2.2.4, §3.4.1).
//!
//! Between samples the surface is the patch over the four forward-projected nodes of
//! a cell (Eq 3.5):
//!
//! ```text
//! p(a, b) = (1 − a)(1 − b) p00 + (1 − a) b p01 + a (1 − b) p10 + a b p11,  (a, b) ∈ [0, 1]²
//! ```
//!
//! with `p_ij` the node at `(s0 + i, t0 + j)`: `a` runs along `s`, `b` along `t`. Every
//! point is a convex combination of the corners (the weights are ≥ 0 and sum to 1), so
//! the patch lies in the tetrahedron `conv{p00, p01, p10, p11}`: its [`SupportMap`] is
//! that tetrahedron's, the finest bounding volume of §3.6 (Alg 12), usable by GJK as it
//! is.

use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// A bilinear patch (Eq 3.5) given by its corners `p00, p01, p10, p11` (see the module
/// notes), in the terrain's frame. As a [`SupportMap`] it is the tetrahedron of its
/// corners (a triangle or segment when they are coplanar or collinear), which contains
/// the patch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BilinearPatch {
    /// `p00` (at `a = 0, b = 0`).
    pub p00: Point,
    /// `p01` (at `a = 0, b = 1`).
    pub p01: Point,
    /// `p10` (at `a = 1, b = 0`).
    pub p10: Point,
    /// `p11` (at `a = 1, b = 1`).
    pub p11: Point,
}

impl BilinearPatch {
    /// The patch point at `(a, b)` (Eq 3.5), exact at the corners (each term is a
    /// product of weights `0` or `1` there). Meant for `(a, b) ∈ [0, 1]²`; outside it is
    /// the extrapolated hyperbolic paraboloid.
    pub fn point(&self, a: Real, b: Real) -> Point {
        let lower = (1.0 - a) * self.p00 + a * self.p10;
        let upper = (1.0 - a) * self.p01 + a * self.p11;
        (1.0 - b) * lower + b * upper
    }

    /// The partial derivatives `(∂p/∂a, ∂p/∂b)` at `(a, b)`.
    pub fn tangents(&self, a: Real, b: Real) -> (Vector, Vector) {
        let da = (1.0 - b) * (self.p10 - self.p00) + b * (self.p11 - self.p01);
        let db = (1.0 - a) * (self.p01 - self.p00) + a * (self.p11 - self.p10);
        (da, db)
    }

    /// The corners in the order `p00, p01, p10, p11`.
    pub fn corners(&self) -> [Point; 4] {
        [self.p00, self.p01, self.p10, self.p11]
    }
}

impl SupportMap for BilinearPatch {
    fn local_support(&self, dir: Vector) -> Point {
        let mut best = self.p00;
        let mut h = best.dot(dir);
        for p in [self.p01, self.p10, self.p11] {
            let hp = p.dot(dir);
            if hp > h {
                (best, h) = (p, hp);
            }
        }
        best
    }

    fn local_center(&self) -> Point {
        (self.p00 + self.p01 + self.p10 + self.p11) * 0.25
    }
}
