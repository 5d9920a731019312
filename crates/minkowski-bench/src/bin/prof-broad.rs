//! Profiling aid: one of minkowski's broad phases alone on `minkowski scene`'s motion
//! (for `perf record`), with the frame split into moving the boxes and the pair search.
//!
//! ```text
//! prof-broad [OBJECTS] [FRAMES] [grid|sap|tree] [CELL_FACTOR] [THREADS]
//! ```
//! Defaults: 100000 objects, 30 frames, the grid with cells of CELL_FACTOR (2, as in
//! `minkowski scene`) times the mean box side, one thread (with THREADS > 1 the pair
//! search runs in a pool of that many, the grid free to split it). Prints the median and
//! least milliseconds of each part.

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use minkowski::broadphase::{BroadPhase, DynamicTree, Grid, SweepAndPrune};
use minkowski::scene::{Scene, SceneLayout};
use minkowski::world::object_box;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let frames: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(30);
    let method = args.get(2).map_or("grid", String::as_str);
    let threads: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(1);
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("prof-broad: no pool of {threads} threads: {e}");
            std::process::exit(1);
        }
    };
    let mut scene = match Scene::new(SceneLayout::Random { objects: n }, 1) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("prof-broad: {e}");
            std::process::exit(1);
        }
    };
    let mut bp: Box<dyn BroadPhase + Send> = match method {
        "sap" => Box::new(SweepAndPrune::new()),
        "tree" => Box::new(DynamicTree::new(0.5, 0.0)),
        _ => {
            let f: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(2.0);
            let mut g = Grid::new((f * scene.mean_side) as minkowski::Real);
            g.set_parallel(threads > 1);
            Box::new(g)
        }
    };
    let (mut moves, mut searches) = (Vec::new(), Vec::new());
    let mut out = Vec::new();
    let mut pairs = 0;
    for frame in 0..=frames {
        if frame > 0 {
            scene.step();
        }
        let boxes: Vec<_> = scene
            .objects
            .iter()
            .enumerate()
            .map(|(i, o)| object_box(&scene.shape(i).local_aabb(), &o.pose, 0.0))
            .collect();
        let t0 = Instant::now();
        for (i, b) in boxes.into_iter().enumerate() {
            let Ok(b) = b else { continue };
            let _ = if frame == 0 {
                bp.insert(i as u32, b)
            } else {
                bp.update(i as u32, b)
            };
        }
        let t1 = Instant::now();
        if threads > 1 {
            pool.install(|| bp.overlapping_pairs(&mut out));
        } else {
            // A pool of one would add a hand-over to another thread to every frame.
            bp.overlapping_pairs(&mut out);
        }
        let t2 = Instant::now();
        if frame > 0 {
            moves.push((t1 - t0).as_secs_f64() * 1e3);
            searches.push((t2 - t1).as_secs_f64() * 1e3);
            pairs += out.len();
        }
    }
    // Median and minimum: on a shared machine the minimum shows a change's own cost
    // best.
    let stats = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let median = v.get(v.len() / 2).copied().unwrap_or(f64::NAN);
        format!(
            "{median:.3} (min {:.3})",
            v.first().copied().unwrap_or(f64::NAN)
        )
    };
    println!(
        "{method} {n} objects, {threads} thread(s), {} pairs per frame, median ms of {frames} frames: move {}, pairs {}",
        pairs / frames.max(1),
        stats(moves),
        stats(searches)
    );
}
