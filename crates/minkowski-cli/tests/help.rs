//! The command line itself: every command has its own help, documenting its input,
//! output, defaults and flags; bad command lines are refused with exit status 2 and a
//! usage line on standard error, and nothing on standard output.

// With `test-f64`, the tests check the `--f64` answers against the double-precision
// library.
#[cfg(feature = "test-f64")]
extern crate minkowski_f64 as minkowski;

use std::process::{Command, Output, Stdio};

fn minkowski(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_minkowski"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run minkowski")
}

/// Standard output of a successful run.
fn help(args: &[&str]) -> String {
    let out = minkowski(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    assert!(out.stderr.is_empty(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn contains_all(text: &str, words: &[&str], what: &str) {
    for w in words {
        assert!(text.contains(w), "{what} lacks {w:?}:\n{text}");
    }
}

#[test]
fn the_general_help_lists_the_commands_and_the_protocol() {
    for args in [&["--help"][..], &["-h"], &["help"]] {
        let text = help(args);
        contains_all(
            &text,
            &[
                "Usage: minkowski <COMMAND>",
                "query",
                "hull",
                "scene",
                "sim",
                "docs/query-protocol.md",
                "Precision:",
            ],
            &format!("{args:?}"),
        );
    }
    let version = help(&["--version"]);
    assert!(version.starts_with("minkowski "), "{version}");
}

#[test]
fn query_help_documents_input_output_and_flags() {
    let text = help(&["query", "--help"]);
    contains_all(
        &text,
        &[
            "Usage: minkowski query [OPTIONS] [FILE]",
            "standard input",
            "intersects | distance | closest_points | contact",
            "manifold",
            "\"margin\"",
            "half_extents",
            "compound",
            "\"rotation\": [x, y, z, w]",
            "point_a, point_b",
            "invalid_shape",
            "--f64",
            "Exit status",
            "docs/query-protocol.md",
        ],
        "query --help",
    );
    // `help query` is the same text; `-h` a summary that still names the flags.
    assert_eq!(help(&["help", "query"]), text);
    contains_all(&help(&["query", "-h"]), &["--f64", "[FILE]"], "query -h");
}

#[test]
fn hull_help_documents_input_output_and_flags() {
    let text = help(&["hull", "--help"]);
    contains_all(
        &text,
        &[
            "Usage: minkowski hull [OPTIONS] [FILE]",
            "\"points\"",
            "--2d",
            "--algorithm <NAME>",
            "graham",
            "monotone",
            "dimension",
            "faces",
            "counter-clockwise",
            "Exit status",
            "docs/query-protocol.md",
        ],
        "hull --help",
    );
    assert_eq!(help(&["hull", "--2d", "--help"]), text);
}

#[test]
fn scene_help_documents_defaults_and_every_flag() {
    let text = help(&["scene", "--help"]);
    contains_all(
        &text,
        &[
            "Usage: minkowski scene [OPTIONS]",
            "--objects <N>",
            "[default: 1000]",
            "--frames <K>",
            "[default: 100]",
            "--broadphase <NAME>",
            "[default: bvh]",
            "grid, sap, bvh",
            "--threads <T>",
            "--seed <S>",
            "--layout <LAYOUT>",
            "--array <A>",
            "--contacts <MODE>",
            "[default: full]",
            "touch",
            "--verify",
            "--json",
            "median",
            "Exit status",
        ],
        "scene --help",
    );
}

/// Refused: exit status 2, the reason and a usage line (or a pointer to `--help`) on
/// standard error, nothing on standard output (so a pipeline never reads half an answer).
#[test]
fn bad_command_lines_exit_2_with_usage() {
    let cases: &[(&[&str], &str)] = &[
        (&[], "Usage: minkowski <COMMAND>"),
        (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (&["query", "--bogus"], "unexpected argument '--bogus'"),
        (
            &["query", "a.jsonl", "b.jsonl"],
            "unexpected argument 'b.jsonl'",
        ),
        (&["hull", "--algorithm", "graham"], "--2d"),
        (
            &["hull", "--2d", "--algorithm", "quick"],
            "invalid value 'quick'",
        ),
        (&["hull", "--2d", "--algorithm"], "a value is required"),
        (&["hull", "-x"], "unexpected argument '-x'"),
        (&["scene", "--objects"], "a value is required"),
        (&["scene", "--objects", "many"], "invalid value 'many'"),
        (
            &["scene", "--contacts", "some"],
            "[possible values: full, touch]",
        ),
        (
            &["scene", "--broadphase", "octree"],
            "[possible values: grid, sap, bvh]",
        ),
        (
            &["scene", "--layout", "seed000"],
            "--layout seed000 needs --array",
        ),
        (
            &["scene", "--objects", "200001", "--broadphase", "sap"],
            "limited to 200000",
        ),
    ];
    for (args, reason) in cases {
        let out = minkowski(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(stderr.contains(reason), "{args:?}: {stderr}");
        assert!(
            stderr.contains("Usage: minkowski") || stderr.contains("try '--help'"),
            "{args:?}: {stderr}"
        );
    }
}

/// `--f64` computes in double precision, from the same binary: two unit spheres 1e-9
/// apart are 1e-9 apart to 1e-15 (single precision cannot tell them from touching).
#[test]
fn f64_flag_selects_double_precision() {
    let line = br#"{"query": "distance", "a": {"type": "sphere", "radius": 1}, "b": {"type": "sphere", "radius": 1}, "pose_b": {"translation": [2.000000001, 0, 0]}}"#;
    let distance = |args: &[&str]| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_minkowski"))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), line).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["distance"].as_f64().unwrap()
    };
    let double = distance(&["query", "--f64"]);
    assert!((double - 1e-9).abs() < 1e-15, "{double}");
    let single = distance(&["query"]);
    assert!(
        (single - 1e-9).abs() < 1e-6 && (single - 1e-9).abs() > 1e-15,
        "{single}"
    );
    let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/queries.jsonl");
    assert_eq!(minkowski(&["hull", "--f64", input]).status.code(), Some(0));
}

/// No progress bar, nor anything else, on standard error when it is not a terminal.
#[test]
fn piped_runs_print_nothing_on_standard_error() {
    let input = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/queries.jsonl");
    let out = minkowski(&["query", input]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    let out = minkowski(&[
        "scene",
        "--objects",
        "50",
        "--frames",
        "2",
        "--threads",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
}
