//! Running the `minkowski` binary from the integration tests.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `minkowski ARGS` with `input` on standard input: exit code, the output lines
/// parsed as JSON (a line that is not JSON fails the test), and standard error.
pub fn run(args: &[&str], input: &[u8]) -> (i32, Vec<Value>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_minkowski"))
        .args(args)
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
