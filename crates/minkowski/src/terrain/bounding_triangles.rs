//! The upper and lower bounding triangles of a bilinear patch (seed 002 §3.4.2,
//! Fig 3.4–3.6).
//!
//! A bilinear patch spans the skew quadrilateral `p00 p10 p11 p01`; the two ways of
//! cutting it into triangles along a diagonal give two pairs of triangles with the same
//! boundary, and the patch lies between them (both pairs are faces of the tetrahedron
//! `conv{p00, p01, p10, p11}`, which contains the patch). Which pair is on the facing
//! side is the thesis's rule (Fig 3.6): with `N` the normal of `Δp00 p01 p10`,
//!
//! ```text
//! N · (p11 − p00) > 0  →  Δp00 p11 p01 and Δp00 p11 p10   (diagonal p00–p11)
//! otherwise            →  Δp10 p01 p00 and Δp10 p01 p11   (diagonal p01–p10)
//! ```
//!
//! The thesis does not orient `N`: its example (`p00 = (0,0,1)`, `p01 = (1,0,1)`,
//! `p10 = (0,1,0.5)`, `p11 = (1,1,4)`, facing up) works with
//! `N = (p01 − p00) × (p10 − p00) = (0, 0.5, 1)`, pointing up. Here `N` is oriented to
//! the caller's facing direction `f` (`N · f ≥ 0`), so "the pair toward `f`" is what the
//! rule returns, as the thesis says ("if the facing direction is set downwards, the
//! bounding triangle type will be reversed").
//!
//! # What the rule guarantees (derived)
//!
//! Look along the facing direction `f`: project the corners onto a plane across `f`
//! (2D points `a', b', c'` for `a = p01 − p00`, `b = p10 − p00`, `c = p11 − p00`, and
//! heights `h_a, h_b, h_c` along `f̂`). When the projected quadrilateral
//! `p00 p10 p11 p01` is convex, its diagonals cross at `X = μ c' = (1 − ν) a' + ν b'`
//! (`μ, ν ∈ (0, 1)`), and expanding the determinant along the heights gives
//!
//! ```text
//! det(a, b, c) = (D / μ) (μ h_c − (1 − ν) h_a − ν h_b),    D = det(a', b') = (a × b) · f̂
//! ```
//!
//! so with `N = sign(D) (a × b)` (oriented to `f`), `N · c > 0` exactly when the
//! diagonal `p00–p11` is higher than `p01–p10` where they cross: the rule picks the
//! **upper side of the tetrahedron seen along `f`**, and every point `q` of the patch
//! lies under it (the ray `q + λ f`, `λ ≥ 0`, meets the pair; `λ ≤ 0` meets the
//! other). That is the thesis's claim, and its "trivial proof" assumes this convexity.
//!
//! When the projection along `f` is not convex (`p11` seen inside the triangle `p00 p01
//! p10`, or beyond `p00`: a patch folded over itself as seen from `f`, as on a cliff or
//! an overhang), the upper side of the tetrahedron is one or three faces, not the two of
//! a pair, and some rays `q + λ f` leave the tetrahedron through a face of the other
//! pair: the claim is false there (the tests show such a patch, and count them among
//! random patches). The thesis's own example is convex along `f = up` but not along `N`
//! (its `p11` projects beyond the edge `p00 p01` along `N`), so the claim is about the
//! facing direction, not `N`. What holds always is containment in the tetrahedron, which
//! is why the finest bounding volume ([`BilinearPatch`] as a support map) is the
//! tetrahedron and not a pair of triangles.

use super::bilinear_patch::BilinearPatch;
use crate::math::{Point, Vector};

/// The two bounding-triangle pairs of a [`BilinearPatch`] for a facing direction (see
/// the module notes), corners in the terrain's frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoundingTriangles {
    /// The pair on the facing side (the thesis's "bounding triangles" of an
    /// upward-facing patch when the facing direction is up).
    pub facing: [[Point; 3]; 2],
    /// The other pair, bounding the patch from the opposite side.
    pub opposite: [[Point; 3]; 2],
    /// `N`, the normal of `Δp00 p01 p10` oriented so that `N · f ≥ 0` (not normalised;
    /// zero when those three corners are collinear).
    pub normal: Vector,
    /// Whether the facing pair is the one on the diagonal `p00–p11` (`N · (p11 − p00)
    /// > 0`).
    pub diagonal_00_11: bool,
}

/// The bounding triangles of `patch` toward the facing direction `facing` (any length;
/// only its side matters), by the thesis's sign rule (§3.4.2, see the module notes).
/// A planar patch (`N · (p11 − p00) = 0`) gets the `p01–p10` pair as its facing pair;
/// both pairs then lie in its plane.
pub fn bounding_triangles(patch: &BilinearPatch, facing: Vector) -> BoundingTriangles {
    let BilinearPatch { p00, p01, p10, p11 } = *patch;
    let mut normal = (p01 - p00).cross(p10 - p00);
    if normal.dot(facing) < 0.0 {
        normal = -normal;
    }
    let pair_00_11 = [[p00, p11, p01], [p00, p11, p10]];
    let pair_01_10 = [[p10, p01, p00], [p10, p01, p11]];
    let diagonal_00_11 = normal.dot(p11 - p00) > 0.0;
    let (facing, opposite) = if diagonal_00_11 {
        (pair_00_11, pair_01_10)
    } else {
        (pair_01_10, pair_00_11)
    };
    BoundingTriangles {
        facing,
        opposite,
        normal,
        diagonal_00_11,
    }
}

impl BilinearPatch {
    /// [`bounding_triangles`] of this patch toward `facing`.
    pub fn bounding_triangles(&self, facing: Vector) -> BoundingTriangles {
        bounding_triangles(self, facing)
    }
}
