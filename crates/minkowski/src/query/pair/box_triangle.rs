//! A box against a triangle: the greatest separation over the separating axes, a cheap
//! exact test that the two are apart (farther than a margin) before any GJK run.
//!
//! Two convex polytopes are disjoint exactly when their projections on one of the
//! normals of the faces of their Minkowski difference are disjoint (the separating-axis
//! theorem). For a box and a triangle these normals are among 13 directions: the box's
//! three face normals, the triangle's normal, and the nine cross products of a box axis
//! with a triangle edge (Gottschalk, Lin & Manocha, "OBBTree", 1996; Akenine-Möller,
//! "Fast 3D triangle-box overlap testing", 2001). Along a unit axis `u` the gap between
//! the two projections is a lower bound of their distance (the distance is the largest
//! such gap over all directions), so a gap above the margin proves the pair is farther
//! apart than the margin. The gap is not the distance itself (the closest features may
//! be two vertices, whose direction is none of the 13): it only rejects.
//!
//! The box is centred at the origin of its frame with half extents `h`; the box's
//! radius along `u` is `h · |u|`, and a triangle's projection is the range of its three
//! corners' (Akenine-Möller's form).

use crate::math::{Point, Real, Vector};

/// The greatest gap between the projections of the box of half extents `h` (centred
/// at the origin, axis-aligned) and triangle `abc` over the 13 separating axes: positive
/// when they are apart (at least that far), at most zero when they overlap or touch.
/// Axes of zero length (a degenerate cross product, an edge along a box axis, a triangle
/// with no plane) are skipped: they are covered by the others.
pub(crate) fn separation(h: Vector, a: Point, b: Point, c: Point) -> Real {
    let mut best = Real::NEG_INFINITY;
    // The box's faces.
    let lo = a.min(b).min(c);
    let hi = a.max(b).max(c);
    let faces = (lo - h).max(-h - hi);
    best = best.max(faces.max_element());
    let mut axis = |u: Vector| {
        let len = u.length();
        if len.is_nan() || len <= 0.0 {
            return;
        }
        let r = h.dot(u.abs());
        let (pa, pb, pc) = (a.dot(u), b.dot(u), c.dot(u));
        let (tmin, tmax) = (pa.min(pb).min(pc), pa.max(pb).max(pc));
        let gap = (tmin - r).max(-r - tmax) / len;
        best = best.max(gap);
    };
    // The triangle's normal.
    axis((b - a).cross(c - a));
    // The box's axes crossed with the triangle's edges.
    for e in [b - a, c - b, a - c] {
        axis(Vector::X.cross(e));
        axis(Vector::Y.cross(e));
        axis(Vector::Z.cross(e));
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::pair::point_triangle;

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

    /// Brute force: the distance of the box and the triangle as the least, over a dense
    /// grid of the triangle's points and of the box's surface points, of each point's
    /// exact distance to the other shape (a point's distance to the box is its excess
    /// over the half extents; to the triangle, through its closest point). An upper
    /// bound of the distance, within the grid's step of it.
    fn brute_distance(h: Vector, a: Point, b: Point, c: Point) -> Real {
        let n = 120;
        let mut best = Real::INFINITY;
        for i in 0..=n {
            for j in 0..=(n - i) {
                let (s, t) = (i as Real / n as Real, j as Real / n as Real);
                let q = a + (b - a) * s + (c - a) * t;
                best = best.min((q.abs() - h).max(Vector::ZERO).length());
            }
        }
        let m = 60;
        for face in 0..6 {
            let (k, sign) = (face / 2, if face % 2 == 0 { 1.0 } else { -1.0 });
            for i in 0..=m {
                for j in 0..=m {
                    let (s, t) = (
                        i as Real / m as Real * 2.0 - 1.0,
                        j as Real / m as Real * 2.0 - 1.0,
                    );
                    let mut p = [0.0; 3];
                    p[k] = sign * h[k];
                    p[(k + 1) % 3] = s * h[(k + 1) % 3];
                    p[(k + 2) % 3] = t * h[(k + 2) % 3];
                    let p = Vector::from_array(p);
                    best = best.min((p - point_triangle::closest_point(p, a, b, c)).length());
                }
            }
        }
        best
    }

    #[test]
    fn separation_bounds_the_distance_and_decides_overlap() {
        let mut rng = Rng(0x0b0c_7419);
        let (mut apart, mut overlapping) = (0, 0);
        for _ in 0..300 {
            let h = Vector::new(
                0.2 + rng.next().abs(),
                0.2 + rng.next().abs(),
                0.2 + rng.next().abs(),
            );
            let centre = rng.vector(1.5);
            let (a, b, c) = (
                centre + rng.vector(1.0),
                centre + rng.vector(1.0),
                centre + rng.vector(1.0),
            );
            let sep = separation(h, a, b, c);
            let d = brute_distance(h, a, b, c);
            // A lower bound of the distance (the brute force is an upper bound).
            assert!(sep <= d + 1e-5, "{sep} > {d}");
            // Apart by more than the grid's reach: some axis separates them.
            if d > 0.05 {
                apart += 1;
                assert!(sep > 0.0, "{sep} for a distance of {d}");
            }
            // Overlapping (a triangle point inside the box): no axis separates them.
            if d <= 0.0 {
                overlapping += 1;
                assert!(sep <= 1e-6, "{sep} while overlapping");
            }
        }
        assert!(apart > 50 && overlapping > 50, "{apart} {overlapping}");
    }

    #[test]
    fn face_and_edge_gaps_are_exact() {
        let h = Vector::new(1.0, 0.5, 2.0);
        // A triangle flat 0.25 above the top face: the gap is along y, exactly.
        let (a, b, c) = (
            Vector::new(-3.0, 0.75, -3.0),
            Vector::new(3.0, 0.75, -3.0),
            Vector::new(0.0, 0.75, 3.0),
        );
        assert!((separation(h, a, b, c) - 0.25).abs() < 1e-6);
        // Resting on the top face: touching, gap 0.
        let down = Vector::new(0.0, -0.25, 0.0);
        assert!(separation(h, a + down, b + down, c + down).abs() < 1e-6);
        // An edge along (1, −1, 0) passing the box's edge (x = 1, y = 0.5, along z) 0.1
        // away along their common perpendicular (1, 1, 0): the gap of an edge-edge axis.
        let diag = Vector::new(1.0, 1.0, 0.0).normalize();
        let p = Vector::new(1.0, 0.5, 0.0) + diag * 0.1;
        let along = Vector::new(1.0, -1.0, 0.0) * 2.0;
        let (a, b, c) = (p - along, p + along, p + diag + Vector::Z);
        let g = separation(h, a, b, c);
        assert!((g - 0.1).abs() < 1e-5, "{g}");
        // Crossing the box: overlapping.
        let (a, b, c) = (
            Vector::new(-5.0, 0.0, -5.0),
            Vector::new(5.0, 0.0, -5.0),
            Vector::new(0.0, 0.0, 5.0),
        );
        assert!(separation(h, a, b, c) <= 0.0);
        // Tiny and huge scales: the same gap, scaled.
        for s in [1e-6 as Real, 1e6 as Real] {
            let t = [
                Vector::new(-3.0, 0.75, -3.0),
                Vector::new(3.0, 0.75, -3.0),
                Vector::new(0.0, 0.75, 3.0),
            ];
            let g = separation(h * s, t[0] * s, t[1] * s, t[2] * s);
            assert!((g / s - 0.25).abs() < 1e-4, "{g}");
        }
    }
}
