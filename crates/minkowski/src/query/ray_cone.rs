//! The ray cast against a cone in closed form: the line against the cone's quadric
//! side and its base plane, exact up to rounding, with the surface normal.
//!
//! # The math
//!
//! In the cone's local frame ([`crate::shape::Cone`]: apex `(0, h, 0)`, base disc of
//! radius `r` at `y = −h`) the solid cone is
//!
//! ```text
//! C = { (x, y, z) : |y| ≤ h,  x² + z² ≤ k² (h − y)² },   k = r / (2h) (the slope),
//! ```
//!
//! the part of the double cone `Q(x) = x² + z² − k² (h − y)² ≤ 0` in the slab `|y| ≤ h`:
//! the slab's top `y ≤ h` keeps the lower nappe only (the nappes meet at the apex), its
//! bottom is the base. On the line `p(s) = p₀ + s d`, with `w₀ = h − p₀.y`,
//!
//! ```text
//! Q(s) = a s² + 2 b s + c,   a = d_x² + d_z² − k² d_y²,
//!                             b = p₀ₓ d_x + p₀_z d_z + k² w₀ d_y,
//!                             c = p₀ₓ² + p₀_z² − k² w₀².
//! ```
//!
//! * `a > 0` (the line is flatter than the side): `Q ≤ 0` between the two roots, or
//!   nowhere when `b² − ac < 0`;
//! * `a < 0` (steeper): `Q ≤ 0` on two half-lines, one in each nappe; the lower nappe's
//!   is the one reaching `y → −∞`: `s ≤ s₁` when `d_y > 0`, `s ≥ s₂` when `d_y < 0`
//!   (the other half-line lies above the apex, and the slab removes it);
//! * `a = 0` (parallel to a generator): `2 b s + c ≤ 0`, a half-line.
//!
//! The roots come from the stable form `q = −(b + sign(b) √(b² − ac))`, `s = q/a` and
//! `c/q` (no cancellation between `b` and the root), and the line's parameter is first
//! moved to its point closest to the cone's centre, `p₀ = o + t₀ d`,
//! `t₀ = −o·d / d·d`, so that the coefficients are of the cone's size rather than of
//! the origin's distance (as [`super::ray`]'s sphere does, after Haines et al.,
//! "Precision improvements for ray/sphere intersection", *Ray Tracing Gems*, 2019).
//! The interval of `Q ≤ 0` is then intersected with the slab's (Kay and Kajiya 1986).
//!
//! The outward normal on the side is the gradient of `√(x² + z²) − k (h − y)`,
//! `(x/ρ, k, z/ρ) / √(1 + k²)` with `ρ = √(x² + z²)`; at the apex (`ρ = 0`) it is `+y`,
//! one of the apex's supporting normals. The base's is `−y`.
//!
//! Cones whose slope `k` or `1/k` exceeds [`CONE_RAY_MAX_SLOPE`] (needles and discs,
//! including the degenerate `h = 0` or `r = 0`) are left to the GJK ray cast: their
//! quadric's coefficients would overflow or lose the shape to rounding.

// Negated comparisons (`!(x >= 0.0)`) are meant: they send NaN to the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::ray::{intersect, slab, LineSpan, Span};
use crate::math::{Point, Real, Vector};
use crate::shape::Cone;
use crate::tolerance::CONE_RAY_MAX_SLOPE;

/// The cone's slope `k = r / 2h`, when the closed form applies to it (see the module
/// notes); `None` sends the cone to the GJK ray cast.
#[inline]
pub(crate) fn closed_form_slope(cone: &Cone) -> Option<Real> {
    let (h, r) = (cone.half_height(), cone.radius());
    let k = r / (2.0 * h);
    (k <= CONE_RAY_MAX_SLOPE && k * CONE_RAY_MAX_SLOPE >= 1.0).then_some(k)
}

/// Where the line `o + t d` (local frame, `d ≠ 0`) runs inside the cone of half height
/// `h` and slope `k` ([`closed_form_slope`]): entry and exit times in units of `d`,
/// each with its outward normal (zero on the side: [`side_normal`] computes it for the
/// end the answer uses), or `Err(())` when the line misses.
pub(crate) fn cone_span(o: Point, d: Vector, h: Real, k: Real) -> LineSpan {
    let dd = d.dot(d);
    let t0 = -o.dot(d) / dd;
    let p0 = o + d * t0;
    let k2 = k * k;
    let w0 = h - p0.y;
    let a = d.x * d.x + d.z * d.z - k2 * d.y * d.y;
    let b = p0.x * d.x + p0.z * d.z + k2 * w0 * d.y;
    let c = p0.x * p0.x + p0.z * p0.z - k2 * w0 * w0;
    let disc = b * b - a * c;
    // The interval of Q ≤ 0 on the line, in the shifted parameter s = t − t0.
    let (s_lo, s_hi) = if a == 0.0 {
        // 2bs + c ≤ 0. With b = 0 too, the line is a generator's parallel through the
        // apex's axis point: inside the double cone exactly when c ≤ 0.
        if b == 0.0 {
            if !(c <= 0.0) {
                return Err(());
            }
            (Real::NEG_INFINITY, Real::INFINITY)
        } else if b > 0.0 {
            (Real::NEG_INFINITY, -c / (2.0 * b))
        } else {
            (-c / (2.0 * b), Real::INFINITY)
        }
    } else {
        if a > 0.0 && !(disc >= 0.0) {
            return Err(());
        }
        // For a < 0 the discriminant is ≥ 0 in exact arithmetic (the line meets both
        // nappes); a rounded negative value is a double root.
        let root = disc.max(0.0).sqrt();
        let q = -(b + root.copysign(b));
        let (r1, r2) = if q == 0.0 {
            // b = 0 and a c = 0 with a ≠ 0: the double root 0.
            (0.0, 0.0)
        } else {
            (q / a, c / q)
        };
        let (s1, s2) = if r1 <= r2 { (r1, r2) } else { (r2, r1) };
        if a > 0.0 {
            (s1, s2)
        } else if d.y > 0.0 {
            (Real::NEG_INFINITY, s1)
        } else {
            (s2, Real::INFINITY)
        }
    };
    let side = Span {
        t_in: t0 + s_lo,
        n_in: Vector::ZERO,
        t_out: t0 + s_hi,
        n_out: Vector::ZERO,
    };
    let cut = slab(o.y, d.y, h, Vector::Y).ok_or(())?;
    match intersect(Some(side), cut) {
        Some(s) if s.t_in <= s.t_out => Ok(Some(s)),
        _ => Err(()),
    }
}

/// The outward unit normal of the cone's side at (or next to) the point `p` (local
/// frame) for slope `k`: `(x/ρ, k, z/ρ) / √(1 + k²)`, `+y` on the axis (the apex).
#[inline]
pub(crate) fn side_normal(p: Point, k: Real) -> Vector {
    let rho = (p.x * p.x + p.z * p.z).sqrt();
    if !(rho > 0.0) {
        return Vector::Y;
    }
    let n = Vector::new(p.x / rho, k, p.z / rho);
    n / (1.0 + k * k).sqrt()
}
