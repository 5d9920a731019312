//! Running the `minkowski` binary from the integration tests.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `minkowski ARGS` with `input` on standard input: exit code, the output lines
/// parsed as JSON (a line that is not JSON fails the test), and standard error.
///
/// With the `test-f64` feature, `query` and `hull` run with `--f64` (double precision).
pub fn run(args: &[&str], input: &[u8]) -> (i32, Vec<Value>, String) {
    let mut args = args.to_vec();
    if cfg!(feature = "test-f64") && matches!(args.first(), Some(&"query") | Some(&"hull")) {
        args.insert(1, "--f64");
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_minkowski"))
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn minkowski");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    let lines = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad output line {l}: {e}")))
        .collect();
    (
        out.status.code().unwrap_or(-1),
        lines,
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A seeded xorshift generator of numbers in `[-1, 1)`, for tests that build the same
/// random query for the tool and for the library.
#[allow(dead_code)] // not every test binary that includes this module draws poses
pub fn xorshift(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// A random pose (a uniform-ish unit quaternion, then a translation within `reach` on
/// each axis), as the JSON text the tool reads and as the library `Pose` built from the
/// same numbers (`Pose::new` renormalises the rotation exactly as the tool's parser
/// does).
#[allow(dead_code)] // not every test binary that includes this module draws poses
pub fn random_pose(rnd: &mut impl FnMut() -> f64, reach: f64) -> (String, minkowski::Pose) {
    use minkowski::{Pose, Real, Rotation, Vector};
    let q = [rnd(), rnd(), rnd(), rnd()];
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    let r = [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
    let t = [rnd() * reach, rnd() * reach, rnd() * reach];
    let text = format!(
        r#"{{"translation": [{}, {}, {}], "rotation": [{}, {}, {}, {}]}}"#,
        t[0], t[1], t[2], r[0], r[1], r[2], r[3]
    );
    let rot = Rotation::from_xyzw(r[0] as Real, r[1] as Real, r[2] as Real, r[3] as Real);
    let pose = Pose::new(rot, Vector::new(t[0] as Real, t[1] as Real, t[2] as Real)).unwrap();
    (text, pose)
}

/// Runs `minkowski query` on `lines` (one query each) and returns the answers, checking
/// that the tool read everything (exit 0) and answered every line.
#[allow(dead_code)] // not every test binary that includes this module sends query lines
pub fn answers(lines: &[String]) -> Vec<Value> {
    let input = lines.join("\n") + "\n";
    let (code, out, stderr) = run(&["query"], input.as_bytes());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(out.len(), lines.len());
    out
}

/// A JSON `[x, y, z]` as numbers.
#[allow(dead_code)] // not every test binary that includes this module reads vectors
pub fn v3(v: &Value) -> [f64; 3] {
    serde_json::from_value(v.clone()).unwrap()
}
