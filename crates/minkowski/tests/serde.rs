//! The `serde` feature: shapes, compounds, poses and query results written as JSON and
//! read back are the same values, bit for bit, in the build's precision; descriptions of
//! invalid shapes and poses are refused with the constructors' typed errors (through
//! `TryFrom`) or their messages (through `Deserialize`), never turned into a shape.
#![cfg(feature = "serde")]
// Casts to and from `Real` are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{random_pose, random_shape, Rng, ALL_KINDS};
use minkowski::query::compound::Collider;
use minkowski::query::{self, Manifold};
use minkowski::shape::{
    Compound, Cuboid, PartDescription, RoundedShape, Shape, ShapeDescription, ShapeError, Sphere,
    MAX_MAGNITUDE,
};
use minkowski::support::SupportMap;
use minkowski::{Pose, PoseDescription, PoseError, Real, Rotation, Vector};

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T) -> (String, T) {
    let text = serde_json::to_string(value).expect("serializes");
    let back = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
    (text, back)
}

/// A hull's faces as a set: each polygon started at its smallest index, then sorted.
fn face_set(h: &minkowski::hull::ConvexHull) -> Vec<Vec<u32>> {
    let mut faces: Vec<Vec<u32>> = h
        .faces()
        .map(|f| {
            let k = (0..f.len()).min_by_key(|&i| f[i]).unwrap_or(0);
            f[k..].iter().chain(&f[..k]).copied().collect()
        })
        .collect();
    faces.sort();
    faces
}

/// The same shape, field for field (`PartialEq`), except for a convex polyhedron, which
/// is written as its vertices and rebuilt from them: the same vertices in the same order
/// (so the same support points) and the same faces, which the rebuilt hull may list in
/// another order (and whose input indices, `ConvexHull::source_indices`, are now those
/// of the vertices).
fn same_shape(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Convex(x), Shape::Convex(y)) => {
            x.points() == y.points()
                && face_set(x.hull()) == face_set(y.hull())
                && x.hull().dimension() == y.hull().dimension()
                && a.local_aabb() == b.local_aabb()
                && a.local_center() == b.local_center()
                && x.bounding_radius() == y.bounding_radius()
                && x.uses_hill_climbing() == y.uses_hill_climbing()
        }
        (Shape::Rounded(x), Shape::Rounded(y)) => {
            x.radius() == y.radius() && same_shape(x.inner(), y.inner())
        }
        _ => a == b,
    }
}

/// Random shapes of every registered kind (several sizes), the registry's examples, and
/// rounded versions: written and read back, the same shape (see [`same_shape`]); read
/// back once more, equal in every field.
#[test]
fn every_kind_of_shape_round_trips_exactly() {
    let mut rng = Rng::new(0x5e7de);
    let mut shapes = Shape::examples();
    for &kind in ALL_KINDS.iter() {
        for size in [1e-3, 0.7, 1.0, 37.0, 1e5] {
            for _ in 0..20 {
                shapes.push(random_shape(&mut rng, kind, size).0);
            }
        }
    }
    let n = shapes.len();
    for i in 0..n {
        let r = RoundedShape::new(shapes[i].clone(), 0.125 + i as Real * 1e-3).unwrap();
        shapes.push(r.into());
    }
    for shape in &shapes {
        let (text, back): (String, Shape) = round_trip(shape);
        assert!(same_shape(&back, shape), "{text}\n{back:?}\n{shape:?}");
        let (again_text, again): (String, Shape) = round_trip(&back);
        assert_eq!(again, back, "{text}");
        assert_eq!(again_text, text);
        assert!(
            text.contains(&format!("\"type\":\"{}\"", shape.type_name())),
            "{text}"
        );
    }
}

/// Written numbers are the shortest decimals that read back to the build's `Real`: in
/// the f32 build 0.1 is written `0.1`, not `0.10000000149011612`.
#[test]
fn numbers_are_written_as_briefly_as_the_precision_allows() {
    let s = Shape::from(Cuboid::new(Vector::new(0.1, 0.2, 0.3)).unwrap());
    assert_eq!(
        serde_json::to_string(&s).unwrap(),
        r#"{"type":"cuboid","half_extents":[0.1,0.2,0.3]}"#
    );
}

/// The JSON shape objects of the query protocol are the serde format.
#[test]
fn protocol_shape_objects_deserialize() {
    let s: Shape = serde_json::from_str(
        r#"{"type": "rounded", "radius": 0.5, "shape": {"type": "capsule", "half_height": 1, "radius": 0.25}, "colour": "red"}"#,
    )
    .unwrap();
    let Shape::Rounded(r) = &s else {
        panic!("{s:?}")
    };
    assert_eq!(r.radius(), 0.5);
    assert_eq!(r.inner().type_name(), "capsule");
    // `p` of a point is optional: the origin.
    let p: Shape = serde_json::from_str(r#"{"type": "point"}"#).unwrap();
    assert_eq!(p.local_aabb().mins, Vector::ZERO);
}

/// Invalid descriptions: `TryFrom` gives the constructor's typed error, `Deserialize`
/// an error with its message; malformed ones fail in serde itself.
#[test]
fn invalid_shapes_are_refused_with_the_typed_error() {
    let desc = |text: &str| -> ShapeDescription { serde_json::from_str(text).unwrap() };
    let refused = |text: &str| -> ShapeError {
        let e = Shape::try_from(desc(text)).expect_err(text);
        let msg = serde_json::from_str::<Shape>(text)
            .expect_err(text)
            .to_string();
        assert!(msg.contains(&e.to_string()), "{text}: {msg} / {e}");
        e
    };
    assert!(matches!(
        refused(r#"{"type": "sphere", "radius": -1}"#),
        ShapeError::InvalidLength {
            shape: "sphere",
            field: "radius",
            ..
        }
    ));
    assert!(matches!(
        refused(r#"{"type": "capsule", "half_height": 1, "radius": 1e200}"#),
        ShapeError::OutOfRange {
            shape: "capsule",
            field: "radius",
            ..
        }
    ));
    // Held to the limit as written, before rounding: in f32, 100000004 rounds to 1e8.
    let over = format!(
        r#"{{"type": "sphere", "radius": {}}}"#,
        if cfg!(minkowski_f64) {
            "1.0000000000000001e60"
        } else {
            "100000004"
        }
    );
    assert!(matches!(refused(&over), ShapeError::OutOfRange { .. }));
    assert!(matches!(
        refused(r#"{"type": "convex", "points": []}"#),
        ShapeError::EmptyPointSet { shape: "convex" }
    ));
    assert!(matches!(
        refused(r#"{"type": "cuboid", "half_extents": [1, -2, 1]}"#),
        ShapeError::InvalidLength { .. }
    ));
    let compound = r#"{"type": "compound", "parts": [{"shape": {"type": "point"}}]}"#;
    assert!(matches!(
        refused(compound),
        ShapeError::WrongKind {
            expected: "a convex shape",
            got: "compound"
        }
    ));
    assert!(matches!(
        refused(&format!(
            r#"{{"type": "rounded", "radius": 1, "shape": {compound}}}"#
        )),
        ShapeError::WrongKind { .. }
    ));
    // Malformed: unknown type, missing or mistyped field.
    for text in [
        r#"{"type": "blob"}"#,
        r#"{"radius": 1}"#,
        r#"{"type": "sphere"}"#,
        r#"{"type": "sphere", "radius": "1"}"#,
        r#"{"type": "cuboid", "half_extents": [1, 1]}"#,
        r#"{"type": "sphere", "radius": 1e400}"#,
    ] {
        assert!(serde_json::from_str::<Shape>(text).is_err(), "{text}");
    }
}

#[test]
fn poses_round_trip_exactly_and_invalid_ones_are_refused() {
    let mut rng = Rng::new(77);
    for _ in 0..2000 {
        let pose = random_pose(&mut rng, 100.0);
        let (text, back): (String, Pose) = round_trip(&pose);
        assert_eq!(back, pose, "{text}");
    }
    let p: Pose = serde_json::from_str("{}").unwrap();
    assert_eq!(p, Pose::IDENTITY);
    let p: Pose = serde_json::from_str(r#"{"translation": [1, 2, 3]}"#).unwrap();
    assert_eq!(p.translation(), Vector::new(1.0, 2.0, 3.0));
    // Off from unit by 5e-4: accepted and renormalised, as by `Pose::new`.
    let p: Pose = serde_json::from_str(r#"{"rotation": [0, 0, 0, 1.0005]}"#).unwrap();
    assert_eq!(p.rotation(), Rotation::IDENTITY);

    let desc = |text: &str| -> PoseDescription { serde_json::from_str(text).unwrap() };
    assert!(matches!(
        Pose::try_from(desc(r#"{"rotation": [0, 0, 0, 2]}"#)),
        Err(PoseError::NonUnitRotation(_))
    ));
    let far = (MAX_MAGNITUDE as f64) * 1.5;
    assert!(matches!(
        Pose::try_from(desc(&format!(r#"{{"translation": [0, {far}, 0]}}"#))),
        Err(PoseError::TranslationTooLarge(_))
    ));
    let e = serde_json::from_str::<Pose>(r#"{"rotation": [0, 0, 0, 2]}"#).unwrap_err();
    assert!(e.to_string().contains("unit quaternion"), "{e}");
    assert!(serde_json::from_str::<Pose>(r#"{"rotation": [0, 0, 1]}"#).is_err());
}

#[test]
fn compounds_and_colliders_round_trip() {
    let mut rng = Rng::new(3);
    let parts: Vec<(Pose, Shape)> = (0..5)
        .map(|i| {
            let kind = ALL_KINDS[i * 3 % ALL_KINDS.len()];
            (
                random_pose(&mut rng, 2.0),
                random_shape(&mut rng, kind, 0.5).0,
            )
        })
        .collect();
    let compound = Compound::new(parts).unwrap();
    let (text, back): (String, Compound) = round_trip(&compound);
    assert_eq!(back.parts().len(), compound.parts().len());
    for ((pa, sa), (pb, sb)) in back.parts().iter().zip(compound.parts()) {
        assert_eq!(pa, pb, "{text}");
        assert!(same_shape(sa, sb), "{text}");
    }
    assert_eq!(back.local_aabb(), compound.local_aabb());
    assert_eq!(round_trip(&back).1, back);
    let compound = back;
    assert!(
        text.starts_with(r#"{"type":"compound","parts":[{"shape":"#),
        "{text}"
    );

    let collider = Collider::from(compound);
    let (_, back): (String, Collider) = round_trip(&collider);
    assert_eq!(back, collider);
    let convex = Collider::from(Shape::from(Sphere::new(2.0).unwrap()));
    let (_, back): (String, Collider) = round_trip(&convex);
    assert_eq!(back, convex);

    // A part with an invalid pose, and a convex description read as a compound.
    let bad = ShapeDescription::Compound {
        parts: vec![PartDescription {
            shape: ShapeDescription::Point { p: [0.0; 3] },
            pose: Some(PoseDescription {
                translation: [0.0; 3],
                rotation: [0.0, 0.0, 0.0, 3.0],
            }),
        }],
    };
    assert!(matches!(
        Compound::try_from(bad),
        Err(ShapeError::Pose(PoseError::NonUnitRotation(_)))
    ));
    assert!(matches!(
        serde_json::from_str::<Compound>(r#"{"type": "sphere", "radius": 1}"#),
        Err(e) if e.to_string().contains("expected a compound")
    ));
    assert!(serde_json::from_str::<Compound>(r#"{"type": "compound", "parts": []}"#).is_err());
}

/// Query results, written and read back, are the same values.
#[test]
fn query_results_round_trip() {
    let mut rng = Rng::new(11);
    for i in 0..200 {
        let kinds = &ALL_KINDS;
        let a = random_shape(&mut rng, kinds[i % kinds.len()], 1.0).0;
        let b = random_shape(&mut rng, kinds[(i * 5 + 2) % kinds.len()], 1.0).0;
        let (pa, pb) = (random_pose(&mut rng, 1.0), random_pose(&mut rng, 1.5));
        let d = query::distance(&a, &pa, &b, &pb);
        assert_eq!(round_trip(&d).1, d);
        let c = query::closest_points(&a, &pa, &b, &pb);
        assert_eq!(round_trip(&c).1, c);
        let k = query::contact(&a, &pa, &b, &pb);
        let (text, back) = round_trip(&k);
        assert_eq!(back, k, "{text}");
        assert!(text.contains(&format!("\"status\":\"{}\"", k.status.as_str())));
        assert!(text.contains(&format!("\"method\":\"{}\"", k.method.as_str())));
        let m = query::manifold(&a, &pa, &b, &pb, 0.1);
        let (text, back) = round_trip(&m);
        assert_eq!(back, m, "{text}");
    }
    let five = r#"{"normal": [0, 1, 0], "status": "converged", "points": [
        {"point_a": [0,0,0], "point_b": [0,0,0], "distance": 0, "feature": 0},
        {"point_a": [0,0,0], "point_b": [0,0,0], "distance": 0, "feature": 1},
        {"point_a": [0,0,0], "point_b": [0,0,0], "distance": 0, "feature": 2},
        {"point_a": [0,0,0], "point_b": [0,0,0], "distance": 0, "feature": 3},
        {"point_a": [0,0,0], "point_b": [0,0,0], "distance": 0, "feature": 4}]}"#;
    let e = serde_json::from_str::<Manifold>(five).unwrap_err();
    assert!(e.to_string().contains("at most 4 points"), "{e}");
}
