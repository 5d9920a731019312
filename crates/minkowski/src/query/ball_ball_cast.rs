//! The linear cast of two balls (shapes whose cores are points) in closed form.
//!
//! # The math
//!
//! The centres move as `a(t) = a₀ + v_A t` and `b(t) = b₀ + v_B t`; with `d₀ = b₀ − a₀`
//! and `r = v_B − v_A`, the balls are within `R` (the two radii plus the target
//! distance) of touching when `‖d₀ + t r‖ ≤ R`. That is a ray `t r` against a ball of
//! radius `R` centred at `−d₀`, the quadratic `‖r‖² t² + 2 (d₀·r) t + ‖d₀‖² − R² = 0`
//! (Ericson, *Real-Time Collision Detection*, §5.3.2 and §5.5.5 "intersecting moving
//! sphere against sphere"). Its first root is taken from the point of the line nearest
//! the origin, `t_c = −d₀·r / ‖r‖²`, `p = d₀ + t_c r`, half chord `h = √((R² − ‖p‖²) / ‖r‖²)`:
//! `t = t_c − h`. This form has no cancellation between `−b` and `√(b² − 4ac)` for a
//! grazing or a far-away ball (the textbook formula loses every digit of a short chord
//! seen from afar). The contact normal is `d(t)/‖d(t)‖`, the witnesses the centres
//! moved out along it by each radius.
//!
//! # The world-frame path
//!
//! A sphere has no orientation that matters, so [`cast_balls_world`] answers two of them in the world
//! frame directly: none of the general path's changes of frame (B's pose in A's, the
//! velocity into A's frame, the answer back out), which for two balls cost more than the
//! closed form itself. Problems below [`tolerance::RESCALE_BELOW`] are left to the
//! general path, which solves them scaled up.

// Negated comparisons (`!(x > 0.0)`) are meant: they send NaN to the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::cast::{CastEnd, CastInput, CastStart, LocalCast, ShapeCast};
use super::gjk::GjkStatus;
use crate::math::{Point, Real, Vector};
use crate::shape::Shape;
use crate::tolerance;

/// The cast of two point cores (balls once the margin is added): the first `t` in
/// `[0, max_toi]` with `‖b + t r − a‖ = margin`, `r = motion` (B's velocity relative to
/// A), in whatever frame `a`, `b` and `motion` share. `Within` when the points start
/// within `margin`; `Miss` when they never come within it, or do not approach. At a hit
/// the normal is the unit vector from `a` towards `b` moved to the time of impact,
/// `point_a` is `a`, `point_b` is `b + toi · r`.
#[inline(always)]
pub(crate) fn balls(a: Point, b: Point, motion: Vector, margin: Real, max_toi: Real) -> LocalCast {
    let d0 = b - a;
    let mut out = LocalCast {
        end: CastEnd::Miss,
        toi: 0.0,
        normal: Vector::ZERO,
        point_a: a,
        point_b: b,
        status: GjkStatus::Converged,
        iterations: 0,
    };
    if d0.length_squared() <= margin * margin {
        out.end = CastEnd::Within;
        return out;
    }
    let rr = motion.length_squared();
    // One reciprocal for the two quotients by ‖r‖² (each then within 1.5 ulp).
    let inv_rr = rr.recip();
    let tc = -d0.dot(motion) * inv_rr;
    if !(tc > 0.0) {
        // Not approaching (or not moving: NaN or infinite `tc` ends here or below).
        return out;
    }
    let p = d0 + motion * tc;
    let h2 = margin * margin - p.length_squared();
    if !(h2 >= 0.0) {
        return out;
    }
    let t = (tc - (h2 * inv_rr).sqrt()).max(0.0);
    if !(t <= max_toi) {
        return out;
    }
    let at = d0 + motion * t;
    out.end = CastEnd::Hit;
    out.toi = t;
    // `‖at‖` is the margin up to rounding of the offsets: then `at / margin` is the
    // normal (unit within 4 ε; `1 / margin` is worked out off the chain of dependent
    // square roots and divisions), checked by `‖at‖²` against `margin²`. Where it is
    // not — `at` carries the rounding of a far start, an ulp of `‖d₀‖` rather than of
    // the margin — a plain normalisation, unless `‖at‖²` is not a normal number (a
    // margin below 1e-19 in f32), then the scaled one.
    let l2 = at.length_squared();
    let m2 = margin * margin;
    out.normal = if (l2 - m2).abs() <= 8.0 * crate::math::EPSILON * m2 && m2 >= Real::MIN_POSITIVE {
        at * margin.recip()
    } else if l2 >= Real::MIN_POSITIVE && l2.is_finite() {
        at * l2.sqrt().recip()
    } else {
        crate::math::normalize_robust(at).unwrap_or_else(|| motion.normalize())
    };
    out.point_b = b + motion * t;
    out
}

/// The linear cast of `input` (both motions pure translations) when both shapes are
/// spheres, answered in the world frame with [`balls`]; `None` when a shape is not a
/// sphere (other point cores take the general path), or the problem is small enough for
/// the general path's rescaling (in size, or in relative velocity). `Some(Err(()))` when the balls start within the target
/// distance: the caller's start rules decide (a contact query at time 0).
#[inline]
pub(crate) fn cast_balls_world(input: &CastInput<'_>) -> Option<Result<ShapeCast, ()>> {
    let pair = &input.pair;
    // Matched on the shapes themselves, not through `Shape::core`: a sphere's core is
    // its centre, the pose's translation (no rotation to apply).
    let (Shape::Sphere(sa), Shape::Sphere(sb)) = (pair.a, pair.b) else {
        return None;
    };
    let (ma, mb) = (sa.radius(), sb.radius());
    let a0 = pair.pose_a.translation();
    let b0 = pair.pose_b.translation();
    if !((b0 - a0).abs().max_element() >= tolerance::RESCALE_BELOW) {
        return None;
    }
    let va = input.motion_a.linear;
    let v = input.motion_b.linear - va;
    // A tiny relative velocity (its square near or below underflow) takes the general
    // path, which solves it in a longer time unit (`cast::cast_in_time_unit`).
    let tiny = tolerance::RESCALE_VELOCITY_BELOW * tolerance::RESCALE_VELOCITY_BELOW;
    if v.length_squared() < tiny && v != Vector::ZERO {
        return None;
    }
    let margin = ma + mb + input.target_distance;
    let c = balls(a0, b0, v, margin, input.max_toi);
    if c.end == CastEnd::Within {
        return Some(Err(()));
    }
    // A hit or a miss, built once from scalars (a miss's fields are zero): the two
    // paths meet in registers, not in a temporary assembled by narrow stores and
    // copied out by wide loads (a store-forwarding stall per query).
    let hit = c.end == CastEnd::Hit;
    if hit && !super::cast::within_limit_at(input, c.toi) {
        // Past the coordinate limit: the general path's range rule decides.
        return None;
    }
    let zero_unless_hit = |v: Vector| if hit { v } else { Vector::ZERO };
    // `balls` moved B relative to A; both move by `va · toi` more in the world.
    let shift = va * c.toi;
    Some(Ok(ShapeCast {
        hit,
        toi: c.toi,
        normal: c.normal,
        point_a: zero_unless_hit(c.point_a + c.normal * ma + shift),
        point_b: zero_unless_hit(c.point_b - c.normal * mb + shift),
        start: CastStart::Separated,
        initial_distance: None,
        status: c.status.into(),
        iterations: c.iterations,
    }))
}
