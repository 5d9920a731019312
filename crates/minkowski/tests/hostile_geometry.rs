//! Valid but hostile geometry: zero and extreme sizes, collapsed point clouds,
//! coincident and nested shapes, huge translations. Every query must return finite
//! numbers, a unit normal where one is promised, and consistent flags — never panic,
//! never NaN, never run unbounded (each routine reports its iterations).

// Conversions to f64 are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::Rng;
use minkowski::query::{self, epa, gjk};
use minkowski::shape::{
    Capsule, Cone, ConvexPolyhedron, Cuboid, Cylinder, Ellipsoid, PointShape, RoundedShape,
    Segment, Shape, Sphere, Triangle, MAX_MAGNITUDE,
};
use minkowski::{Pose, Real, Vector};

/// A hostile shape: sizes drawn across the whole valid range, or exactly zero.
fn hostile_shape(rng: &mut Rng) -> Shape {
    let len = |rng: &mut Rng| -> Real {
        match rng.below(6) {
            0 => 0.0,
            1 => 1e-30,
            2 => (MAX_MAGNITUDE as f64 * 0.5) as Real,
            _ => 10f64.powf(rng.range(-6.0, 6.0)) as Real,
        }
    };
    let p = |rng: &mut Rng| {
        let s = len(rng);
        Vector::new(
            (rng.range(-1.0, 1.0) as Real) * s,
            (rng.range(-1.0, 1.0) as Real) * s,
            (rng.range(-1.0, 1.0) as Real) * s,
        )
    };
    let shape: Result<Shape, _> = match rng.below(12) {
        0 => Sphere::new(len(rng)).map(Shape::from),
        1 => Cuboid::new(Vector::new(len(rng), len(rng), len(rng))).map(Shape::from),
        2 => Capsule::new(len(rng), len(rng)).map(Shape::from),
        3 => Cylinder::new(len(rng), len(rng)).map(Shape::from),
        4 => Cone::new(len(rng), len(rng)).map(Shape::from),
        5 => Ellipsoid::new(Vector::new(len(rng), len(rng), len(rng))).map(Shape::from),
        6 => {
            let a = p(rng);
            Segment::new(a, if rng.below(2) == 0 { a } else { p(rng) }).map(Shape::from)
        }
        7 => {
            let a = p(rng);
            // Degenerate: coincident or collinear corners.
            Triangle::new(a, a * 2.0, if rng.below(2) == 0 { a } else { p(rng) }).map(Shape::from)
        }
        8 => PointShape::new(p(rng)).map(Shape::from),
        9 => {
            // A collapsed cloud: all points equal, or on a line, or on a plane.
            let base = p(rng);
            let pts: Vec<Vector> = (0..1 + rng.below(12))
                .map(|i| match rng.below(3) {
                    0 => base,
                    1 => base * (i as Real / 12.0),
                    _ => Vector::new(base.x * (i as Real / 12.0), base.y, 0.0),
                })
                .collect();
            ConvexPolyhedron::new(pts).map(Shape::from)
        }
        10 => Cuboid::new(Vector::splat(len(rng)))
            .and_then(|c| RoundedShape::new(c.into(), len(rng)))
            .map(Shape::from),
        _ => {
            let pts: Vec<Vector> = (0..4 + rng.below(20)).map(|_| p(rng)).collect();
            ConvexPolyhedron::new(pts).map(Shape::from)
        }
    };
    // Every hostile shape is built within the valid range: construction cannot fail.
    shape.unwrap_or_else(|e| panic!("valid input refused: {e}"))
}

fn hostile_pose(rng: &mut Rng) -> Pose {
    let t = match rng.below(4) {
        0 => Vector::ZERO,
        1 => Vector::splat((MAX_MAGNITUDE as f64 * 0.25) as Real),
        _ => {
            let s = 10f64.powf(rng.range(-6.0, 6.0)) as Real;
            Vector::new(
                rng.range(-1.0, 1.0) as Real * s,
                rng.range(-1.0, 1.0) as Real * s,
                rng.range(-1.0, 1.0) as Real * s,
            )
        }
    };
    Pose::new(rng.rotation(), t).unwrap()
}

#[test]
fn hostile_geometry_never_produces_nan_or_panics() {
    let mut rng = Rng::new(0xBAD);
    let mut ws = epa::EpaWorkspace::new();
    let (go, eo) = (gjk::GjkOptions::default(), epa::EpaOptions::default());
    for case in 0..4_000 {
        let (a, b) = (hostile_shape(&mut rng), hostile_shape(&mut rng));
        let pa = hostile_pose(&mut rng);
        // Often exactly coincident or nested.
        let pb = if rng.below(4) == 0 {
            pa
        } else {
            hostile_pose(&mut rng)
        };
        let label = format!("case {case}: {a:?} {pa:?} {b:?} {pb:?}");

        let c = query::contact(&a, &pa, &b, &pb);
        assert!(
            c.distance.is_finite()
                && c.normal.is_finite()
                && c.point_a.is_finite()
                && c.point_b.is_finite(),
            "{label}: {c:?}"
        );
        assert!((c.normal.length() - 1.0).abs() < 1e-3, "{label}: {c:?}");
        let d = query::distance(&a, &pa, &b, &pb);
        assert!(
            d.distance.is_finite() && d.distance >= 0.0,
            "{label}: {d:?}"
        );
        assert_eq!(d.intersecting, d.distance <= 0.0, "{label}");
        let cp = query::closest_points(&a, &pa, &b, &pb);
        assert!(
            cp.point_a.is_finite() && cp.point_b.is_finite(),
            "{label}: {cp:?}"
        );
        let _ = query::intersects(&a, &pa, &b, &pb);

        let g = gjk::distance(&a, &pa, &b, &pb, &go, None);
        assert!(
            g.distance.is_finite() && g.lower_bound <= g.distance,
            "{label}: {g:?}"
        );
        assert!(g.iterations <= go.max_iterations * 2 + 8, "{label}: {g:?}");
        let e = epa::penetration_with(&a, &pa, &b, &pb, &go, &eo, &mut ws);
        assert!(
            e.depth.is_finite() && e.normal.is_finite() && e.lower_bound <= e.upper_bound,
            "{label}: {e:?}"
        );
        assert!(
            e.iterations as usize <= eo.max_vertices + 16,
            "{label}: {e:?}"
        );
    }
}
