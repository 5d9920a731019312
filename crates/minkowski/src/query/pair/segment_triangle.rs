//! A segment core against a triangle (capsule–triangle): closest points when apart, the
//! exact penetration when the segment passes through the triangle.
//!
//! **Apart.** The closest points of segment `pq` and triangle `abc` (Ericson,
//! *Real-Time Collision Detection*, §5.1.10): unless the segment crosses the triangle,
//! the distance between the two convex sets is attained on the boundary of one of them,
//! so it is the least of five distances: each endpoint of the segment to the triangle
//! (its closest point, [`super::point_triangle`]) and the segment to each of the
//! triangle's three edges ([`super::segment_segment`]). The crossing test is the
//! segment's intersection with the triangle's plane, inside the triangle.
//!
//! **Through.** The segment and the triangle are polytopes: their Minkowski difference
//! `T − S` is a prism whose faces have the normals `±n` (the triangle's), `±eᵢ × d` (an
//! edge of the triangle and the segment's direction `d`) and, when it is flat (`d` in
//! the plane, or a point segment), `±eᵢ × n`. The depth of a point inside a convex
//! polytope is its distance to the nearest face plane, so the penetration depth is the
//! least, over these directions `u`, of the overlap `max_T u − min_S u` (the translation
//! of S along `u` that separates them): the separating-axis theorem with the candidate
//! set complete. Any other direction overlaps at least as much, so extra candidates are
//! harmless and a degenerate cross product (`d ∥ eᵢ`) is simply skipped. The witnesses
//! are the closest points of the triangle and the segment moved out by the depth
//! (touching then), the segment's moved back.
//!
//! B's radius `mb` is added on the segment's side: the distance drops by `mb` and B's
//! witness moves `mb` along the normal towards A. Work is done in coordinates centred
//! on `a` (the triangle's corner), where the products lose least to rounding.

use super::point_triangle;
use super::segment_segment;
use super::LocalContact;
use crate::math::{normalize_robust, Point, Real, Vector, EPSILON};

/// The closest points `(on the segment, on the triangle)` of segment `pq` and triangle
/// `abc` (the same point twice when the segment crosses the triangle).
pub(crate) fn closest_points(p: Point, q: Point, a: Point, b: Point, c: Point) -> (Point, Point) {
    if let Some(x) = crossing(p, q, a, b, c) {
        return (x, x);
    }
    // (A candidate that rounding made NaN, on a sliver of a triangle, never wins.)
    let first = (p, point_triangle::closest_point(p, a, b, c));
    let mut best = first;
    let mut best_d = Real::INFINITY;
    let mut consider = |s: Point, t: Point| {
        let d = (s - t).length_squared();
        if d < best_d {
            best = (s, t);
            best_d = d;
        }
    };
    consider(first.0, first.1);
    consider(q, point_triangle::closest_point(q, a, b, c));
    for (u, v) in [(a, b), (b, c), (c, a)] {
        let (s, t) = segment_segment::closest_points(p, q, u, v);
        consider(s, t);
    }
    best
}

/// Where segment `pq` crosses triangle `abc` (its plane, at a point inside the closed
/// triangle); `None` when it does not, or lies in the plane (the edge distances then
/// decide), or the triangle has no plane.
fn crossing(p: Point, q: Point, a: Point, b: Point, c: Point) -> Option<Point> {
    let n = (b - a).cross(c - a);
    let (sp, sq) = ((p - a).dot(n), (q - a).dot(n));
    // Strictly different signs, or one end on the plane and the other off it.
    let crosses = (sp <= 0.0 && sq >= 0.0 || sp >= 0.0 && sq <= 0.0) && sp != sq;
    if !crosses {
        return None;
    }
    let x = p + (q - p) * (sp / (sp - sq));
    let inside = (b - a).cross(x - a).dot(n) >= 0.0
        && (c - b).cross(x - b).dot(n) >= 0.0
        && (a - c).cross(x - c).dot(n) >= 0.0;
    inside.then_some(x)
}

/// The contact of triangle `abc` (A, its local frame) with the capsule of core `pq` and
/// radius `mb` (B): signed distance, unit normal from A towards B, witnesses on each
/// surface. `None` for a triangle with no plane (collinear or coincident corners), left
/// to the general path.
pub(crate) fn contact(
    a: Point,
    b: Point,
    c: Point,
    p: Point,
    q: Point,
    mb: Real,
) -> Option<LocalContact> {
    // Centred on a.
    let (b0, c0, p0, q0) = (b - a, c - a, p - a, q - a);
    let n = normalize_robust(b0.cross(c0))?;
    let o = Vector::ZERO;
    let scale = a
        .abs()
        .max(b.abs())
        .max(c.abs())
        .max(p.abs())
        .max(q.abs())
        .max_element();
    let floor = 64.0 * EPSILON * scale;
    let (s, t) = closest_points(p0, q0, o, b0, c0);
    let gap = s - t;
    if gap.abs().max_element() > floor {
        if let Some(normal) = normalize_robust(gap) {
            let d = gap.dot(normal);
            return finite(LocalContact {
                distance: d - mb,
                normal,
                point_a: t + a,
                point_b: s - normal * mb + a,
            });
        }
    }
    // Through (or touching within rounding): the least overlap over the prism's face
    // normals, the triangle's own first so that it wins ties.
    let d = q0 - p0;
    let edges = [b0, c0 - b0, -c0];
    let mut best = overlap(n, [o, b0, c0], p0, q0);
    for e in edges {
        for axis in [e.cross(d), e.cross(n)] {
            if let Some(u) = normalize_robust(axis) {
                let cand = overlap(u, [o, b0, c0], p0, q0);
                if cand.1 < best.1 {
                    best = cand;
                }
            }
        }
    }
    let (u, depth) = best;
    let depth = depth.max(0.0);
    let shift = u * depth;
    let (s, t) = closest_points(p0 + shift, q0 + shift, o, b0, c0);
    finite(LocalContact {
        distance: -depth - mb,
        normal: u,
        point_a: t + a,
        point_b: s - shift - u * mb + a,
    })
}

/// The contact when every number of it is finite; `None` (the general path) when the
/// products of a sliver of a triangle (edges many orders of magnitude apart) underflowed.
fn finite(k: LocalContact) -> Option<LocalContact> {
    let ok = k.distance.is_finite()
        && k.normal.is_finite()
        && k.point_a.is_finite()
        && k.point_b.is_finite();
    ok.then_some(k)
}

/// The overlap of the triangle (corners `tri`) and segment `pq` along the unit `u`, as
/// `(direction, depth)`: the smaller of moving the segment along `u` or along `−u` until
/// they are apart, with the direction it moves in.
fn overlap(u: Vector, tri: [Point; 3], p: Point, q: Point) -> (Vector, Real) {
    let h = [tri[0].dot(u), tri[1].dot(u), tri[2].dot(u)];
    let (tmin, tmax) = (h[0].min(h[1]).min(h[2]), h[0].max(h[1]).max(h[2]));
    let (sp, sq) = (p.dot(u), q.dot(u));
    let (smin, smax) = (sp.min(sq), sp.max(sq));
    let up = tmax - smin;
    let down = smax - tmin;
    if down < up {
        (-u, down)
    } else {
        (u, up)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded generator of values in `[-1, 1)`.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> Real {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            ((self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) as Real
        }
        fn vector(&mut self, s: Real) -> Vector {
            Vector::new(self.next(), self.next(), self.next()) * s
        }
    }

    /// Brute force: the least distance from a dense sampling of the segment to the
    /// triangle (each sample's exact closest point).
    fn brute_distance(p: Point, q: Point, a: Point, b: Point, c: Point) -> Real {
        let n = 4000;
        (0..=n)
            .map(|i| {
                let x = p + (q - p) * (i as Real / n as Real);
                (x - point_triangle::closest_point(x, a, b, c)).length()
            })
            .fold(Real::INFINITY, Real::min)
    }

    /// Brute force: the penetration depth as the distance from the origin to the
    /// nearest face plane of `T − S`, the hull of its six vertices `tᵢ − sⱼ`, its faces
    /// found by trying every plane through three vertices (a face plane has all six on
    /// one side).
    fn brute_depth(p: Point, q: Point, tri: [Point; 3]) -> Real {
        let v: Vec<Point> = tri.iter().flat_map(|&t| [t - p, t - q]).collect();
        let mut best = Real::INFINITY;
        for i in 0..6 {
            for j in i + 1..6 {
                for k in j + 1..6 {
                    let m = (v[j] - v[i]).cross(v[k] - v[i]);
                    if m.length() < 1e-4 {
                        continue;
                    }
                    let m = m.normalize();
                    let off = v[i].dot(m);
                    let tol = 1e-5;
                    if v.iter().all(|x| x.dot(m) <= off + tol) {
                        best = best.min(off);
                    }
                    if v.iter().all(|x| x.dot(m) >= off - tol) {
                        best = best.min(-off);
                    }
                }
            }
        }
        best
    }

    #[test]
    fn apart_matches_a_dense_sampling() {
        let mut rng = Rng(0x5eed_1234);
        let mut apart = 0;
        for _ in 0..400 {
            let (a, b, c) = (rng.vector(1.0), rng.vector(1.0), rng.vector(1.0));
            let (p, q) = (rng.vector(2.0), rng.vector(2.0));
            let Some(k) = contact(a, b, c, p, q, 0.25) else {
                continue;
            };
            let d = brute_distance(p, q, a, b, c);
            if d <= 1e-3 {
                continue;
            }
            apart += 1;
            // Sampling finds the distance from above, within the sample step's reach.
            let step = (q - p).length() / 4000.0;
            assert!(k.distance + 0.25 <= d + 1e-5, "{:?} vs {d}", k.distance);
            assert!(
                k.distance + 0.25 >= d - step - 1e-5,
                "{:?} vs {d}",
                k.distance
            );
            // Witnesses: on the triangle, on the capsule, separated along the normal.
            let pa = k.point_a;
            assert!((pa - point_triangle::closest_point(pa, a, b, c)).length() < 1e-5);
            let core = k.point_b + k.normal * 0.25;
            let on_seg = segment_segment::closest_points(core, core, p, q).1;
            assert!((core - on_seg).length() < 1e-4);
            let gap = k.point_b - k.point_a - k.normal * k.distance;
            assert!(gap.length() < 1e-4, "{gap:?}");
            assert!((k.normal.length() - 1.0).abs() < 1e-5);
        }
        // Most random pairs are apart: the branch is exercised.
        assert!(apart > 200, "{apart}");
    }

    #[test]
    fn through_matches_the_least_overlap_over_directions() {
        let mut rng = Rng(0xfeed_0042);
        let mut through = 0;
        for _ in 0..150 {
            let (a, b, c) = (rng.vector(1.0), rng.vector(1.0), rng.vector(1.0));
            // A segment through a random point of the triangle.
            let (s, t) = (rng.next().abs(), rng.next().abs());
            let (s, t) = if s + t > 1.0 {
                (1.0 - s, 1.0 - t)
            } else {
                (s, t)
            };
            let x = a + (b - a) * s + (c - a) * t;
            let d = rng.vector(1.0);
            let (p, q) = (x - d * rng.next().abs(), x + d * rng.next().abs());
            let Some(k) = contact(a, b, c, p, q, 0.1) else {
                continue;
            };
            through += 1;
            let depth = -(k.distance + 0.1);
            let brute = brute_depth(p, q, [a, b, c]);
            assert!(depth >= -1e-6, "{depth}");
            // Exact: never above the directions' least overlap, and close to it.
            assert!(depth <= brute + 1e-5, "{depth} vs {brute}");
            assert!(depth >= brute - 1e-4 * (1.0 + brute), "{depth} vs {brute}");
            // Moved out by a little more than the depth, the segment is apart.
            let out = k.normal * (depth + 1e-3);
            assert!(brute_distance(p + out, q + out, a, b, c) > 1e-4);
            let gap = k.point_b - k.point_a - k.normal * k.distance;
            assert!(gap.length() < 1e-4, "{gap:?}");
        }
        assert!(through > 140, "{through}");
    }

    #[test]
    fn hard_branches() {
        let (a, b, c) = (
            Vector::new(0.0, 0.0, 0.0),
            Vector::new(2.0, 0.0, 0.0),
            Vector::new(0.0, 0.0, 2.0),
        );
        // Lying flat above the face, parallel to the plane: the face normal.
        let k = contact(
            a,
            b,
            c,
            Vector::new(0.2, 0.5, 0.3),
            Vector::new(0.8, 0.5, 0.3),
            0.25,
        )
        .expect("a triangle with a plane");
        assert!((k.distance - 0.25).abs() < 1e-6);
        assert!((k.normal - Vector::Y).length() < 1e-6);
        // Touching the face with one end (standing on it): distance −radius, normal up.
        let k = contact(
            a,
            b,
            c,
            Vector::new(0.3, 0.0, 0.3),
            Vector::new(0.3, 1.0, 0.3),
            0.25,
        )
        .expect("a triangle with a plane");
        assert!((k.distance + 0.25).abs() < 1e-6, "{k:?}");
        assert!((k.normal - Vector::Y).length() < 1e-6, "{k:?}");
        // Parallel to an edge, beside it in the plane: the edge's outward direction.
        let k = contact(
            a,
            b,
            c,
            Vector::new(0.5, 0.0, -1.0),
            Vector::new(1.5, 0.0, -1.0),
            0.0,
        )
        .expect("a triangle with a plane");
        assert!((k.distance - 1.0).abs() < 1e-6, "{k:?}");
        assert!((k.normal + Vector::Z).length() < 1e-6, "{k:?}");
        // A point segment (a sphere) below the face.
        let k = contact(
            a,
            b,
            c,
            Vector::new(0.5, -0.5, 0.5),
            Vector::new(0.5, -0.5, 0.5),
            0.1,
        )
        .expect("a triangle with a plane");
        assert!((k.distance - 0.4).abs() < 1e-6);
        assert!((k.normal + Vector::Y).length() < 1e-6);
        // Lying in the plane, across the triangle: depth 0 along the face normal.
        let k = contact(
            a,
            b,
            c,
            Vector::new(-1.0, 0.0, 0.5),
            Vector::new(3.0, 0.0, 0.5),
            0.1,
        )
        .expect("a triangle with a plane");
        assert!((k.distance + 0.1).abs() < 1e-6, "{k:?}");
        assert!(k.normal.y.abs() > 1.0 - 1e-6, "{k:?}");
        // Regression (tests/hostile_geometry.rs, case 871): a sliver whose short edges
        // (1e-30) underflow the closest-point products made NaN witnesses; such a
        // triangle is left to the general path, never answered with NaN.
        let sliver = [
            Vector::new(-7.7916397e-31, 5.4498095e-31, 2.1942766e-32),
            Vector::new(-1.5583279e-30, 1.0899619e-30, 4.3885533e-32),
            Vector::new(0.00036946184, -1.4952967e-5, 0.0003739645),
        ];
        if let Some(k) = contact(
            sliver[0],
            sliver[1],
            sliver[2],
            Vector::ZERO,
            Vector::ZERO,
            5e7,
        ) {
            assert!(k.point_a.is_finite() && k.point_b.is_finite() && k.normal.is_finite());
        }
        // Collinear corners: no closed form.
        assert!(contact(a, b, b * 2.0, Vector::Y, Vector::Y * 2.0, 0.1).is_none());
        // Huge and tiny scales: the same answer, scaled.
        for s in [1e-6 as Real, 1e6 as Real] {
            let k = contact(
                a * s,
                b * s,
                c * s,
                Vector::new(0.2, 0.5, 0.3) * s,
                Vector::new(0.8, 0.5, 0.3) * s,
                0.25 * s,
            )
            .expect("a triangle with a plane");
            assert!((k.distance / s - 0.25).abs() < 1e-4, "{k:?}");
            assert!((k.normal - Vector::Y).length() < 1e-4, "{k:?}");
        }
    }
}
