//! rapier3d (crates.io, f32, `parallel`) as an [`Engine`], built from a [`SceneSpec`].
//!
//! Step budget: minkowski's soft step has `substeps` substeps of one biased solve and
//! `relax_iterations` relax iterations; rapier's TGS-soft has the same structure, so it
//! gets `num_solver_iterations = substeps`, `num_internal_pgs_iterations = 1` and
//! `num_internal_stabilization_iterations = relax_iterations` (4, 1, 2 for every scene
//! here). Everything else is rapier's default (contact softness, 2 cm prediction
//! distance as minkowski's speculative distance). Continuous collision is on for the
//! dynamic bodies (`ccd_enabled`), as minkowski's CCD of fast bodies is on. Sleeping: each body's `normalized_linear_threshold` and
//! `angular_threshold` are minkowski's sleep speeds and `time_until_sleep` its sleep
//! time (rapier folds the angular speed into the speed of the body's farthest point).
//! Coefficients: `GeometricMean` friction and `Max` restitution, as minkowski. Threads:
//! the pipeline runs in a rayon pool of the run's thread count (`set_thread_pool`).

use super::dynamics::{BodySpec, Engine, PartShape, SceneSpec};
use super::PoseArray;
use minkowski_dynamics::BodyKind;
use rapier3d::prelude::{
    CoefficientCombineRule, ColliderBuilder, PhysicsWorld, Pose, RigidBodyBuilder, RigidBodyHandle,
    Rotation, SharedShape, Vector,
};
use std::sync::Arc;

/// rapier3d on one scene.
pub struct Rapier {
    world: PhysicsWorld,
    handles: Vec<RigidBodyHandle>,
    threads: usize,
}

fn v(a: [f32; 3]) -> Vector {
    Vector::new(a[0], a[1], a[2])
}

fn pose(p: &PoseArray) -> Pose {
    Pose::from_parts(
        Vector::new(p[0], p[1], p[2]),
        Rotation::from_xyzw(p[3], p[4], p[5], p[6]),
    )
}

fn shape(s: PartShape) -> SharedShape {
    match s {
        PartShape::Sphere(r) => SharedShape::ball(r),
        PartShape::Box(h) => SharedShape::cuboid(h[0], h[1], h[2]),
        PartShape::Capsule(h, r) => SharedShape::capsule_y(h, r),
    }
}

fn collider_of(b: &BodySpec) -> ColliderBuilder {
    let s = if b.compound {
        SharedShape::compound(
            b.parts
                .iter()
                .map(|p| (pose(&p.pose), shape(p.shape)))
                .collect(),
        )
    } else {
        shape(b.parts[0].shape)
    };
    let mut c = ColliderBuilder::new(s)
        .friction(b.friction)
        .friction_combine_rule(CoefficientCombineRule::GeometricMean)
        .restitution(b.restitution)
        .restitution_combine_rule(CoefficientCombineRule::Max);
    if b.kind == BodyKind::Dynamic {
        c = c.mass(b.mass);
    }
    c
}

impl Rapier {
    /// The scene in a rapier world stepping on `threads` threads (≥ 1).
    ///
    /// # Errors
    /// A message when the thread pool cannot be made.
    pub fn new(spec: &SceneSpec, threads: usize) -> Result<Rapier, String> {
        let threads = threads.max(1);
        let st = &spec.step;
        let mut world = PhysicsWorld::new();
        world.gravity = v(st.gravity);
        let ip = &mut world.integration_parameters;
        ip.dt = st.dt;
        ip.num_solver_iterations = st.substeps as usize;
        ip.num_internal_pgs_iterations = 1;
        ip.num_internal_stabilization_iterations = st.relax_iterations as usize;
        let pool = rapier3d::rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| e.to_string())?;
        world.physics_pipeline.set_thread_pool(Some(Arc::new(pool)));
        for p in &spec.planes {
            let n = v(p.normal);
            world.insert(
                RigidBodyBuilder::fixed(),
                ColliderBuilder::new(SharedShape::halfspace(n))
                    .translation(n * p.offset)
                    .friction(p.friction)
                    .friction_combine_rule(CoefficientCombineRule::GeometricMean)
                    .restitution(p.restitution)
                    .restitution_combine_rule(CoefficientCombineRule::Max),
            );
        }
        let mut handles = Vec::with_capacity(spec.bodies.len());
        for b in &spec.bodies {
            let rb = match b.kind {
                BodyKind::Dynamic => RigidBodyBuilder::dynamic(),
                BodyKind::Kinematic => RigidBodyBuilder::kinematic_velocity_based(),
                BodyKind::Static => RigidBodyBuilder::fixed(),
            }
            .pose(pose(&b.pose))
            .linvel(v(b.linear_velocity))
            .angvel(v(b.angular_velocity))
            .can_sleep(st.enable_sleep)
            .ccd_enabled(b.kind == BodyKind::Dynamic);
            let (h, _) = world.insert(rb, collider_of(b));
            if st.enable_sleep {
                let act = world.bodies[h].activation_mut();
                act.normalized_linear_threshold = st.sleep_linear;
                act.angular_threshold = st.sleep_angular;
                act.time_until_sleep = st.time_to_sleep;
            }
            handles.push(h);
        }
        Ok(Rapier {
            world,
            handles,
            threads,
        })
    }
}

impl Engine for Rapier {
    fn name(&self) -> &'static str {
        "rapier3d"
    }
    fn threads(&self) -> usize {
        self.threads
    }
    fn step(&mut self) -> Result<(), String> {
        self.world.step();
        Ok(())
    }
    fn poses(&self) -> Vec<PoseArray> {
        self.handles
            .iter()
            .map(|&h| {
                let p = self.world.bodies[h].position();
                let (t, q) = (p.translation, p.rotation);
                [t.x, t.y, t.z, q.x, q.y, q.z, q.w]
            })
            .collect()
    }
    fn centers(&self) -> Vec<[f32; 3]> {
        self.handles
            .iter()
            .map(|&h| {
                let c = self.world.bodies[h].center_of_mass();
                [c.x, c.y, c.z]
            })
            .collect()
    }
    fn masses(&self) -> Vec<f32> {
        self.handles
            .iter()
            .map(|&h| {
                let b = &self.world.bodies[h];
                if b.is_dynamic() {
                    b.mass()
                } else {
                    0.0
                }
            })
            .collect()
    }
    fn awake(&self) -> usize {
        self.handles
            .iter()
            .filter(|&&h| {
                let b = &self.world.bodies[h];
                b.is_dynamic() && !b.is_sleeping()
            })
            .count()
    }
}
