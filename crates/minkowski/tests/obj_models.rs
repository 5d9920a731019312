//! Convex polyhedra from OBJ files (seed 000's cube, cone, cylinder and sphere models in
//! `examples/models`, written by `cargo run -p minkowski --example write_seed_models`).
#![allow(clippy::unnecessary_cast)] // `as Real` is a no-op in one of the builds

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::Rng;
use minkowski::hull::HullError;
use minkowski::shape::{tessellation, ConvexPolyhedron, ShapeError};
use minkowski::support::SupportMap;
use minkowski::{Real, Vector};

const MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/models");

#[test]
fn seed_models_load_and_match_their_point_clouds() {
    let mut rng = Rng::new(0x0b1);
    for (name, points) in tessellation::seed000_shapes() {
        let from_obj = ConvexPolyhedron::from_obj(format!("{MODELS}/{name}.obj")).unwrap();
        // The files hold the f32 tessellation as decimals: equal to f32 rounding.
        let from_points = ConvexPolyhedron::new(points.clone()).unwrap();
        assert_eq!(
            from_obj.points().len(),
            points.len(),
            "{name}: every model vertex is extreme"
        );
        assert_eq!(from_obj.hull().num_faces(), from_points.hull().num_faces());
        from_obj.hull().validate(from_obj.points()).unwrap();
        for _ in 0..2000 {
            let d = rng.dir();
            let d = Vector::new(d.x as Real, d.y as Real, d.z as Real);
            let (a, b) = (from_obj.support_value(d), from_points.support_value(d));
            assert!(
                (a - b).abs() <= 1e-6 * b.abs().max(1.0),
                "{name}: {a} vs {b}"
            );
        }
    }
    let cube = ConvexPolyhedron::from_obj(format!("{MODELS}/cube.obj")).unwrap();
    assert!((cube.hull().volume() - 8.0).abs() < 1e-5);
    assert!((cube.hull().area() - 24.0).abs() < 1e-5);
}

#[test]
fn unreadable_obj_files_are_typed_errors() {
    let missing = ConvexPolyhedron::from_obj("/no/such/model.obj");
    assert!(
        matches!(missing, Err(ShapeError::Hull(HullError::Obj { .. }))),
        "{missing:?}"
    );
    let dir = std::env::temp_dir().join(format!("minkowski-obj-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.obj");
    std::fs::write(&empty, "# nothing here\n").unwrap();
    assert!(matches!(
        ConvexPolyhedron::from_obj(&empty),
        Err(ShapeError::Hull(HullError::Obj { .. }))
    ));
    let nan = dir.join("nan.obj");
    std::fs::write(&nan, "v 0 0 0\nv 1 0 nan\nv 0 1 0\nf 1 2 3\n").unwrap();
    let r = ConvexPolyhedron::from_obj(&nan);
    assert!(r.is_err(), "{r:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
