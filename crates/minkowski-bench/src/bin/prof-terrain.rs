//! Profiling aid: the displaced-terrain detectors alone on Table 4.5's warship frames
//! (for `perf record`), without the brute force the tables check against.
//!
//! ```text
//! prof-terrain [FRAMES] [REPS] [multires|gjk-cells|baseline|world] [OPTIMISE]
//! ```
//! Defaults: 4 frames, 500 repetitions of each, the default multiresolution detection,
//! volumes optimised up to 9 bounding points per level (a quicker build than the
//! tables' 25; the detection's work per frame is much the same). Prints the median
//! milliseconds per frame and the backward projections per frame. `world`: the same
//! frames as objects of a `World` holding the terrain (`World::insert_terrain`; each
//! object a compound of its parts' hulls), timed by `World::update` (its
//! `terrains_ms`): the detection plus what the world adds (test points, manifolds).

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use minkowski::shape::{Compound, ConvexPolyhedron, Shape};
use minkowski::terrain::{
    detect_multires_staged, BackProjectionMethod, BaselineConfig, DetectionCounters, FrameKind,
    MultiresOptions, MultiresStages, PerVertexBaseline, SceneFrame, SyntheticTerrain,
    SyntheticTerrainConfig, TerrainScene, TerrainStatic, TerrainVolumes, TerrainVolumesOptions,
};
use minkowski::world::{BroadPhaseKind, StaticOptions, World, WorldOptions};
use minkowski::{Point, Pose};
use minkowski_bench::terrain_suite::frame_parts;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frames: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(4);
    let reps: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(500);
    let method = args.get(2).map_or("multires", String::as_str);
    let optimise: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(9);
    let fail = |what: &str, e: String| {
        eprintln!("prof-terrain: {what}: {e}");
        ExitCode::FAILURE
    };
    let terrain = match SyntheticTerrain::generate(SyntheticTerrainConfig::default()) {
        Ok(t) => t,
        Err(e) => return fail("terrain", e.to_string()),
    };
    let scene = match TerrainScene::new(&terrain, 1) {
        Ok(s) => s,
        Err(e) => return fail("scene", e.to_string()),
    };
    let mut parts = Vec::new();
    let mut scenes = Vec::new();
    for i in 0..frames {
        match scene.frame(FrameKind::Warship, i) {
            Ok(f) => {
                parts.push(frame_parts(&f));
                scenes.push(f);
            }
            Err(e) => return fail("frame", e.to_string()),
        }
    }
    let volumes = match TerrainVolumes::build(
        &terrain.terrain,
        &TerrainVolumesOptions {
            max_optimised_points: optimise,
            ..TerrainVolumesOptions::default()
        },
    ) {
        Ok(v) => v,
        Err(e) => return fail("volumes", e.to_string()),
    };
    let baseline = match PerVertexBaseline::new(
        &terrain.terrain,
        BaselineConfig {
            method: BackProjectionMethod::AlignedPlane,
            ..Default::default()
        },
    ) {
        Ok(b) => b,
        Err(e) => return fail("baseline", e.to_string()),
    };
    let options = MultiresOptions {
        gjk_cells: method == "gjk-cells",
        ..MultiresOptions::default()
    };
    if method == "world" {
        let fixed = match TerrainStatic::new(terrain.terrain.clone(), volumes, options) {
            Ok(t) => Arc::new(t),
            Err(e) => return fail("terrain static", e.to_string()),
        };
        return match world_frames(&fixed, &scenes, reps) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail("world", e),
        };
    }
    let mut times = Vec::new();
    let mut counters = DetectionCounters::default();
    let mut stages = MultiresStages::default();
    for _ in 0..reps {
        for objects in &parts {
            let start = Instant::now();
            for object in objects {
                let refs: Vec<&[Point]> = object.iter().map(Vec::as_slice).collect();
                let found = if method == "baseline" {
                    baseline
                        .detect(&refs)
                        .map(|d| (d, MultiresStages::default()))
                        .map_err(|e| e.to_string())
                } else {
                    detect_multires_staged(&terrain.terrain, &volumes, &refs, &options)
                        .map_err(|e| e.to_string())
                };
                match found {
                    Ok((d, s)) => {
                        counters.add(&d.counters);
                        stages.coarsest += s.coarsest;
                        stages.finer += s.finer;
                        stages.texel += s.texel;
                        stages.index_tests += s.index_tests;
                    }
                    Err(e) => return fail("detection", e),
                }
            }
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    times.sort_by(f64::total_cmp);
    let per = |x: u64| x as f64 / times.len() as f64;
    println!(
        "{method}: median {:.4} ms per frame ({} frames); per frame: {:.1} backward \
         projections, {:.1} early-out tests, {:.1} volume tests (coarsest {:.1}, finer {:.1}, \
         texel {:.1}), {:.1} GJK, {:.1} texel vertex tests, {:.1} quads from the index",
        times[times.len() / 2],
        times.len(),
        per(counters.backward_projections),
        per(counters.early_out_tests),
        per(counters.volume_tests),
        per(stages.coarsest),
        per(stages.finer),
        per(stages.texel),
        per(counters.gjk_queries),
        per(counters.vertex_tests),
        per(stages.index_tests),
    );
    ExitCode::SUCCESS
}

/// The `world` mode: each frame's objects in a world with the terrain, `reps` updates
/// each; prints the median `terrains_ms` and the terrain contacts per frame.
fn world_frames(
    terrain: &Arc<TerrainStatic>,
    frames: &[SceneFrame],
    reps: usize,
) -> Result<(), String> {
    let mut times = Vec::new();
    let mut contacts = 0usize;
    for frame in frames {
        let mut world = World::new(
            BroadPhaseKind::SweepAndPrune,
            WorldOptions {
                parallel: false,
                ..WorldOptions::default()
            },
        );
        world
            .insert_terrain(terrain.clone(), StaticOptions::default())
            .map_err(|e| e.to_string())?;
        for o in &frame.objects {
            let mut hulls = Vec::new();
            for part in &o.object.parts {
                let hull = ConvexPolyhedron::new(part.clone()).map_err(|e| e.to_string())?;
                hulls.push((Pose::IDENTITY, Shape::from(hull)));
            }
            let compound = Compound::new(hulls).map_err(|e| e.to_string())?;
            world.insert(compound, o.pose).map_err(|e| e.to_string())?;
        }
        for _ in 0..reps {
            world.update();
            times.push(world.timings().terrains_ms);
        }
        contacts += world.terrain_contacts().len();
        if let Some((_, _, e)) = world.terrain_failures().first() {
            return Err(e.to_string());
        }
    }
    times.sort_by(f64::total_cmp);
    println!(
        "world: median {:.4} ms per frame in World::update's terrain stage ({} updates, \
         serial); {:.1} part contacts per frame",
        times[times.len() / 2],
        times.len(),
        contacts as f64 / frames.len().max(1) as f64,
    );
    Ok(())
}
