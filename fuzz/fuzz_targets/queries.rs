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

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use minkowski::query;
use minkowski::shape::{
    Capsule, Cone, ConvexPolyhedron, Cuboid, Cylinder, Ellipsoid, PointShape, Pyramid,
    RoundedShape, Segment, Shape, Sphere, Triangle,
};
use minkowski::support::SupportMap;
use minkowski::{Pose, Real, Rotation, Vector};

#[derive(Debug, Arbitrary)]
struct RawShape {
    kind: u8,
    /// Lengths: each byte is a size from 1e-3 to 1e3 (log scale), 0 meaning zero.
    sizes: [u8; 3],
    /// Points, in units of the largest size.
    points: Vec<(i8, i8, i8)>,
    rounding: u8,
}

#[derive(Debug, Arbitrary)]
struct RawPose {
    quat: (i8, i8, i8, i8),
    offset: (i8, i8, i8),
}

fn size(b: u8) -> Real {
    if b == 0 {
        0.0
    } else {
        (10.0 as Real).powf((b as Real / 255.0) * 6.0 - 3.0)
    }
}

fn shape(r: &RawShape, depth: u32) -> Option<Shape> {
    let [x, y, z] = r.sizes.map(size);
    let unit = x.max(y).max(z).max(1e-3);
    let p =
        |&(a, b, c): &(i8, i8, i8)| Vector::new(a as Real, b as Real, c as Real) * (unit / 64.0);
    let pts: Vec<Vector> = r.points.iter().take(64).map(p).collect();
    let s: Shape = match r.kind % 12 {
        0 => Sphere::new(x).ok()?.into(),
        1 => Cuboid::new(Vector::new(x, y, z)).ok()?.into(),
        2 => Capsule::new(x, y).ok()?.into(),
        3 => Cylinder::new(x, y).ok()?.into(),
        4 => Cone::new(x, y).ok()?.into(),
        5 => Pyramid::new(Vector::new(x, y, z)).ok()?.into(),
        6 => Ellipsoid::new(Vector::new(x, y, z)).ok()?.into(),
        7 => Segment::new(*pts.first()?, *pts.get(1)?).ok()?.into(),
        8 => Triangle::new(*pts.first()?, *pts.get(1)?, *pts.get(2)?)
            .ok()?
            .into(),
        9 => PointShape::new(*pts.first()?).ok()?.into(),
        10 => ConvexPolyhedron::new(pts).ok()?.into(),
        _ if depth == 0 => {
            let inner = RawShape {
                kind: r.kind / 12,
                sizes: r.sizes,
                points: r.points.clone(),
                rounding: 0,
            };
            RoundedShape::new(shape(&inner, 1)?, size(r.rounding))
                .ok()?
                .into()
        }
        _ => return None,
    };
    Some(s)
}

fn pose(r: &RawPose, scale: Real) -> Option<Pose> {
    let (a, b, c, d) = r.quat;
    let q = Rotation::from_xyzw(a as Real, b as Real, c as Real, d as Real);
    let q = if q.length() > 0.0 {
        q.normalize()
    } else {
        Rotation::IDENTITY
    };
    let (x, y, z) = r.offset;
    Pose::new(
        q,
        Vector::new(x as Real, y as Real, z as Real) * (scale / 32.0),
    )
    .ok()
}

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
