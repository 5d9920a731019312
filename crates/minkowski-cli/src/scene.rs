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

/// Checked `minkowski scene` options (from [`SceneCli::validate`]).
#[derive(Debug, Clone)]
pub struct SceneArgs {
    /// Objects in the random layout.
    pub objects: usize,
    /// Frames to run.
    pub frames: usize,
    /// The broad phase: `"grid"`, `"sap"` or `"bvh"`.
    pub broadphase: String,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Seed of the scene's randomness.
    pub seed: u64,
    /// The seed000 layout's array size, when that layout is chosen.
    pub seed000_array: Option<usize>,
    /// Check every frame against brute force.
    pub verify: bool,
    /// One JSON object per frame instead of the readable table.
    pub json: bool,
    /// Full contacts (EPA for penetrating pairs) or only whether pairs touch.
    pub contact_details: bool,
}

/// The most objects `--broadphase sap` accepts (about 3 s per frame at 10^5 here).
pub const SAP_MAX_OBJECTS: usize = 200_000;

/// The most objects any broad phase accepts (the library's scene limit).
pub const MAX_OBJECTS: usize = minkowski::scene::MAX_SCENE_OBJECTS;

/// `minkowski scene`'s command line, as written (see [`SceneCli::validate`] for the
/// checks across flags).
#[derive(Debug, Clone, clap::Args)]
#[command(
    about = "Time the collision world on a moving scene",
    long_about = SCENE_ABOUT,
    after_long_help = SCENE_AFTER,
    args_override_self = true
)]
pub struct SceneCli {
    /// Objects in the random layout (at most 2,000,000; 200,000 with --broadphase sap).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub objects: usize,
    /// Frames to run (frame 0 builds the pairs; each later frame moves every object).
    #[arg(long, value_name = "K", default_value_t = 100)]
    pub frames: usize,
    /// Broad phase: a uniform grid (cell 2 x the mean box side), incremental sweep and
    /// prune, or a dynamic AABB tree.
    #[arg(long, value_name = "NAME", default_value = "bvh",
          value_parser = ["grid", "sap", "bvh"])]
    pub broadphase: String,
    /// Worker threads of the narrow phase; 0 means one per core.
    #[arg(long, value_name = "T", default_value_t = 0)]
    pub threads: usize,
    /// Seed of the scene's random positions, orientations and motion.
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Object layout: random positions in a cube sized for about two overlaps per box,
    /// or seed 000's forced-overlap array (every pair overlaps; needs --array).
    #[arg(long, value_name = "LAYOUT", default_value = "random",
          value_parser = ["random", "seed000"])]
    pub layout: String,
    /// Array size A of --layout seed000 (1 to 1000; the seed used 2 to 18).
    #[arg(long, value_name = "A")]
    pub array: Option<usize>,
    /// full: every touching pair's contact (normal, depth, points; EPA when
    /// penetrating). touch: only which pairs touch (cheaper).
    #[arg(long, value_name = "MODE", default_value = "full",
          value_parser = ["full", "touch"])]
    pub contacts: String,
    /// Check every frame's pairs and contacts against brute force (exit status 1 on a
    /// difference).
    #[arg(long)]
    pub verify: bool,
    /// Write one JSON object per frame and a JSON summary instead of the table.
    #[arg(long)]
    pub json: bool,
}

const SCENE_ABOUT: &str = "\
Time the collision world on a moving scene.

N objects (seed 000's cube, cone, cylinder and sphere as convex hulls, and capsules), about
2 units across, at random positions and orientations, each moving 0.2 units and turning
0.05 rad per frame; every frame runs the world's broad phase and narrow phase.";

const SCENE_AFTER: &str = "\
Output (standard output):
  readable (default): a `scene: {...}` line with the scene's figures (objects, world side,
    mean box side, speed, ...), a table of frames 0-4, every 10th and the last (pairs,
    contacts, broad-phase ms, narrow-phase ms), and the medians per frame.
  --json: one object per frame {frame, pairs, contacts, broad_ms, narrow_ms, move_ms,
    pair_ms, skipped[, verified, difference]}, then {summary: true, median_frame_ms,
    median_broad_ms, median_narrow_ms, verified, scene: {...}}.

Exit status: 0 on success; 1 when --verify found a difference or the scene could not be
built; 2 for a bad command line (including the limits on --objects above).";

/// The same limits and cross-flag checks as ever, on clap's parsed flags.
impl SceneCli {
    /// Checks the flags against each other and the limits, giving the run's options.
    ///
    /// # Errors
    /// A message for the user: `--array` without `--layout seed000` or the reverse, an
    /// array size out of range, too many objects.
    pub fn validate(&self) -> Result<SceneArgs, String> {
        let a = SceneArgs {
            objects: self.objects,
            frames: self.frames,
            broadphase: self.broadphase.clone(),
            threads: self.threads,
            seed: self.seed,
            seed000_array: self.array,
            verify: self.verify,
            json: self.json,
            contact_details: self.contacts == "full",
        };
        if self.layout == "seed000" {
            match a.seed000_array {
                Some(n) if (1..=minkowski::scene::MAX_SEED000_ARRAY).contains(&n) => {}
                Some(_) => {
                    return Err(format!(
                        "--array must be between 1 and {}",
                        minkowski::scene::MAX_SEED000_ARRAY
                    ))
                }
                None => return Err("--layout seed000 needs --array A (the seed used 2..18)".into()),
            }
        } else if a.seed000_array.is_some() {
            return Err("--array goes with --layout seed000".into());
        }
        if a.objects > MAX_OBJECTS {
            return Err("--objects is limited to 2,000,000".into());
        }
        // Sweep and prune on this dense 3D scene costs seconds per frame at 10^5 objects
        // and grows quadratically (2·10^6 ran for about 17 minutes): refuse what cannot
        // finish.
        if a.broadphase == "sap" && a.objects > SAP_MAX_OBJECTS {
            return Err(format!(
                "--broadphase sap is limited to {SAP_MAX_OBJECTS} objects on this scene \
                 (every axis is crowded, so its swaps grow quadratically); use grid or bvh"
            ));
        }
        Ok(a)
    }
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs the scene, writing the report to `out`; `Ok(false)` when `--verify` found a
/// difference.
///
/// # Errors
/// A message when the threads cannot start, the scene cannot be built or `out` fails.
pub fn run(args: &SceneArgs, out: &mut dyn Write) -> Result<bool, String> {
    run_with_progress(args, out, &mut |_| {})
}

/// [`run`], calling `frame_done(frames done so far)` after every frame (the tool's
/// progress bar).
///
/// # Errors
/// As [`run`].
pub fn run_with_progress(
    args: &SceneArgs,
    out: &mut dyn Write,
    frame_done: &mut dyn FnMut(u64),
) -> Result<bool, String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .map_err(|e| format!("cannot start {} threads: {e}", args.threads))?;
    run_in_pool(args, &pool, out, frame_done)
}

fn run_in_pool(
    args: &SceneArgs,
    pool: &rayon::ThreadPool,
    out: &mut dyn Write,
    frame_done: &mut dyn FnMut(u64),
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
        frame_done(frame as u64 + 1);
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
