//! Support maps checked against brute force: the support point must be a point of the
//! shape and no sampled point of the shape may go further along the direction.

use super::*;
use crate::math::{Pose, Rotation};

fn lcg(state: &mut u64) -> Real {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 33) as Real / (1u64 << 31) as Real) * 2.0 - 1.0
}

/// Points of the shape sampled by rejection from its AABB, using an independent
/// membership test per shape.
fn inside(shape: &Shape, p: Vector) -> bool {
    let eps = 1e-5;
    match shape {
        Shape::Sphere(s) => p.length() <= s.radius() + eps,
        Shape::Cuboid(c) => (p.abs() - c.half_extents()).max_element() <= eps,
        Shape::Capsule(c) => {
            let y = p.y.clamp(-c.half_height(), c.half_height());
            (p - Vector::new(0.0, y, 0.0)).length() <= c.radius() + eps
        }
        Shape::Cylinder(c) => {
            p.y.abs() <= c.half_height() + eps && (p.x * p.x + p.z * p.z).sqrt() <= c.radius() + eps
        }
        Shape::Cone(c) => {
            let h = c.half_height();
            if p.y < -h - eps || p.y > h + eps {
                return false;
            }
            let r_at = c.radius() * (h - p.y) / (2.0 * h);
            (p.x * p.x + p.z * p.z).sqrt() <= r_at + eps
        }
        Shape::Ellipsoid(e) => (p / e.radii()).length() <= 1.0 + eps,
        _ => true,
    }
}

#[test]
fn supports_are_extreme_points_of_the_shapes() {
    let shapes: Vec<Shape> = vec![
        Sphere::new(1.3).unwrap().into(),
        Cuboid::new(Vector::new(0.5, 1.0, 2.0)).unwrap().into(),
        Capsule::new(0.7, 0.4).unwrap().into(),
        Cylinder::new(0.8, 0.6).unwrap().into(),
        Cone::new(1.0, 0.5).unwrap().into(),
        Ellipsoid::new(Vector::new(0.5, 1.5, 1.0)).unwrap().into(),
    ];
    let mut st = 7u64;
    for shape in &shapes {
        let aabb = shape.local_aabb();
        let samples: Vec<Vector> = (0..20000)
            .map(|_| {
                let t = Vector::new(lcg(&mut st), lcg(&mut st), lcg(&mut st)) * 0.5 + 0.5;
                aabb.mins + (aabb.maxs - aabb.mins) * t
            })
            .filter(|p| inside(shape, *p))
            .collect();
        assert!(samples.len() > 1000, "{}", shape.type_name());
        for _ in 0..200 {
            let d = Vector::new(lcg(&mut st), lcg(&mut st), lcg(&mut st));
            let s = shape.local_support(d);
            assert!(
                inside(shape, s),
                "{} support {s} outside",
                shape.type_name()
            );
            let h = s.dot(d);
            for p in &samples {
                assert!(
                    p.dot(d) <= h + 1e-4,
                    "{} sample beats support",
                    shape.type_name()
                );
            }
        }
    }
}

#[test]
fn polytope_supports_match_vertex_scans() {
    let pyr = Pyramid::new(Vector::new(1.0, 0.5, 2.0)).unwrap();
    let cub = Cuboid::new(Vector::new(1.0, 0.5, 2.0)).unwrap();
    let mut st = 11u64;
    for _ in 0..1000 {
        let d = Vector::new(lcg(&mut st), lcg(&mut st), lcg(&mut st));
        let best = |vs: &[Vector]| vs.iter().map(|v| v.dot(d)).fold(Real::MIN, Real::max);
        assert!((pyr.local_support(d).dot(d) - best(&pyr.vertices())).abs() < 1e-5);
        assert!((cub.local_support(d).dot(d) - best(&cub.vertices())).abs() < 1e-5);
    }
}

#[test]
fn constructors_reject_bad_numbers() {
    assert!(Sphere::new(-1.0).is_err());
    assert!(Sphere::new(Real::NAN).is_err());
    assert!(Sphere::new(Real::INFINITY).is_err());
    assert!(Sphere::new(MAX_MAGNITUDE * 2.0).is_err());
    assert!(Cuboid::new(Vector::new(1.0, -0.1, 1.0)).is_err());
    assert!(Capsule::new(1.0, Real::NAN).is_err());
    assert!(ConvexPolyhedron::new(vec![]).is_err());
    assert!(ConvexPolyhedron::new(vec![Vector::new(0.0, Real::NAN, 0.0)]).is_err());
    assert!(Segment::new(Vector::ZERO, Vector::splat(Real::INFINITY)).is_err());
    let e = Sphere::new(-1.0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "sphere radius must be finite and >= 0, got -1"
    );
    // Zero sizes are valid (degenerate but meaningful).
    assert!(Sphere::new(0.0).is_ok());
    assert!(Cuboid::new(Vector::ZERO).is_ok());
}

#[test]
fn world_aabb_contains_transformed_support_points() {
    let s: Shape = Cone::new(1.0, 0.5).unwrap().into();
    let pose = Pose::new(
        Rotation::from_axis_angle(Vector::new(1.0, 1.0, 0.0).normalize(), 0.8),
        Vector::new(1.0, 2.0, 3.0),
    )
    .unwrap();
    let aabb = s.local_aabb().transformed(&pose);
    let mut st = 3u64;
    for _ in 0..500 {
        let d = Vector::new(lcg(&mut st), lcg(&mut st), lcg(&mut st));
        let p = pose.transform_point(s.local_support(d));
        assert!(p.cmpge(aabb.mins - 1e-5).all() && p.cmple(aabb.maxs + 1e-5).all());
    }
}
