//! `minkowski scene`: seed 000's collision experiment, made honest.
//!
//! N objects — seed 000's cube (8 vertices), cone (33), cylinder (64) and sphere (482) as
//! convex hulls, and capsules — at random positions and orientations in a cube, moving
//! for K frames; every frame runs the world's broad phase and narrow phase and reports
//! pairs, contacts and times.
//!
//! The objects, their sizing and their motion are [`minkowski::scene::Scene`]'s (printed
//! with the results): about 2 units across, in a cube sized so that each box meets about
//! two others, moving 0.2 units and turning 0.05 rad per frame. `--layout seed000 --array
//! A` is the seed's forced-overlap layout (every pair overlaps), as in its Table 7.2.14.

use std::io::Write;
use std::time::Instant;

use minkowski::scene::{Scene, SceneLayout, SPEED};
use minkowski::world::{BroadPhaseKind, ObjectHandle, World, WorldOptions};
use minkowski::{Pose, Real};
use serde_json::json;

/// Parsed `minkowski scene` options.
#[derive(Debug, Clone)]
pub struct SceneArgs {
    pub objects: usize,
    pub frames: usize,
    pub broadphase: String,
    pub threads: usize,
    pub seed: u64,
    pub seed000_array: Option<usize>,
    pub verify: bool,
    pub json: bool,
    /// Full contacts (EPA for penetrating pairs) or only whether pairs touch.
    pub contact_details: bool,
}

pub const USAGE: &str = "\
usage: minkowski scene [--objects N] [--frames K] [--broadphase grid|sap|bvh]
                       [--threads T] [--seed S] [--layout seed000 --array A]
                       [--contacts full|touch] [--verify] [--json]
  defaults: --objects 1000 --frames 100 --broadphase bvh --threads <all cores> --seed 1
  --contacts full (default) computes every touching pair's contact (EPA when penetrating);
  --contacts touch only decides which pairs touch
  --objects is at most 2,000,000, and 200,000 with --broadphase sap";

/// The most objects `--broadphase sap` accepts (about 3 s per frame at 10^5 here).
pub const SAP_MAX_OBJECTS: usize = 200_000;

pub fn parse(args: &[String]) -> Result<SceneArgs, String> {
    let mut a = SceneArgs {
        objects: 1000,
        frames: 100,
        broadphase: "bvh".into(),
        threads: 0,
        seed: 1,
        seed000_array: None,
        verify: false,
        json: false,
        contact_details: true,
    };
    let mut layout_seed000 = false;
    let mut it = args.iter();
    let num = |v: Option<&String>, flag: &str| -> Result<u64, String> {
        v.ok_or(format!("{flag} needs a value"))?
            .parse::<u64>()
            .map_err(|_| format!("{flag} needs a non-negative integer"))
    };
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--objects" => a.objects = num(it.next(), flag)? as usize,
            "--frames" => a.frames = num(it.next(), flag)? as usize,
            "--threads" => a.threads = num(it.next(), flag)? as usize,
            "--seed" => a.seed = num(it.next(), flag)?,
            "--array" => a.seed000_array = Some(num(it.next(), flag)? as usize),
            "--broadphase" => {
                let v = it.next().ok_or("--broadphase needs grid, sap or bvh")?;
                if !["grid", "sap", "bvh"].contains(&v.as_str()) {
                    return Err(format!("unknown broad phase '{v}' (grid, sap, bvh)"));
                }
                a.broadphase = v.clone();
            }
            "--layout" => match it.next().map(String::as_str) {
                Some("seed000") => layout_seed000 = true,
                Some("random") => layout_seed000 = false,
                other => return Err(format!("unknown layout {other:?} (seed000, random)")),
            },
            "--contacts" => match it.next().map(String::as_str) {
                Some("full") => a.contact_details = true,
                Some("touch") => a.contact_details = false,
                other => return Err(format!("unknown --contacts {other:?} (full, touch)")),
            },
            "--verify" => a.verify = true,
            "--json" => a.json = true,
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    if layout_seed000 {
        match a.seed000_array {
            Some(n) if (1..=1000).contains(&n) => {}
            Some(_) => return Err("--array must be between 1 and 1000".into()),
            None => return Err("--layout seed000 needs --array A (the seed used 2..18)".into()),
        }
    } else if a.seed000_array.is_some() {
        return Err("--array goes with --layout seed000".into());
    }
    if a.objects > 2_000_000 {
        return Err("--objects is limited to 2,000,000".into());
    }
    // Sweep and prune on this dense 3D scene costs seconds per frame at 10^5 objects and
    // grows quadratically (2·10^6 ran for about 17 minutes): refuse what cannot finish.
    if a.broadphase == "sap" && a.objects > SAP_MAX_OBJECTS {
        return Err(format!(
            "--broadphase sap is limited to {SAP_MAX_OBJECTS} objects on this scene (every \
             axis is crowded, so its swaps grow quadratically); use grid or bvh"
        ));
    }
    Ok(a)
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn run(args: &SceneArgs, out: &mut dyn Write) -> Result<bool, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| format!("cannot start {} threads: {e}", args.threads))?;
    run_in_pool(args, &pool, out)
}

fn run_in_pool(
    args: &SceneArgs,
    pool: &rayon::ThreadPool,
    out: &mut dyn Write,
) -> Result<bool, String> {
    let threads = pool.current_num_threads();
    let layout = match args.seed000_array {
        Some(array) => SceneLayout::Seed000 { array },
        None => SceneLayout::Random {
            objects: args.objects,
        },
    };
    let mut scene =
        Scene::new(layout, args.seed).map_err(|e| format!("cannot build the scene: {e}"))?;
    let (count, mean_side, side) = (scene.objects.len(), scene.mean_side, scene.side);
    let kind = match args.broadphase.as_str() {
        "grid" => BroadPhaseKind::Grid {
            cell_size: (2.0 * mean_side) as Real,
        },
        "sap" => BroadPhaseKind::SweepAndPrune,
        _ => BroadPhaseKind::Tree { fat_factor: 0.5 },
    };
    let options = WorldOptions {
        contact_details: args.contact_details,
        ..Default::default()
    };
    let mut world = World::new(kind, options);
    let handles = scene
        .insert_into(&mut world)
        .map_err(|(i, e)| format!("cannot insert object {i}: {e}"))?;
    let figures = json!({
        "objects": count,
        "frames": args.frames,
        "broadphase": args.broadphase,
        "threads": threads,
        "seed": args.seed,
        "layout": if args.seed000_array.is_some() { "seed000" } else { "random" },
        "array": args.seed000_array,
        "world_side": side,
        "mean_box_side": mean_side,
        "speed_per_frame": SPEED,
        "contacts": if args.contact_details { "full" } else { "touch" },
    });
    if !args.json {
        writeln!(out, "scene: {figures}").map_err(|e| e.to_string())?;
        writeln!(
            out,
            "{:>6} {:>9} {:>9} {:>10} {:>10}",
            "frame", "pairs", "contacts", "broad ms", "narrow ms"
        )
        .map_err(|e| e.to_string())?;
    }
    let (mut frame_ms, mut broad_ms, mut narrow_ms) = (Vec::new(), Vec::new(), Vec::new());
    let mut verified = true;
    let mut moves: Vec<(ObjectHandle, Pose)> = Vec::with_capacity(count);
    for frame in 0..args.frames {
        // The scene's own motion is the application's work, not timed.
        if frame > 0 {
            scene.step();
        }
        let t0 = Instant::now();
        if frame > 0 {
            scene.moves(&handles, &mut moves);
            pool.install(|| world.set_poses(&moves))
                .map_err(|(i, e)| format!("cannot move object {i}: {e}"))?;
        }
        let t_moved = Instant::now();
        pool.install(|| world.update());
        let total = t0.elapsed().as_secs_f64() * 1e3;
        let t = world.timings();
        // The broad phase's share includes updating the boxes of the moved objects.
        let broad = t.broad_ms + (t_moved - t0).as_secs_f64() * 1e3;
        frame_ms.push(total);
        broad_ms.push(broad);
        narrow_ms.push(t.narrow_ms);
        let contacts = world.contacts().len();
        let mut verdict = None;
        if args.verify {
            let r = world.verify(1e-4);
            if let Err(e) = &r {
                verified = false;
                verdict = Some(e.clone());
            }
        }
        if args.json {
            let mut line = json!({
                "frame": frame, "pairs": t.pairs, "contacts": contacts,
                "broad_ms": broad, "narrow_ms": t.narrow_ms,
                // broad_ms = move_ms (new poses and boxes into the broad phase) + pair_ms.
                "move_ms": broad - t.broad_ms, "pair_ms": t.broad_ms,
                // Pairs left untested: apart by more than their objects moved since.
                "skipped": t.skipped,
            });
            if args.verify {
                line["verified"] = json!(verdict.is_none());
                if let Some(e) = &verdict {
                    line["difference"] = json!(e);
                }
            }
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        } else if frame < 5 || frame % 10 == 0 || frame + 1 == args.frames || verdict.is_some() {
            write!(
                out,
                "{frame:>6} {:>9} {contacts:>9} {broad:>10.3} {:>10.3}",
                t.pairs, t.narrow_ms
            )
            .map_err(|e| e.to_string())?;
            match &verdict {
                Some(e) => writeln!(out, "  VERIFY FAILED: {e}"),
                None if args.verify => writeln!(out, "  verified"),
                None => writeln!(out),
            }
            .map_err(|e| e.to_string())?;
        }
    }
    let summary = json!({
        "summary": true,
        "median_frame_ms": median(&mut frame_ms),
        "median_broad_ms": median(&mut broad_ms),
        "median_narrow_ms": median(&mut narrow_ms),
        "verified": if args.verify { json!(verified) } else { json!(null) },
        "scene": figures,
    });
    if args.json {
        writeln!(out, "{summary}").map_err(|e| e.to_string())?;
    } else {
        writeln!(
            out,
            "median per frame: {:.3} ms (broad {:.3} ms, narrow {:.3} ms){}",
            summary["median_frame_ms"].as_f64().unwrap_or(0.0),
            summary["median_broad_ms"].as_f64().unwrap_or(0.0),
            summary["median_narrow_ms"].as_f64().unwrap_or(0.0),
            if args.verify {
                if verified {
                    "; every frame verified against brute force"
                } else {
                    "; VERIFY FAILED"
                }
            } else {
                ""
            }
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(verified)
}
