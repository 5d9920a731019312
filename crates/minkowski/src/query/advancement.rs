//! Time of impact under translation and rotation: conservative advancement.
//!
//! # The bound
//!
//! B. Mirtich, "Impulse-based dynamic simulation of rigid body systems", PhD thesis,
//! Berkeley 1996, §2.3 (and Bullet's `btContinuousConvexCollision`). A shape turning at
//! `ω` about its local origin `o`, which moves at `v`, moves each of its points `p` at
//! `v + ω × (p − o)`. Along a fixed unit axis `n` that speed is at most
//! `v·n + ‖ω × n‖ ρ`, with `ρ` the shape's bounding radius about `o`
//! ([`crate::shape::Shape::bounding_radius`]): `(ω × q)·n = q·(n × ω) ≤ ‖n × ω‖ ‖q‖`.
//! So the gap of the two shapes along `n`,
//!
//! ```text
//! g(t) = min_{b ∈ B(t)} n·b − max_{a ∈ A(t)} n·a,
//! ```
//!
//! which is a lower bound on their distance, shrinks at most at the rate
//! `μ_n = (v_A − v_B)·n + ‖ω_A × n‖ ρ_A + ‖ω_B × n‖ ρ_B`, and no contact within the target
//! distance `s` can happen before `t + (g(t) − s)/μ_n`. When `μ_n ≤ 0` the gap never
//! shrinks and the shapes never meet. Independently of any axis, the distance itself
//! shrinks at most at `‖v_A − v_B‖ + ‖ω_A‖ ρ_A + ‖ω_B‖ ρ_B` (each point moves at most that
//! fast), which bounds the step by GJK's certified lower bound on the distance.
//!
//! # The iteration
//!
//! ```text
//! t ← 0
//! loop (bounded)
//!     d, n ← distance and normal at t (GJK; certified lower bound ℓ ≤ d)
//!     d ≤ s + tol                       → hit at t (at t = 0: see the cast's start rules)
//!     g ← gap along n (two support calls)
//!     g > s and μ_n ≤ 0                  → miss (the gap along n never shrinks)
//!     Δ ← max((g − s)/μ_n, (ℓ − s)/μ)    both certified
//!     t ← t + Δ;  t > min(max_toi, T)    → miss
//!     origins receding, spheres apart    → miss
//! ```
//!
//! The last test: each shape lies within its bounding sphere about its origin, and the
//! origins move in straight lines (rotation is about the origin). Their distance
//! `‖Δp + Δv t‖` is convex in `t`, so once it is not decreasing (`Δv·(Δp + Δv t) ≥ 0`)
//! it never decreases again, and if the spheres are then further apart than `s` the
//! shapes never come within `s`. Without it, two turning shapes flying apart (the
//! rotation term keeps `μ_n > 0`) step geometrically further until the step bound,
//! and the bound's rule answered a "hit" at `t ≈ 1.7e49` (f64).
//!
//! `T` is the range horizon: the first time at which either shape's origin could leave
//! the coordinate range [`crate::shape::MAX_MAGNITUDE`] that every query is valid in.
//! Beyond it a pose cannot even be built ([`Pose::new`] refuses it), and the distances
//! computed there are rounding (two turning shapes flying apart under an infinite
//! `max_toi` once stepped to `t ≈ 2e19`, where the touching floor, relative to the
//! coordinates, exceeded their gap: a "hit" with NaN normal and witnesses).
//!
//! Every step is certified, so `t` is always a lower bound on the time of impact: the
//! routine never answers "no hit" for shapes that come within `s` in the interval (up to
//! the range horizon `T`, beyond which no pose exists), and a
//! run stopped by the step bound reports a hit at its certified `t`
//! ([`crate::query::QueryStatus::MaxIterations`]). Pure translation converges in a few
//! steps (the gap along the closest-point normal closes at exactly `μ_n`); rotation
//! converges linearly, at the ratio of the true approach speed to the bound.

// Negated comparisons (`!(x > 0.0)`) are meant: they send NaN to the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::cast::{start_within, CastInput, CastStart, ShapeCast};
use super::context::ShapePair;
use super::dispatch::{closest_points_with, contact_with, QueryOptions};
use super::gjk::GjkCache;
use super::QueryStatus;
use crate::math::{Pose, Real, Vector};
use crate::shape::Shape;
use crate::support::SupportMap;
use crate::tolerance;

/// How many distance queries conservative advancement runs at most.
pub const MAX_STEPS: u32 = 512;

/// The distance above the target at which conservative advancement stops, relative to
/// the smaller bounding radius of the two shapes (but at least a thousandth of the
/// larger): 1e-5 (f32) or 1e-7 (f64). Above GJK's own relative tolerance, so that every
/// step's distance is meaningful; in f64 it is also what keeps the linear convergence of
/// a turning pair within [`MAX_STEPS`] (the rotation bound `‖ω × n‖ ρ` overestimates the
/// approach of a ball spinning about its centre, for one, by the whole term).
#[cfg(not(minkowski_f64))]
pub const REL_TOLERANCE: Real = 1e-5;
/// The distance above the target at which conservative advancement stops, relative to
/// the smaller bounding radius (see the f32 build's notes): 1e-5 (f32) or 1e-7 (f64).
#[cfg(minkowski_f64)]
pub const REL_TOLERANCE: Real = 1e-7;

/// The separation of A and B along the unit axis `n` (world frame, from A towards B):
/// `min n·B − max n·A` (length; a lower bound on their distance when positive).
fn gap_along(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose, n: Vector) -> Real {
    let top_a = pose_a
        .transform_point(a.local_support(pose_a.inverse_transform_vector(n)))
        .dot(n);
    let bottom_b = pose_b
        .transform_point(b.local_support(pose_b.inverse_transform_vector(-n)))
        .dot(n);
    bottom_b - top_a
}

/// Conservative advancement on a checked input (see the module notes); any motion.
pub(crate) fn advance(input: &CastInput<'_>, options: &QueryOptions) -> ShapeCast {
    let ShapePair {
        a,
        pose_a,
        b,
        pose_b,
    } = input.pair;
    let (ma, mb) = (input.motion_a, input.motion_b);
    let s = input.target_distance;
    let (ra, rb) = (a.bounding_radius(), b.bounding_radius());
    let dv = ma.linear - mb.linear;
    let speed = dv.length() + ma.angular.length() * ra + mb.angular.length() * rb;
    let sigma = pose_a.translation().abs().max_element()
        + pose_b.translation().abs().max_element()
        + ra
        + rb;
    // Relative to the smaller shape (a ball on a wide floor stops within its own
    // tolerance), but no tighter than a thousandth of the larger one's.
    let size = ra.min(rb).max(1e-3 * ra.max(rb));
    let tol = (REL_TOLERANCE * size)
        .max(tolerance::touch_floor(options.gjk.touch_tolerance(), sigma) * tolerance::SLACK);
    let mut cache = GjkCache::new();
    let mut iterations = 0;
    let mut t: Real = 0.0;
    let miss = |iterations| ShapeCast {
        start: CastStart::Separated,
        initial_distance: None,
        hit: false,
        toi: 0.0,
        normal: Vector::ZERO,
        point_a: Vector::ZERO,
        point_b: Vector::ZERO,
        status: QueryStatus::Converged,
        iterations,
    };
    let horizon = input
        .max_toi
        .min(super::cast::range_horizon(&pose_a, &ma))
        .min(super::cast::range_horizon(&pose_b, &mb));
    let mut status = QueryStatus::MaxIterations;
    for _ in 0..MAX_STEPS {
        let pa = ma.pose_at(&pose_a, t);
        let pb = mb.pose_at(&pose_b, t);
        let cp = closest_points_with(a, &pa, b, &pb, options, Some(&mut cache));
        iterations += cp.iterations;
        if cp.upper_bound <= s + tol {
            if t == 0.0 {
                if let Some(answer) = start_within(input, options, iterations) {
                    return answer;
                }
            }
            // Certified: the distance is at most the target plus the tolerance.
            status = QueryStatus::Converged;
            break;
        }
        let n = cp.normal;
        let mut step: Real = 0.0;
        if n != Vector::ZERO {
            let g = gap_along(a, &pa, b, &pb, n);
            let mu_n =
                dv.dot(n) + ma.angular.cross(n).length() * ra + mb.angular.cross(n).length() * rb;
            if g > s {
                if !(mu_n > 0.0) {
                    return miss(iterations);
                }
                step = (g - s) / mu_n;
            }
        }
        if cp.lower_bound > s && speed > 0.0 {
            step = step.max((cp.lower_bound - s) / speed);
        }
        if !(speed > 0.0) {
            // Nothing moves and they are apart.
            return miss(iterations);
        }
        let apart = pb.translation() - pa.translation();
        if apart.dot(mb.linear - ma.linear) >= 0.0 && apart.length() - (ra + rb) > s {
            return miss(iterations);
        }
        let next = t + step;
        if !(next > t) {
            // No certified progress is left to make (rounding): stop here, a lower bound.
            status = QueryStatus::NumericalLimit;
            break;
        }
        if !(next <= horizon) {
            return miss(iterations);
        }
        t = next;
    }
    // A hit at t (or the last certified t when the search stopped early).
    let pa = ma.pose_at(&pose_a, t);
    let pb = mb.pose_at(&pose_b, t);
    let c = contact_with(a, &pa, b, &pb, options, None);
    ShapeCast {
        hit: true,
        toi: t,
        normal: c.normal,
        point_a: c.point_a,
        point_b: c.point_b,
        start: CastStart::Separated,
        initial_distance: None,
        // The search's own status: a converged search has certified the distance at
        // `t` within the tolerance of the target, whatever precision the witnesses
        // reached.
        status,
        iterations: iterations + c.iterations,
    }
}
