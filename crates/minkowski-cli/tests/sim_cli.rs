//! `minkowski sim` end to end: the JSON lines' shape and the summary's fields, the
//! figures on the stack, determinism of the hash across runs and thread counts, and bad
//! command lines.

use serde_json::Value;
use std::process::Command;

fn sim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_minkowski"))
        .arg("sim")
        .args(args)
        .output()
        .expect("spawn minkowski");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn lines(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn json_has_one_object_per_step_then_the_summary() {
    let (code, out, err) = sim(&[
        "--scene",
        "stack",
        "--steps",
        "120",
        "--json",
        "--threads",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = lines(&out);
    assert_eq!(v.len(), 121);
    for (k, step) in v[..120].iter().enumerate() {
        assert_eq!(step["step"], k as u64 + 1);
        assert!(step["ms"].as_f64().unwrap() >= 0.0);
        assert_eq!(step["hash"].as_str().unwrap().len(), 16);
        // How many pairs refreshed their stored manifolds instead of a new query.
        assert!(step["pairs_reused"].as_u64().is_some());
    }
    assert_eq!(
        v[60]["pairs_reused"].as_u64(),
        Some(0),
        "reuse is off by default"
    );
    let s = &v[120];
    // The phase times are there and add up to no more than the step times.
    let phases = s["mean_phase_ms"].as_object().expect("mean_phase_ms");
    let names = ["broad", "narrow", "constraints", "solver", "finish"];
    assert_eq!(phases.len(), names.len());
    let total: f64 = names
        .iter()
        .map(|k| phases[*k].as_f64().expect("a number"))
        .inspect(|ms| assert!(*ms >= 0.0))
        .sum();
    assert!(total <= s["mean_step_ms"].as_f64().unwrap() + 1e-6, "{s}");
    assert_eq!(s["scene"], "stack");
    assert_eq!(s["bodies"], 20);
    assert_eq!(s["steps"], 120);
    assert!(s["median_step_ms"].as_f64().unwrap() >= 0.0);
    // The stack's figures: it stands (drift under 1 cm, penetration under the 5 mm slop)
    // and falls asleep within the 120 steps.
    assert!(s["max_penetration"].as_f64().unwrap() <= 0.005, "{s}");
    assert!(s["max_drift"].as_f64().unwrap() < 0.01, "{s}");
    let at = s["asleep_at_step"].as_u64().expect("asleep");
    assert!((30..=100).contains(&at), "{s}");
    // The summary's hash is the last step's.
    assert_eq!(s["hash"], v[119]["hash"]);
}

#[test]
fn hash_is_the_same_every_run_and_for_any_thread_count() {
    let hash = |threads: &str| {
        let (code, out, err) = sim(&[
            "--scene",
            "tumbler",
            "--steps",
            "40",
            "--json",
            "--threads",
            threads,
        ]);
        assert_eq!(code, 0, "{err}");
        lines(&out).last().unwrap()["hash"].clone()
    };
    let one = hash("1");
    assert_eq!(one, hash("1"));
    assert_eq!(one, hash("2"));
}

/// With `--reuse`, the resting stack refreshes its pairs' manifolds instead of querying.
#[test]
fn reuse_refreshes_resting_pairs() {
    let (code, out, err) = sim(&[
        "--scene",
        "stack",
        "--steps",
        "40",
        "--json",
        "--no-sleep",
        "--reuse",
        "5e-4",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = lines(&out);
    assert!(v[39]["pairs_reused"].as_u64().unwrap() > 0, "{}", v[39]);
    for bad in ["-1", "nan", "x"] {
        let (code, _, _) = sim(&["--scene", "stack", "--steps", "1", "--reuse", bad]);
        assert_eq!(code, 2, "--reuse {bad}");
    }
}

/// The coloured (parallel) solver gives the same hash on one thread as on two, and a
/// different one from the sequential solver (the sweep order differs).
#[test]
fn coloured_solver_hash_does_not_depend_on_threads() {
    let hash = |threads: &str, coloured: bool| {
        let mut args = vec!["--scene", "pyramid", "--steps", "20", "--threads", threads];
        if coloured {
            args.push("--coloured");
        }
        let (code, out, err) = sim(&args);
        assert_eq!(code, 0, "{err}");
        out.lines().nth(1).unwrap_or_default().to_string()
    };
    let one = hash("1", true);
    assert!(one.contains("hash"), "{one}");
    assert_eq!(one, hash("2", true));
    assert_ne!(one, hash("1", false));
}

#[test]
fn every_scene_runs_and_non_stacks_have_no_drift() {
    for scene in [
        "free_fall",
        "pyramid",
        "card_house",
        "mass_ratio",
        "friction_ramp",
        "tumbler",
        "terrain_character",
    ] {
        let (code, out, err) = sim(&["--scene", scene, "--steps", "3", "--json"]);
        assert_eq!(code, 0, "{scene}: {err}");
        let v = lines(&out);
        let s = v.last().unwrap();
        assert_eq!(s["scene"], scene);
        let stacking = ["pyramid", "card_house", "mass_ratio"].contains(&scene);
        assert_eq!(s["max_drift"].is_null(), !stacking, "{scene}: {s}");
        assert!(s["asleep_at_step"].is_null());
    }
}

#[test]
fn text_output_and_bad_command_lines() {
    let (code, out, _) = sim(&["--scene", "free_fall", "--steps", "5"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("scene free_fall: 10 bodies, 5 steps"),
        "{out}"
    );
    let (code, _, err) = sim(&["--scene", "no_such_scene"]);
    assert_eq!(code, 2);
    assert!(err.contains("no_such_scene"), "{err}");
    let (code, _, _) = sim(&["--scene", "stack", "--steps", "-3"]);
    assert_eq!(code, 2);
    let (code, _, _) = sim(&[]);
    assert_eq!(code, 2);
}
