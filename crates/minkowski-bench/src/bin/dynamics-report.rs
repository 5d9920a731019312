//! The rigid-body peer table (issue 22): every scene of `minkowski_dynamics::scenes` that
//! the peers can be given the same way, run by minkowski-dynamics, rapier3d (feature
//! `rapier`) and Bullet's `btDiscreteDynamicsWorld` (feature `bullet`), at 1 and 2
//! threads (Bullet at 1: it is single-threaded), measured by the same code
//! (`minkowski_bench::peers::dynamics`).
//!
//! ```text
//! dynamics-report [--smoke] [--steps K] [--scene NAME]... [--threads T,T,...]
//! ```
//!
//! Prints Markdown: per scene and engine, the median and mean ms per step, the deepest
//! penetration (mm, minkowski's exact queries on each engine's poses), the largest
//! horizontal drift of a body of a stacking scene (mm) and the first step after which
//! every body sleeps; then the scenes left out and why. Before running, each peer's
//! world is checked against the spec (body count, total mass, centres of mass).
//! `--smoke`: 10 steps (for CI). Exits 1 when a peer's world does not mirror the
//! scene or when minkowski's step fails, 2 on bad arguments; only the f32 build runs it
//! (minkowski-dynamics is single precision).

#[cfg(feature = "f64")]
fn main() {
    eprintln!("dynamics-report: minkowski-dynamics is single precision; build without `f64`");
    std::process::exit(2);
}

#[cfg(not(feature = "f64"))]
fn main() {
    match report::main() {
        Ok(code) => minkowski_bench::peers::exit(code),
        Err(e) => {
            eprintln!("dynamics-report: {e}");
            minkowski_bench::peers::exit(2);
        }
    }
}

#[cfg(not(feature = "f64"))]
mod report {
    use minkowski_bench::peers::dynamics::{self, Figures};
    use minkowski_dynamics::scenes::SCENE_NAMES;
    use std::fmt::Write as _;

    /// Mirror tolerances: positions (length) and relative total mass.
    const POSITION_TOL: f64 = 1e-6;
    const MASS_TOL: f64 = 1e-6;

    struct Args {
        steps: usize,
        scenes: Vec<String>,
        threads: Vec<usize>,
    }

    fn parse() -> Result<Args, String> {
        let mut a = Args {
            steps: 1000,
            scenes: Vec::new(),
            threads: vec![1, 2],
        };
        let mut smoke = false;
        let mut steps = None;
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
            match flag.as_str() {
                "--smoke" => smoke = true,
                "--steps" => {
                    steps = Some(
                        value("--steps")?
                            .parse::<usize>()
                            .map_err(|e| format!("--steps: {e}"))?,
                    )
                }
                "--scene" => {
                    let s = value("--scene")?;
                    if !SCENE_NAMES.contains(&s.as_str()) {
                        return Err(format!(
                            "unknown scene {s} (known: {})",
                            SCENE_NAMES.join(", ")
                        ));
                    }
                    a.scenes.push(s);
                }
                "--threads" => {
                    a.threads = value("--threads")?
                        .split(',')
                        .map(|t| {
                            t.trim()
                                .parse::<usize>()
                                .map_err(|e| format!("--threads: {e}"))
                        })
                        .collect::<Result<_, _>>()?;
                    if a.threads.contains(&0) {
                        return Err("--threads: counts must be at least 1".into());
                    }
                }
                other => return Err(format!("unknown argument {other}")),
            }
        }
        a.steps = steps.unwrap_or(if smoke { 10 } else { 1000 });
        if a.scenes.is_empty() {
            a.scenes = SCENE_NAMES.iter().map(|s| s.to_string()).collect();
        }
        Ok(a)
    }

    fn mm(x: f32) -> String {
        format!("{:.2}", x as f64 * 1e3)
    }

    fn row(out: &mut String, scene: &str, bodies: usize, f: &Figures) {
        let _ = writeln!(
            out,
            "| {scene} | {bodies} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {} | {} | {} |{}",
            f.engine,
            f.threads,
            f.steps,
            f.median_awake_ms,
            f.median_ms,
            f.mean_ms,
            mm(f.max_penetration),
            f.max_drift.map_or("-".into(), mm),
            f.asleep_at.map_or("never".into(), |s| s.to_string()),
            f.failure
                .as_ref()
                .map_or(String::new(), |e| format!(" stopped: {e}")),
        );
    }

    pub fn main() -> Result<i32, String> {
        let args = parse()?;
        let mut code = 0;
        let mut out = String::new();
        let mut left_out = Vec::new();
        let mut at_start = Vec::new();
        let _ = writeln!(
            out,
            "# Rigid-body scenes side by side\n\n{} steps of each scene; threads {:?} (Bullet: 1, \
             single-threaded). ms: wall time of the engine's step call, median over the steps that began with a \
             body awake, median and mean over all steps; \
             penetration: deepest, by minkowski's exact contact queries on each engine's poses \
             (mm); drift: largest horizontal displacement of a body of a stacking scene over the \
             run (mm); asleep: first step after which every body sleeps.\n",
            args.steps, args.threads
        );
        let _ = writeln!(
            out,
            "| scene | bodies | engine | threads | steps | ms/step awake (median) | ms/step (median) | ms/step (mean) | max penetration (mm) | max drift (mm) | asleep at step |\n|---|---|---|---|---|---|---|---|---|---|---|"
        );
        for name in &args.scenes {
            for &threads in &args.threads {
                let (spec, mut engines) = match dynamics::engines(name, threads) {
                    Ok(x) => x,
                    Err(e) => {
                        if !left_out.iter().any(|(n, _)| n == name) {
                            left_out.push((name.clone(), e));
                        }
                        break;
                    }
                };
                if threads == args.threads[0] {
                    let start: Vec<_> = spec.bodies.iter().map(|b| b.pose).collect();
                    let overlap = dynamics::Metric::new(&spec).max_penetration(&start);
                    at_start.push((name.clone(), overlap.unwrap_or(f32::NAN)));
                }
                for e in engines.iter_mut() {
                    let (count, mass_err, pos_err) = dynamics::mirror_error(e.as_ref(), &spec);
                    if !count || mass_err > MASS_TOL || pos_err > POSITION_TOL {
                        eprintln!(
                            "dynamics-report: {} does not mirror {name}: count ok {count}, \
                             total mass off by {mass_err:e} (relative), a centre off by {pos_err:e}",
                            e.name()
                        );
                        code = 1;
                        continue;
                    }
                    let f = dynamics::run(e.as_mut(), &spec, args.steps);
                    if f.engine == "minkowski" && f.failure.is_some() {
                        code = 1;
                    }
                    row(&mut out, name, spec.bodies.len(), &f);
                    eprintln!(
                        "dynamics-report: {name} {} x{threads}: {:.3} ms/step",
                        f.engine, f.median_ms
                    );
                }
            }
        }
        let _ = writeln!(
            out,
            "\nDeepest overlap of the scene as built, before any step (mm): {}.",
            at_start
                .iter()
                .map(|(n, d)| format!("{n} {}", mm(*d)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if !left_out.is_empty() {
            let _ = writeln!(
                out,
                "\nLeft out (the peers cannot be given the same scene):\n"
            );
            for (n, why) in &left_out {
                let _ = writeln!(out, "- {n}: {why}");
            }
        }
        print!("{out}");
        Ok(code)
    }
}
