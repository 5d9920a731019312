//! Exact orientation predicates and the input preparation shared by every hull builder.
//!
//! Every combinatorial decision of the hull builders (which side of a line or plane a
//! point lies on, whether points are collinear or coplanar) is the exact answer for the
//! input coordinates, for every finite input within the magnitude limit: subnormals,
//! ±0.0, and sets that mix 1e-300 with 1e60 included. That is what makes the builders
//! agree with each other and with brute force, and keeps them from the inconsistent
//! decisions that make floating-point hull codes loop, crash or lose points.
//!
//! # Two exact evaluators, and which one decides
//!
//! The fast one is Shewchuk's adaptive-precision arithmetic (the `robust` crate): a
//! floating-point evaluation with an error bound, falling back to exact expansion
//! arithmetic (sums of non-overlapping doubles) only when the bound cannot certify the
//! sign. Its proofs assume that no operation underflows or overflows: the error bounds
//! are relative, and the error-free transformations (two-sum, two-product) need their
//! rounding errors to be representable. Where that fails its answers are not exact: two
//! points 1e-262 and 2.7e-238 from the origin beside coordinates of 1.5e4 form an
//! orientation of about 1e-496, whose products underflowed to zero.
//!
//! **The window where `robust` is exact.** Claim: if every coordinate of a call is zero
//! or has magnitude in `[2⁻²⁵⁰, 2³⁰²)` ([`WINDOW_MIN`], [`WINDOW_MAX`]), no operation of
//! `orient2d` or `orient3d` underflows or overflows.
//!
//! * *Underflow.* A double of magnitude at least 2⁻²⁵⁰ is an integer multiple of its unit
//!   in the last place, which is at least `q = 2⁻³⁰²`. Every number the predicates form,
//!   rounded or exact (differences, their tails, products of up to three of them, the
//!   tails of those products, sums of all these), is then an integer multiple of
//!   `q³ = 2⁻⁹⁰⁶`, and rounding such a multiple to a double gives a multiple again
//!   (rounding drops only bits worth at least `q³`). So every nonzero value has
//!   magnitude at least 2⁻⁹⁰⁶, and even the error bounds, which multiply such values by
//!   constants no smaller than about `26 ε² ≈ 2⁻¹⁰¹`, stay above 2⁻¹⁰⁰⁸: all normal
//!   numbers (≥ 2⁻¹⁰²²).
//! * *Overflow.* Differences stay below 2³⁰³, products of three below 2⁹⁰⁹, the sums of
//!   six such products (the permanents of the error bounds) below 2⁹¹², and Dekker's
//!   split multiplies numbers below 2⁶⁰⁶ by 2²⁷ + 1: all far below 2¹⁰²⁴.
//!
//! **Placing each set in the window.** [`prepare`] multiplies every point set by the power
//! of two that brings its largest magnitude into `[2³⁰⁰, 2³⁰¹)` ([`TOP_EXPONENT`]). The
//! scaling is exact: it is always upwards, because the input limits ([`MAX_MAGNITUDE`],
//! [`MAX_MAGNITUDE_F64`] = 1e60 ≈ 2¹⁹⁹) are below 2³⁰⁰, so no coordinate is rounded;
//! scaling down, as an earlier version did, rounds subnormals away. Orientations are
//! invariant under a common positive scale. After it, the window holds every coordinate
//! that is zero or at least 2⁻⁵⁵⁰ ≈ 2.7e-166 times the set's largest magnitude: every set
//! in the `f32` build (whose doubles span at most 2¹⁷⁷, from 2⁻¹⁴⁹ to 1e8), and every
//! `f64` set of less extreme range.
//!
//! **Outside the window: integers.** A call with a coordinate outside the window (only
//! possible for `f64` input, e.g. 1e-300 beside 1) is decided by the `exact` module
//! instead: the coordinates are written as integers over their smallest unit and the
//! determinant is evaluated in arbitrary-size integer arithmetic, exactly, at about a
//! microsecond a call.
//!
//! **The filter first.** [`orient2`] and [`orient3`] evaluate Shewchuk's first stage
//! themselves: the determinant in floating point and its error bound, plus an absolute
//! term ([`UNDERFLOW`]) for what underflow can add, so that a sign it certifies is exact
//! for *any* finite coordinates, in the window or not. Only when it cannot certify the
//! sign (nearly degenerate configurations) does the window test choose between `robust`
//! and the integers. The filter decides nearly every call, so the test costs nothing
//! on the fast path; testing the window before every call made Graham's scan (an
//! orientation per sort comparison) twice as slow.
//!
//! Why not flush tiny coordinates to zero instead (or snap them to a grid)? That would
//! be fast, but it changes the answer: a point 1e-310 off a line through points of size
//! 1 would become collinear with it, and two distinct points could become equal, so that
//! the algorithms would need a rule for which one to name. Exact answers need no such
//! rule and no documentation of a second, rounded input.
//!
//! Before the rescaling, −0.0 is written as +0.0: the orders below compare with
//! `total_cmp`, which puts −0.0 before +0.0, and a start point "below" its equals broke
//! Graham's angular order (a panic in the sort) and the start vertex of every algorithm.

use glam::{DVec2, DVec3, Vec3Swizzles};

use super::{exact, HullError};
use crate::math::{Point, Real, Vector2};
use crate::shape::MAX_MAGNITUDE;

/// The smallest nonzero magnitude of the window where `robust` is exact: 2⁻²⁵⁰ (see the
/// module notes).
const WINDOW_MIN: f64 = 5.527_147_875_260_445e-76;

/// The end of the window where `robust` is exact: 2³⁰² (see the module notes).
const WINDOW_MAX: f64 = 8.148_143_905_337_944e90;

/// [`prepare`] scales every set so that its largest magnitude lies in
/// `[2^TOP_EXPONENT, 2^(TOP_EXPONENT + 1))`.
const TOP_EXPONENT: i32 = 300;

/// Whether every coordinate is zero or has magnitude in `[WINDOW_MIN, WINDOW_MAX)`.
/// Branch free, in floating-point comparisons (a few vector instructions): it runs
/// before every predicate.
#[inline(always)]
fn in_window<const N: usize>(xs: [f64; N]) -> bool {
    xs.iter().fold(true, |ok, &x| {
        let m = x.abs();
        ok & ((m >= WINDOW_MIN) | (m == 0.0)) & (m < WINDOW_MAX)
    })
}

/// Shewchuk's ε: half the machine epsilon, the bound on the relative rounding error.
const HALF_EPSILON: f64 = f64::EPSILON / 2.0;

/// Stage A of Shewchuk's `orient2d`: the relative error bound of its floating-point
/// determinant (`(3 + 16ε) ε` of the sum of the products' magnitudes).
const ORIENT2_BOUND: f64 = (3.0 + 16.0 * HALF_EPSILON) * HALF_EPSILON;

/// Stage A of Shewchuk's `orient3d`: `(7 + 56ε) ε` of the permanent.
const ORIENT3_BOUND: f64 = (7.0 + 56.0 * HALF_EPSILON) * HALF_EPSILON;

/// 2⁻¹⁰⁰⁰: the unit of the filters' allowance for underflow. Underflow adds at most
/// 2⁻¹⁰⁷⁵ to a product (subnormal sums and differences are exact); this is far more, and
/// a normal number (a subnormal operand would cost a microcode assist on every call).
pub(crate) const UNDERFLOW: f64 = 9.332_636_185_032_189e-302;

/// Twice the signed area of the triangle `a b c`: positive when `c` lies to the left of
/// the directed line `a → b` (counter-clockwise turn), zero when collinear. Exact sign,
/// for any finite coordinates (only the sign is meaningful).
///
/// Shewchuk's stage-A filter runs first, here, with an absolute term that covers
/// underflow (the products below may underflow by at most 2⁻¹⁰⁷⁵ each, far below
/// [`UNDERFLOW`]), so that a sign it certifies is exact for any coordinates, in or out
/// of the window. Only when it cannot certify does the window test choose between
/// `robust` and the exact integers: the test costs nothing on the fast path (checking
/// it on every call made Graham's scan twice as slow).
#[inline]
pub(crate) fn orient2(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    let left = (a.x - c.x) * (b.y - c.y);
    let right = (a.y - c.y) * (b.x - c.x);
    let det = left - right;
    let bound = ORIENT2_BOUND * (left.abs() + right.abs()) + UNDERFLOW;
    if det > bound || -det > bound {
        return det;
    }
    orient2_uncertain(a, b, c)
}

/// [`orient2`] when its filter cannot certify the sign.
#[inline(never)]
fn orient2_uncertain(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    if !in_window([a.x, a.y, b.x, b.y, c.x, c.y]) {
        return exact::orient2(a, b, c);
    }
    robust::orient2d(
        robust::Coord { x: a.x, y: a.y },
        robust::Coord { x: b.x, y: b.y },
        robust::Coord { x: c.x, y: c.y },
    )
}

/// Six times the signed volume of the tetrahedron `a b c d`, signed so that it is
/// positive when `d` lies *above* the plane of `a b c`, "above" being the side from which
/// `a b c` appear counter-clockwise. Exact sign, for any finite coordinates (only the
/// sign is meaningful). Filtered like [`orient2`]: each product of two may underflow by
/// 2⁻¹⁰⁷⁵, which the product with a third difference multiplies by at most its
/// magnitude, hence the absolute term `UNDERFLOW (1 + Σ|Δz|)`. Not inlined: quickhull's
/// side test filters before it, and inlining this into that hot, small function made
/// quickhull twice as slow (register spills on every call).
#[inline(never)]
pub(crate) fn orient3(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    // Shewchuk's orient3d(a, c, b, d) (positive when its fourth point is *below* its
    // first three, counter-clockwise: swapping b and c flips that to "above").
    let (ad, bd, cd) = (a - d, c - d, b - d);
    let bdxcdy = bd.x * cd.y;
    let cdxbdy = cd.x * bd.y;
    let cdxady = cd.x * ad.y;
    let adxcdy = ad.x * cd.y;
    let adxbdy = ad.x * bd.y;
    let bdxady = bd.x * ad.y;
    let det = ad.z * (bdxcdy - cdxbdy) + bd.z * (cdxady - adxcdy) + cd.z * (adxbdy - bdxady);
    let (az, bz, cz) = (ad.z.abs(), bd.z.abs(), cd.z.abs());
    let permanent = (bdxcdy.abs() + cdxbdy.abs()) * az
        + (cdxady.abs() + adxcdy.abs()) * bz
        + (adxbdy.abs() + bdxady.abs()) * cz;
    let bound = ORIENT3_BOUND * permanent + UNDERFLOW * (1.0 + az + bz + cz);
    if det > bound || -det > bound {
        return det;
    }
    orient3_uncertain(a, b, c, d)
}

/// [`orient3`] when its filter cannot certify the sign.
#[inline(never)]
fn orient3_uncertain(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    if !in_window([a.x, a.y, a.z, b.x, b.y, b.z, c.x, c.y, c.z, d.x, d.y, d.z]) {
        return exact::orient3(a, b, c, d);
    }
    // `robust::orient3d` is positive when `d` is *below*; swapping two arguments flips it.
    robust::orient3d(
        robust::Coord3D {
            x: a.x,
            y: a.y,
            z: a.z,
        },
        robust::Coord3D {
            x: c.x,
            y: c.y,
            z: c.z,
        },
        robust::Coord3D {
            x: b.x,
            y: b.y,
            z: b.z,
        },
        robust::Coord3D {
            x: d.x,
            y: d.y,
            z: d.z,
        },
    )
}

/// Lexicographic order by `x`, then `y`.
#[inline]
pub(crate) fn lex_cmp(a: DVec2, b: DVec2) -> std::cmp::Ordering {
    a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y))
}

/// Lexicographic order by `x`, then `y`, then `z` (the order along any line, and the
/// order that names a segment hull's ends and a polygon hull's first vertex).
#[inline]
pub(crate) fn lex3_cmp(a: DVec3, b: DVec3) -> std::cmp::Ordering {
    a.x.total_cmp(&b.x)
        .then(a.y.total_cmp(&b.y))
        .then(a.z.total_cmp(&b.z))
}

/// The canonical first vertex of a 2D hull: lowest `y`, then lowest `x`.
#[inline]
pub(crate) fn bottom_cmp(a: DVec2, b: DVec2) -> std::cmp::Ordering {
    a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x))
}

/// Whether `a`, `b`, `c` are collinear in 3D (exact): all three coordinate projections
/// of the triangle are degenerate.
pub(crate) fn collinear3(a: DVec3, b: DVec3, c: DVec3) -> bool {
    orient2(a.truncate(), b.truncate(), c.truncate()) == 0.0
        && orient2(a.yz(), b.yz(), c.yz()) == 0.0
        && orient2(a.zx(), b.zx(), c.zx()) == 0.0
}

/// `2^k` for any `k` that keeps the result normal.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// Multiplies by `2^k` exactly (in two steps, so that `k` may exceed the exponent range
/// of a single power).
fn scale_pow2(x: f64, k: i32) -> f64 {
    let h = k / 2;
    x * pow2(h) * pow2(k - h)
}

/// The exponent `k` that brings `max_abs` into `[2^TOP_EXPONENT, 2^(TOP_EXPONENT + 1))`
/// (0 for an all-zero set).
fn scaling_exponent(max_abs: f64) -> i32 {
    if max_abs == 0.0 {
        return 0;
    }
    // frexp by hand: the unbiased exponent, with subnormals handled by a pre-scale.
    let (m, pre) = if max_abs < f64::MIN_POSITIVE {
        (max_abs * pow2(600), 600)
    } else {
        (max_abs, 0)
    };
    let e = ((m.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    TOP_EXPONENT - e + pre
}

/// The largest coordinate magnitude the `f64` entry points accept: the `f64` build's
/// [`MAX_MAGNITUDE`]. The predicates themselves are exact for any finite input; this
/// bound (below 2³⁰⁰) keeps their rescaling an exact scaling up (see the `predicates`
/// module notes).
pub const MAX_MAGNITUDE_F64: f64 = 1e60;

/// Validates points given as `f64` coordinate arrays (non-empty, finite, magnitude at most
/// `limit`), writes −0.0 as +0.0 and rescales the set by a power of two so that its
/// largest magnitude lies in `[2³⁰⁰, 2³⁰¹)` (exact; see the module notes). Every entry
/// point below is this with its own input type and limit.
fn prepare<const N: usize>(
    points: impl ExactSizeIterator<Item = [f64; N]> + Clone,
    limit: f64,
) -> Result<Vec<[f64; N]>, HullError> {
    if points.len() == 0 {
        return Err(HullError::Empty);
    }
    let mut max_abs: f64 = 0.0;
    for (index, p) in points.clone().enumerate() {
        for c in p {
            if !c.is_finite() {
                return Err(HullError::NonFinitePoint { index });
            }
            if c.abs() > limit {
                return Err(HullError::OutOfRange {
                    index,
                    value: c as Real,
                    max: limit as Real,
                });
            }
            max_abs = max_abs.max(c.abs());
        }
    }
    // Never down (the limits are below 2³⁰⁰, so this clamp is only a guard): scaling
    // down rounds subnormals. Adding +0.0 turns −0.0 into +0.0.
    let k = scaling_exponent(max_abs).max(0);
    Ok(points.map(|p| p.map(|c| scale_pow2(c, k) + 0.0)).collect())
}

/// Validates 2D input (magnitudes up to [`MAX_MAGNITUDE`]) and returns it in `f64`,
/// prepared as the module doc says.
pub(crate) fn prepare2(points: &[Vector2]) -> Result<Vec<DVec2>, HullError> {
    let it = points.iter().map(|p| [p.x as f64, p.y as f64]);
    Ok(prepare(it, MAX_MAGNITUDE as f64)?
        .into_iter()
        .map(DVec2::from_array)
        .collect())
}

/// Validates 3D input (magnitudes up to [`MAX_MAGNITUDE`]) and returns it in `f64`,
/// prepared as the module doc says.
pub(crate) fn prepare3(points: &[Point]) -> Result<Vec<DVec3>, HullError> {
    let it = points.iter().map(|p| [p.x as f64, p.y as f64, p.z as f64]);
    Ok(prepare(it, MAX_MAGNITUDE as f64)?
        .into_iter()
        .map(DVec3::from_array)
        .collect())
}

/// Validates `f64` 2D input (magnitudes up to [`MAX_MAGNITUDE_F64`]) and rescales it.
pub(crate) fn prepare2_f64(points: &[DVec2]) -> Result<Vec<DVec2>, HullError> {
    let it = points.iter().map(|p| p.to_array());
    Ok(prepare(it, MAX_MAGNITUDE_F64)?
        .into_iter()
        .map(DVec2::from_array)
        .collect())
}

/// Validates `f64` 3D input (magnitudes up to [`MAX_MAGNITUDE_F64`]) and rescales it.
pub(crate) fn prepare3_f64(points: &[DVec3]) -> Result<Vec<DVec3>, HullError> {
    let it = points.iter().map(|p| p.to_array());
    Ok(prepare(it, MAX_MAGNITUDE_F64)?
        .into_iter()
        .map(DVec3::from_array)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orientation_signs_follow_the_documented_conventions() {
        let (a, b, c) = (DVec2::ZERO, DVec2::X, DVec2::Y);
        assert!(orient2(a, b, c) > 0.0);
        assert!(orient2(a, c, b) < 0.0);
        let (a, b, c) = (DVec3::ZERO, DVec3::X, DVec3::Y);
        assert!(orient3(a, b, c, DVec3::Z) > 0.0);
        assert!(orient3(a, b, c, -DVec3::Z) < 0.0);
        assert_eq!(orient3(a, b, c, DVec3::new(5.0, 7.0, 0.0)), 0.0);
    }

    #[test]
    fn rescaling_is_exact_and_reaches_the_top_of_the_window() {
        assert_eq!(UNDERFLOW, pow2(-1000));
        assert_eq!(WINDOW_MIN, pow2(-250));
        assert_eq!(WINDOW_MAX, pow2(302));
        assert!(MAX_MAGNITUDE_F64 < pow2(TOP_EXPONENT) && (MAX_MAGNITUDE as f64) < pow2(300));
        for &m in &[5e-324, 1e-300, 3.0e-310, 1e-20, 0.75, 1.0, 3.0, 1e60] {
            let k = scaling_exponent(m);
            let s = scale_pow2(m, k);
            assert!(
                (pow2(TOP_EXPONENT)..pow2(TOP_EXPONENT + 1)).contains(&s),
                "{m} -> {s}"
            );
            // Exact: scaling back recovers the input.
            assert_eq!(scale_pow2(s, -k), m);
        }
        assert_eq!(scaling_exponent(0.0), 0);
    }

    #[test]
    fn the_window_test_finds_tiny_and_huge_coordinates() {
        assert!(in_window([
            0.0,
            -0.0,
            WINDOW_MIN,
            -WINDOW_MIN,
            1.0,
            -pow2(301)
        ]));
        assert!(!in_window([1.0, 5e-324]));
        assert!(!in_window([-WINDOW_MIN / 2.0, 1.0]));
        assert!(!in_window([WINDOW_MAX]));
        assert!(!in_window([f64::INFINITY]));
    }

    #[test]
    fn out_of_window_calls_are_exact() {
        // Beside coordinates of 2³⁰⁰, a point 2⁻¹⁰⁷⁴ above a line and a plane.
        let (a, b) = (DVec2::new(-pow2(300), 0.0), DVec2::new(pow2(300), 0.0));
        let sign = |x: f64| if x == 0.0 { 0.0 } else { x.signum() };
        assert_eq!(sign(orient2(a, b, DVec2::new(1.0, 5e-324))), 1.0);
        assert_eq!(sign(orient2(a, b, DVec2::new(1.0, -5e-324))), -1.0);
        assert_eq!(orient2(a, b, DVec2::new(5e-324, 0.0)), 0.0);
        let c = DVec3::new(0.0, pow2(300), 0.0);
        let (a3, b3) = (a.extend(0.0), b.extend(0.0));
        assert_eq!(sign(orient3(a3, b3, c, DVec3::new(1.0, 2.0, 5e-324))), 1.0);
        assert_eq!(
            sign(orient3(a3, b3, c, DVec3::new(1.0, 2.0, -5e-324))),
            -1.0
        );
        // Just inside the filter's reach: a product that underflows to a subnormal.
        let tiny = DVec2::new(1e-300, 1e-300);
        assert_eq!(
            sign(orient2(DVec2::ZERO, tiny, DVec2::new(-1e-20, 1e-20))),
            1.0
        );
    }
}
