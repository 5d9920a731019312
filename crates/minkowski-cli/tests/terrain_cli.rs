//! `backward_project` lines through the `minkowski query` tool: the fields the
//! protocol's Extensions section specifies, the thesis's §4.2 cases, answers equal to
//! the library's (`protocol::answer_line`) after the JSON round trip, and typed errors
//! for bad triangles, points and methods.

// Casts to and from `Real` are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// With `test-f64`, the tests check the `--f64` answers against the double-precision
// library.
#[cfg(feature = "test-f64")]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{answers, xorshift};
use minkowski::protocol;
use serde_json::Value;

const F64: bool = cfg!(feature = "test-f64");

/// §4.2's triangle with `N0` = `n0`, as the protocol's `triangle` object.
fn thesis_triangle(n0: [f64; 3]) -> String {
    format!(
        r#"{{"p": [[0, 0, 0], [4, 0, 1], [2, 4, 2]], "n": [[{}, {}, {}], [1, 0, 1], [0, 1, 1]]}}"#,
        n0[0], n0[1], n0[2]
    )
}

/// The query point of §4.2: u = 0.3, v = 0.2, d = 1, forward-projected.
fn thesis_point(n0: [f64; 3]) -> [f64; 3] {
    let (u, v, d) = (0.3, 0.2, 1.0);
    let p = [[0.0, 0.0, 0.0], [4.0, 0.0, 1.0], [2.0, 4.0, 2.0]];
    let n = [n0, [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]];
    std::array::from_fn(|k| {
        let l = [1.0 - u - v, u, v];
        (0..3).map(|i| l[i] * (p[i][k] + d * n[i][k])).sum()
    })
}

fn line(id: usize, triangle: &str, point: [f64; 3], method: &str) -> String {
    format!(
        r#"{{"id": {id}, "query": "backward_project", "triangle": {triangle}, "point": [{}, {}, {}], "method": "{method}"}}"#,
        point[0], point[1], point[2]
    )
}

const CASES: [[f64; 3]; 3] = [[0.5, 0.0, 1.0], [-3.0, -2.0, 2.0], [-5.0, -2.0, 2.0]];
const METHODS: [&str; 3] = ["aligned_plane", "aligned_projection", "alpha_plane"];

#[test]
fn thesis_cases_answer_with_the_protocol_fields() {
    let mut lines = Vec::new();
    for n0 in CASES {
        for method in METHODS {
            lines.push(line(
                lines.len(),
                &thesis_triangle(n0),
                thesis_point(n0),
                method,
            ));
        }
    }
    let out = answers(&lines);
    let tol = if F64 { 1e-9 } else { 1e-4 };
    let aligned_rows = [[0.3055, 0.1901], [0.2067, 0.1112], [0.1792, 0.1079]];
    for (k, a) in out.iter().enumerate() {
        let keys: Vec<&str> = a.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["id", "inside", "iterations", "status", "t", "u", "v"],
            "{a}"
        );
        assert_eq!(a["id"], k);
        let (u, v, t) = (
            a["u"].as_f64().unwrap(),
            a["v"].as_f64().unwrap(),
            a["t"].as_f64().unwrap(),
        );
        assert_eq!(a["inside"], true, "{a}");
        match METHODS[k % 3] {
            "aligned_plane" => {
                let want = aligned_rows[k / 3];
                assert!(
                    (u - want[0]).abs() <= 5e-5 && (v - want[1]).abs() <= 5e-5,
                    "{a}"
                );
                assert_eq!(a["iterations"], 0);
                assert_eq!(a["status"], "approximate");
            }
            _ => {
                assert!((u - 0.3).abs() <= tol && (v - 0.2).abs() <= tol, "{a}");
                assert!((t - 1.0).abs() <= tol, "{a}");
                assert!(a["iterations"].as_u64().unwrap() > 0, "{a}");
                assert_eq!(a["status"], "converged");
            }
        }
    }
}

#[test]
fn answers_equal_the_library_bit_for_bit() {
    let mut rnd = xorshift(0x7e44a1);
    let mut lines = Vec::new();
    for k in 0..90 {
        let p: Vec<[f64; 3]> = (0..3)
            .map(|_| [rnd() * 10.0, rnd() * 10.0, rnd() * 2.0])
            .collect();
        // Directions mostly up, skewed by up to ±2.
        let n: Vec<[f64; 3]> = (0..3)
            .map(|_| [rnd() * 2.0, rnd() * 2.0, 1.0 + rnd().abs()])
            .collect();
        let point = [rnd() * 12.0, rnd() * 12.0, rnd() * 6.0];
        let fmt = |v: &[[f64; 3]]| {
            v.iter()
                .map(|x| format!("[{}, {}, {}]", x[0], x[1], x[2]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let triangle = format!(r#"{{"p": [{}], "n": [{}]}}"#, fmt(&p), fmt(&n));
        lines.push(line(k, &triangle, point, METHODS[k % 3]));
    }
    let out = answers(&lines);
    let mut answered = 0;
    for (line, got) in lines.iter().zip(&out) {
        let want: Value = serde_json::from_str(&protocol::answer_line(line)).unwrap();
        assert_eq!(got, &want, "{line}");
        if got.get("error").is_none() {
            answered += 1;
        } else {
            // Only flat or upside-down random triangles are refused.
            assert_eq!(got["error"]["kind"], "invalid_shape", "{got}");
        }
    }
    assert!(answered >= 45, "{answered}");
}

#[test]
fn a_point_outside_every_prism_is_answered_outside() {
    // On the base plane beyond P1 along the edge P0P1.
    let triangle = thesis_triangle([0.5, 0.0, 1.0]);
    let lines: Vec<String> = METHODS
        .iter()
        .enumerate()
        .map(|(k, m)| line(k, &triangle, [6.0, 0.0, 1.5], m))
        .collect();
    for a in answers(&lines) {
        assert_eq!(a["inside"], false, "{a}");
        assert!(a["u"].as_f64().unwrap() > 1.0, "{a}");
    }
}

#[test]
fn bad_lines_are_typed_errors() {
    let good = thesis_triangle([0.5, 0.0, 1.0]);
    let cases: Vec<(String, &str, &str)> = vec![
        (
            r#"{"id": 1, "query": "backward_project", "point": [0, 0, 0], "method": "alpha_plane"}"#.into(),
            "invalid_query",
            "missing 'triangle'",
        ),
        (
            r#"{"id": 2, "query": "backward_project", "triangle": [1, 2], "point": [0, 0, 0], "method": "alpha_plane"}"#.into(),
            "invalid_shape",
            "'triangle' must be an object",
        ),
        (
            r#"{"id": 3, "query": "backward_project", "triangle": {"p": [[0, 0, 0], [1, 0, 0]], "n": [[0, 0, 1], [0, 0, 1], [0, 0, 1]]}, "point": [0, 0, 0], "method": "alpha_plane"}"#.into(),
            "invalid_shape",
            "triangle p must be an array of 3 points, got 2 elements",
        ),
        (
            r#"{"id": 4, "query": "backward_project", "triangle": {"p": [[0, 0, 0], [1, 0, 0], [2, 0, 0]], "n": [[0, 0, 1], [0, 0, 1], [0, 0, 1]]}, "point": [0, 0, 0], "method": "alpha_plane"}"#.into(),
            "invalid_shape",
            "degenerate",
        ),
        (
            r#"{"id": 5, "query": "backward_project", "triangle": {"p": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "n": [[0, 0, 1], [1, 0, 0], [0, 0, 1]]}, "point": [0, 0, 0], "method": "alpha_plane"}"#.into(),
            "invalid_shape",
            "n[1] is zero or (nearly) parallel",
        ),
        (
            r#"{"id": 6, "query": "backward_project", "triangle": {"p": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "n": [[0, 0, 1], [0, 0, 1], [0, 0, -1]]}, "point": [0, 0, 0], "method": "alpha_plane"}"#.into(),
            "invalid_shape",
            "n[2] crosses the triangle's plane to the other side",
        ),
        (
            r#"{"id": 7, "query": "backward_project", "triangle": {"p": [[0, 0, "x"], [1, 0, 0], [0, 1, 0]], "n": [[0, 0, 1], [0, 0, 1], [0, 0, 1]]}, "point": [0, 0, 0], "method": "alpha_plane"}"#.into(),
            "invalid_shape",
            "triangle p[0][2] must be a number, got a string",
        ),
        (
            r#"{"id": 8, "query": "backward_project", "triangle": {"p": [[0, 0, 1e300], [1, 0, 0], [0, 1, 0]], "n": [[0, 0, 1], [0, 0, 1], [0, 0, 1]]}, "point": [0, 0, 0], "method": "alpha_plane"}"#.into(),
            "invalid_shape",
            "triangle p[0][2] magnitude must be <=",
        ),
        (
            format!(r#"{{"id": 9, "query": "backward_project", "triangle": {good}, "method": "alpha_plane"}}"#),
            "invalid_query",
            "missing 'point'",
        ),
        (
            format!(r#"{{"id": 10, "query": "backward_project", "triangle": {good}, "point": [1, 2], "method": "alpha_plane"}}"#),
            "invalid_query",
            "'point' must be an array of 3 numbers, got 2 elements",
        ),
        (
            format!(r#"{{"id": 11, "query": "backward_project", "triangle": {good}, "point": [1e300, 0, 0], "method": "alpha_plane"}}"#),
            "invalid_query",
            "magnitude must be <=",
        ),
        (
            format!(r#"{{"id": 12, "query": "backward_project", "triangle": {good}, "point": [1, 1, 1]}}"#),
            "invalid_query",
            "missing 'method' (aligned_plane, aligned_projection, alpha_plane)",
        ),
        (
            format!(r#"{{"id": 13, "query": "backward_project", "triangle": {good}, "point": [1, 1, 1], "method": "newton"}}"#),
            "invalid_query",
            "unknown method 'newton'",
        ),
        (
            format!(r#"{{"id": 14, "query": "backward_project", "triangle": {good}, "point": [1, 1, 1], "method": 3}}"#),
            "invalid_query",
            "'method' must be a string",
        ),
        (
            format!(r#"{{"id": 15, "query": "backward_project", "triangle": {good}, "point": [1e7, 0, 0], "method": "alpha_plane"}}"#),
            "invalid_query",
            "triangle sizes from the base triangle",
        ),
    ];
    let lines: Vec<String> = cases.iter().map(|c| c.0.clone()).collect();
    let out = answers(&lines);
    for ((line, kind, message), got) in cases.iter().zip(&out) {
        assert_eq!(got["error"]["kind"], *kind, "{line}: {got}");
        let m = got["error"]["message"].as_str().unwrap();
        assert!(m.contains(message), "{line}: {m}");
        let want: Value = serde_json::from_str(&protocol::answer_line(line)).unwrap();
        assert_eq!(got, &want);
    }
}
