//! Box–triangle penetration by the separating-axis theorem, in closed form: the depth,
//! the normal and the witness points of an overlapping box and triangle without GJK or
//! EPA.
//!
//! # Why 13 axes give the exact depth
//!
//! The Minkowski difference of a box and a triangle is a convex polytope whose face
//! normals are among 13 directions, each with both signs: the triangle's normal `N`, the
//! box's three face normals `e_i`, and the nine cross products `e_i × E_k` of a box axis
//! with a triangle edge (Gottschalk, Lin & Manocha, "OBBTree", SIGGRAPH 1996, for the
//! separation test; Ericson, *Real-Time Collision Detection*, 2005, §5.2.9, "Testing box
//! against triangle"). In the box's frame (the box `[−h, h]` at the origin) the two
//! projections on an axis `u` are `[−r, r]` with `r = h · |u|` (componentwise absolute
//! value) and `[t_min, t_max]`, the range of the triangle's corners `p_k · u`. To separate
//! them the triangle must move along `+u` by `o(+u) = r − t_min`, or along `−u` by
//! `o(−u) = t_max + r`. If one of these is negative, `u` separates the shapes (the caller
//! then measures the distance with GJK: the largest gap is only a lower bound of it).
//! Otherwise the penetration depth, the distance from the origin to the boundary of the
//! Minkowski difference, is the least overlap `o(±u) / |u|` over the 26 directions: the
//! support function of a convex polytope that holds the origin takes its least value on
//! the unit sphere at a face normal, and no direction's overlap is below it, so testing
//! a superset of the face normals is harmless. The least direction, oriented from the
//! box towards the triangle, is the normal.
//!
//! Ties are broken towards the triangle's normal first, then the box's faces, then the
//! edge crosses: a later axis replaces the best only when its overlap is smaller by more
//! than [`SAT_SLACK`] of the coordinates' size (a box resting flat on a triangle takes
//! the triangle's normal, which the ghost-collision rules of static geometry keep).
//! The crosses `e_i × E` are exact in floating point (a permutation of `E`'s components
//! with one sign flipped); one shorter than [`SAT_SLACK`] of the coordinates' size (an
//! edge along a box axis, up to rounding) has a direction that is rounding noise and is
//! skipped: the parallel edges' Minkowski sum is then a segment, whose faces the other
//! axes give.
//!
//! # Witness points
//!
//! With the normal `n` (box → triangle) and the depth `δ` fixed, the witnesses are a point
//! `p_B` of the box's support feature along `n` and `p_T` of the triangle's along `−n`
//! with `p_B − p_T = δ n` (the point `δ n` of the Minkowski difference's boundary is a
//! difference of two such points). They are found as Box2D and the box–box closed form
//! (`query/pair/box_box.rs`) find them, by clipping (Sutherland & Hodgman, 1974):
//!
//! - the triangle's normal: the box's face most parallel to `n` (the incident face) is
//!   clipped by the planes through the triangle's edges, perpendicular to its face; the
//!   clipped point farthest along `n` is `p_B`, its projection on the triangle's plane
//!   `p_T`;
//! - a box face `e_i`: the triangle is clipped by the four planes `|x_m| = h_m`,
//!   `m ≠ i`; the clipped point farthest along `−n` is `p_T`, its projection on the face
//!   `p_B`;
//! - an edge cross: the closest points of the box's support edge along `n` (free along
//!   `e_i`) and the triangle's edge.
//!
//! When rounding empties a clip (features meeting along a line overlap by zero width) it
//! is redone with the planes moved out by [`SAT_SLACK`] of the size; still empty, the
//! support point of the incident feature stands in.

use super::segment_segment::closest_points;
use super::LocalContact;
use crate::math::{Point, Real, Vector};
use crate::tolerance::SAT_SLACK;

/// The axis that gave the least overlap.
#[derive(Clone, Copy)]
enum Axis {
    /// The triangle's normal.
    Normal,
    /// The box's face normal `e_i`.
    Face(usize),
    /// The cross of box axis `i` with triangle edge `k` (from corner `k` to `k + 1`).
    Edge(usize, usize),
}

/// The contact of the box of half extents `h` (centred at the origin, axis-aligned: the
/// box's frame) with the triangle `tri` (box frame) when they overlap or touch, A being
/// the box: distance `−δ` (δ ≥ 0 the penetration depth), unit normal from the box
/// towards the triangle, `point_a` on the box, `point_b` on the triangle,
/// `point_b − point_a = distance · normal` up to rounding. `None` when an axis separates
/// them (their distance is then GJK's to measure), when the triangle has no plane (zero
/// area, up to rounding), or for NaN input.
pub(crate) fn contact(h: Vector, tri: [Point; 3]) -> Option<LocalContact> {
    let [a, b, c] = tri;
    let scale = a.abs().max(b.abs()).max(c.abs()).max(h.abs()).max_element();
    if scale.is_nan() {
        return None;
    }
    let slack = SAT_SLACK * scale;
    let edges = [b - a, c - b, a - c];
    let normal = edges[0].cross(c - a);
    let mut best = Real::INFINITY;
    let mut best_n = Vector::Y;
    let mut best_axis = Axis::Normal;
    // Whether `u` (of length `len`, > 0) separates the shapes; otherwise keeps it when
    // its overlap is below the best by more than `bias`.
    let mut test = |u: Vector, len: Real, axis: Axis, bias: Real| -> bool {
        let r = h.dot(u.abs());
        let (pa, pb, pc) = (a.dot(u), b.dot(u), c.dot(u));
        let (tmin, tmax) = (pa.min(pb).min(pc), pa.max(pb).max(pc));
        let (plus, minus) = ((r - tmin) / len, (tmax + r) / len);
        // (NaN compares false and separates nothing; the caller's NaN check stands.)
        if plus < 0.0 || minus < 0.0 {
            return false;
        }
        let (o, n) = if plus <= minus {
            (plus, u / len)
        } else {
            (minus, -u / len)
        };
        if o < best - bias {
            best = o;
            best_n = n;
            best_axis = axis;
        }
        true
    };
    let len = normal.length();
    if len.is_nan() || len <= slack * scale {
        return None;
    }
    if !test(normal, len, Axis::Normal, 0.0) {
        return None;
    }
    for i in 0..3 {
        let mut e = Vector::ZERO;
        e[i] = 1.0;
        if !test(e, 1.0, Axis::Face(i), slack) {
            return None;
        }
    }
    for (k, e) in edges.iter().enumerate() {
        // e_x × E, e_y × E, e_z × E, exactly.
        let crosses = [
            Vector::new(0.0, -e.z, e.y),
            Vector::new(e.z, 0.0, -e.x),
            Vector::new(-e.y, e.x, 0.0),
        ];
        for (i, u) in crosses.into_iter().enumerate() {
            let len = u.length();
            if len <= slack {
                continue;
            }
            if !test(u, len, Axis::Edge(i, k), slack) {
                return None;
            }
        }
    }
    if !best.is_finite() {
        return None;
    }
    let n = best_n;
    let (on_box, on_tri) = match best_axis {
        Axis::Normal => normal_witness(h, tri, normal, n, slack),
        Axis::Face(i) => face_witness(h, tri, i, n, best, slack),
        Axis::Edge(i, k) => {
            // The box's support edge along n, free along e_i.
            let mut centre = Vector::ZERO;
            for m in 0..3 {
                if m != i {
                    centre[m] = if n[m] < 0.0 { -h[m] } else { h[m] };
                }
            }
            let mut half = Vector::ZERO;
            half[i] = h[i];
            closest_points(centre - half, centre + half, tri[k], tri[(k + 1) % 3])
        }
    };
    Some(LocalContact {
        distance: -best,
        normal: n,
        point_a: on_box,
        point_b: on_tri,
    })
}

/// The box's support point along `n`.
fn box_support(h: Vector, n: Vector) -> Point {
    Vector::new(
        if n.x < 0.0 { -h.x } else { h.x },
        if n.y < 0.0 { -h.y } else { h.y },
        if n.z < 0.0 { -h.z } else { h.z },
    )
}

/// Witnesses for the triangle's normal (`n = ±N̂`, box → triangle): the box's incident
/// face clipped by the triangle's side planes, its point farthest along `n`, and that
/// point's projection on the triangle's plane. `(on box, on triangle)`.
fn normal_witness(
    h: Vector,
    tri: [Point; 3],
    normal: Vector,
    n: Vector,
    slack: Real,
) -> (Point, Point) {
    // The incident face: the box's face most parallel to n, on n's side.
    let k = if n.x.abs() >= n.y.abs() && n.x.abs() >= n.z.abs() {
        0
    } else if n.y.abs() >= n.z.abs() {
        1
    } else {
        2
    };
    let (u, v) = ((k + 1) % 3, (k + 2) % 3);
    let mut centre = Vector::ZERO;
    centre[k] = if n[k] < 0.0 { -h[k] } else { h[k] };
    let mut du = Vector::ZERO;
    du[u] = h[u];
    let mut dv = Vector::ZERO;
    dv[v] = h[v];
    let face = [
        centre + du + dv,
        centre - du + dv,
        centre - du - dv,
        centre + du - dv,
    ];
    // The inward side planes: `normal × E_k` points into the triangle for its
    // counter-clockwise order about `normal`.
    let planes = [0, 1, 2].map(|e| {
        let (p, q) = (tri[e], tri[(e + 1) % 3]);
        let m = normal.cross(q - p);
        let len = m.length();
        (p, if len > 0.0 { m / len } else { m })
    });
    let clip_all = |out: Real| -> Polygon {
        let mut poly = Polygon::new(&face);
        for &(p, m) in &planes {
            // Keep (x − p) · m ≥ −out.
            let offset = p.dot(m) - out;
            poly = poly.clipped(|x| offset - x.dot(m));
            if poly.len == 0 {
                break;
            }
        }
        poly
    };
    let mut poly = clip_all(0.0);
    if poly.len == 0 {
        poly = clip_all(slack);
    }
    let plane = tri[0].dot(n);
    let on_box = poly
        .points()
        .iter()
        .copied()
        .max_by(|x, y| x.dot(n).total_cmp(&y.dot(n)))
        .unwrap_or_else(|| box_support(h, n));
    (on_box, on_box - n * (on_box.dot(n) - plane))
}

/// Witnesses for box face `e_i` (`n = ±e_i`, box → triangle, overlap `depth`): the
/// triangle clipped by the face's four side planes, its point farthest along `−n`, and
/// that point's projection on the face. `(on box, on triangle)`.
fn face_witness(
    h: Vector,
    tri: [Point; 3],
    i: usize,
    n: Vector,
    depth: Real,
    slack: Real,
) -> (Point, Point) {
    let clip_all = |out: Real| -> Polygon {
        let mut poly = Polygon::new(&tri);
        for m in [(i + 1) % 3, (i + 2) % 3] {
            for s in [1.0, -1.0] {
                // Keep s · x_m ≤ h_m + out.
                let limit = h[m] + out;
                poly = poly.clipped(|x| s * x[m] - limit);
                if poly.len == 0 {
                    return poly;
                }
            }
        }
        poly
    };
    let mut poly = clip_all(0.0);
    if poly.len == 0 {
        poly = clip_all(slack);
    }
    let on_tri = poly
        .points()
        .iter()
        .copied()
        .min_by(|x, y| x.dot(n).total_cmp(&y.dot(n)))
        .unwrap_or_else(|| {
            // Rounding emptied both clips: the triangle's support corner along −n.
            let [a, b, c] = tri;
            let lowest = if a.dot(n) <= b.dot(n) { a } else { b };
            if c.dot(n) < lowest.dot(n) {
                c
            } else {
                lowest
            }
        });
    let on_box = (on_tri + n * depth).clamp(-h, h);
    (on_box, on_tri)
}

/// A convex polygon of at most 7 corners (a quadrilateral or triangle clipped by up to
/// four planes gains at most one corner per plane).
#[derive(Clone, Copy)]
struct Polygon {
    corners: [Point; 8],
    len: usize,
}

impl Polygon {
    fn new(points: &[Point]) -> Self {
        let mut corners = [Vector::ZERO; 8];
        let len = points.len().min(8);
        corners[..len].copy_from_slice(&points[..len]);
        Polygon { corners, len }
    }

    fn points(&self) -> &[Point] {
        &self.corners[..self.len]
    }

    /// The part where `side(x) ≤ 0` (`side` affine), one plane of Sutherland and
    /// Hodgman's clipping: each edge kept, cut where it crosses, or dropped.
    fn clipped(&self, side: impl Fn(Point) -> Real) -> Polygon {
        let mut out = Polygon {
            corners: [Vector::ZERO; 8],
            len: 0,
        };
        let mut push = |p: Point| {
            if out.len < 8 {
                out.corners[out.len] = p;
                out.len += 1;
            }
        };
        for k in 0..self.len {
            let p = self.corners[k];
            let q = self.corners[(k + 1) % self.len];
            let (dp, dq) = (side(p), side(q));
            if dp <= 0.0 {
                push(p);
            }
            if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
                push(p + (q - p) * (dp / (dp - dq)));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    //! The closed form against GJK + EPA (the dispatcher's answer for a box and a
    //! triangle, which has no closed form there) on seeded random pairs of every kind:
    //! generic overlaps, deep ones, parallel faces, crossing edges, touching, at tiny and
    //! huge scales. The depths must agree within EPA's tolerance; the normals within
    //! 1e-3 rad, or, where the least overlap is tied between axes (a box face parallel to
    //! the triangle's, two crossing edges as deep as a corner), the overlap along EPA's
    //! normal must equal the depth (EPA found the other tied axis).
    use super::*;
    use crate::math::Pose;
    use crate::query::contact_with;
    use crate::query::QueryOptions;
    use crate::shape::{Cuboid, Shape, Triangle};

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
        fn unit(&mut self) -> Vector {
            loop {
                let v = self.vector(1.0);
                let l = v.length();
                if l > 0.1 && l <= 1.0 {
                    return v / l;
                }
            }
        }
    }

    /// The overlap of the box and the triangle along unit `u` (box → triangle): how far
    /// the triangle must move along `u` to clear the box.
    fn overlap_along(h: Vector, tri: [Point; 3], u: Vector) -> Real {
        let r = h.dot(u.abs());
        let tmin = tri[0].dot(u).min(tri[1].dot(u)).min(tri[2].dot(u));
        r - tmin
    }

    /// EPA's relative tolerance, with room for the rounding of the inputs.
    #[cfg(not(minkowski_f64))]
    const TOL: Real = 2e-4;
    #[cfg(minkowski_f64)]
    const TOL: Real = 1e-8;

    /// Compares the closed form with GJK + EPA on one pair; returns whether the pair
    /// overlapped (and so was compared).
    fn check(h: Vector, tri: [Point; 3], what: &str) -> bool {
        let Ok(t) = Triangle::new(tri[0], tri[1], tri[2]) else {
            return false;
        };
        let (bx, tr) = (Shape::from(Cuboid::new(h).unwrap()), Shape::from(t));
        let epa = contact_with(
            &bx,
            &Pose::IDENTITY,
            &tr,
            &Pose::IDENTITY,
            &QueryOptions::default(),
            None,
        );
        let scale = tri[0]
            .abs()
            .max(tri[1].abs())
            .max(tri[2].abs())
            .max(h)
            .max_element();
        let ours = contact(h, tri);
        let tol = TOL * scale;
        let Some(k) = ours else {
            // Separated for the closed form: GJK must agree (or find them touching).
            assert!(epa.distance >= -tol, "{what}: none, EPA {epa:?}");
            return false;
        };
        assert!(
            epa.distance <= tol,
            "{what}: {k:?} while GJK finds {}",
            epa.distance
        );
        let depth = -k.distance;
        assert!(depth >= 0.0, "{what}: {k:?}");
        assert!(
            (k.distance - epa.distance).abs() <= tol,
            "{what}: depth {} vs EPA {} ({epa:?})",
            k.distance,
            epa.distance
        );
        assert!((k.normal.length() - 1.0).abs() < 1e-4, "{what}: {k:?}");
        // The normal: EPA's, or a tie whose overlap is the depth.
        if epa.distance < -tol {
            let angle = k.normal.angle_between(epa.normal);
            let tie = (overlap_along(h, tri, epa.normal) - depth).abs() <= tol;
            assert!(
                angle <= 1e-3 || tie,
                "{what}: normal {} vs EPA {} ({angle} rad)",
                k.normal,
                epa.normal
            );
            // Our normal's overlap is our depth.
            assert!(
                (overlap_along(h, tri, k.normal) - depth).abs() <= tol,
                "{what}"
            );
        }
        // The witnesses: on their shapes, `point_b − point_a = distance · normal`.
        let gap = k.point_b - k.point_a - k.normal * k.distance;
        assert!(
            gap.length() <= 4.0 * tol,
            "{what}: witnesses off by {gap} ({k:?})"
        );
        let outside = (k.point_a.abs() - h).max_element();
        assert!(
            outside <= tol,
            "{what}: box witness {} outside by {outside}",
            k.point_a
        );
        let on_tri =
            crate::query::pair::point_triangle::closest_point(k.point_b, tri[0], tri[1], tri[2]);
        assert!(
            (on_tri - k.point_b).length() <= 4.0 * tol,
            "{what}: triangle witness off"
        );
        true
    }

    #[test]
    fn random_pairs_agree_with_gjk_epa() {
        let mut rng = Rng(0x5eed_b0c5);
        let mut compared = 0;
        for s in [1.0 as Real, 1e-3, 1e3] {
            for i in 0..600 {
                let h = Vector::new(
                    0.1 + rng.next().abs(),
                    0.1 + rng.next().abs(),
                    0.1 + rng.next().abs(),
                );
                let centre = rng.vector(1.2);
                let size = if i % 3 == 0 { 3.0 } else { 1.0 };
                let tri = [
                    centre + rng.vector(size),
                    centre + rng.vector(size),
                    centre + rng.vector(size),
                ];
                compared +=
                    usize::from(check(h * s, tri.map(|p| p * s), &format!("random {s} {i}")));
            }
        }
        assert!(compared > 450, "{compared} overlapping of 1800");
    }

    #[test]
    fn deep_pairs_agree_with_gjk_epa() {
        let mut rng = Rng(0xdee9_0001);
        for i in 0..400 {
            let h = Vector::new(0.3, 0.6, 1.0) + rng.vector(0.2).abs();
            // A triangle through the box's middle.
            let centre = rng.vector(0.3);
            let tri = [
                centre + rng.vector(2.0),
                centre + rng.vector(2.0),
                centre + rng.vector(2.0),
            ];
            check(h, tri, &format!("deep {i}"));
        }
    }

    /// A box face parallel to the triangle: the triangle in the plane `y = h_y − d`,
    /// turned about y, facing either way; `d = 0` is touching.
    #[test]
    fn parallel_faces_agree_with_gjk_epa() {
        let mut rng = Rng(0x9a7a_11e1);
        let mut compared = 0;
        for s in [1.0 as Real, 1e-3, 1e3] {
            for i in 0..300 {
                let h = Vector::new(0.5, 0.25, 0.75) + rng.vector(0.2).abs();
                let d = if i % 5 == 0 {
                    0.0
                } else {
                    rng.next().abs() * 0.1
                };
                let y = h.y - d;
                let mut tri = [0, 1, 2].map(|k| {
                    let a = k as Real * 2.0944 + rng.next() * 0.3;
                    let r = 0.5 + rng.next().abs();
                    Vector::new(a.cos() * r, y, a.sin() * r)
                        + Vector::new(rng.next(), 0.0, rng.next()) * 0.5
                });
                if i % 2 == 0 {
                    tri.swap(1, 2);
                }
                compared += usize::from(check(
                    h * s,
                    tri.map(|p| p * s),
                    &format!("parallel {s} {i}"),
                ));
            }
        }
        assert!(compared > 700, "{compared}");
    }

    /// A triangle edge crossing a box edge near the box's corner, slightly penetrating:
    /// the least overlap is an edge cross.
    #[test]
    fn crossing_edges_agree_with_gjk_epa() {
        let mut rng = Rng(0xed6e_ed6e);
        let mut edge_axes = 0;
        for s in [1.0 as Real, 1e-3, 1e3] {
            for i in 0..300 {
                let h = Vector::new(0.5, 0.5, 0.5) + rng.vector(0.3).abs();
                // The box edge x = h_x, y = h_y (along z); the triangle edge crosses it
                // along a direction in the plane perpendicular to (1, 1, 0).
                let d = rng.next().abs() * 0.05;
                let diag = Vector::new(1.0, 1.0, 0.0).normalize();
                let p = Vector::new(h.x, h.y, rng.next() * h.z * 0.5) - diag * d;
                let along = (Vector::new(1.0, -1.0, 0.0).normalize() * rng.next() * 0.3
                    + Vector::Z)
                    .normalize();
                let apex = p + diag * (0.5 + rng.next().abs()) + rng.unit() * 0.2;
                let tri = [p - along, p + along, apex];
                if check(h * s, tri.map(|x| x * s), &format!("edges {s} {i}")) {
                    let k = contact(h, tri).unwrap();
                    edge_axes += usize::from(k.normal.x.abs() > 0.1 && k.normal.y.abs() > 0.1);
                }
            }
        }
        assert!(edge_axes > 100, "{edge_axes} edge-cross normals");
    }

    #[test]
    fn separated_and_degenerate_give_none() {
        let h = Vector::new(1.0, 0.5, 2.0);
        let up = [
            Vector::new(-3.0, 0.75, -3.0),
            Vector::new(3.0, 0.75, -3.0),
            Vector::new(0.0, 0.75, 3.0),
        ];
        assert!(contact(h, up).is_none());
        let line = [Vector::ZERO, Vector::X, Vector::X * 2.0];
        assert!(contact(h, line).is_none());
        let nan = [Vector::splat(Real::NAN), Vector::X, Vector::Y];
        assert!(contact(h, nan).is_none());
        // Resting exactly on the top face: depth 0, the triangle's normal.
        let down = Vector::new(0.0, -0.25, 0.0);
        let k = contact(h, up.map(|p| p + down)).unwrap();
        assert_eq!(k.distance, 0.0);
        assert!(k.normal.y > 0.999_999, "{k:?}");
    }
}
