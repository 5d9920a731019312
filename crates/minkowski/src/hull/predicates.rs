//! Exact orientation predicates and the input preparation shared by every hull builder.
//!
//! Every combinatorial decision of the hull builders (which side of a line or plane a
//! point lies on, whether points are collinear or coplanar) is taken with Shewchuk's
//! adaptive-precision predicates (the `robust` crate): a fast floating-point filter that
//! falls back to exact expansion arithmetic only when the filter cannot certify the sign.
//! The answers are therefore the exact answers for the input coordinates, which is what
//! makes the builders agree with each other and with brute force, and what keeps them
//! from the inconsistent decisions that make floating-point hull codes loop or crash.
//!
//! The predicates are exact as long as no intermediate product underflows or
//! overflows. Overflow cannot happen below [`MAX_MAGNITUDE_F64`] (products of three
//! coordinate differences stay below 1e181). A set whose largest magnitude is below 1
//! is first rescaled up by a power of two (exact) so that it lies in `[1, 2)`; larger
//! sets are left as given, since scaling them down underflowed their small coordinates.
//! Products of coordinate differences can then underflow only when a set holds
//! coordinates below about 1e-100 beside coordinates of magnitude 1 or more (impossible
//! in the `f32` build); −0.0 is written as +0.0 first.

use glam::{DVec2, DVec3, Vec3Swizzles};

use super::HullError;
use crate::math::{Point, Real, Vector2};
use crate::shape::MAX_MAGNITUDE;

/// Twice the signed area of the triangle `a b c`: positive when `c` lies to the left of
/// the directed line `a → b` (counter-clockwise turn), zero when collinear. Exact sign.
#[inline]
pub(crate) fn orient2(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    robust::orient2d(
        robust::Coord { x: a.x, y: a.y },
        robust::Coord { x: b.x, y: b.y },
        robust::Coord { x: c.x, y: c.y },
    )
}

/// Six times the signed volume of the tetrahedron `a b c d`, signed so that it is
/// positive when `d` lies *above* the plane of `a b c`, "above" being the side from which
/// `a b c` appear counter-clockwise. Exact sign.
#[inline]
pub(crate) fn orient3(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
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

/// The exponent `k` that brings `max_abs` into `[1, 2)` (0 for an all-zero set; negative
/// for a set above 2, which [`prepare`] does not scale).
fn normalising_exponent(max_abs: f64) -> i32 {
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
    -(e) + pre
}

/// The largest coordinate magnitude the `f64` entry points accept (exact predicates stay
/// free of overflow up to about 1e90; this leaves room).
pub const MAX_MAGNITUDE_F64: f64 = 1e60;

/// Validates points given as `f64` coordinate arrays (non-empty, finite, magnitude at most
/// `limit`), rescales a set whose largest magnitude is below 1 by one power of two so that
/// it lies in `[1, 2)`, and writes −0.0 as +0.0. Every entry point below is this with its
/// own input type and limit.
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
    // Only small sets are scaled (up, exactly): scaling a set whose largest magnitude is
    // above 1 down to [1, 2) underflowed its small coordinates (1e-300 beside 1e60 became
    // 0, and the hull of the scaled points was not the hull of the input), and at most
    // `MAX_MAGNITUDE_F64` the predicates' products cannot overflow anyway. Adding +0.0
    // turns −0.0 into +0.0: the orders below compare with `total_cmp`, which puts −0.0
    // before +0.0, and a start point "below" its equals broke Graham's angular order (a
    // panic in the sort) and the start vertex of every algorithm.
    let k = normalising_exponent(max_abs).max(0);
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
    fn rescaling_is_a_power_of_two_and_reaches_unit_range() {
        for &m in &[1e-300, 3.0e-310, 1e-20, 0.75, 1.0, 3.0, 1e60] {
            let k = normalising_exponent(m);
            let s = scale_pow2(m, k);
            assert!((1.0..2.0).contains(&s), "{m} -> {s}");
            // Exact: scaling back recovers the input.
            assert_eq!(scale_pow2(s, -k), m);
        }
        assert_eq!(normalising_exponent(0.0), 0);
    }
}
