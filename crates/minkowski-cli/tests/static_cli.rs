//! Static level geometry (`heightfield`) in `minkowski query`: the pairwise queries with
//! the geometry as `a` or as `b` (answers turned round), `manifold` answering one
//! manifold per region, casts sliding along the ground and into it, projection inside
//! the solid, a shape buried under the surface, and the typed errors; every answer equal
//! to the library's line handler's.

// Casts to and from `Real` are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

#[cfg(feature = "test-f64")]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{answers, v3};
use minkowski::protocol;
use serde_json::Value;

fn close(a: [f64; 3], b: [f64; 3], tol: f64) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= tol)
}

/// A flat 4 × 4-cell field at y = 0 over [0, 4] × [0, 4].
const FLAT: &str = r#"{"type": "heightfield", "heights": [[0,0,0,0,0],[0,0,0,0,0],[0,0,0,0,0],[0,0,0,0,0],[0,0,0,0,0]], "cell_size": [1, 1]}"#;
const BALL: &str = r#"{"type": "sphere", "radius": 0.5}"#;
const CRATE: &str = r#"{"type": "cuboid", "half_extents": [0.7, 0.25, 0.6]}"#;

fn check_against_library(lines: &[String], out: &[Value]) {
    for (line, got) in lines.iter().zip(out) {
        let want: Value = serde_json::from_str(&protocol::answer_line(line)).unwrap();
        assert_eq!(got, &want, "{line}");
    }
}

#[test]
fn pairwise_queries_with_a_heightfield_on_either_side() {
    let at = r#"{"translation": [2.3, 0.4, 1.7]}"#;
    let lines: Vec<String> = vec![
        format!(r#"{{"id": 1, "query": "contact", "a": {FLAT}, "b": {BALL}, "pose_b": {at}}}"#),
        format!(r#"{{"id": 2, "query": "contact", "a": {BALL}, "pose_a": {at}, "b": {FLAT}}}"#),
        format!(r#"{{"id": 3, "query": "intersects", "a": {FLAT}, "b": {BALL}, "pose_b": {at}}}"#),
        format!(
            r#"{{"id": 4, "query": "distance", "a": {FLAT}, "b": {BALL}, "pose_b": {{"translation": [2, 3, 2]}}}}"#
        ),
        format!(
            r#"{{"id": 5, "query": "closest_points", "a": {BALL}, "pose_a": {{"translation": [2, 3, 2]}}, "b": {FLAT}}}"#
        ),
        // Buried: under the surface, touching no triangle.
        format!(
            r#"{{"id": 6, "query": "intersects", "a": {FLAT}, "b": {BALL}, "pose_b": {{"translation": [2, -3, 2]}}}}"#
        ),
        format!(
            r#"{{"id": 7, "query": "contact", "a": {FLAT}, "b": {BALL}, "pose_b": {{"translation": [2, -3, 2]}}}}"#
        ),
    ];
    let out = answers(&lines);
    check_against_library(&lines, &out);
    assert!(
        (out[0]["distance"].as_f64().unwrap() + 0.1).abs() < 1e-6,
        "{}",
        out[0]
    );
    assert!(
        close(v3(&out[0]["normal"]), [0.0, 1.0, 0.0], 1e-6),
        "{}",
        out[0]
    );
    // Turned round: the normal from the ball to the field, the points swapped.
    assert!(
        close(v3(&out[1]["normal"]), [0.0, -1.0, 0.0], 1e-6),
        "{}",
        out[1]
    );
    assert_eq!(out[1]["point_a"], out[0]["point_b"]);
    assert_eq!(out[1]["point_b"], out[0]["point_a"]);
    assert_eq!(out[2]["intersects"], true);
    assert!(
        (out[3]["distance"].as_f64().unwrap() - 2.5).abs() < 1e-5,
        "{}",
        out[3]
    );
    assert!(
        close(v3(&out[4]["point_b"]), [2.0, 0.0, 2.0], 1e-5),
        "{}",
        out[4]
    );
    assert_eq!(out[5]["intersects"], true, "{}", out[5]);
    assert!(
        (out[6]["distance"].as_f64().unwrap() + 3.5).abs() < 1e-5,
        "{}",
        out[6]
    );
    assert!(
        close(v3(&out[6]["normal"]), [0.0, 1.0, 0.0], 1e-6),
        "{}",
        out[6]
    );
}

#[test]
fn manifold_lines_answer_one_manifold_per_region() {
    // A crate 0.01 into the flat field, turned about y, over several cells: one region
    // of four points, all with the up normal; turned round, the down normal.
    let at = r#"{"translation": [2.1, 0.24, 1.9], "rotation": [0, 0.3826834323650898, 0, 0.9238795325112867]}"#;
    let lines: Vec<String> = vec![
        format!(r#"{{"id": 1, "query": "manifold", "a": {FLAT}, "b": {CRATE}, "pose_b": {at}}}"#),
        format!(r#"{{"id": 2, "query": "manifold", "a": {CRATE}, "pose_a": {at}, "b": {FLAT}}}"#),
        format!(
            r#"{{"id": 3, "query": "manifold", "a": {FLAT}, "b": {CRATE}, "pose_b": {{"translation": [2, 3, 2]}}, "margin": 0.1}}"#
        ),
    ];
    let out = answers(&lines);
    check_against_library(&lines, &out);
    let regions = out[0]["manifolds"].as_array().unwrap();
    assert_eq!(regions.len(), 1, "{}", out[0]);
    assert!(close(v3(&regions[0]["normal"]), [0.0, 1.0, 0.0], 1e-6));
    let points = regions[0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 4, "{}", out[0]);
    for p in points {
        assert!((p["distance"].as_f64().unwrap() + 0.01).abs() < 1e-5, "{p}");
    }
    let turned = out[1]["manifolds"].as_array().unwrap();
    assert!(close(v3(&turned[0]["normal"]), [0.0, -1.0, 0.0], 1e-6));
    assert_eq!(turned[0]["points"][0]["point_a"], points[0]["point_b"]);
    assert_eq!(
        out[2]["manifolds"].as_array().unwrap().len(),
        0,
        "{}",
        out[2]
    );
}

#[test]
fn cast_project_and_ray_lines_on_a_heightfield() {
    let lines: Vec<String> = vec![
        // Falling onto the ground from 2 above: toi 1.5 at speed 1 (radius 0.5).
        format!(
            r#"{{"id": 1, "query": "cast", "a": {FLAT}, "b": {BALL}, "pose_b": {{"translation": [2, 2, 2]}}, "vel_b": [0, -1, 0]}}"#
        ),
        // Resting exactly on it and sliding along: no hit, but within the target.
        format!(
            r#"{{"id": 2, "query": "cast", "a": {FLAT}, "b": {CRATE}, "pose_b": {{"translation": [1.5, 0.25, 1.5]}}, "vel_b": [1, 0, 0.3]}}"#
        ),
        // The field as b, moving up to meet the ball.
        format!(
            r#"{{"id": 3, "query": "cast", "a": {BALL}, "pose_a": {{"translation": [2, 2, 2]}}, "b": {FLAT}, "vel_b": [0, 1, 0]}}"#
        ),
        format!(r#"{{"id": 4, "query": "project", "shape": {FLAT}, "point": [1.2, -0.5, 3.1]}}"#),
        format!(r#"{{"id": 5, "query": "project", "shape": {FLAT}, "point": [1.2, 0.5, 3.1]}}"#),
        format!(
            r#"{{"id": 6, "query": "ray", "shape": {FLAT}, "origin": [1, 5, 1], "dir": [0, -2, 0]}}"#
        ),
        // Errors: two static shapes, a turning cast.
        format!(r#"{{"id": 7, "query": "contact", "a": {FLAT}, "b": {FLAT}}}"#),
        format!(
            r#"{{"id": 8, "query": "cast", "a": {FLAT}, "b": {BALL}, "vel_b": [0, -1, 0], "ang_vel_b": [0, 1, 0]}}"#
        ),
    ];
    let out = answers(&lines);
    check_against_library(&lines, &out);
    assert_eq!(out[0]["hit"], true, "{}", out[0]);
    assert!(
        (out[0]["toi"].as_f64().unwrap() - 1.5).abs() < 1e-5,
        "{}",
        out[0]
    );
    assert!(
        close(v3(&out[0]["normal"]), [0.0, 1.0, 0.0], 1e-6),
        "{}",
        out[0]
    );
    assert_eq!(out[1]["hit"], false, "{}", out[1]);
    assert_eq!(out[1]["initially"], "within_target", "{}", out[1]);
    assert!(
        (out[2]["toi"].as_f64().unwrap() - 1.5).abs() < 1e-5,
        "{}",
        out[2]
    );
    assert!(
        close(v3(&out[2]["normal"]), [0.0, -1.0, 0.0], 1e-6),
        "{}",
        out[2]
    );
    assert_eq!(out[3]["inside"], true, "{}", out[3]);
    assert!(
        (out[3]["distance"].as_f64().unwrap() + 0.5).abs() < 1e-6,
        "{}",
        out[3]
    );
    assert!(
        close(v3(&out[3]["point"]), [1.2, 0.0, 3.1], 1e-6),
        "{}",
        out[3]
    );
    assert_eq!(out[4]["inside"], false, "{}", out[4]);
    assert_eq!(out[5]["toi"], 2.5, "{}", out[5]);
    assert_eq!(out[6]["error"]["kind"], "invalid_query", "{}", out[6]);
    assert_eq!(out[7]["error"]["kind"], "invalid_query", "{}", out[7]);
}

/// The ground plane y = 1 (normal up, offset 1).
const GROUND: &str = r#"{"type": "halfspace", "normal": [0, 1, 0], "offset": 1}"#;

#[test]
fn halfspace_lines() {
    let lines: Vec<String> = vec![
        format!(r#"{{"id": 1, "query": "contact", "a": {GROUND}, "b": {BALL}, "pose_b": {{"translation": [3, 1.4, -2]}}}}"#),
        format!(r#"{{"id": 2, "query": "manifold", "a": {GROUND}, "b": {CRATE}, "pose_b": {{"translation": [3, 1.24, -2]}}}}"#),
        format!(r#"{{"id": 3, "query": "manifold", "a": {CRATE}, "pose_a": {{"translation": [3, 1.24, -2]}}, "b": {GROUND}}}"#),
        format!(r#"{{"id": 4, "query": "ray", "shape": {GROUND}, "origin": [0, 5, 0], "dir": [0, -1, 0]}}"#),
        format!(r#"{{"id": 5, "query": "cast", "a": {GROUND}, "b": {BALL}, "pose_b": {{"translation": [0, 4, 0]}}, "vel_b": [1, -2, 0]}}"#),
        format!(r#"{{"id": 6, "query": "project", "shape": {GROUND}, "point": [2, -1, 2]}}"#),
        format!(r#"{{"id": 7, "query": "distance", "a": {BALL}, "pose_a": {{"translation": [0, 4, 0]}}, "b": {GROUND}}}"#),
        r#"{"id": 8, "query": "contact", "a": {"type": "halfspace", "normal": [0, 2, 0]}, "b": {"type": "sphere", "radius": 1}}"#.to_string(),
        format!(r#"{{"id": 9, "query": "intersects", "a": {GROUND}, "b": {FLAT}}}"#),
    ];
    let out = answers(&lines);
    check_against_library(&lines, &out);
    assert!(
        (out[0]["distance"].as_f64().unwrap() + 0.1).abs() < 1e-6,
        "{}",
        out[0]
    );
    assert!(
        close(v3(&out[0]["normal"]), [0.0, 1.0, 0.0], 1e-6),
        "{}",
        out[0]
    );
    assert_eq!(out[1]["points"].as_array().unwrap().len(), 4, "{}", out[1]);
    assert!(
        close(v3(&out[1]["normal"]), [0.0, 1.0, 0.0], 1e-6),
        "{}",
        out[1]
    );
    assert!(
        close(v3(&out[2]["normal"]), [0.0, -1.0, 0.0], 1e-6),
        "{}",
        out[2]
    );
    assert_eq!(
        out[2]["points"][0]["point_a"],
        out[1]["points"][0]["point_b"]
    );
    assert_eq!(out[3]["toi"], 4.0, "{}", out[3]);
    // From 4 down to 1.5 at 2 per unit time.
    assert!(
        (out[4]["toi"].as_f64().unwrap() - 1.25).abs() < 1e-6,
        "{}",
        out[4]
    );
    assert_eq!(out[5]["inside"], true, "{}", out[5]);
    assert!(
        (out[5]["distance"].as_f64().unwrap() + 2.0).abs() < 1e-6,
        "{}",
        out[5]
    );
    assert!(
        (out[6]["distance"].as_f64().unwrap() - 2.5).abs() < 1e-6,
        "{}",
        out[6]
    );
    assert_eq!(out[7]["error"]["kind"], "invalid_shape", "{}", out[7]);
    assert_eq!(out[8]["error"]["kind"], "invalid_query", "{}", out[8]);
}

/// Two triangles: the square [0, 2] × [0, 2] at y = 0, counter-clockwise from above.
const QUAD: &str = r#"{"type": "trimesh", "vertices": [[0,0,0],[2,0,0],[2,0,2],[0,0,2]], "indices": [[0,2,1],[0,3,2]]}"#;

/// A closed unit cube (12 triangles, outward), centred at the origin.
const CUBE: &str = r#"{"type": "trimesh", "closed": true, "vertices": [[-1,-1,-1],[1,-1,-1],[1,1,-1],[-1,1,-1],[-1,-1,1],[1,-1,1],[1,1,1],[-1,1,1]], "indices": [[0,2,1],[0,3,2],[4,5,6],[4,6,7],[0,1,5],[0,5,4],[3,7,6],[3,6,2],[0,4,7],[0,7,3],[1,2,6],[1,6,5]]}"#;

#[test]
fn trimesh_lines() {
    let dir = std::env::temp_dir().join(format!("minkowski-static-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let obj = dir.join("quad.obj");
    std::fs::write(&obj, "v 0 0 0\nv 2 0 0\nv 2 0 2\nv 0 0 2\nf 1 4 3 2\n").unwrap();
    let obj_shape = format!(
        r#"{{"type": "trimesh", "obj": {}}}"#,
        serde_json::to_string(obj.to_str().unwrap()).unwrap()
    );
    let lines: Vec<String> = vec![
        format!(r#"{{"id": 1, "query": "contact", "a": {QUAD}, "b": {BALL}, "pose_b": {{"translation": [1, 0.4, 1]}}}}"#),
        format!(r#"{{"id": 2, "query": "manifold", "a": {QUAD}, "b": {CRATE}, "pose_b": {{"translation": [1, 0.24, 1]}}}}"#),
        format!(r#"{{"id": 3, "query": "ray", "shape": {QUAD}, "origin": [0.5, 3, 1.5], "dir": [0, -1, 0]}}"#),
        format!(r#"{{"id": 4, "query": "contact", "a": {obj_shape}, "b": {BALL}, "pose_b": {{"translation": [1, 0.4, 1]}}}}"#),
        // A ball inside the closed cube, touching no face: buried, pushed out through
        // the nearest face (+x).
        format!(r#"{{"id": 5, "query": "contact", "a": {CUBE}, "b": {BALL}, "pose_b": {{"translation": [0.2, 0, 0]}}}}"#),
        format!(r#"{{"id": 6, "query": "project", "shape": {CUBE}, "point": [0.5, 0.1, 0]}}"#),
        format!(r#"{{"id": 7, "query": "cast", "a": {QUAD}, "b": {BALL}, "pose_b": {{"translation": [1, 2, 1]}}, "vel_b": [0, -1, 0]}}"#),
        // Errors: an index out of range, a degenerate triangle, a mesh declared closed
        // that is not, a missing file.
        r#"{"id": 8, "query": "contact", "a": {"type": "trimesh", "vertices": [[0,0,0],[1,0,0],[0,0,1]], "indices": [[0,1,3]]}, "b": {"type": "sphere", "radius": 1}}"#.to_string(),
        r#"{"id": 9, "query": "contact", "a": {"type": "trimesh", "vertices": [[0,0,0],[1,0,0],[2,0,0]], "indices": [[0,1,2]]}, "b": {"type": "sphere", "radius": 1}}"#.to_string(),
        format!(r#"{{"id": 10, "query": "contact", "a": {}, "b": {BALL}}}"#, QUAD.replace(r#""type": "trimesh","#, r#""type": "trimesh", "closed": true,"#)),
        r#"{"id": 11, "query": "contact", "a": {"type": "trimesh", "obj": "/nonexistent/file.obj"}, "b": {"type": "sphere", "radius": 1}}"#.to_string(),
    ];
    let out = answers(&lines);
    check_against_library(&lines, &out);
    assert!(
        (out[0]["distance"].as_f64().unwrap() + 0.1).abs() < 1e-6,
        "{}",
        out[0]
    );
    assert!(
        close(v3(&out[0]["normal"]), [0.0, 1.0, 0.0], 1e-6),
        "{}",
        out[0]
    );
    let regions = out[1]["manifolds"].as_array().unwrap();
    assert_eq!(regions.len(), 1, "{}", out[1]);
    assert_eq!(
        regions[0]["points"].as_array().unwrap().len(),
        4,
        "{}",
        out[1]
    );
    assert_eq!(out[2]["toi"], 3.0, "{}", out[2]);
    assert_eq!(out[3]["distance"], out[0]["distance"], "{}", out[3]);
    assert!(
        (out[4]["distance"].as_f64().unwrap() + 1.3).abs() < 1e-6,
        "{}",
        out[4]
    );
    assert!(
        close(v3(&out[4]["normal"]), [1.0, 0.0, 0.0], 1e-6),
        "{}",
        out[4]
    );
    assert_eq!(out[5]["inside"], true, "{}", out[5]);
    assert!(
        (out[5]["distance"].as_f64().unwrap() + 0.5).abs() < 1e-6,
        "{}",
        out[5]
    );
    assert!(
        (out[6]["toi"].as_f64().unwrap() - 1.5).abs() < 1e-5,
        "{}",
        out[6]
    );
    for a in &out[7..] {
        assert_eq!(a["error"]["kind"], "invalid_shape", "{a}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
