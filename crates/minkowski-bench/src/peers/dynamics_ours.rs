//! minkowski-dynamics as an [`Engine`]: the scene as `scenes::build` makes it, stepped
//! inside a rayon pool of the run's thread count, so that `threads = 1` is
//! single-threaded throughout. The world is built without a pool of its own (threads 0:
//! it runs on the pool it is called from): a world pool of T threads inside this one made
//! 2T threads on T cores, and a sleeping 210-box pyramid cost 3.6 ms a step at T = 2
//! against 0.13 ms in `minkowski sim --threads 2`.

use super::dynamics::{pose_array, Engine};
use super::PoseArray;
use minkowski::Real;
use minkowski_dynamics::scenes::{self, Scene};

/// minkowski-dynamics on one scene.
#[derive(Debug)]
pub struct Ours {
    scene: Scene,
    pool: rayon::ThreadPool,
    threads: usize,
}

impl Ours {
    /// Scene `name` with `threads` threads (≥ 1).
    ///
    /// # Errors
    /// A message for an unknown scene or a pool that cannot be made.
    pub fn new(name: &str, threads: usize) -> Result<Ours, String> {
        let threads = threads.max(1);
        let scene = scenes::build(name, 0).map_err(|e| e.to_string())?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Ours {
            scene,
            pool,
            threads,
        })
    }

    /// The scene (for [`super::dynamics::describe`]).
    pub fn scene(&self) -> &Scene {
        &self.scene
    }
}

impl Engine for Ours {
    fn name(&self) -> &'static str {
        "minkowski"
    }
    fn threads(&self) -> usize {
        self.threads
    }
    fn step(&mut self) -> Result<(), String> {
        let scene = &mut self.scene;
        self.pool.install(|| {
            scene.before_step();
            scene
                .world
                .step(scene.dt)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
    }
    fn poses(&self) -> Vec<PoseArray> {
        self.scene
            .world
            .bodies()
            .iter()
            .map(|b| {
                b.collider_pose()
                    .map(|p| pose_array(&p))
                    .unwrap_or([Real::NAN; 7])
            })
            .collect()
    }
    fn centers(&self) -> Vec<[Real; 3]> {
        self.scene
            .world
            .bodies()
            .iter()
            .map(|b| b.position().to_array())
            .collect()
    }
    fn masses(&self) -> Vec<Real> {
        self.scene.world.bodies().iter().map(|b| b.mass()).collect()
    }
    fn awake(&self) -> usize {
        self.scene
            .world
            .bodies()
            .iter()
            .filter(|b| b.is_dynamic() && !b.is_asleep())
            .count()
    }
}
