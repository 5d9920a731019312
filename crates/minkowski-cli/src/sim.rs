//! `minkowski sim`: runs a named rigid-body scene of `minkowski-dynamics` and reports
//! per-step timing and stability figures.
//!
//! With `--json`: one object per step
//! `{"step", "ms", "awake", "manifolds", "points", "warm_started", "pairs_reused",
//! "max_penetration", "hash"}`, then a last summary object `{"scene", "bodies", "steps", "threads",
//! "median_step_ms", "mean_step_ms", "max_step_ms", "max_penetration", "max_drift",
//! "asleep_at_step", "hash"}`: `max_penetration` the deepest contact any step's narrow
//! phase found (length units), `max_drift` the largest horizontal displacement of any
//! dynamic body from its start (length units; `null` for a scene that is not a stack),
//! `asleep_at_step` the first step after which every dynamic body sleeps (`null` if
//! never), `hash` the final state's FNV-1a hash as 16 hexadecimal digits,
//! `mean_phase_ms` the mean wall-clock milliseconds per step of each phase (`broad`,
//! `narrow`, `constraints`, `solver`, `finish`; see `minkowski_dynamics::PhaseTimes`). Without
//! `--json`: the summary as text.

use minkowski::Real;
use minkowski_dynamics::scenes::{self, SCENE_NAMES};
use serde_json::json;
use std::io::Write;
use std::time::Instant;

const SIM_ABOUT: &str = "\
Run a named rigid-body scene (minkowski-dynamics: soft-step solver, persistent contacts,
sleeping) and report per-step timing and stability figures.

Scenes: free_fall (10 balls), stack (20 boxes), pyramid (20 rows, 210 boxes),
large_pyramid (100 rows, 5050 boxes), card_house, mass_ratio (densities 1:10:100,
heaviest on top), friction_ramp (boxes of six frictions on a 30° ramp), tumbler (200
bodies in a turning hollow box), terrain_character (a kinematic capsule walking a
scripted circle over a heightfield among boxes). Steps of 1/60 s.";

const SIM_AFTER: &str = "\
Output with --json: one object per step {step, ms, awake, manifolds, points,
warm_started, pairs_reused, max_penetration, hash}, then a summary {scene, bodies,
steps, threads, median_step_ms, mean_step_ms, max_step_ms, max_penetration, max_drift
(null unless a stacking scene), asleep_at_step (null if never), hash (16 hex digits),
mean_phase_ms {broad, narrow, constraints, solver, finish}}. Lengths in the scene's
units (metres).

Exit status: 0 on success; 1 when a step fails; 2 for a bad command line.";

/// `minkowski sim`'s command line.
#[derive(Debug, Clone, clap::Args)]
#[command(
    about = "Run a named rigid-body scene and time it",
    long_about = SIM_ABOUT,
    after_long_help = SIM_AFTER,
    args_override_self = true
)]
pub struct SimCli {
    /// The scene.
    #[arg(long, value_name = "NAME", value_parser = clap::builder::PossibleValuesParser::new(SCENE_NAMES))]
    pub scene: String,
    /// Steps to run (1/60 s each).
    #[arg(long, value_name = "K", default_value_t = 300)]
    pub steps: usize,
    /// Worker threads of the narrow phase; 0 means rayon's default (one per core).
    #[arg(long, value_name = "T", default_value_t = 0)]
    pub threads: usize,
    /// One JSON object per step, then a summary object.
    #[arg(long)]
    pub json: bool,
    /// Keep every body awake (for timing the solver on a settled scene).
    #[arg(long)]
    pub no_sleep: bool,
    /// Solve by colour classes, in parallel (the solver's `graph_colouring`; off by
    /// default: it converges worse on stacks).
    #[arg(long)]
    pub coloured: bool,
    /// Reuse a pair's manifolds while it moved less than this (length; the world's
    /// `manifold_reuse_tolerance`, persistent manifolds); 0, the default, queries every
    /// pair every step.
    #[arg(long, value_name = "TOL", default_value_t = 0.0, value_parser = parse_tolerance)]
    pub reuse: Real,
    /// Answer box–box pairs by the closed-form manifold (the world's
    /// `box_box_closed_form`; off by default, see there).
    #[arg(long)]
    pub box_box: bool,
}

/// A finite length ≥ 0 (`--reuse`).
fn parse_tolerance(s: &str) -> Result<Real, String> {
    match s.parse::<Real>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("expected a finite length >= 0, got '{s}'")),
    }
}

/// Runs the scene and writes the report to `out`.
///
/// # Errors
/// A message for an unknown scene, a failed step or a failed write.
pub fn run(args: &SimCli, out: &mut impl Write) -> Result<(), String> {
    let mut scene = scenes::build(&args.scene, args.threads).map_err(|e| e.to_string())?;
    scene.world.settings.enable_sleep = !args.no_sleep;
    scene.world.settings.solver.graph_colouring = args.coloured;
    scene.world.settings.manifold_reuse_tolerance = args.reuse;
    scene.world.settings.box_box_closed_form = args.box_box;
    // Grown step by step: `--steps` is the user's and may be anything up to `usize::MAX`.
    let mut times = Vec::with_capacity(args.steps.min(1 << 16));
    let mut phases = [0.0f64; 5];
    let mut max_pen: Real = 0.0;
    let mut asleep_at: Option<u64> = None;
    let dynamic = scene
        .world
        .bodies()
        .iter()
        .filter(|b| b.is_dynamic())
        .count();
    for _ in 0..args.steps {
        scene.before_step();
        let t0 = Instant::now();
        let st = scene.world.step(scene.dt).map_err(|e| e.to_string())?;
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        times.push(ms);
        max_pen = max_pen.max(st.max_penetration);
        let t = st.times;
        for (acc, x) in phases.iter_mut().zip([
            t.broad_ms,
            t.narrow_ms,
            t.constraints_ms,
            t.solver_ms,
            t.finish_ms,
        ]) {
            *acc += x;
        }
        if st.awake == 0 && dynamic > 0 {
            asleep_at.get_or_insert(st.step);
        } else {
            asleep_at = None;
        }
        if args.json {
            let line = json!({
                "step": st.step,
                "ms": ms,
                "awake": st.awake,
                "manifolds": st.manifolds,
                "points": st.points,
                "warm_started": st.warm_started,
                "pairs_reused": st.pairs_reused,
                "max_penetration": st.max_penetration,
                "hash": format!("{:016x}", st.hash),
            });
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        }
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    let median = if sorted.is_empty() {
        0.0
    } else if sorted.len() % 2 == 1 {
        sorted[sorted.len() / 2]
    } else {
        0.5 * (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2])
    };
    let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
    let max = sorted.last().copied().unwrap_or(0.0);
    let phases = phases.map(|x| x / times.len().max(1) as f64);
    let phase_names = ["broad", "narrow", "constraints", "solver", "finish"];
    let phase_json: serde_json::Map<String, serde_json::Value> = phase_names
        .iter()
        .zip(phases)
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let drift = scene.stacking.then(|| scene.max_drift());
    let hash = format!("{:016x}", scene.world.state_hash());
    let summary = json!({
        "scene": scene.name,
        "bodies": scene.world.bodies().len(),
        "steps": args.steps,
        "threads": args.threads,
        "median_step_ms": median,
        "mean_step_ms": mean,
        "max_step_ms": max,
        "max_penetration": max_pen,
        "max_drift": drift,
        "asleep_at_step": asleep_at,
        "hash": hash,
        "mean_phase_ms": phase_json,
    });
    if args.json {
        writeln!(out, "{summary}").map_err(|e| e.to_string())?;
    } else {
        writeln!(
            out,
            "scene {}: {} bodies, {} steps; step median {median:.3} ms, mean {mean:.3} ms, max {max:.3} ms\n\
             max penetration {max_pen:.5}, max drift {}, asleep at step {}, hash {hash}\n\
             mean ms per phase: {}",
            scene.name,
            scene.world.bodies().len(),
            args.steps,
            drift.map_or("-".to_string(), |d| format!("{d:.5}")),
            asleep_at.map_or("never".to_string(), |s| s.to_string()),
            phase_names
                .iter()
                .zip(phases)
                .map(|(k, v)| format!("{k} {v:.3}"))
                .collect::<Vec<_>>()
                .join(", "),
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}
