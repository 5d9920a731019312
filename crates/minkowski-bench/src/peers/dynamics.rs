//! Rigid-body scenes side by side (issue 22): minkowski-dynamics, rapier3d and Bullet's
//! `btDiscreteDynamicsWorld` run the same scene, and one piece of code measures all
//! three.
//!
//! # The same scene
//!
//! A scene is built once by `minkowski_dynamics::scenes::build` and read back through
//! the world's public API into a [`SceneSpec`]: for each body its motion type, its
//! convex parts (spheres, boxes, capsules along +y; a compound's parts with their local
//! poses), its collider's world pose, its centre of mass, mass, velocities, friction and
//! restitution; for each piece of static geometry its plane. The peers build their
//! worlds from the spec alone (rapier3d in [`super::dynamics_rapier`], Bullet in
//! [`super::dynamics_bullet`]), so a scene that the spec cannot say (a heightfield)
//! is refused with a reason by [`describe`], not approximated.
//!
//! Pair coefficients: minkowski combines friction as the geometric mean `√(μ_A μ_B)` and
//! restitution as the larger. rapier3d is given the same rules
//! (`CoefficientCombineRule::GeometricMean` / `Max`); Bullet multiplies the two
//! coefficients, so each Bullet object gets `√μ` (the product is then the geometric mean)
//! and its restitution as is (every scene here has restitution 0, where the product and
//! the maximum agree).
//!
//! # The same measure
//!
//! [`run`] times only each engine's own step call; after every step it asks the engine
//! for its bodies' collider poses and hands them to [`Metric`], which is the same code
//! for all three: the deepest penetration from minkowski's exact `contact` queries
//! between every pair of colliders whose boxes overlap (at least one of them dynamic)
//! and between every dynamic collider and the static planes; the largest horizontal
//! (XZ) displacement of any dynamic body's centre of mass from its start, over the whole
//! run (stacking scenes only); and the first step after which every dynamic body sleeps
//! by the engine's own sleep state (reset when one wakes), as `minkowski sim` reports it.

use super::PoseArray;
use minkowski::bounding::Aabb;
use minkowski::query::compound::{self, Collider};
use minkowski::query::{static_dispatch, QueryOptions};
use minkowski::shape::{Shape, StaticShape};
use minkowski::{Pose, Real, Vector};
use minkowski_dynamics::scenes::Scene;
use minkowski_dynamics::BodyKind;
use std::time::Instant;

/// A convex part of a body in the shim's conventions (half extents; capsules along the
/// local +y axis, centred).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PartShape {
    /// Radius.
    Sphere(Real),
    /// Half extents.
    Box([Real; 3]),
    /// Half height of the segment, radius.
    Capsule(Real, Real),
}

/// One convex part and its pose in the body's collider frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    /// The shape.
    pub shape: PartShape,
    /// Its local pose (identity for a convex body).
    pub pose: PoseArray,
}

/// A body as every engine receives it (world frame, the scene's units).
#[derive(Debug, Clone, PartialEq)]
pub struct BodySpec {
    /// Dynamic, kinematic or static.
    pub kind: BodyKind,
    /// Its convex parts.
    pub parts: Vec<Part>,
    /// Whether the parts form a compound (else one part at the identity).
    pub compound: bool,
    /// The collider's world pose at the start.
    pub pose: PoseArray,
    /// The centre of mass at the start (world).
    pub center: [Real; 3],
    /// The centre of mass in the collider's frame.
    pub local_center: [Real; 3],
    /// The mass (0 unless dynamic).
    pub mass: Real,
    /// Linear velocity of the centre of mass (length/s, world).
    pub linear_velocity: [Real; 3],
    /// Angular velocity (rad/s, world).
    pub angular_velocity: [Real; 3],
    /// Friction coefficient (pairs: geometric mean).
    pub friction: Real,
    /// Restitution (pairs: the larger).
    pub restitution: Real,
}

/// Static geometry: the half-space `{x : normal · x ≤ offset}` (world).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlaneSpec {
    /// Outward unit normal.
    pub normal: [Real; 3],
    /// Offset along the normal.
    pub offset: Real,
    /// Friction coefficient.
    pub friction: Real,
    /// Restitution.
    pub restitution: Real,
}

/// The step parameters every engine is given (as close as each allows; see the peers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepSpec {
    /// Time step (s).
    pub dt: Real,
    /// Gravity (length/s², world).
    pub gravity: [Real; 3],
    /// minkowski's substeps per step.
    pub substeps: u32,
    /// minkowski's relax iterations per substep (after one biased solve iteration).
    pub relax_iterations: u32,
    /// Linear speed below which a body counts as still (length/s).
    pub sleep_linear: Real,
    /// Angular speed below which a body counts as still (rad/s).
    pub sleep_angular: Real,
    /// Seconds a body (island) must stay still to sleep.
    pub time_to_sleep: Real,
    /// Whether sleeping is on.
    pub enable_sleep: bool,
}

impl StepSpec {
    /// Velocity iterations per step of minkowski's soft step: per substep one biased
    /// solve and the relax iterations. Bullet gets this many `numIterations` in its one
    /// step.
    pub fn velocity_iterations(&self) -> u32 {
        self.substeps * (1 + self.relax_iterations)
    }
}

/// A scene as every engine receives it.
#[derive(Debug, Clone)]
pub struct SceneSpec {
    /// The scene's name.
    pub name: &'static str,
    /// Whether the drift figure applies.
    pub stacking: bool,
    /// The step parameters.
    pub step: StepSpec,
    /// The bodies, in minkowski's order (every engine keeps it).
    pub bodies: Vec<BodySpec>,
    /// The static planes.
    pub planes: Vec<PlaneSpec>,
    /// minkowski's colliders of the bodies, for the metric.
    pub colliders: Vec<Collider>,
    /// minkowski's static geometry, for the metric.
    pub statics: Vec<(StaticShape, Pose)>,
}

impl SceneSpec {
    /// Dynamic bodies.
    pub fn dynamic_count(&self) -> usize {
        self.bodies
            .iter()
            .filter(|b| b.kind == BodyKind::Dynamic)
            .count()
    }
    /// The total mass of the dynamic bodies.
    pub fn total_mass(&self) -> f64 {
        self.bodies.iter().map(|b| b.mass as f64).sum()
    }
}

/// The pose as a [`PoseArray`] (translation, quaternion x y z w).
pub fn pose_array(p: &Pose) -> PoseArray {
    let t = p.translation();
    let q = p.rotation();
    [t.x, t.y, t.z, q.x, q.y, q.z, q.w]
}

fn part_shape(s: &Shape) -> Result<PartShape, String> {
    match s {
        Shape::Sphere(b) => Ok(PartShape::Sphere(b.radius())),
        Shape::Cuboid(c) => Ok(PartShape::Box(c.half_extents().to_array())),
        Shape::Capsule(c) => Ok(PartShape::Capsule(c.half_height(), c.radius())),
        other => Err(format!(
            "shape '{}' is not in the peers' common set (sphere, box, capsule)",
            other.type_name()
        )),
    }
}

/// The spec of a scene as built by `minkowski_dynamics::scenes::build` (before any
/// step).
///
/// # Errors
/// A message naming what the peers cannot be given the same way: static geometry that
/// is not a half-space (the terrain's heightfield), a shape outside sphere / box /
/// capsule, or a scripted body (moved by [`Scene::before_step`]).
pub fn describe(scene: &Scene) -> Result<SceneSpec, String> {
    if scene.scripted.is_some() {
        return Err("a scripted body (velocity set before each step)".into());
    }
    let w = &scene.world;
    let mut bodies = Vec::new();
    let mut colliders = Vec::new();
    for b in w.bodies() {
        let pose = b.collider_pose().map_err(|e| e.to_string())?;
        let (parts, compound) = match b.collider() {
            Collider::Convex(s) => (
                vec![Part {
                    shape: part_shape(s)?,
                    pose: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
                }],
                false,
            ),
            Collider::Compound(c) => (
                c.parts()
                    .iter()
                    .map(|(p, s)| {
                        Ok(Part {
                            shape: part_shape(s)?,
                            pose: pose_array(p),
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?,
                true,
            ),
        };
        bodies.push(BodySpec {
            kind: b.kind(),
            parts,
            compound,
            pose: pose_array(&pose),
            center: b.position().to_array(),
            local_center: b.local_center().to_array(),
            mass: b.mass(),
            linear_velocity: b.linear_velocity().to_array(),
            angular_velocity: b.angular_velocity().to_array(),
            friction: b.friction(),
            restitution: b.restitution(),
        });
        colliders.push(b.collider().clone());
    }
    let mut planes = Vec::new();
    let mut statics = Vec::new();
    for g in w.statics() {
        let StaticShape::HalfSpace(h) = &g.shape else {
            return Err(
                "static geometry other than a half-space (a heightfield or mesh, \
                        whose triangulation each engine would lay out its own way)"
                    .into(),
            );
        };
        // The plane in world: n_w = R n, offset_w = offset + n_w · t.
        let n = g.pose.rotation() * h.normal();
        let offset = h.offset() + n.dot(g.pose.translation());
        planes.push(PlaneSpec {
            normal: n.to_array(),
            offset,
            friction: g.friction,
            restitution: g.restitution,
        });
        statics.push((g.shape.clone(), g.pose));
    }
    let s = w.settings;
    Ok(SceneSpec {
        name: scene.name,
        stacking: scene.stacking,
        step: StepSpec {
            dt: scene.dt,
            gravity: s.gravity.to_array(),
            substeps: s.solver.substeps,
            relax_iterations: s.solver.relax_iterations,
            sleep_linear: s.sleep_linear_velocity,
            sleep_angular: s.sleep_angular_velocity,
            time_to_sleep: s.time_to_sleep,
            enable_sleep: s.enable_sleep,
        },
        bodies,
        planes,
        colliders,
        statics,
    })
}

/// A physics engine loaded with a scene.
pub trait Engine {
    /// Name in the table.
    fn name(&self) -> &'static str;
    /// Threads it steps with.
    fn threads(&self) -> usize;
    /// One step of the scene's `dt` (the timed call).
    ///
    /// # Errors
    /// A message when the engine reports a failure.
    fn step(&mut self) -> Result<(), String>;
    /// The bodies' collider poses (world), in the spec's order.
    fn poses(&self) -> Vec<PoseArray>;
    /// The bodies' centres of mass (world), in the spec's order.
    fn centers(&self) -> Vec<[Real; 3]>;
    /// The bodies' masses as the engine holds them (0 unless dynamic), in the spec's
    /// order.
    fn masses(&self) -> Vec<Real>;
    /// Dynamic bodies awake now.
    fn awake(&self) -> usize;
}

/// The measures of [`run`] common to all engines (module notes).
#[derive(Debug)]
pub struct Metric {
    colliders: Vec<Collider>,
    local_boxes: Vec<Aabb>,
    dynamic: Vec<bool>,
    statics: Vec<(StaticShape, Pose)>,
    options: QueryOptions,
}

impl Metric {
    /// The metric of a scene.
    pub fn new(spec: &SceneSpec) -> Metric {
        Metric {
            local_boxes: spec.colliders.iter().map(|c| c.local_aabb()).collect(),
            colliders: spec.colliders.clone(),
            dynamic: spec
                .bodies
                .iter()
                .map(|b| b.kind == BodyKind::Dynamic)
                .collect(),
            statics: spec.statics.clone(),
            options: QueryOptions::default(),
        }
    }

    /// The deepest penetration (length, ≥ 0) of the colliders at `poses`, by
    /// minkowski's exact contact queries; `None` when a pose is not valid (non-finite:
    /// the engine blew up).
    pub fn max_penetration(&self, poses: &[PoseArray]) -> Option<Real> {
        let poses: Vec<Pose> = poses
            .iter()
            .map(|p| {
                Pose::new(
                    minkowski::Rotation::from_xyzw(p[3], p[4], p[5], p[6]).normalize(),
                    Vector::new(p[0], p[1], p[2]),
                )
                .ok()
            })
            .collect::<Option<_>>()?;
        let boxes: Vec<Aabb> = self
            .local_boxes
            .iter()
            .zip(&poses)
            .map(|(b, p)| b.transformed(p))
            .collect();
        let mut deepest: Real = 0.0;
        for (i, j) in minkowski_dynamics::world::sweep_and_prune(&boxes) {
            if !(self.dynamic[i] || self.dynamic[j]) {
                continue;
            }
            let c = compound::contact(
                &self.colliders[i],
                &poses[i],
                &self.colliders[j],
                &poses[j],
                &self.options,
            );
            deepest = deepest.max(-c.answer.distance);
        }
        for (shape, pose) in &self.statics {
            let sbox = shape.local_aabb().map(|b| b.transformed(pose));
            for (i, c) in self.colliders.iter().enumerate() {
                if !self.dynamic[i] || sbox.is_some_and(|b| !b.intersects(&boxes[i])) {
                    continue;
                }
                let c = static_dispatch::contact(shape, pose, c, &poses[i], &self.options);
                deepest = deepest.max(-c.distance);
            }
        }
        Some(deepest)
    }
}

/// What one engine did on one scene.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    /// The engine's name.
    pub engine: &'static str,
    /// Threads.
    pub threads: usize,
    /// Steps run (fewer than asked when the engine failed).
    pub steps: usize,
    /// Median wall time of the engine's step call (ms).
    pub median_ms: f64,
    /// Mean wall time of the step call (ms).
    pub mean_ms: f64,
    /// Median wall time of the steps that began with a dynamic body awake (ms; 0 when
    /// none did): the cost of simulating, where the median over the whole run of a scene
    /// that falls asleep early is the cost of a sleeping world.
    pub median_awake_ms: f64,
    /// Deepest penetration over the run (length).
    pub max_penetration: Real,
    /// Largest horizontal displacement of a dynamic body over the run (stacking scenes).
    pub max_drift: Option<Real>,
    /// First step after which every dynamic body sleeps (and stays asleep).
    pub asleep_at: Option<usize>,
    /// Why the run stopped early, if it did.
    pub failure: Option<String>,
}

/// Runs `steps` steps of `engine` on `spec`, timing each step call and measuring after
/// it (module notes).
pub fn run(engine: &mut dyn Engine, spec: &SceneSpec, steps: usize) -> Figures {
    let metric = Metric::new(spec);
    let start: Vec<[Real; 3]> = spec.bodies.iter().map(|b| b.center).collect();
    let mut times = Vec::with_capacity(steps);
    let mut fig = Figures {
        engine: engine.name(),
        threads: engine.threads(),
        steps: 0,
        median_ms: 0.0,
        mean_ms: 0.0,
        median_awake_ms: 0.0,
        max_penetration: 0.0,
        max_drift: spec.stacking.then_some(0.0),
        asleep_at: None,
        failure: None,
    };
    let dynamic = spec.dynamic_count();
    let mut awake_times = Vec::with_capacity(steps);
    let mut awake_before = engine.awake() > 0;
    for k in 1..=steps {
        let t0 = Instant::now();
        let stepped = engine.step();
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        times.push(ms);
        if awake_before {
            awake_times.push(ms);
        }
        if let Err(e) = stepped {
            fig.failure = Some(format!("step {k}: {e}"));
            break;
        }
        fig.steps = k;
        let Some(pen) = metric.max_penetration(&engine.poses()) else {
            fig.failure = Some(format!("step {k}: a body's pose is not finite"));
            break;
        };
        fig.max_penetration = fig.max_penetration.max(pen);
        if let Some(d) = fig.max_drift.as_mut() {
            for ((c, s), b) in engine.centers().iter().zip(&start).zip(&spec.bodies) {
                if b.kind == BodyKind::Dynamic {
                    let (dx, dz) = (c[0] - s[0], c[2] - s[2]);
                    *d = d.max((dx * dx + dz * dz).sqrt());
                }
            }
        }
        let awake = engine.awake();
        awake_before = awake > 0;
        if dynamic > 0 && awake == 0 {
            fig.asleep_at.get_or_insert(k);
        } else {
            fig.asleep_at = None;
        }
    }
    let mut sorted = times.clone();
    sorted.sort_by(f64::total_cmp);
    fig.median_ms = median(&sorted);
    fig.mean_ms = times.iter().sum::<f64>() / times.len().max(1) as f64;
    awake_times.sort_by(f64::total_cmp);
    fig.median_awake_ms = median(&awake_times);
    fig
}

fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]),
    }
}

/// How far an engine's freshly built world is from the spec: `(body count matches,
/// |total mass − spec's| / spec's, largest distance of a centre of mass from the
/// spec's)`. The fairness check of the tests and of `dynamics-report` itself.
pub fn mirror_error(engine: &dyn Engine, spec: &SceneSpec) -> (bool, f64, f64) {
    let masses = engine.masses();
    let centers = engine.centers();
    let count = masses.len() == spec.bodies.len() && centers.len() == spec.bodies.len();
    let total: f64 = masses.iter().map(|&m| m as f64).sum();
    let want = spec.total_mass();
    let mass_err = (total - want).abs() / want.max(f64::MIN_POSITIVE);
    let pos_err = centers
        .iter()
        .zip(&spec.bodies)
        .map(|(c, b)| {
            (0..3)
                .map(|k| (c[k] as f64 - b.center[k] as f64).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .fold(0.0, f64::max);
    (count, mass_err, pos_err)
}

/// The engines of this build on scene `name` at `threads` threads, with the spec they
/// were built from: minkowski first, then rapier3d (feature `rapier`) and Bullet
/// (feature `bullet`; single-threaded, so only when `threads` is 1).
///
/// # Errors
/// A message for an unknown scene, or one the peers cannot be given ([`describe`]).
pub fn engines(name: &str, threads: usize) -> Result<(SceneSpec, Vec<Box<dyn Engine>>), String> {
    let ours = super::dynamics_ours::Ours::new(name, threads)?;
    let spec = describe(ours.scene())?;
    #[allow(unused_mut)]
    let mut all: Vec<Box<dyn Engine>> = vec![Box::new(ours)];
    #[cfg(feature = "rapier")]
    all.push(Box::new(super::dynamics_rapier::Rapier::new(
        &spec, threads,
    )?));
    #[cfg(feature = "bullet")]
    if threads <= 1 {
        all.push(Box::new(super::dynamics_bullet::Bullet::new(&spec)?));
    }
    Ok((spec, all))
}
