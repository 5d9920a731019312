//! Seed 004's time of impact: bisection on a swept-volume intersection test — kept as
//! the baseline that the GJK ray cast ([`crate::query::cast_shapes`]) is measured
//! against.
//!
//! # The method
//!
//! For a convex B translating by `m` over an interval, the set it sweeps is
//! `conv(B ∪ (B + m))`, whose support map is B's plus `m` when the direction has a
//! positive component along `m` ([`crate::support::Swept`]; Ericson, *Real-Time
//! Collision Detection*, §5.5.x, as the seed retells it). A translating convex B meets A
//! at some time in `[t₀, t₁]` exactly when A meets B's volume swept over `[t₀, t₁]`, so
//! one GJK intersection test answers "is there a hit in this interval", and bisection
//! halves the interval that holds the first one:
//!
//! ```text
//! [lo, hi] ← [0, max_toi];  no hit in [lo, hi] → miss
//! repeat: mid ← (lo + hi)/2;  hit in [lo, mid] ? hi ← mid : lo ← mid
//! ```
//!
//! As in the seed, the shapes' margins (a capsule's radius) are the intersection test's
//! margin, so GJK runs on the cores (the segment inside a capsule). Each halving costs a
//! whole GJK run, and the interval narrows by one bit per run: about 24 runs for f32's
//! precision, against the handful of iterations of one ray cast.

use super::cast::{check_max_toi, CastError, CastInput};
use super::context::ShapePair;
use super::dispatch::QueryOptions;
use super::gjk::{self, GjkOutcome, Mode};
use crate::math::{Pose, Real};
use crate::support::{MinkowskiDifference, Swept};

/// The answer of [`toi_bisection`]: the first hit lies in `[lower, upper]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BisectionToi {
    /// Whether the shapes come within the target distance in `[0, max_toi]`.
    pub hit: bool,
    /// No hit before this time (time units; 0 when `hit` is false).
    pub lower: Real,
    /// A hit at or before this time (time units; 0 when `hit` is false).
    pub upper: Real,
    /// Swept intersection tests run (each one GJK run).
    pub tests: u32,
    /// GJK iterations over all tests.
    pub iterations: u32,
}

/// Seed 004's time of impact by bisection (see the module notes), for translating
/// shapes over a finite `max_toi`, halving at most `max_halvings` times (the interval
/// also stops narrowing at the time resolution of `max_toi`).
///
/// Frames and units as in [`crate::query::cast_shapes`].
///
/// # Errors
/// [`CastError`] for invalid numbers (as [`crate::query::cast_shapes`]), a rotating
/// motion or an infinite `max_toi` ([`CastError::Unsupported`]).
pub fn toi_bisection(
    input: &CastInput<'_>,
    options: &QueryOptions,
    max_halvings: u32,
) -> Result<BisectionToi, CastError> {
    input.check()?;
    check_max_toi(input.max_toi)?;
    if !input.max_toi.is_finite() {
        return Err(CastError::Unsupported("bisection needs a finite max_toi"));
    }
    if !(input.motion_a.is_translation() && input.motion_b.is_translation()) {
        return Err(CastError::Unsupported(
            "bisection handles translating shapes only",
        ));
    }
    let ShapePair {
        a,
        pose_a,
        b,
        pose_b,
    } = input.pair;
    let (ca, ma) = a.core();
    let (cb, mb) = b.core();
    let margin = ma + mb + input.target_distance;
    // B's motion relative to A, per unit time, in B's own frame (the swept support is
    // taken there).
    let rel_world = input.motion_b.linear - input.motion_a.linear;
    let motion_b = pose_b.inverse_transform_vector(rel_world);
    let mut out = BisectionToi {
        hit: false,
        lower: 0.0,
        upper: 0.0,
        tests: 0,
        iterations: 0,
    };
    let hits = |t0: Real, t1: Real, out: &mut BisectionToi| {
        let b_at = Pose::from_parts(pose_b.rotation(), pose_b.translation() + rel_world * t0);
        let swept = Swept::new(&cb, motion_b * (t1 - t0));
        let pair = MinkowskiDifference::relative(&ca, &pose_a, &swept, &b_at);
        let r = gjk::run(
            &pair,
            &mut [u32::MAX; 2],
            Mode::Intersect { margin },
            &options.gjk,
            None,
        );
        out.tests += 1;
        out.iterations += r.iterations;
        !matches!(
            r.outcome(margin, options.gjk.touch_tolerance()),
            GjkOutcome::Apart { .. }
        )
    };
    let (mut lo, mut hi) = (0.0, input.max_toi);
    if !hits(lo, hi, &mut out) {
        return Ok(out);
    }
    for _ in 0..max_halvings {
        let mid = 0.5 * (lo + hi);
        if !(mid > lo && mid < hi) {
            break;
        }
        if hits(lo, mid, &mut out) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    out.hit = true;
    out.lower = lo;
    out.upper = hi;
    Ok(out)
}
