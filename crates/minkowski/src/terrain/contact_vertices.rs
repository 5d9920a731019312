//! The points an object is tested with against a displacement-mapped terrain.
//!
//! The thesis's detection (§3.6) is a test of *vertices*: an object is a set of convex
//! polyhedra, and it touches the terrain where one of their vertices lies under the
//! surface (§2.4.2). [`contact_vertices`] gives those points for any [`Shape`]:
//!
//! * a polyhedral shape (box, pyramid, triangle, segment, point, convex hull) gives its
//!   own vertices, exactly;
//! * a curved shape (sphere, capsule, cylinder, cone, ellipsoid, or any rounded shape)
//!   has no vertices, and is represented by its support points in the
//!   [`CURVED_DIRECTIONS`] fixed directions of a spherical Fibonacci lattice: an
//!   inscribed polytope. A point of the true surface whose outward normal is `u` lies at
//!   most `ρ (1 − cos θ)` outside that polytope for a ball of radius `ρ`, where `θ` is
//!   the largest angle between `u` and its nearest lattice direction: below
//!   [`CURVED_MAX_ANGLE`] (checked by the tests), so a ball resting on the terrain may
//!   sink by at most about 2.5% of its radius before a contact is reported. The same bound
//!   holds with `ρ` the largest radius of curvature for the other curved shapes.
//!
//! The lattice (González 2010, "Measurement of areas on a sphere using Fibonacci and
//! latitude–longitude lattices", Math. Geosci. 42) places point `k` of `N` at height
//! `y = 1 − (2k + 1)/N` and longitude `2πk/φ²`; its covering radius shrinks as
//! `O(1/√N)`.

use crate::math::{Point, Pose, Real, Vector};
use crate::shape::{CoreShape, Shape};
use crate::support::SupportMap;

/// How many directions a curved shape is sampled in.
pub const CURVED_DIRECTIONS: usize = 160;

/// An upper bound on the angle (radians) between any unit vector and its nearest
/// direction of the lattice of [`CURVED_DIRECTIONS`] points (about 12.6°; measured:
/// 12.35°, near the poles).
pub const CURVED_MAX_ANGLE: Real = 0.22;

/// Direction `k` of the lattice of [`CURVED_DIRECTIONS`] points (unit).
fn lattice_direction(k: usize) -> Vector {
    // 2π / φ², the golden angle.
    let golden = core::f64::consts::PI * (3.0 - 5f64.sqrt());
    let n = CURVED_DIRECTIONS as f64;
    let y = 1.0 - (2.0 * k as f64 + 1.0) / n;
    let r = (1.0 - y * y).max(0.0).sqrt();
    let phi = golden * k as f64;
    Vector::new((r * phi.cos()) as Real, y as Real, (r * phi.sin()) as Real)
}

/// Appends to `out` the world-frame points `shape` at `pose` is tested with (see the
/// module notes): its vertices when it is polyhedral, else its support points in the
/// lattice's directions (duplicates removed). The points lie on the shape's surface
/// (to rounding).
pub fn contact_vertices(shape: &Shape, pose: &Pose, out: &mut Vec<Point>) {
    let (core, margin) = shape.core();
    let place = |p: Point| pose.transform_point(p);
    if margin == 0.0 {
        match core {
            CoreShape::Point(p) => {
                out.push(place(p.point()));
                return;
            }
            CoreShape::Segment(s) => {
                out.extend([s.a(), s.b()].map(place));
                return;
            }
            CoreShape::Cuboid(c) => {
                out.extend(c.vertices().map(place));
                return;
            }
            CoreShape::Pyramid(p) => {
                out.extend(p.vertices().map(place));
                return;
            }
            CoreShape::Triangle(t) => {
                out.extend(t.vertices().map(place));
                return;
            }
            CoreShape::Convex(h) => {
                out.extend(h.points().iter().map(|&p| place(p)));
                return;
            }
            CoreShape::Cylinder(_) | CoreShape::Cone(_) | CoreShape::Ellipsoid(_) => {}
        }
    }
    // Flat parts of a curved shape (a cylinder's caps, a cone's base) and its apexes give
    // the same support point in several directions: each is kept once.
    let mut curved: Vec<Point> = (0..CURVED_DIRECTIONS)
        .map(|k| place(shape.local_support(lattice_direction(k))))
        .collect();
    curved.sort_by(|a, b| {
        a.x.total_cmp(&b.x)
            .then(a.y.total_cmp(&b.y))
            .then(a.z.total_cmp(&b.z))
    });
    curved.dedup();
    out.extend(curved);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded stream of unit vectors (xorshift, rejection in the cube).
    fn unit_vectors(seed: u64, n: usize) -> Vec<Vector> {
        let mut s = seed;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let v = [next(), next(), next()];
            let l2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
            if l2 > 1e-6 && l2 <= 1.0 {
                let l = l2.sqrt();
                out.push(Vector::new(
                    (v[0] / l) as Real,
                    (v[1] / l) as Real,
                    (v[2] / l) as Real,
                ));
            }
        }
        out
    }

    /// The lattice's covering radius, measured on 2·10^5 random directions and at the
    /// poles, is below the documented bound (and is not far below it: the bound is
    /// tight enough to be informative).
    #[test]
    fn lattice_covers_the_sphere_within_the_bound() {
        let dirs: Vec<Vector> = (0..CURVED_DIRECTIONS).map(lattice_direction).collect();
        for d in &dirs {
            assert!((d.length() - 1.0).abs() < 1e-5);
        }
        let mut probes = unit_vectors(7, 200_000);
        probes.extend([Vector::Y, -Vector::Y, Vector::X, -Vector::Z]);
        let mut worst: Real = 0.0;
        for u in probes {
            let best = dirs.iter().map(|d| d.dot(u)).fold(-1.0, Real::max);
            worst = worst.max(best.clamp(-1.0, 1.0).acos());
        }
        assert!(worst < CURVED_MAX_ANGLE, "covering radius {worst}");
        assert!(worst > 0.7 * CURVED_MAX_ANGLE, "bound too loose: {worst}");
    }
}
