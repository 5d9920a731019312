//! The ray cast against a convex polyhedron by clipping the ray's line against its
//! face planes (Cyrus and Beck, "Generalized two- and three-dimensional clipping",
//! *Computers & Graphics* 3, 1978; Haines, "Fast ray–convex polyhedron intersection",
//! *Graphics Gems II*, 1991).
//!
//! # The math
//!
//! A solid convex polyhedron is the intersection of its faces' half-spaces
//! `n_i · x ≤ e_i` ([`crate::shape::ConvexPolyhedron`] stores them at construction). On
//! the line `o + t d` each one keeps
//!
//! * `t ≥ (e_i − n_i·o) / (n_i·d)` when `n_i·d < 0` (the line enters through that plane),
//! * `t ≤ (e_i − n_i·o) / (n_i·d)` when `n_i·d > 0` (it leaves through it),
//! * everything when `n_i·d = 0` and `n_i·o ≤ e_i`, nothing when `n_i·o > e_i`
//!   (parallel to the plane, inside or outside its half-space).
//!
//! The line's part inside is `[t_in, t_out]`, the latest entry and the earliest exit,
//! empty when `t_in > t_out`; the plane attaining `t_in` (`t_out`) is the face the line
//! enters (leaves) by, and its normal is the outward normal there — at an edge or a
//! vertex, one of the normals of the faces meeting there, each a supporting normal.
//! Unlike Haines, the scan has no early out at the first empty intersection and no
//! division per plane: it runs without branches on the planes' signs and compares the
//! times as fractions (see [`clip_span`]), which measured faster on 32-vertex hulls
//! (about 60 faces) than stopping early behind mispredicted branches.
//!
//! Each time is one division of rounded numbers; the planes themselves are the faces'
//! to rounding ([`crate::shape::ConvexPolyhedron`]'s plane notes). Rounded planes bound
//! the hull only where they meet at clear angles: where faces fold back on each other
//! (a hull flat to rounding, whose faces on both sides share one plane, bounds an
//! unbounded slab) their corners can lie far from the hull's. A hull keeps its planes
//! only when every corner provably lies within
//! [`PLANE_CLIP_DRIFT`](crate::tolerance::PLANE_CLIP_DRIFT) of its size from its vertex
//! (a few `ε` on ordinary hulls); the others go to the GJK ray cast.

// Negated comparisons (`!(x > 0.0)`) are meant: they send NaN to the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::ray::{LineSpan, Span};
use crate::math::{Point, Real, Vector};
use crate::shape::convex_polyhedron::FacePlane;

/// Where the line `o + t d` (`d ≠ 0`; the frame of the planes: the hull's local frame
/// moved to its centre, see `FacePlane`) runs inside the polyhedron bounded by `planes`
/// (non-empty): entry and exit times in units of `d` with the outward normals
/// of the faces crossed there, or `Err(())` when it misses. `None` when the clipping
/// cannot tell: no plane bounded the line on one side, which for a bounded polyhedron
/// only happens when every `n_i · d` rounds to zero or NaN (a direction of denormal
/// length); the caller then asks the GJK ray cast.
pub(crate) fn clip_span(planes: &[FacePlane], o: Point, d: Vector) -> Option<LineSpan> {
    // One pass without early outs or divisions: which way a line crosses each plane is
    // a coin toss for the branch predictor, so every plane is visited and the running
    // entry and exit are kept by selects, as fractions `num / den` compared by cross
    // multiplication (for two entering planes both `den < 0`, so
    // `num/den > bn/bd ⇔ num·bd > bn·den`; for two leaving planes both `den > 0`, so
    // `num/den < xn/xd ⇔ num·xd < xn·den`). The starts `1 / −0 = −∞` and `1 / +0 = +∞`
    // lose every comparison: `num·(∓0) = ±0` against `den`'s sign.
    let (mut bn, mut bd, mut i_in) = (1.0, -0.0, 0);
    let (mut xn, mut xd, mut i_out) = (1.0, 0.0, 0);
    let mut outside = false;
    for (i, p) in planes.iter().enumerate() {
        let num = p.offset - p.normal.dot(o);
        let den = p.normal.dot(d);
        if (den < 0.0) & (num * bd > bn * den) {
            (bn, bd, i_in) = (num, den, i);
        }
        if (den > 0.0) & (num * xd < xn * den) {
            (xn, xd, i_out) = (num, den, i);
        }
        // Parallel to the plane, outside its half-space.
        outside |= (den == 0.0) & (num < 0.0);
    }
    let (t_in, t_out): (Real, Real) = (bn / bd, xn / xd);
    if outside || t_in > t_out {
        return Some(Err(()));
    }
    // A bounded polyhedron bounds every line at both ends.
    if !(t_in.is_finite() && t_out.is_finite()) {
        return None;
    }
    Some(Ok(Some(Span {
        t_in,
        n_in: planes[i_in].normal,
        t_out,
        n_out: planes[i_out].normal,
    })))
}
