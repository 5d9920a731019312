//! Criterion benches for the collision world on `minkowski scene`'s motion (seed 1): one
//! frame = move every object (`World::set_poses`) and `update()`, for each broad phase
//! at 10^3 and 10^4 objects, touch-only and with full contacts, on rayon's default pool.
//!
//! `cargo bench -p minkowski-bench --bench world`. The 10^5 figures and the thread
//! counts come from `scripts/scene-report.sh` (see `docs/scene.md`); the broad phases
//! against Bullet's and parry's from `peer-report`.

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use minkowski::scene::{Scene, SceneLayout};
use minkowski::world::{BroadPhaseKind, ObjectHandle, World, WorldOptions};
use minkowski::{Pose, Real};
use std::time::Duration;

/// A world holding `scene`'s objects, with `kind` and full or touch-only contacts.
fn world_of(
    scene: &Scene,
    kind: BroadPhaseKind,
    contact_details: bool,
) -> (World, Vec<ObjectHandle>) {
    let options = WorldOptions {
        contact_details,
        ..Default::default()
    };
    let mut world = World::new(kind, options);
    let handles = scene
        .insert_into(&mut world)
        .unwrap_or_else(|(i, e)| panic!("scene object {i}: {e}"));
    world.update();
    (world, handles)
}

fn frames(c: &mut Criterion) {
    let mut g = c.benchmark_group("world-frame");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    for n in [1_000usize, 10_000] {
        for name in ["grid", "sap", "bvh"] {
            for details in [false, true] {
                let mut scene = match Scene::new(SceneLayout::Random { objects: n }, 1) {
                    Ok(s) => s,
                    Err(e) => panic!("scene: {e}"),
                };
                let kind = match name {
                    "grid" => BroadPhaseKind::Grid {
                        cell_size: (2.0 * scene.mean_side) as Real,
                    },
                    "sap" => BroadPhaseKind::SweepAndPrune,
                    _ => BroadPhaseKind::Tree { fat_factor: 0.5 },
                };
                let (mut world, handles) = world_of(&scene, kind, details);
                let mut moves: Vec<(ObjectHandle, Pose)> = Vec::with_capacity(n);
                let label = format!("{name}-{}", if details { "full" } else { "touch" });
                g.bench_function(BenchmarkId::new(label, n), |b| {
                    b.iter(|| {
                        scene.step();
                        scene.moves(&handles, &mut moves);
                        if let Err((i, e)) = world.set_poses(&moves) {
                            panic!("move {i}: {e}");
                        }
                        world.update();
                        world.contacts().len()
                    })
                });
            }
        }
    }
}

criterion_group!(benches, frames);
criterion_main!(benches);
