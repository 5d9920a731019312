//! `ray`, `cast` and `project` lines through the `minkowski query` tool: the fields the
//! protocol's Extensions section specifies, closed-form answers, typed errors, and
//! answers equal to the library's, bit for bit after the JSON round trip.

// Casts to and from `Real` are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// With `test-f64`, the tests check the `--f64` answers against the double-precision
// library.
#[cfg(feature = "test-f64")]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{answers, random_pose, v3, xorshift};
use minkowski::protocol;
use serde_json::Value;

fn close(a: [f64; 3], b: [f64; 3], tol: f64) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= tol)
}

#[test]
fn ray_lines_answer_the_closed_forms() {
    let lines: Vec<String> = [
        // A box hit from the left: toi in units of dir.
        r#"{"id": 1, "query": "ray", "shape": {"type": "cuboid", "half_extents": [1, 2, 3]}, "origin": [-5, 0.5, 0], "dir": [2, 0, 0]}"#,
        // A sphere moved and turned, hit head on.
        r#"{"id": 2, "query": "ray", "shape": {"type": "sphere", "radius": 2}, "pose": {"translation": [0, 0, 10], "rotation": [0, 0.7071067811865476, 0, 0.7071067811865476]}, "origin": [0, 0, 0], "dir": [0, 0, 1]}"#,
        // From inside, solid: a hit at 0.
        r#"{"id": 3, "query": "ray", "shape": {"type": "capsule", "half_height": 1, "radius": 0.5}, "origin": [0, 0.2, 0], "dir": [1, 0, 0]}"#,
        // From inside, hollow: where it leaves (the capsule's side at x = 0.5).
        r#"{"id": 4, "query": "ray", "shape": {"type": "capsule", "half_height": 1, "radius": 0.5}, "origin": [0, 0.2, 0], "dir": [1, 0, 0], "solid": false}"#,
        // Short of the cylinder: max_toi is inclusive, 2.5 reaches it, 2.49 does not.
        r#"{"id": 5, "query": "ray", "shape": {"type": "cylinder", "half_height": 1, "radius": 0.5}, "origin": [0, 0, -3], "dir": [0, 0, 1], "max_toi": 2.5}"#,
        r#"{"id": 6, "query": "ray", "shape": {"type": "cylinder", "half_height": 1, "radius": 0.5}, "origin": [0, 0, -3], "dir": [0, 0, 1], "max_toi": 2.49}"#,
        // A cone through GJK: the apex straight down from above.
        r#"{"id": 7, "query": "ray", "shape": {"type": "cone", "half_height": 1, "radius": 1}, "origin": [0, 5, 0], "dir": [0, -1, 0]}"#,
        // A compound: the nearer part answers, with its index.
        r#"{"id": 8, "query": "ray", "shape": {"type": "compound", "parts": [{"shape": {"type": "sphere", "radius": 1}, "pose": {"translation": [5, 0, 0]}}, {"shape": {"type": "sphere", "radius": 1}, "pose": {"translation": [2, 0, 0]}}]}, "origin": [-3, 0, 0], "dir": [1, 0, 0]}"#,
    ]
    .map(String::from)
    .to_vec();
    let out = answers(&lines);
    let hit = |a: &Value| a["hit"].as_bool().unwrap();
    assert!(hit(&out[0]), "{}", out[0]);
    assert_eq!(out[0]["toi"], 2.0);
    assert_eq!(v3(&out[0]["normal"]), [-1.0, 0.0, 0.0]);
    assert_eq!(v3(&out[0]["point"]), [-1.0, 0.5, 0.0]);
    assert_eq!(out[0]["inside"], false);
    assert!(
        (out[1]["toi"].as_f64().unwrap() - 8.0).abs() < 1e-5,
        "{}",
        out[1]
    );
    assert!(
        close(v3(&out[1]["normal"]), [0.0, 0.0, -1.0], 1e-5),
        "{}",
        out[1]
    );
    assert_eq!(out[2]["toi"], 0.0);
    assert_eq!(out[2]["inside"], true);
    assert!(
        (out[3]["toi"].as_f64().unwrap() - 0.5).abs() < 1e-6,
        "{}",
        out[3]
    );
    assert!(
        close(v3(&out[3]["normal"]), [1.0, 0.0, 0.0], 1e-6),
        "{}",
        out[3]
    );
    assert!(hit(&out[4]) && !hit(&out[5]), "{} {}", out[4], out[5]);
    assert!(out[5].get("toi").is_none() && out[5].get("normal").is_none());
    assert!(
        (out[6]["toi"].as_f64().unwrap() - 4.0).abs() < 1e-4,
        "{}",
        out[6]
    );
    assert!(
        close(v3(&out[6]["point"]), [0.0, 1.0, 0.0], 1e-4),
        "{}",
        out[6]
    );
    assert!(
        (out[7]["toi"].as_f64().unwrap() - 4.0).abs() < 1e-5,
        "{}",
        out[7]
    );
    assert_eq!(out[7]["part"], 1);
    for a in &out {
        assert_eq!(a["status"], "converged", "{a}");
    }
}

#[test]
fn cast_lines_follow_the_start_rules() {
    let ground = r#"{"type": "cuboid", "half_extents": [10, 1, 10]}"#;
    let ball = r#"{"type": "sphere", "radius": 0.5}"#;
    let line = |id: u32, y: f64, vel: &str, extra: &str| {
        format!(
            r#"{{"id": {id}, "query": "cast", "a": {ground}, "b": {ball}, "pose_b": {{"translation": [0, {y}, 0]}}, "vel_b": {vel}{extra}}}"#
        )
    };
    let lines = vec![
        // Falling from 5: touches at 1.5 (surface 1 + radius 0.5) after 3.5/2.
        line(1, 5.0, "[0, -2, 0]", ""),
        // With a skin of 0.1: stops 0.1 above.
        line(2, 5.0, "[0, -2, 0]", r#", "target_distance": 0.1"#),
        // Resting and rolling along: no hit (it slides).
        line(3, 1.5, "[1, 0, 0]", ""),
        // Resting and pushed down: a hit at 0, within the target.
        line(4, 1.5, "[0, -1, 0]", ""),
        // Sunk by 0.1: overlapping, with the signed distance.
        line(5, 1.4, "[1, 0, 0]", ""),
        // Out of reach before max_toi.
        line(6, 5.0, "[0, -2, 0]", r#", "max_toi": 1"#),
        // Turning while it falls (conservative advancement): the ball's own spin does
        // not change when it lands.
        line(7, 5.0, "[0, -2, 0]", r#", "ang_vel_b": [0, 0, 3]"#),
    ];
    let out = answers(&lines);
    let toi = |a: &Value| a["toi"].as_f64().unwrap();
    assert!((toi(&out[0]) - 1.75).abs() < 1e-5, "{}", out[0]);
    assert!(out[0].get("initially").is_none());
    let (pa, pb, n) = (
        v3(&out[1]["point_a"]),
        v3(&out[1]["point_b"]),
        v3(&out[1]["normal"]),
    );
    assert!((toi(&out[1]) - 1.7).abs() < 1e-5, "{}", out[1]);
    assert!(close(
        [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]],
        [0.1 * n[0], 0.1 * n[1], 0.1 * n[2]],
        1e-5
    ));
    assert_eq!(out[2]["hit"], false, "{}", out[2]);
    assert_eq!(out[2]["initially"], "within_target");
    assert_eq!(out[3]["hit"], true);
    assert_eq!(toi(&out[3]), 0.0);
    assert_eq!(out[3]["initially"], "within_target");
    assert_eq!(out[4]["hit"], true);
    assert_eq!(out[4]["initially"], "overlapping");
    assert!(
        (out[4]["distance"].as_f64().unwrap() + 0.1).abs() < 1e-5,
        "{}",
        out[4]
    );
    assert_eq!(out[5]["hit"], false);
    assert!((toi(&out[6]) - 1.75).abs() < 1e-4, "{}", out[6]);
}

#[test]
fn bad_cast_and_ray_lines_get_typed_errors() {
    let s = r#"{"type": "sphere", "radius": 1}"#;
    let lines: Vec<String> = vec![
        format!(
            r#"{{"id": 1, "query": "ray", "shape": {s}, "origin": [0, 0, 0], "dir": [0, 0, 0]}}"#
        ),
        format!(r#"{{"id": 2, "query": "ray", "shape": {s}, "origin": [0, 0, 0]}}"#),
        format!(
            r#"{{"id": 3, "query": "ray", "shape": {s}, "origin": [0, 0, 0], "dir": [1, 0, 0], "max_toi": -1}}"#
        ),
        format!(
            r#"{{"id": 4, "query": "ray", "shape": {s}, "origin": [0, 0, 0], "dir": [1, 0, 0], "solid": "yes"}}"#
        ),
        format!(r#"{{"id": 5, "query": "cast", "a": {s}, "b": {s}, "target_distance": -0.5}}"#),
        format!(r#"{{"id": 6, "query": "cast", "a": {s}, "b": {s}, "vel_b": [1e300, 0, 0]}}"#),
        format!(r#"{{"id": 7, "query": "cast", "a": {s}}}"#),
        format!(r#"{{"id": 8, "query": "project", "shape": {s}}}"#),
        format!(
            r#"{{"id": 9, "query": "project", "shape": {{"type": "compound", "parts": [{{"shape": {s}}}]}}, "point": [0, 0, 0]}}"#
        ),
        format!(
            r#"{{"id": 10, "query": "cast", "a": {{"type": "compound", "parts": [{{"shape": {s}}}]}}, "b": {s}, "ang_vel_a": [0, 1, 0]}}"#
        ),
    ];
    let out = answers(&lines);
    let kinds = [
        "invalid_query",
        "invalid_query",
        "invalid_query",
        "invalid_query",
        "invalid_query",
        "invalid_query",
        "invalid_query",
        "invalid_query",
        "invalid_shape",
        "invalid_query",
    ];
    for (a, kind) in out.iter().zip(kinds) {
        assert_eq!(a["error"]["kind"], kind, "{a}");
        assert!(!a["error"]["message"].as_str().unwrap().is_empty());
    }
}

#[test]
fn random_lines_equal_the_library_answers() {
    // The tool's answers equal the protocol module's (the library), field for field.
    let mut rnd = xorshift(0xc0ffee);
    let shapes = [
        r#"{"type": "cuboid", "half_extents": [0.7, 0.4, 0.9]}"#,
        r#"{"type": "cone", "half_height": 0.8, "radius": 0.6}"#,
        r#"{"type": "capsule", "half_height": 0.5, "radius": 0.3}"#,
        r#"{"type": "convex", "points": [[0,0,0],[1,0,0],[0,1,0],[0,0,1],[0.6,0.6,0.6]]}"#,
        r#"{"type": "rounded", "shape": {"type": "triangle", "a": [0,0,0], "b": [1,0,0], "c": [0,1,0]}, "radius": 0.1}"#,
    ];
    let mut lines = Vec::new();
    for i in 0..60 {
        let a = shapes[i % shapes.len()];
        let b = shapes[(i / 2) % shapes.len()];
        let (pa, _) = random_pose(&mut rnd, 1.0);
        let (pb, _) = random_pose(&mut rnd, 4.0);
        let v = [rnd() * 3.0, rnd() * 3.0, rnd() * 3.0];
        let p = [rnd() * 2.0, rnd() * 2.0, rnd() * 2.0];
        lines.push(match i % 3 {
            0 => format!(
                r#"{{"id": {i}, "query": "ray", "shape": {a}, "pose": {pa}, "origin": [{}, {}, {}], "dir": [{}, {}, {}]}}"#,
                p[0] * 2.0, p[1] * 2.0, p[2] * 2.0, -p[0] + v[0] * 0.1, -p[1], -p[2]
            ),
            1 => format!(
                r#"{{"id": {i}, "query": "cast", "a": {a}, "pose_a": {pa}, "b": {b}, "pose_b": {pb}, "vel_b": [{}, {}, {}], "max_toi": 5, "target_distance": 0.05}}"#,
                v[0], v[1], v[2]
            ),
            _ => format!(
                r#"{{"id": {i}, "query": "project", "shape": {a}, "pose": {pa}, "point": [{}, {}, {}]}}"#,
                p[0], p[1], p[2]
            ),
        });
    }
    let out = answers(&lines);
    for (line, got) in lines.iter().zip(&out) {
        let want: Value = serde_json::from_str(&protocol::answer_line(line)).unwrap();
        assert_eq!(got, &want, "{line}");
        assert!(got.get("error").is_none(), "{got}");
    }
}

#[test]
fn heightfield_lines_answer_height_at_and_rays() {
    let field = r#"{"type": "heightfield", "heights": [[0, 1, 2], [2, 3, null]], "cell_size": [1, 1], "origin": [1, 1, 1]}"#;
    let lines: Vec<String> = vec![
        // The middle of the first cell, origin included: (0 + 1 + 2 + 3)/4 + 1.
        format!(r#"{{"id": 1, "query": "height_at", "shape": {field}, "x": 1.5, "z": 1.5}}"#),
        // Over the second cell, which has a hole.
        format!(r#"{{"id": 2, "query": "height_at", "shape": {field}, "x": 2.5, "z": 1.5}}"#),
        // Outside the rectangle.
        format!(r#"{{"id": 3, "query": "height_at", "shape": {field}, "x": 0.5, "z": 1.5}}"#),
        // Straight down on the first cell's centre: the surface at 2.5, its normal
        // along (−1, 1, −2).
        format!(r#"{{"id": 4, "query": "ray", "shape": {field}, "origin": [1.5, 10, 1.5], "dir": [0, -1, 0]}}"#),
        // Straight down on the hole: no hit.
        format!(r#"{{"id": 5, "query": "ray", "shape": {field}, "origin": [2.5, 10, 1.5], "dir": [0, -1, 0]}}"#),
        // Hostile: a 1 × 1 field, NaN written as a string, a colour or missing PNG.
        r#"{"id": 6, "query": "height_at", "shape": {"type": "heightfield", "heights": [[0]], "cell_size": [1, 1]}, "x": 0, "z": 0}"#.to_string(),
        r#"{"id": 7, "query": "height_at", "shape": {"type": "heightfield", "heights": [[0, "nan"], [0, 0]], "cell_size": [1, 1]}, "x": 0, "z": 0}"#.to_string(),
        r#"{"id": 8, "query": "height_at", "shape": {"type": "heightfield", "png": "/nonexistent.png", "height_scale": 1, "cell_size": [1, 1]}, "x": 0, "z": 0}"#.to_string(),
    ];
    let out = answers(&lines);
    assert_eq!(out[0]["height"], 2.5, "{}", out[0]);
    assert_eq!(out[1]["hole"], true, "{}", out[1]);
    assert_eq!(out[2]["error"]["kind"], "invalid_query", "{}", out[2]);
    assert_eq!(out[3]["toi"], 7.5, "{}", out[3]);
    let n = v3(&out[3]["normal"]);
    let s = 6f64.sqrt();
    assert!(close(n, [-1.0 / s, 1.0 / s, -2.0 / s], 1e-6), "{}", out[3]);
    assert_eq!(out[4]["hit"], false, "{}", out[4]);
    for a in &out[5..] {
        assert_eq!(a["error"]["kind"], "invalid_shape", "{a}");
    }
}
