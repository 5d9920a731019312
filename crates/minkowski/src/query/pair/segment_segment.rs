//! Closest points of two segments (capsule–capsule, and any two segment cores).
//!
//! Minimise `‖(p1 + s d1) − (p2 + t d2)‖²` over `s, t ∈ [0, 1]`: a convex quadratic in
//! two variables. Its unconstrained minimiser (the common perpendicular of the lines)
//! is clamped to the square edge by edge, the standard derivation of Ericson, *Real-Time
//! Collision Detection*, §5.1.9, including his handling of degenerate (point) segments
//! and parallel lines.

use super::LocalContact;
use crate::math::{any_orthogonal, length_robust, normalize_robust, Point, Real, Vector};

/// Closest points `(on segment 1, on segment 2)`.
pub(crate) fn closest_points(p1: Point, q1: Point, p2: Point, q2: Point) -> (Point, Point) {
    let (a, b, _, _) = closest_parameters(p1, q1, p2, q2);
    (a, b)
}

/// Closest points and their parameters `s, t ∈ [0, 1]` along each segment.
///
/// The parameters are solved for in coordinates scaled by the largest input component:
/// they are scale invariant, and the quadratic's coefficients are products of up to four
/// lengths, which would overflow (or underflow) at extreme sizes otherwise.
fn closest_parameters(p1: Point, q1: Point, p2: Point, q2: Point) -> (Point, Point, Real, Real) {
    let (d1_full, d2_full) = (q1 - p1, q2 - p2);
    let norm = d1_full
        .abs()
        .max(d2_full.abs())
        .max((p1 - p2).abs())
        .max_element();
    // (A denormal extent has no finite reciprocal: leave such input unscaled.)
    let k = match 1.0 / norm {
        k if norm > 0.0 && k.is_finite() => k,
        _ => 1.0,
    };
    let d1 = d1_full * k;
    let d2 = d2_full * k;
    let r = (p1 - p2) * k;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let (s, t);
    if a <= 0.0 && e <= 0.0 {
        return (p1, p2, 0.0, 0.0);
    }
    if a <= 0.0 {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e <= 0.0 {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            // Parallel lines (denom = 0): any s works; take s = 0 and let t follow.
            let s0 = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    (p1 + d1_full * s, p2 + d2_full * t, s, t)
}

/// Projects a direction from A towards B onto the normal cone of the closest features:
/// perpendicular to a segment whose closest point is interior, and not pointing back
/// along a segment from its closest endpoint (A's points must not get closer to B along
/// A, nor B's to A along B). Near contact, `d`'s direction carries rounding noise that
/// can leave the cone; this keeps the normal valid.
fn into_normal_cone(n: Vector, d1: Vector, s: Real, d2: Vector, t: Real) -> Vector {
    let mut m = n;
    // (segment direction, sign the normal's component along it must have: 0 = none)
    for (dir, param, sign_at_start) in [(d1, s, -1.0), (d2, t, 1.0)] {
        let len2 = dir.length_squared();
        if len2 <= 0.0 {
            continue;
        }
        let along = m.dot(dir);
        let required = if param <= 0.0 {
            sign_at_start
        } else if param >= 1.0 {
            -sign_at_start
        } else {
            0.0
        };
        if required == 0.0 || along * required < 0.0 {
            m -= dir * (along / len2);
        }
    }
    normalize_robust(m).unwrap_or(n)
}

/// Contact between segment `p1 q1` inflated by `r1` (A) and `p2 q2` inflated by `r2`
/// (B). When the segments themselves intersect, the normal is the common perpendicular
/// of their lines (or any perpendicular when they are parallel) oriented from A's
/// centre towards B's; the depth is then exact only up to the segments' own (zero)
/// thickness, which is why the dispatcher uses this routine only when the segment cores
/// are apart.
pub(crate) fn contact(
    p1: Point,
    q1: Point,
    r1: Real,
    p2: Point,
    q2: Point,
    r2: Real,
) -> LocalContact {
    let (ca, cb, s, t) = closest_parameters(p1, q1, p2, q2);
    let d = cb - ca;
    let len = length_robust(d);
    let (d1, d2) = (q1 - p1, q2 - p2);
    let across = d1.cross(d2);
    let interior = s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0;
    let across_unit = normalize_robust(across);
    let normal = if let (true, Some(n)) = (interior, across_unit) {
        // Both points inside their segments: the only normal is the common perpendicular,
        // taken from the directions (exact) rather than from `d`, whose direction is
        // rounding noise when the segments nearly touch.
        let towards = if len > 0.0 {
            d
        } else {
            (p2 + q2 - p1 - q1) * 0.5
        };
        if n.dot(towards) < 0.0 {
            -n
        } else {
            n
        }
    } else if let Some(dn) = normalize_robust(d) {
        // The gap along a direction is exact and cheap for segments (their supports are
        // endpoints): of `d`'s direction, its projection into the features' normal cone
        // and the common perpendicular, keep the one that separates best.
        let gap = |n: Vector| (p2.dot(n).min(q2.dot(n))) - (p1.dot(n).max(q1.dot(n)));
        let mut best = (gap(dn), dn);
        let consider = |best: &mut (Real, Vector), n: Vector| {
            let g = gap(n);
            if g > best.0 {
                *best = (g, n);
            }
        };
        consider(&mut best, into_normal_cone(dn, d1, s, d2, t));
        if let Some(n) = across_unit {
            consider(&mut best, n);
            consider(&mut best, -n);
        }
        if best.0 <= 0.0 {
            // Cores touching within rounding, with `d` along a segment (a point core on
            // the other's axis, off it only by rounding along the axis): the projection
            // into the normal cone vanishes and `d` is the worst direction. Any
            // perpendicular of the segment is then a valid normal.
            for line in [d1, d2] {
                if let Some(l) = normalize_robust(line) {
                    let o = any_orthogonal(l);
                    consider(&mut best, o);
                    consider(&mut best, -o);
                }
            }
        }
        best.1
    } else {
        // The segments meet: any unit vector perpendicular to both (or to the one line,
        // when parallel) is a valid normal; orient it from A's centre towards B's.
        // A point core on the other's segment (a sphere centred on a capsule's axis) has
        // no cross product: the normal is then perpendicular to whichever segment has a
        // length, never a fixed axis (along which the shapes overlap by more).
        let n = across_unit.unwrap_or_else(|| {
            let line = normalize_robust(d1).or_else(|| normalize_robust(d2));
            any_orthogonal(line.unwrap_or(Vector::Y))
        });
        let towards = (p2 + q2 - p1 - q1) * 0.5;
        if n.dot(towards) < 0.0 {
            -n
        } else {
            n
        }
    };
    LocalContact {
        distance: len - r1 - r2,
        normal,
        point_a: ca + normal * r1,
        point_b: cb - normal * r2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extreme_scales_give_finite_unit_answers() {
        for scale in [1e-40 as Real, 1e-30, 1.0, 1e8] {
            let c = contact(
                Vector::new(-1.0, 0.0, 0.0) * scale,
                Vector::new(1.0, 0.0, 0.0) * scale,
                0.0,
                Vector::new(0.0, -1.0, 1.0) * scale,
                Vector::new(0.0, 1.0, 1.0) * scale,
                0.0,
            );
            assert!(
                c.distance.is_finite() && c.normal.is_finite(),
                "{scale}: {c:?}"
            );
            assert!((c.normal.length() - 1.0).abs() < 1e-5, "{scale}: {c:?}");
        }
    }
}
