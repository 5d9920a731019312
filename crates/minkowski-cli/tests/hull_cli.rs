//! `minkowski hull` end to end: 3D and 2D answers equal the library's, degenerate input
//! keeps its dimension, faces are checked independently (every face's plane has all
//! input points on its inner side, counter-clockwise from outside), and hostile lines get
//! typed errors while the tool goes on.

// Casts to and from `Real` are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// With `test-f64`, the tests check the `--f64` answers against the double-precision
// library.
#[cfg(feature = "test-f64")]
extern crate minkowski_f64 as minkowski;

mod common;

use minkowski::hull::{quickhull3d_f64, Algorithm2d};
use serde_json::{json, Value};

fn run(args: &[&str], input: &str) -> (i32, Vec<Value>) {
    let (code, lines, _) = common::run(args, input.as_bytes());
    (code, lines)
}

/// splitmix64
struct Rng(u64);
impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn point_sets(dim: usize) -> Vec<Vec<Vec<f64>>> {
    let mut rng = Rng(99);
    let mut sets = Vec::new();
    for k in 0..60 {
        let n = 1 + (k * 7) % 70;
        sets.push(
            (0..n)
                .map(|_| {
                    (0..dim)
                        .map(|_| match k % 3 {
                            0 => rng.unit() * 2.0 - 1.0,
                            1 => (rng.unit() * 3.0).floor(),
                            _ => ((rng.unit() * 4.0).floor() * 0.25) as f32 as f64,
                        })
                        .collect()
                })
                .collect(),
        );
    }
    sets
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn three_d_answers_equal_the_library_and_faces_support_the_points() {
    let mut sets = point_sets(3);
    // Flattened and collapsed copies: coplanar (z = 0) and collinear (x = y = z) sets.
    for k in 0..10 {
        let base = sets[k + 10].clone();
        sets.push(base.iter().map(|p| vec![p[0], p[1], 0.0]).collect());
        sets.push(base.iter().map(|p| vec![p[0], p[0], p[0]]).collect());
    }
    let input: String = sets
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"id": i, "points": s}).to_string() + "\n")
        .collect();
    let (code, answers) = run(&["hull"], &input);
    assert_eq!(code, 0);
    assert_eq!(answers.len(), sets.len());
    let mut dims = [0; 4];
    for (i, (set, ans)) in sets.iter().zip(&answers).enumerate() {
        assert_eq!(ans["id"], json!(i));
        // The tool hulls the f64 numbers as given, in both builds.
        let pts: Vec<glam::DVec3> = set
            .iter()
            .map(|p| glam::DVec3::new(p[0], p[1], p[2]))
            .collect();
        let lib = quickhull3d_f64(&pts).unwrap();
        let dim = ans["dimension"].as_u64().unwrap() as usize;
        dims[dim] += 1;
        assert_eq!(dim, lib.dimension() as usize);
        let verts: Vec<[f64; 3]> = ans["vertices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| [f(&v[0]), f(&v[1]), f(&v[2])])
            .collect();
        let want: Vec<[f64; 3]> = lib
            .source_indices()
            .iter()
            .map(|&i| pts[i].to_array())
            .collect();
        assert_eq!(verts, want, "vertices are the input numbers as given");
        let faces: Vec<Vec<u32>> = serde_json::from_value(ans["faces"].clone()).unwrap();
        assert_eq!(faces, lib.faces().map(|f| f.to_vec()).collect::<Vec<_>>());
        // Independent check in f64: every input point is on the inner side of every face
        // (polyhedra), up to rounding of this check itself.
        if dim == 3 {
            for face in &faces {
                let [a, b, c] = [0, 1, 2].map(|k| verts[face[k] as usize]);
                let n = cross(sub(b, a), sub(c, a));
                for p in &pts {
                    assert!(
                        dot(n, sub(p.to_array(), a)) <= 1e-9 * dot(n, n).sqrt(),
                        "set {i}: point outside"
                    );
                }
            }
        }
    }
    assert!(dims.iter().all(|&d| d > 0), "dimensions seen: {dims:?}");
}

#[test]
fn two_d_answers_equal_the_library_for_every_algorithm() {
    let sets = point_sets(2);
    let input: String = sets
        .iter()
        .enumerate()
        .map(|(i, s)| json!({"id": i, "points": s}).to_string() + "\n")
        .collect();
    for alg in Algorithm2d::ALL {
        let (code, answers) = run(&["hull", "--2d", "--algorithm", alg.name()], &input);
        assert_eq!(code, 0);
        for (set, ans) in sets.iter().zip(&answers) {
            let pts: Vec<glam::DVec2> = set.iter().map(|p| glam::DVec2::new(p[0], p[1])).collect();
            let want: Vec<Value> = alg
                .run_f64(&pts)
                .unwrap()
                .iter()
                .map(|&i| json!([pts[i].x, pts[i].y]))
                .collect();
            assert_eq!(
                ans["vertices"],
                Value::Array(want.clone()),
                "{}",
                alg.name()
            );
            assert_eq!(ans["dimension"], json!(want.len().min(3) - 1));
            assert_eq!(ans["algorithm"], json!(alg.name()));
        }
    }
}

#[test]
fn degenerate_and_hostile_lines() {
    let lines = [
        (r#"{"id": 1, "points": [[1, 2, 3], [1, 2, 3]]}"#, Ok(0)),
        (
            r#"{"id": 2, "points": [[0, 0, 0], [1, 1, 1], [3, 3, 3], [2, 2, 2]]}"#,
            Ok(1),
        ),
        (
            r#"{"id": 3, "points": [[0, 0, 5], [4, 0, 5], [0, 4, 5], [1, 1, 5], [4, 4, 5]]}"#,
            Ok(2),
        ),
        (r#"{"id": 4, "points": []}"#, Err("invalid_shape")),
        (
            r#"{"id": 5, "points": [[0, 0, 1e300], [1, 1, 1]]}"#,
            Err("invalid_shape"),
        ),
        (r#"{"id": 6, "points": [[0, 0]]}"#, Err("invalid_query")),
        (
            r#"{"id": 7, "points": [[0, "x", 0]]}"#,
            Err("invalid_query"),
        ),
        (r#"{"id": 8, "points": 3}"#, Err("invalid_query")),
        (r#"{"id": 9}"#, Err("invalid_query")),
        (r#"[1, 2]"#, Err("invalid_query")),
        (
            r#"{"id": 11, "points": [[0, 0, 0], [1, 0"#,
            Err("invalid_json"),
        ),
        (
            r#"{"id": 12, "points": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]}"#,
            Ok(3),
        ),
    ];
    let input: String = lines.iter().map(|(l, _)| format!("{l}\n\n")).collect();
    let (code, answers) = run(&["hull"], &input);
    assert_eq!(code, 0);
    assert_eq!(answers.len(), lines.len());
    for ((line, want), ans) in lines.iter().zip(&answers) {
        match want {
            Ok(dim) => {
                assert_eq!(ans["dimension"], json!(dim), "{line}: {ans}");
                let faces = ans["faces"].as_array().unwrap().len();
                assert_eq!(faces, [0, 0, 1, 4][*dim as usize], "{line}");
            }
            Err(kind) => assert_eq!(ans["error"]["kind"], json!(kind), "{line}: {ans}"),
        }
    }
    // The coplanar square: corners only, counter-clockwise about +z, one face.
    assert_eq!(answers[2]["vertices"].as_array().unwrap().len(), 4);
    assert_eq!(answers[2]["normal"], json!([0.0, 0.0, 1.0]));
    // 2D degenerate sets.
    let (_, a) = run(
        &["hull", "--2d"],
        "{\"points\": [[1, 1], [1, 1]]}\n{\"points\": [[0, 0], [2, 2], [1, 1]]}\n{\"points\": [[1, 2, 3]]}\n",
    );
    assert_eq!(a[0]["dimension"], json!(0));
    assert_eq!(a[1]["dimension"], json!(1));
    assert_eq!(a[1]["vertices"], json!([[0.0, 0.0], [2.0, 2.0]]));
    assert_eq!(a[2]["error"]["kind"], json!("invalid_query"));
    // Bad invocations.
    assert_eq!(run(&["hull", "--2d", "--algorithm", "quick"], "").0, 2);
    assert_eq!(run(&["hull", "--algorithm", "graham"], "").0, 2);
    assert_eq!(run(&["hull", "--nope"], "").0, 2);
}
