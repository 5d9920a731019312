//! The `mint` feature: poses and vectors pass through mint's types unchanged, so an
//! application on another glam version (or another math library) can hand them over.
#![cfg(feature = "mint")]

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

use minkowski::shape::{Cuboid, Shape, Sphere};
use minkowski::{mint, query, Pose, PoseError, Real, Rotation, Vector};

#[test]
fn poses_and_vectors_convert_through_mint() {
    let r = Rotation::from_axis_angle(Vector::new(1.0, 2.0, 2.0).normalize(), 0.7);
    let t = Vector::new(1.0, -2.0, 3.5);
    let pose = Pose::new(r, t).unwrap();
    let (mr, mt): (mint::Quaternion<Real>, mint::Vector3<Real>) = pose.into();
    assert_eq!((mt.x, mt.y, mt.z), (t.x, t.y, t.z));
    assert_eq!(Pose::from_mint(mr, mt).unwrap(), pose);
    assert_eq!(Pose::try_from((mr, mt)).unwrap(), pose);
    let not_unit = mint::Quaternion {
        v: [0.0, 0.0, 0.0].into(),
        s: 3.0,
    };
    assert!(matches!(
        Pose::from_mint(not_unit, mt),
        Err(PoseError::NonUnitRotation(_))
    ));

    // An application's own vector type, as mint hands it over.
    let half: mint::Vector3<Real> = [0.5, 0.5, 0.5].into();
    let boxy = Shape::from(Cuboid::new(half.into()).unwrap());
    let ball = Shape::from(Sphere::new(0.5).unwrap());
    let at = Pose::from_mint([0.0, 0.0, 0.0, 1.0].into(), [1.5, 0.0, 0.0].into()).unwrap();
    let c = query::contact(&boxy, &Pose::IDENTITY, &ball, &at);
    let normal: mint::Vector3<Real> = c.normal.into();
    assert!((normal.x - 1.0).abs() < 1e-5 && (c.distance - 0.5).abs() < 1e-5);
}
