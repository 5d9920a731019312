//! Regression tests, each named after the failure it pins down.

use minkowski::query;
use minkowski::shape::{ConvexPolyhedron, Cylinder, Shape};
use minkowski::{Pose, Rotation, Vector};

/// Found by the oracle suite once convex shapes kept only their hull vertices: in f32,
/// plain GJK's last reduction on a triangle about 1 wide, with the origin 1e-5 off its
/// plane, came back on the wrong side of the plane (|v| = 3.5e-6, below the certified
/// lower bound 8.2e-6), and the contact normal pointed from B to A. GJK now refuses a
/// reduction below its own lower bound and keeps the last consistent simplex. The true
/// distance (f64) is 1.0504e-5 along (0.1810, 0.6952, 0.6956).
#[test]
fn gjk_reduction_below_the_lower_bound_does_not_flip_the_normal() {
    let a = Shape::from(Cylinder::new(0.8095557, 0.52736276).unwrap());
    let pa = Pose::new(
        Rotation::from_xyzw(-0.6913279, 0.43806827, 0.31986168, 0.4773369),
        Vector::new(1.914706, -2.6872678, 2.2181833),
    );
    let b = Shape::from(
        ConvexPolyhedron::new(vec![
            Vector::new(0.3139281, 0.65350544, 0.2569035),
            Vector::new(0.23191483, -0.8022561, 0.5877555),
            Vector::new(0.36613628, -0.47455183, 0.091890424),
            Vector::new(-0.9226822, -0.7569391, -0.27299106),
            Vector::new(0.3235798, 0.10373722, 0.33938172),
        ])
        .unwrap(),
    );
    let pb = Pose::new(
        Rotation::from_xyzw(-0.47364038, 0.50437975, -0.56911993, -0.44426164),
        Vector::new(2.4941099, -2.125051, 3.0354655),
    );
    let truth = Vector::new(0.181_045_67, 0.695_193_4, 0.695_649_9);
    let c = query::contact(&a, &pa, &b, &pb);
    assert!(c.normal.dot(truth) > 0.999, "{c:?}");
    assert!((c.distance - 1.0504464e-5).abs() < 3e-6, "{c:?}");
    let d = query::distance(&a, &pa, &b, &pb);
    assert!((d.distance - 1.0504464e-5).abs() < 3e-6, "{d:?}");
}
