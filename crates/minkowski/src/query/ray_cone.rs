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
//! A steep line (its chord through the slab at most [`STEEP_CHORD`] times the cone's
//! size) is solved on that chord instead: with `u ∈ [0, 1]` from the chord's entry to
//! its exit, the radius of the cone's cross-section is `R(u) = R₀ + (R₁ − R₀) u`, exactly
//! `0` on the apex's plane and `r` on the base's, and `Q(u) = ‖H(u)‖² − R(u)²` (`H` the
//! horizontal offset) has coefficients of the cone's size. On the whole line a disc
//! (`k` in the thousands) has `k² (h − y)²` terms that dwarf `x² + z²` a little off the
//! slab, and in f32 their rounding moved a root into it.
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
    let cut = slab(o.y, d.y, h, Vector::Y).ok_or(())?;
    if let Some(c) = cut {
        let r = 2.0 * h * k;
        // Steep: the chord through the slab is at most a few of the cone's sizes.
        if (c.t_out - c.t_in) * d.length() <= STEEP_CHORD * (r + h) {
            return steep_span(o, d, c, r);
        }
    }
    let dd = d.dot(d);
    let t0 = -o.dot(d) / dd;
    let p0 = o + d * t0;
    let k2 = k * k;
    let w0 = h - p0.y;
    let a = d.x * d.x + d.z * d.z - k2 * d.y * d.y;
    let b = p0.x * d.x + p0.z * d.z + k2 * w0 * d.y;
    let c = p0.x * p0.x + p0.z * p0.z - k2 * w0 * w0;
    // The interval of Q ≤ 0 on the line, in the shifted parameter s = t − t0; for a
    // steep line, the lower nappe's half-line reaches y → −∞.
    let (s_lo, s_hi) = nonpositive(a, b, c, d.y < 0.0)?;
    let side = Span {
        t_in: t0 + s_lo,
        n_in: Vector::ZERO,
        t_out: t0 + s_hi,
        n_out: Vector::ZERO,
    };
    match intersect(Some(side), cut) {
        Some(s) if s.t_in <= s.t_out => Ok(Some(s)),
        _ => Err(()),
    }
}

/// How long (in units of the cone's `r + h`) a line's chord through the slab `|y| ≤ h`
/// may be for [`steep_span`] to answer. Beyond it the line is flat against the side
/// (`k |d_y| < |d| / 8`), so `a` in the module notes does not cancel and the quadric on
/// the whole line is well conditioned.
const STEEP_CHORD: Real = 8.0;

/// [`cone_span`] for a line whose chord `c` through the slab is short: the quadric is
/// solved on that chord, `u ∈ [0, 1]` from its entry to its exit, where the cone's
/// radius `R(u) = R_in + (R_out − R_in) u` is exact at both ends (`0` on the apex's
/// plane, `r` on the base's) and every coefficient is of the cone's size. On the whole
/// line a disc-like cone's `k² (h − y)²` dwarfs `x² + z²` a little off the slab
/// (`k` ≈ 8000 lost a ray 3300 from a cone of radius 108 to rounding in f32: the slab
/// kept a root that belonged outside it).
fn steep_span(o: Point, d: Vector, c: Span, r: Real) -> LineSpan {
    let (p_in, p_out) = (o + d * c.t_in, o + d * c.t_out);
    // Entering through the top (normal +y) is entering at the apex's plane.
    let radius = |n: Vector| if n.y > 0.0 { 0.0 } else { r };
    let (r_in, r_out) = (radius(c.n_in), radius(c.n_out));
    let h_in = Vector::new(p_in.x, 0.0, p_in.z);
    let e = Vector::new(p_out.x - p_in.x, 0.0, p_out.z - p_in.z);
    let f = r_out - r_in;
    let a = e.dot(e) - f * f;
    let b = h_in.dot(e) - r_in * f;
    let cc = h_in.dot(h_in) - r_in * r_in;
    // The lower nappe is where R grows: `u → +∞` when `f > 0`.
    let (lo, hi) = nonpositive(a, b, cc, f > 0.0)?;
    let (lo, hi) = (lo.max(0.0), hi.min(1.0));
    if !(lo <= hi) {
        return Err(());
    }
    let dt = c.t_out - c.t_in;
    let (t_in, n_in) = if lo <= 0.0 {
        (c.t_in, c.n_in)
    } else {
        (c.t_in + dt * lo, Vector::ZERO)
    };
    let (t_out, n_out) = if hi >= 1.0 {
        (c.t_out, c.n_out)
    } else {
        (c.t_in + dt * hi, Vector::ZERO)
    };
    Ok(Some(Span {
        t_in,
        n_in,
        t_out: t_out.max(t_in),
        n_out,
    }))
}

/// The interval where `a s² + 2 b s + c ≤ 0` (the module notes' three cases), in the
/// nappe whose half-line runs to `s → +∞` when `up` (else to `−∞`) for `a < 0`;
/// `Err(())` when it is empty.
fn nonpositive(a: Real, b: Real, c: Real, up: bool) -> Result<(Real, Real), ()> {
    if a == 0.0 {
        // 2bs + c ≤ 0. With b = 0 too, the line is a generator's parallel through the
        // apex's axis point: inside the double cone exactly when c ≤ 0.
        return if b == 0.0 {
            if !(c <= 0.0) {
                return Err(());
            }
            Ok((Real::NEG_INFINITY, Real::INFINITY))
        } else if b > 0.0 {
            Ok((Real::NEG_INFINITY, -c / (2.0 * b)))
        } else {
            Ok((-c / (2.0 * b), Real::INFINITY))
        };
    }
    let disc = b * b - a * c;
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
    Ok(if a > 0.0 {
        (s1, s2)
    } else if up {
        (s2, Real::INFINITY)
    } else {
        (Real::NEG_INFINITY, s1)
    })
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
