//! `"query": "manifold"` and `compound` shapes through the `minkowski query` tool: the
//! protocol's fields, counts for the textbook cases, typed errors, and answers equal to
//! the library's, bit for bit after the JSON round trip.

// Casts to and from `Real` are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// With `test-f64`, the tests check the `--f64` answers against the double-precision
// library.
#[cfg(feature = "test-f64")]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{answers, v3};
use serde_json::Value;

const BOX: &str = r#"{"type": "cuboid", "half_extents": [1, 1, 1]}"#;
const SMALL_BOX: &str = r#"{"type": "cuboid", "half_extents": [0.5, 0.5, 0.5]}"#;

fn manifold_line(id: &str, a: &str, b: &str, pose_b: &str, extra: &str) -> String {
    format!(
        r#"{{"id": "{id}", "query": "manifold", "a": {a}, "b": {b}, "pose_b": {pose_b}{extra}}}"#
    )
}

/// Checks the protocol's invariants of one manifold answer and returns its point count.
fn check(ans: &Value) -> usize {
    assert!(ans.get("error").is_none(), "{ans}");
    assert!(ans["status"].is_string(), "{ans}");
    let points = ans["points"].as_array().expect("points");
    assert!(points.len() <= 4, "{ans}");
    if points.is_empty() {
        assert!(ans.get("normal").is_none(), "{ans}");
        return 0;
    }
    let n = v3(&ans["normal"]);
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    assert!((len - 1.0).abs() < 1e-5, "{ans}");
    for p in points {
        let (a, b, d) = (
            v3(&p["point_a"]),
            v3(&p["point_b"]),
            p["distance"].as_f64().unwrap(),
        );
        for k in 0..3 {
            assert!((b[k] - a[k] - d * n[k]).abs() < 1e-5, "{ans}");
        }
        assert!(p["feature"].as_u64().is_some(), "{ans}");
    }
    points.len()
}

#[test]
fn manifold_answers_have_the_protocol_fields_and_counts() {
    let lines = vec![
        // A small box resting face down on a box, 0.05 deep: 4 points.
        manifold_line(
            "face",
            BOX,
            SMALL_BOX,
            r#"{"translation": [0.1, 1.45, 0.2]}"#,
            "",
        ),
        // Rolled 45° about x: an edge on the face, 2 points.
        manifold_line(
            "edge",
            BOX,
            SMALL_BOX,
            r#"{"translation": [0, 1.69, 0], "rotation": [0.3826834323650898, 0, 0, 0.9238795325112867]}"#,
            "",
        ),
        // A ball on the face: 1 point.
        manifold_line(
            "ball",
            BOX,
            r#"{"type": "sphere", "radius": 0.5}"#,
            r#"{"translation": [0.3, 1.4, 0]}"#,
            "",
        ),
        // Far apart: empty, no normal.
        manifold_line("far", BOX, SMALL_BOX, r#"{"translation": [0, 3, 0]}"#, ""),
        // 0.1 apart, within a margin of 0.2: 4 points at distance 0.1.
        manifold_line(
            "margin",
            BOX,
            SMALL_BOX,
            r#"{"translation": [0, 1.6, 0]}"#,
            r#", "margin": 0.2"#,
        ),
        // The same beyond a margin of 0.05: empty.
        manifold_line(
            "beyond",
            BOX,
            SMALL_BOX,
            r#"{"translation": [0, 1.6, 0]}"#,
            r#", "margin": 0.05"#,
        ),
    ];
    let out = answers(&lines);
    let counts: Vec<usize> = out.iter().map(check).collect();
    assert_eq!(counts, [4, 2, 1, 0, 4, 0], "{out:?}");
    let n = v3(&out[0]["normal"]);
    assert!((n[1] - 1.0).abs() < 1e-6, "{}", out[0]);
    for p in out[0]["points"].as_array().unwrap() {
        assert!(
            (p["distance"].as_f64().unwrap() + 0.05).abs() < 1e-5,
            "{}",
            out[0]
        );
        assert!((v3(&p["point_a"])[1] - 1.0).abs() < 1e-5, "{}", out[0]);
    }
    for p in out[4]["points"].as_array().unwrap() {
        assert!(
            (p["distance"].as_f64().unwrap() - 0.1).abs() < 1e-5,
            "{}",
            out[4]
        );
    }
    for (i, id) in ["face", "edge", "ball", "far", "margin", "beyond"]
        .iter()
        .enumerate()
    {
        assert_eq!(out[i]["id"], *id);
    }
}

#[test]
fn bad_margins_and_bad_compounds_are_typed_errors() {
    let pose = r#"{"translation": [0, 1.4, 0]}"#;
    let cases = [
        (
            manifold_line("neg", BOX, SMALL_BOX, pose, r#", "margin": -0.1"#),
            "invalid_query",
        ),
        (
            manifold_line("str", BOX, SMALL_BOX, pose, r#", "margin": "0.1""#),
            "invalid_query",
        ),
        (
            manifold_line("null", BOX, SMALL_BOX, pose, r#", "margin": null"#),
            "invalid_query",
        ),
        (
            manifold_line("huge", BOX, SMALL_BOX, pose, r#", "margin": 1e300"#),
            if cfg!(feature = "test-f64") {
                ""
            } else {
                "invalid_query"
            },
        ),
        (
            manifold_line(
                "empty",
                r#"{"type": "compound", "parts": []}"#,
                BOX,
                pose,
                "",
            ),
            "invalid_shape",
        ),
        (
            manifold_line("noparts", r#"{"type": "compound"}"#, BOX, pose, ""),
            "invalid_shape",
        ),
        (
            manifold_line(
                "partsobj",
                r#"{"type": "compound", "parts": {}}"#,
                BOX,
                pose,
                "",
            ),
            "invalid_shape",
        ),
        (
            manifold_line(
                "partnum",
                r#"{"type": "compound", "parts": [3]}"#,
                BOX,
                pose,
                "",
            ),
            "invalid_shape",
        ),
        (
            manifold_line(
                "noshape",
                r#"{"type": "compound", "parts": [{"pose": {}}]}"#,
                BOX,
                pose,
                "",
            ),
            "invalid_shape",
        ),
        (
            manifold_line(
                "nested",
                &format!(
                    r#"{{"type": "compound", "parts": [{{"shape": {{"type": "compound", "parts": [{{"shape": {BOX}}}]}}}}]}}"#
                ),
                BOX,
                pose,
                "",
            ),
            "invalid_shape",
        ),
        (
            manifold_line(
                "badpose",
                &format!(
                    r#"{{"type": "compound", "parts": [{{"shape": {BOX}, "pose": {{"rotation": [0, 0, 0, 3]}}}}]}}"#
                ),
                BOX,
                pose,
                "",
            ),
            "invalid_pose",
        ),
        (
            manifold_line(
                "rounded",
                &format!(
                    r#"{{"type": "rounded", "radius": 0.1, "shape": {{"type": "compound", "parts": [{{"shape": {BOX}}}]}}}}"#
                ),
                BOX,
                pose,
                "",
            ),
            "invalid_shape",
        ),
    ];
    let lines: Vec<String> = cases.iter().map(|c| c.0.clone()).collect();
    let out = answers(&lines);
    for ((line, kind), ans) in cases.iter().zip(&out) {
        if kind.is_empty() {
            assert!(ans.get("error").is_none(), "{line}: {ans}");
        } else {
            assert_eq!(ans["error"]["kind"], *kind, "{line}: {ans}");
            assert!(ans["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()));
        }
    }
}

/// A table (top and two legs) as a compound: every query kind answers, names the part
/// that answered, and the manifold is the deeper leg's four points.
#[test]
fn compound_lines_answer_every_query_kind() {
    let table = r#"{"type": "compound", "parts": [
        {"shape": {"type": "cuboid", "half_extents": [1, 0.1, 0.5]}},
        {"shape": {"type": "cuboid", "half_extents": [0.1, 0.4, 0.1]}, "pose": {"translation": [-0.8, -0.5, 0]}},
        {"shape": {"type": "cuboid", "half_extents": [0.1, 0.39, 0.1]}, "pose": {"translation": [0.8, -0.49, 0]}}]}"#
        .replace('\n', " ");
    let floor = r#"{"type": "cuboid", "half_extents": [3, 0.5, 3]}"#;
    // The table's feet at y = -0.9 in its frame; the floor's top at 0.5: 0.01 deep.
    let pose_table = r#"{"translation": [0, 1.39, 0]}"#;
    let lines: Vec<String> = ["intersects", "distance", "closest_points", "contact", "manifold"]
        .iter()
        .map(|k| {
            format!(
                r#"{{"id": "{k}", "query": "{k}", "a": {floor}, "b": {table}, "pose_b": {pose_table}}}"#
            )
        })
        .chain([format!(
            r#"{{"id": "far", "query": "manifold", "a": {floor}, "b": {table}, "pose_b": {{"translation": [0, 5, 0]}}}}"#
        ), format!(
            r#"{{"id": "swapped", "query": "manifold", "a": {table}, "pose_a": {pose_table}, "b": {floor}}}"#
        )])
        .collect();
    let out = answers(&lines);
    for a in &out {
        assert!(a.get("error").is_none(), "{a}");
    }
    assert_eq!(out[0]["intersects"], true);
    assert_eq!(out[1]["distance"].as_f64().unwrap(), 0.0, "{}", out[1]);
    assert_eq!(out[2]["intersects"], true);
    assert!(
        (out[3]["distance"].as_f64().unwrap() + 0.01).abs() < 1e-5,
        "{}",
        out[3]
    );
    assert_eq!(out[3]["part_b"], 1, "{}", out[3]);
    assert!(out[3].get("part_a").is_none(), "{}", out[3]);
    assert_eq!(check(&out[4]), 4, "{}", out[4]);
    assert_eq!(out[4]["part_b"], 1, "{}", out[4]);
    assert_eq!(check(&out[5]), 0, "{}", out[5]);
    assert_eq!(check(&out[6]), 4, "{}", out[6]);
    assert_eq!(out[6]["part_a"], 1, "{}", out[6]);
    let n = v3(&out[6]["normal"]);
    assert!((n[1] + 1.0).abs() < 1e-6, "{}", out[6]);
}

/// The tool's manifold answers equal the library's exactly (after the JSON round trip).
#[test]
fn tool_manifolds_equal_library_manifolds_exactly() {
    use minkowski::query;
    use minkowski::shape::{Capsule, Cuboid, Cylinder, Shape};
    use minkowski::{Pose, Real, Vector};
    let mut rnd = common::xorshift(0x5eed);
    let shapes: [(&str, Shape); 3] = [
        (
            r#"{"type": "cuboid", "half_extents": [0.5, 0.3, 0.7]}"#,
            Cuboid::new(Vector::new(0.5, 0.3, 0.7)).unwrap().into(),
        ),
        (
            r#"{"type": "cylinder", "half_height": 0.6, "radius": 0.4}"#,
            Cylinder::new(0.6, 0.4).unwrap().into(),
        ),
        (
            r#"{"type": "capsule", "half_height": 0.4, "radius": 0.2}"#,
            Capsule::new(0.4, 0.2).unwrap().into(),
        ),
    ];
    let mut lines = Vec::new();
    let mut expected = Vec::new();
    for i in 0..150 {
        let (ia, ib) = (i % 3, (i / 3) % 3);
        let (pose_text, pose_b) = common::random_pose(&mut rnd, 1.2);
        let margin = (rnd() + 1.0) * 0.1;
        lines.push(format!(
            r#"{{"id": {i}, "query": "manifold", "margin": {margin}, "a": {}, "b": {}, "pose_b": {pose_text}}}"#,
            shapes[ia].0, shapes[ib].0
        ));
        expected.push(query::manifold(
            &shapes[ia].1,
            &Pose::IDENTITY,
            &shapes[ib].1,
            &pose_b,
            margin as Real,
        ));
    }
    let out = answers(&lines);
    let arr = |v: Vector| serde_json::json!([v.x as f64, v.y as f64, v.z as f64]);
    let mut counts = [0usize; 5];
    for (ans, m) in out.iter().zip(&expected) {
        let pts = ans["points"].as_array().unwrap();
        assert_eq!(pts.len(), m.len(), "{ans}");
        counts[m.len()] += 1;
        if !m.is_empty() {
            assert_eq!(ans["normal"], arr(m.normal), "{ans}");
        }
        for (p, q) in pts.iter().zip(m.points()) {
            assert_eq!(p["point_a"], arr(q.point_a), "{ans}");
            assert_eq!(p["point_b"], arr(q.point_b), "{ans}");
            assert_eq!(p["distance"], serde_json::json!(q.distance as f64), "{ans}");
            assert_eq!(p["feature"], serde_json::json!(q.feature), "{ans}");
        }
    }
    assert!(counts[0] > 10 && counts[1] > 10, "{counts:?}");
}
