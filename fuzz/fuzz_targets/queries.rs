//! The library's pair queries on arbitrary shapes and poses, with the answers'
//! invariants asserted: finite outputs and unit normals; `lower_bound ≤ distance ≤
//! upper_bound`; `point_b − point_a = distance · normal`; the shapes' separation measured
//! along the normal (by their support maps) equals the distance; intersects, distance,
//! closest points and contact agree; swapping A and B gives the same distance; every
//! manifold point satisfies the identity too. Tolerances are relative to the problem's
//! size, looser than the oracle suites' (the shapes here are far more extreme).
#![no_main]

// The `f64` feature fuzzes the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use libfuzzer_sys::fuzz_target;
use minkowski::query;
use minkowski::shape::Shape;
use minkowski::support::SupportMap;
use minkowski::{Pose, Real, Vector};

mod raw;
use raw::{pose, shape, RawPose, RawShape};

/// The largest extent of the shape along `n` (world frame), by its support map.
fn h(s: &Shape, pose: &Pose, n: Vector) -> Real {
    let local = pose.rotation().inverse() * n;
    n.dot(pose.transform_point(s.local_support(local)))
}

fuzz_target!(|input: (RawShape, RawShape, RawPose, RawPose)| {
    let (ra, rb, qa, qb) = input;
    let (Some(a), Some(b)) = (shape(&ra, 0), shape(&rb, 0)) else {
        return;
    };
    let reach = a.bounding_radius().max(b.bounding_radius());
    let (Some(pa), Some(pb)) = (pose(&qa, reach), pose(&qb, reach)) else {
        return;
    };
    let sigma = reach + (pa.translation() - pb.translation()).length();
    let rel = if cfg!(feature = "f64") { 1e-7 } else { 2e-3 };
    let tol = rel * sigma;

    let c = query::contact(&a, &pa, &b, &pb);
    assert!(
        c.distance.is_finite()
            && c.normal.is_finite()
            && c.point_a.is_finite()
            && c.point_b.is_finite(),
        "non-finite contact {c:?}"
    );
    assert!(
        (c.normal.length() - 1.0).abs() < 1e-3,
        "normal not unit: {c:?}"
    );
    assert!(
        c.lower_bound <= c.distance && c.distance <= c.upper_bound,
        "bounds {c:?}"
    );
    assert!(
        ((c.point_b - c.point_a) - c.normal * c.distance).length() <= tol,
        "point_b − point_a ≠ distance · normal: {c:?}"
    );
    let separation = -h(&b, &pb, -c.normal) - h(&a, &pa, c.normal);
    assert!(
        (separation - c.distance).abs() <= 8.0 * tol,
        "separation along the normal {separation} vs distance {}: {c:?}",
        c.distance
    );

    let d = query::distance(&a, &pa, &b, &pb);
    assert!(
        (d.distance - c.distance.max(0.0)).abs() <= tol,
        "distance {d:?} vs contact {c:?}"
    );
    assert_eq!(d.intersecting, d.distance <= 0.0);
    let hit = query::intersects(&a, &pa, &b, &pb);
    if c.distance > tol {
        assert!(!hit, "apart by {} but intersects", c.distance);
    }
    if c.distance < -tol {
        assert!(hit, "overlapping by {} but not intersects", -c.distance);
    }
    let cp = query::closest_points(&a, &pa, &b, &pb);
    assert!(
        (cp.distance - d.distance).abs() <= tol,
        "closest points {cp:?} vs {d:?}"
    );
    assert!(
        ((cp.point_a - cp.point_b).length() - cp.distance).abs() <= tol,
        "closest points {cp:?}"
    );

    let swapped = query::contact(&b, &pb, &a, &pa);
    assert!(
        (swapped.distance - c.distance).abs() <= 8.0 * tol,
        "swapped {swapped:?} vs {c:?}"
    );

    let m = query::manifold(&a, &pa, &b, &pb, 0.0);
    for p in m.points() {
        assert!(
            ((p.point_b - p.point_a) - m.normal * p.distance).length() <= tol,
            "manifold point {p:?} of {m:?}"
        );
    }
});
