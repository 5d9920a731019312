//! A point core against a triangle (sphere–triangle): the triangle's closest point.
//!
//! The closest point of triangle `abc` to `p` is found by the Voronoi region of the
//! triangle that `p` lies in — a vertex, an edge, or the face — tested in the order of
//! Ericson, *Real-Time Collision Detection*, §5.1.5, each test a sign of dot products
//! of the edge vectors with `p`'s offsets. The work is done in coordinates centred on
//! `a` and scaled by the largest offset, so that the products (of up to four lengths)
//! neither overflow nor underflow at the extremes of the accepted range.
//!
//! In the face region the closest point is `p`'s projection on the triangle's plane,
//! `q = p − n̂ (n̂ · (p − a))`. Ericson reads it from barycentric coordinates, ratios of
//! differences of products over `‖ab × ac‖²`; on a sliver whose height `h` is a small
//! fraction `r = h / L` of its longest edge `L` those err by about `ε / r²`, and on an
//! exactly collinear triangle they are noise (a point 154 from a collinear triangle
//! came out 0.006 nearer in one argument order than in the other). The projection errs
//! by the normal's angle. With `n` the cross product of the two shorter edges `u` and
//! `v`, each computed to its own relative rounding, that angle is about `ε / sin θ`,
//! where `sin θ = |n| / (|u| |v|)` is the sine of the largest corner angle (at least
//! 60°). A sliver is bad for the projection only when that corner is nearly flat (an
//! obtuse needle, `sin θ ≈ 4 r`); a right-angled sliver (a heightfield cell's half,
//! `sin θ = 1` however thin) projects as well as any triangle. The nearest point of the
//! three edges errs by at most `h = r L` (the triangle lies within `h` of its longest
//! edge), below `sin θ L / 4` for the needle. So the face region projects when `sin θ`
//! exceeds [`SLIVER_TRIANGLE`] (`≈ √ε`, where both errors are about `√ε L`), and answers
//! the nearest edge point otherwise, as it does for a triangle without area.
//!
//! The signed distance of a ball of radius `m` about `p` from the (solid, flat) triangle
//! is `|p − q| − m`; when `p` lies on the triangle (`q = p`) the normal is the face
//! normal, on the side the caller names.

use super::LocalContact;
use crate::math::{normalize_robust, Point, Real, EPSILON};
use crate::tolerance::SLIVER_TRIANGLE;

/// The closest point of triangle `abc` to `p`.
pub(crate) fn closest_point(p: Point, a: Point, b: Point, c: Point) -> Point {
    let scale = (b - a)
        .abs()
        .max((c - a).abs())
        .max((p - a).abs())
        .max_element();
    let k = match 1.0 / scale {
        k if scale > 0.0 && k.is_finite() => k,
        _ => 1.0,
    };
    let (ab, ac, ap) = ((b - a) * k, (c - a) * k, (p - a) * k);
    let at = |s: Real, t: Real| a + (b - a) * s + (c - a) * t;
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = ap - ab;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    // Each edge's region is tested only when the edge's squared length (the divisor
    // below, `d1 − d3 = |ab|²` here) is positive: on a sliver whose short edge squares
    // to below the least positive number, the region's products are all zeros, the test
    // passes by accident and the divisor is 0 / 0. The edge is then a point of the
    // neighbouring edges, which answer for it.
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 && d1 - d3 > 0.0 {
        return at(d1 / (d1 - d3), 0.0);
    }
    let cp = ap - ac;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 && d2 - d6 > 0.0 {
        return at(0.0, d2 / (d2 - d6));
    }
    let va = d3 * d6 - d5 * d4;
    let bc = (d4 - d3) + (d5 - d6);
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 && bc > 0.0 {
        let w = (d4 - d3) / bc;
        return b + (c - b) * w;
    }
    // The face region: the projection on the plane, unless the triangle is a sliver.
    let bc_s = ac - ab;
    let (lab, lac, lbc) = (
        ab.length_squared(),
        ac.length_squared(),
        bc_s.length_squared(),
    );
    // The normal from the two shorter edges (the corner opposite the longest one), and
    // the product of their lengths, so that `|n| / product` is the sine of their angle.
    let (n, product) = if lbc >= lab && lbc >= lac {
        (ab.cross(ac), lab * lac)
    } else if lab >= lac {
        (ac.cross(bc_s), lac * lbc)
    } else {
        (ab.cross(bc_s), lab * lbc)
    };
    match normalize_robust(n) {
        Some(n_hat) if n.length() > SLIVER_TRIANGLE * product.sqrt() => {
            p - n_hat * n_hat.dot(p - a)
        }
        _ => nearest_on_edges(p, a, b, c),
    }
}

/// The nearest point to `p` of the three edges of triangle `abc`: the triangle's closest
/// point when it has no area (its corners on one line), and within the triangle's height
/// above its longest edge of it otherwise.
fn nearest_on_edges(p: Point, a: Point, b: Point, c: Point) -> Point {
    [(a, b), (b, c), (c, a)]
        .into_iter()
        .map(|(x, y)| on_segment(p, x, y))
        .min_by(|x, y| {
            (*x - p)
                .length_squared()
                .total_cmp(&(*y - p).length_squared())
        })
        .unwrap_or(a)
}

/// The closest point to `p` of segment `xy` (`x` when the segment is a point, or when
/// its parameter is not a number).
fn on_segment(p: Point, x: Point, y: Point) -> Point {
    let e = y - x;
    let t = e.dot(p - x) / e.length_squared();
    if t.is_nan() {
        return x;
    }
    x + e * t.clamp(0.0, 1.0)
}

/// The contact of triangle `abc` (A, its local frame) with a ball of radius `mb` about
/// `p` (B), `None` for a triangle with no plane (collinear corners) when `p` lies on it.
/// On the triangle (within rounding: `64 ε` of the coordinates), the normal is the face
/// normal on `p`'s side, `(b − a) × (c − a)` (the counter-clockwise side) when `p` is
/// exactly in the plane.
pub(crate) fn contact(a: Point, b: Point, c: Point, p: Point, mb: Real) -> Option<LocalContact> {
    contact_from_closest(a, b, c, p, closest_point(p, a, b, c), mb)
}

/// [`contact`] from the triangle's closest point `q` to `p`, already found
/// ([`closest_point`]`(p, a, b, c)`, e.g. by a pre-test that measured the distance): the
/// same answer without a second search.
pub(crate) fn contact_from_closest(
    a: Point,
    b: Point,
    c: Point,
    p: Point,
    q: Point,
    mb: Real,
) -> Option<LocalContact> {
    // Within rounding of the triangle, `p − q` is noise: the face normal, on p's side.
    let scale = a.abs().max(b.abs()).max(c.abs()).max(p.abs()).max_element();
    let floor = 64.0 * EPSILON * scale;
    let normal = match normalize_robust(p - q) {
        Some(n) if (p - q).abs().max_element() > floor => n,
        _ => {
            let n = normalize_robust((b - a).cross(c - a))?;
            if (p - a).dot(n) < 0.0 {
                -n
            } else {
                n
            }
        }
    };
    let d = (p - q).dot(normal).max(0.0);
    Some(LocalContact {
        distance: d - mb,
        normal,
        point_a: q,
        point_b: p - normal * mb,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vector;

    /// Brute force: the nearest of a dense grid of barycentric points.
    fn brute(p: Point, a: Point, b: Point, c: Point) -> Real {
        let n = 200;
        let mut best = Real::INFINITY;
        for i in 0..=n {
            for j in 0..=(n - i) {
                let (s, t) = (i as Real / n as Real, j as Real / n as Real);
                let q = a + (b - a) * s + (c - a) * t;
                best = best.min((q - p).length());
            }
        }
        best
    }

    #[test]
    fn every_region_against_a_dense_grid() {
        let (a, b, c) = (
            Vector::new(0.0, 0.0, 0.0),
            Vector::new(2.0, 0.0, 0.5),
            Vector::new(0.5, 0.0, 1.5),
        );
        let mut seed = 7u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as Real / (1u64 << 53) as Real * 6.0 - 2.0
        };
        for _ in 0..300 {
            let p = Vector::new(rnd(), rnd() * 0.5, rnd());
            let q = closest_point(p, a, b, c);
            let d = (q - p).length();
            assert!(d <= brute(p, a, b, c) + 1e-5, "{p:?}");
            assert!(d >= brute(p, a, b, c) - 0.02, "{p:?}");
        }
    }

    /// Regression: on a sliver whose short edge `ab` squares to below the least positive
    /// number (after the scaling to unit size), every product of edge `ab`'s region test
    /// was zero, the test passed, and the edge parameter was 0 / 0: a NaN closest point
    /// (and a NaN contact, which the static-geometry queries then dropped). The point
    /// here is nearest to edge `ac`, at its middle.
    #[test]
    fn a_sliver_whose_short_edge_underflows_is_not_nan() {
        let tiny = Real::MIN_POSITIVE.sqrt() * 1e-9;
        let (a, b, c) = (
            Vector::ZERO,
            Vector::new(tiny, 0.0, 0.0),
            Vector::new(0.0, 1.0, 1.0),
        );
        let p = Vector::new(0.0, 1.0, 0.0);
        let q = closest_point(p, a, b, c);
        assert!(q.is_finite(), "{q:?}");
        assert!((q - Vector::new(0.0, 0.5, 0.5)).length() < 1e-6, "{q:?}");
        // Every short edge, in every position, against the dense grid (seeded).
        let mut seed = 11u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as Real / (1u64 << 53) as Real * 2.0 - 1.0
        };
        for k in 0..600 {
            let base = [
                Vector::new(rnd(), rnd(), rnd()),
                Vector::new(rnd(), rnd(), rnd()),
            ];
            // The sliver's short edge: exactly zero, or underflowing when squared.
            let short = if k % 3 == 0 {
                Vector::ZERO
            } else {
                Vector::new(rnd(), rnd(), rnd()) * tiny
            };
            let (x, y) = (base[0], base[1]);
            let tri = match k % 3 {
                0 => (x, x + short, y),
                1 => (y, x, x + short),
                _ => (x + short, y, x),
            };
            // Points beside the long edge, often exactly across from it.
            let p = if k % 2 == 0 {
                x + (y - x) * rnd().abs() + (y - x).any_orthogonal_vector() * rnd()
            } else {
                Vector::new(rnd(), rnd(), rnd()) * 2.0
            };
            let q = closest_point(p, tri.0, tri.1, tri.2);
            assert!(q.is_finite(), "{k}: {q:?} for {p:?} and {tri:?}");
            let d = (q - p).length();
            let want = brute(p, tri.0, tri.1, tri.2);
            assert!(
                d <= want + 1e-5 && d >= want - 0.02,
                "{k}: {d} against {want}"
            );
        }
    }

    /// Regression (`statics` fuzz target): a heightfield's cell halves are right-angled
    /// slivers (cells 43 × 0.01), and a point lying on one was answered the nearest edge
    /// point, 2.6e-3 away, so a point on the field's surface did not touch it. The
    /// sliver rule now reads the largest corner's angle, not the height: right-angled
    /// slivers project. Oracle: points built at a known distance `d` along the face's
    /// normal from a known point `q` inside the triangle, with legs thinner than
    /// [`SLIVER_TRIANGLE`] of their length; the answer must be `q`, to rounding.
    #[test]
    fn right_angled_slivers_project_on_their_plane() {
        let mut seed = 23u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as Real / (1u64 << 53) as Real
        };
        for k in 0..3000 {
            let long = (10.0 as Real).powf(rnd() * 6.0 - 3.0);
            let short = long * SLIVER_TRIANGLE * (10.0 as Real).powf(-rnd() * 1.5);
            let a = Vector::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * long;
            // Legs along x and z, as in a heightfield, tilted in y by up to 45°.
            let (tilt_u, tilt_v) = (rnd() - 0.5, rnd() - 0.5);
            let (ends, legs) = (
                a + Vector::new(long, tilt_u * long, 0.0),
                a + Vector::new(0.0, tilt_v * short, short),
            );
            // The legs as stored (the corners' rounding moves the short one by up to
            // `ε |a|`, a large part of it): the oracle is the stored triangle.
            let (u, v) = (ends - a, legs - a);
            let (b, c) = if k % 2 == 0 {
                (ends, legs)
            } else {
                (legs, ends)
            };
            // A point inside, well away from every edge relative to the short leg.
            let (s, t) = (0.2 + 0.4 * rnd(), 0.25 + 0.15 * rnd());
            let q = a + u * s + v * t;
            let n = u.cross(v).normalize();
            let d = long * rnd() * if k % 3 == 0 { 0.0 } else { 1.0 };
            let p = q + n * if k % 4 < 2 { d } else { -d };
            let got = closest_point(p, a, b, c);
            let tol = 64.0 * EPSILON * (a.abs().max_element() + long + d);
            assert!(
                (got - q).length() <= tol,
                "{k}: {got:?} for {q:?} ({} off, tolerance {tol}, short leg {short})",
                (got - q).length()
            );
        }
    }

    #[test]
    fn on_the_face_the_normal_is_the_face_normal() {
        let (a, b, c) = (Vector::ZERO, Vector::X, Vector::Z);
        let k = contact(a, b, c, Vector::new(0.2, 0.0, 0.2), 0.5).unwrap();
        assert_eq!(k.normal, -Vector::Y);
        assert_eq!(k.distance, -0.5);
        let k = contact(a, b, c, Vector::new(0.2, 0.3, 0.2), 0.5).unwrap();
        assert!((k.normal - Vector::Y).length() < 1e-6 && (k.distance + 0.2).abs() < 1e-6);
    }
}
