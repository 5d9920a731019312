//! The physics world: bodies, static geometry and the step pipeline.
//!
//! One [`World::step`] of `dt` seconds:
//!
//! 1. **Broad phase**: every body's world box, grown by the speculative distance and by
//!    how far it can move in `dt`; sweep and prune along X (indices sorted by the boxes'
//!    lower X, ties by index: deterministic). Boxes of static geometry (half-spaces have
//!    none and meet everything) are tested against each awake dynamic body.
//! 2. **Waking**: a sleeping body whose box meets an awake dynamic body or a moving
//!    kinematic body wakes with its whole island.
//! 3. **Narrow phase** ([`crate::contact_manifold`]), in parallel on rayon's pool with
//!    the `parallel` feature (the results keep the pairs' order, so the step is the same
//!    for any thread count): manifolds within the pair's speculative margin
//!    `d_spec + dt·(|v_A − v_B| + |ω_A| ρ_A + |ω_B| ρ_B)` (ρ the bounding radius).
//! 4. **Constraints**, warm-started from the [`ContactCache`] by feature id.
//! 5. **Solver**: the soft step ([`crate::solver`]).
//! 6. **Continuous collision** for fast bodies against static geometry: a body that
//!    moved more than [`WorldSettings::ccd_fraction`] of its bounding radius is cast
//!    linearly over its move; if the cast hits, the body is put back at the time of
//!    impact (less the slop) and its velocity into the surface removed.
//! 7. **Sleeping** ([`crate::island`]): islands whose every body has been slower than
//!    the sleep velocities for [`WorldSettings::time_to_sleep`] fall asleep.
//! 8. **State hash** ([`crate::hash`]).

use crate::body::{Body, BodyDesc, BodyError, BodyKind};
use crate::box_box_manifold::box_box_manifold;
use crate::contact_cache::{match_point, CachedPoint, ContactCache, STATIC_BASE};
use crate::contact_manifold::{body_pair, static_pair, PairManifold};
use crate::hash::state_hash;
use crate::island::islands;
use crate::persistent_manifold::{PairManifolds, StoredPair, WorldManifold};
use crate::solver::{
    self, tangent_basis, ConstraintPoint, ContactConstraint, Softness, SolverBody, SolverSettings,
};
use minkowski::bounding::Aabb;
use minkowski::math::Matrix3;
use minkowski::query::compound::Collider;
use minkowski::query::{manifold, static_dispatch, Motion, QueryOptions};
use minkowski::shape::{Shape, StaticShape};
use minkowski::{Pose, Real, Rotation, Vector};

/// The world's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldSettings {
    /// Gravity (length/s², world).
    pub gravity: Vector,
    /// The solver's parameters.
    pub solver: SolverSettings,
    /// The penetration the solver tolerates and reports against (length; Box2D's 5 mm).
    pub linear_slop: Real,
    /// How far apart contacts are still created (length; 4 slops, as Box2D).
    pub speculative_distance: Real,
    /// Linear speed (length/s) below which a body counts as still.
    pub sleep_linear_velocity: Real,
    /// Angular speed (rad/s) below which a body counts as still.
    pub sleep_angular_velocity: Real,
    /// Seconds an island must stay still to fall asleep.
    pub time_to_sleep: Real,
    /// Whether islands fall asleep.
    pub enable_sleep: bool,
    /// Whether fast bodies are cast against static geometry (step 6).
    pub enable_ccd: bool,
    /// A body is fast when it moves more than this fraction of its bounding radius in a
    /// step.
    pub ccd_fraction: Real,
    /// A pair whose relative pose moved less than this (length: translation plus angle
    /// times the points' reach) since its manifolds were computed reuses them, moved with
    /// the bodies ([`crate::persistent_manifold`]); 0 (the default) computes every pair
    /// every step. Off by default because, measured, the 100-row pyramid with 5e-4 never
    /// fell asleep and toppled by step 1000, while with every pair computed it slept at
    /// step 475 (the refresh's small jumps when a pair is computed again keep it moving).
    pub manifold_reuse_tolerance: Real,
    /// Threads of the narrow phase's pool (0: rayon's global pool). The state hash does
    /// not depend on it.
    pub threads: usize,
    /// Answer box–box pairs by the closed form ([`crate::box_box_manifold`]) instead of
    /// the library's general manifold. Off by default. Measured on the 100-row pyramid
    /// it cuts the narrow phase about 4.5× (95 → 20 ms/step under the same load); with
    /// its points deepest first (see [`crate::box_box_manifold`], "The order of the
    /// points") that pile falls asleep at step 474 (the general manifold: 475), where in
    /// the clip's fixed order it never did and came apart after step 800. But the pile is
    /// marginal with it: a change of the solver's rounding alone (an equivalent
    /// rearrangement of its arithmetic) left it awake and leaning out of its plane until
    /// it came apart, while the general manifold still fell asleep at step 476.
    pub box_box_closed_form: bool,
}

impl Default for WorldSettings {
    fn default() -> Self {
        WorldSettings {
            gravity: Vector::new(0.0, -9.81, 0.0),
            solver: SolverSettings::default(),
            linear_slop: 0.005,
            speculative_distance: 0.02,
            sleep_linear_velocity: 0.05,
            sleep_angular_velocity: 0.05,
            time_to_sleep: 0.5,
            enable_sleep: true,
            enable_ccd: true,
            ccd_fraction: 0.5,
            manifold_reuse_tolerance: 0.0,
            threads: 0,
            box_box_closed_form: false,
        }
    }
}

/// Static geometry: a half-space, heightfield or triangle mesh that never moves.
#[derive(Debug, Clone)]
pub struct StaticGeometry {
    /// The shape.
    pub shape: StaticShape,
    /// Its world pose.
    pub pose: Pose,
    /// Friction coefficient (≥ 0).
    pub friction: Real,
    /// Restitution in `[0, 1]`.
    pub restitution: Real,
    aabb: Option<Aabb>,
}

/// A point whose friction impulse stays below this fraction of the Coulomb limit counts
/// as sticking and keeps its friction anchors ([`crate::solver`], "Friction anchors").
const ANCHOR_STICK_FRACTION: Real = 0.95;

/// A handle to a body: its index in insertion order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyId(pub u32);

/// Why a step or an insertion failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorldError {
    /// The time step is not finite and positive.
    #[error("time step must be finite and > 0, got {0}")]
    InvalidTimeStep(Real),
    /// A body's pose left the valid range (non-finite or too large position).
    #[error("body {0} left the valid range of poses")]
    BodyOutOfRange(u32),
    /// A body could not be made.
    #[error("body: {0}")]
    Body(#[from] BodyError),
    /// Friction or restitution of static geometry out of range.
    #[error("static geometry {field} out of range: {value}")]
    InvalidStatic {
        /// The field.
        field: &'static str,
        /// Its value.
        value: Real,
    },
}

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StepStats {
    /// The step's index (1 for the first).
    pub step: u64,
    /// The state hash after the step.
    pub hash: u64,
    /// Contact manifolds solved.
    pub manifolds: usize,
    /// Contact points solved.
    pub points: usize,
    /// Points found again from the previous step (warm-started).
    pub warm_started: usize,
    /// Pairs whose manifolds were refreshed from the previous query rather than
    /// computed ([`crate::persistent_manifold`]).
    pub pairs_reused: usize,
    /// The deepest penetration found by this step's narrow phase (length, ≥ 0).
    pub max_penetration: Real,
    /// Dynamic bodies awake after the step.
    pub awake: usize,
    /// Bodies moved back by continuous collision.
    pub ccd_hits: usize,
    /// Wall-clock time of each phase of the step.
    pub times: PhaseTimes,
}

/// Wall-clock milliseconds spent in each phase of one [`World::step`] (module notes'
/// numbering), for profiling; they do not enter the state or its hash.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PhaseTimes {
    /// Poses, boxes, sweep and prune, waking and pair selection (steps 1–2).
    pub broad_ms: f64,
    /// Contact manifolds of every pair (step 3).
    pub narrow_ms: f64,
    /// Solver bodies, constraints and their warm-start impulses from the cache (step 4).
    pub constraints_ms: f64,
    /// The soft step (step 5).
    pub solver_ms: f64,
    /// Write-back, contact cache, continuous collision, sleeping and the hash (6–8).
    pub finish_ms: f64,
}

/// The physics world (module notes).
#[derive(Debug)]
pub struct World {
    /// The parameters (may be changed between steps).
    pub settings: WorldSettings,
    bodies: Vec<Body>,
    statics: Vec<StaticGeometry>,
    cache: ContactCache,
    /// The stored manifolds of last step's pairs, sorted by key (persistent manifolds).
    stored: Vec<Option<StoredPair>>,
    stored_keys: Vec<(u32, u32)>,
    /// The narrow phase's answers, one per pair, kept between steps so that their
    /// room is reused (cleared after use).
    answers: Vec<(PairManifolds, Answer)>,
    steps: u64,
    #[cfg(feature = "parallel")]
    pool: Option<rayon::ThreadPool>,
}

/// How a pair's manifolds were obtained.
#[derive(Debug)]
enum Answer {
    /// Refreshed from the stored entry at this index.
    Reused(usize),
    /// Computed; to be stored.
    Fresh(StoredPair),
    /// Computed; reuse is off.
    Unstored,
}

/// A pair of the narrow phase: two bodies, or a body (`b`) and static geometry (`a`,
/// `STATIC_BASE + k`).
#[derive(Debug, Clone, Copy)]
struct Pair {
    a: u32,
    b: u32,
    margin: Real,
}

impl World {
    /// An empty world. With the `parallel` feature and `settings.threads > 0`, the narrow
    /// phase gets a pool of that many threads (falling back to rayon's global pool if
    /// the pool cannot be made).
    pub fn new(settings: WorldSettings) -> World {
        World {
            settings,
            bodies: Vec::new(),
            statics: Vec::new(),
            cache: ContactCache::new(),
            stored: Vec::new(),
            stored_keys: Vec::new(),
            answers: Vec::new(),
            steps: 0,
            #[cfg(feature = "parallel")]
            pool: (settings.threads > 0)
                .then(|| {
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(settings.threads)
                        .build()
                        .ok()
                })
                .flatten(),
        }
    }

    /// Adds a body.
    ///
    /// # Errors
    /// [`WorldError::Body`] as [`Body::new`].
    pub fn add_body(&mut self, desc: BodyDesc) -> Result<BodyId, WorldError> {
        let body = Body::new(desc)?;
        self.bodies.push(body);
        Ok(BodyId(self.bodies.len() as u32 - 1))
    }

    /// Adds static geometry.
    ///
    /// # Errors
    /// [`WorldError::InvalidStatic`] for a negative or non-finite friction or a
    /// restitution outside `[0, 1]`.
    pub fn add_static(
        &mut self,
        shape: StaticShape,
        pose: Pose,
        friction: Real,
        restitution: Real,
    ) -> Result<usize, WorldError> {
        if !(friction.is_finite() && friction >= 0.0) {
            return Err(WorldError::InvalidStatic {
                field: "friction",
                value: friction,
            });
        }
        if !(0.0..=1.0).contains(&restitution) {
            return Err(WorldError::InvalidStatic {
                field: "restitution",
                value: restitution,
            });
        }
        let aabb = shape.local_aabb().map(|b| b.transformed(&pose));
        self.statics.push(StaticGeometry {
            shape,
            pose,
            friction,
            restitution,
            aabb,
        });
        Ok(self.statics.len() - 1)
    }

    /// The bodies, in insertion order.
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }
    /// A body.
    pub fn body(&self, id: BodyId) -> Option<&Body> {
        self.bodies.get(id.0 as usize)
    }
    /// A body, mutably (to set velocities or poses).
    pub fn body_mut(&mut self, id: BodyId) -> Option<&mut Body> {
        self.bodies.get_mut(id.0 as usize)
    }
    /// The static geometry.
    pub fn statics(&self) -> &[StaticGeometry] {
        &self.statics
    }
    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }
    /// The state hash of the bodies now ([`crate::hash::state_hash`]).
    pub fn state_hash(&self) -> u64 {
        state_hash(&self.bodies)
    }

    /// Advances the world by `dt` seconds (module notes).
    ///
    /// # Errors
    /// [`WorldError::InvalidTimeStep`] for a `dt` that is not finite and positive;
    /// [`WorldError::BodyOutOfRange`] when a body's pose is no longer valid (the world is
    /// left as it was before the step).
    pub fn step(&mut self, dt: Real) -> Result<StepStats, WorldError> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(WorldError::InvalidTimeStep(dt));
        }
        let n = self.bodies.len();
        let s = self.settings;
        let mut clock = Clock::start();
        let mut times = PhaseTimes::default();
        // 1. Poses and boxes.
        let mut poses = Vec::with_capacity(n);
        let mut boxes = Vec::with_capacity(n);
        let mut radius = Vec::with_capacity(n);
        for (i, b) in self.bodies.iter().enumerate() {
            let pose = b
                .collider_pose()
                .map_err(|_| WorldError::BodyOutOfRange(i as u32))?;
            let local = b.collider.local_aabb();
            let r = local.origin_radius() + b.local_center.length();
            let grow = if b.kind == BodyKind::Static || b.asleep {
                s.speculative_distance
            } else {
                s.speculative_distance
                    + dt * (b.linear_velocity.length() + b.angular_velocity.length() * r)
            };
            boxes.push(local.transformed(&pose).loosened(grow));
            poses.push(pose);
            radius.push(r);
        }
        let active = |b: &Body| b.kind == BodyKind::Dynamic && !b.asleep;
        let moving = |b: &Body| {
            b.kind == BodyKind::Kinematic
                && (b.linear_velocity != Vector::ZERO || b.angular_velocity != Vector::ZERO)
        };
        let candidates = sweep_and_prune(&boxes);
        // 2. Waking: a sleeping island touched by an awake or moving body wakes.
        let mut wake: Vec<usize> = Vec::new();
        for &(i, j) in &candidates {
            let (bi, bj) = (&self.bodies[i], &self.bodies[j]);
            if bi.asleep && (active(bj) || moving(bj)) {
                wake.push(i);
            }
            if bj.asleep && (active(bi) || moving(bi)) {
                wake.push(j);
            }
        }
        if !wake.is_empty() {
            self.wake_islands(&wake, &candidates);
        }
        // 3. Pairs.
        let mut pairs: Vec<Pair> = Vec::new();
        for &(i, j) in &candidates {
            let (bi, bj) = (&self.bodies[i], &self.bodies[j]);
            if !(active(bi) || active(bj)) {
                continue;
            }
            if !(bi.kind == BodyKind::Dynamic || bj.kind == BodyKind::Dynamic) {
                continue;
            }
            let rel = (bi.linear_velocity - bj.linear_velocity).length()
                + bi.angular_velocity.length() * radius[i]
                + bj.angular_velocity.length() * radius[j];
            pairs.push(Pair {
                a: i as u32,
                b: j as u32,
                margin: s.speculative_distance + dt * rel,
            });
        }
        for (i, b) in self.bodies.iter().enumerate() {
            if !active(b) {
                continue;
            }
            for (k, g) in self.statics.iter().enumerate() {
                if g.aabb.is_none_or(|a| a.intersects(&boxes[i])) {
                    let rel = b.linear_velocity.length() + b.angular_velocity.length() * radius[i];
                    pairs.push(Pair {
                        a: STATIC_BASE + k as u32,
                        b: i as u32,
                        margin: s.speculative_distance + dt * rel,
                    });
                }
            }
        }
        times.broad_ms = clock.lap();
        // Narrow phase.
        let mut stats = StepStats::default();
        let mut answers = self.narrow_phase(&pairs, &poses, &mut stats);
        times.narrow_ms = clock.lap();
        // 4. Solver bodies and constraints.
        let ground = n;
        let mut sbodies: Vec<SolverBody> = self
            .bodies
            .iter()
            .map(|b| {
                let dynamic = active(b);
                let moves = dynamic || b.kind == BodyKind::Kinematic;
                let r = Matrix3::from_quat(b.rotation);
                SolverBody {
                    v: if moves {
                        b.linear_velocity
                    } else {
                        Vector::ZERO
                    },
                    w: if moves {
                        b.angular_velocity
                    } else {
                        Vector::ZERO
                    },
                    dp: Vector::ZERO,
                    q: b.rotation,
                    inv_mass: if dynamic { b.inv_mass } else { 0.0 },
                    inv_i: if dynamic {
                        r * b.inv_inertia_local * r.transpose()
                    } else {
                        Matrix3::ZERO
                    },
                    inertia_local: b.inertia_local,
                    dynamic,
                    moves,
                }
            })
            .collect();
        sbodies.push(SolverBody::FIXED);
        let mut constraints: Vec<ContactConstraint> = Vec::with_capacity(pairs.len());
        for (pair, (ms, _)) in pairs.iter().zip(&answers) {
            let (ia, friction_a, rest_a) = if pair.a >= STATIC_BASE {
                let g = &self.statics[(pair.a - STATIC_BASE) as usize];
                (ground, g.friction, g.restitution)
            } else {
                let b = &self.bodies[pair.a as usize];
                (pair.a as usize, b.friction, b.restitution)
            };
            let bb = &self.bodies[pair.b as usize];
            let ib = pair.b as usize;
            let friction = (friction_a * bb.friction).sqrt();
            let restitution = rest_a.max(bb.restitution);
            let center_a = if ia == ground {
                Vector::ZERO
            } else {
                self.bodies[ia].position
            };
            let center_b = bb.position;
            let rot_a = if ia == ground {
                Rotation::IDENTITY
            } else {
                self.bodies[ia].rotation
            };
            for pm in ms.as_slice() {
                let key = (pair.a, pair.b, pm.piece_a, pm.piece_b);
                let cached = self.cache.points(&key);
                let m = pm;
                let normal = m.normal;
                // The first tangent along the slip at the manifold's first point when the
                // pair slides (so that the coupled clamp acts along the slip), else any.
                let slip = m.points().first().map_or(Vector::ZERO, |p| {
                    let va = if ia == ground {
                        Vector::ZERO
                    } else {
                        self.bodies[ia].velocity_at(p.point_a)
                    };
                    let dv = bb.velocity_at(p.point_b) - va;
                    dv - normal * normal.dot(dv)
                });
                let tangents = match slip.try_normalize() {
                    Some(t1) if slip.length() > s.sleep_linear_velocity * 0.1 => {
                        [t1, normal.cross(t1)]
                    }
                    _ => tangent_basis(normal),
                };
                let mut c = ContactConstraint {
                    a: ia,
                    b: ib,
                    normal,
                    tangents,
                    friction,
                    restitution,
                    points: [ConstraintPoint::default(); 4],
                    len: 0,
                    soft: Softness::new(0.0, 0.0, 1.0),
                    inv_mass: [0.0; 2],
                    inv_i: [Matrix3::ZERO; 2],
                    key,
                };
                for mp in m.points() {
                    stats.max_penetration = stats.max_penetration.max(-mp.distance);
                    let mid = 0.5 * (mp.point_a + mp.point_b);
                    let r_a = mid - center_a;
                    let r_b = mid - center_b;
                    let mut p = ConstraintPoint {
                        r_a,
                        r_b,
                        adjusted_separation: mp.distance - normal.dot(r_b - r_a),
                        feature: mp.feature,
                        ..ConstraintPoint::default()
                    };
                    let local_b = bb.rotation.inverse() * r_b;
                    let mut anchor = (rot_a.inverse() * r_a, local_b);
                    if let Some(old) =
                        match_point(cached, mp.feature, local_b, 2.0 * s.speculative_distance)
                    {
                        p.normal_impulse = old.normal_impulse;
                        p.tangent_impulse = [
                            old.tangent_impulse.dot(tangents[0]),
                            old.tangent_impulse.dot(tangents[1]),
                        ];
                        if let Some(a) = old.anchor {
                            anchor = a;
                        }
                        stats.warm_started += 1;
                    }
                    (p.anchor_a, p.anchor_b) = anchor;
                    p.local_b = local_b;
                    p.adjusted_tangent = tangents.map(|t| t.dot(center_b - center_a));
                    c.points[c.len] = p;
                    c.len += 1;
                }
                stats.points += c.len;
                constraints.push(c);
            }
        }
        stats.manifolds = constraints.len();
        answers.clear();
        self.answers = answers;
        times.constraints_ms = clock.lap();
        // 5. Solve.
        let (sb, cs) = (&mut sbodies, &mut constraints);
        let mut solve = move || solver::step(sb, cs, &s.solver, s.gravity, dt);
        #[cfg(feature = "parallel")]
        match &self.pool {
            Some(pool) => pool.install(solve),
            None => solve(),
        }
        #[cfg(not(feature = "parallel"))]
        solve();
        times.solver_ms = clock.lap();
        // Write back.
        for (b, sb) in self.bodies.iter_mut().zip(&sbodies) {
            if sb.moves {
                b.position += sb.dp;
                b.rotation = sb.q;
                if sb.dynamic {
                    b.linear_velocity = sb.v;
                    b.angular_velocity = sb.w;
                }
            }
        }
        // Contact cache: rebuilt in place, keys inserted in ascending order (a stable
        // sort, so that a repeated key keeps its last constraint's points).
        self.cache.clear();
        let mut order: Vec<usize> = (0..constraints.len()).collect();
        if !constraints.windows(2).all(|w| w[0].key <= w[1].key) {
            order.sort_by_key(|&i| constraints[i].key);
        }
        for c in order.iter().map(|&i| &constraints[i]) {
            // Where the anchors are now (static geometry: the world frame).
            let frame = |i: usize| {
                self.bodies
                    .get(i)
                    .map_or((Vector::ZERO, Rotation::IDENTITY), |b| {
                        (b.position, b.rotation)
                    })
            };
            let ((xa, qa), (xb, qb)) = (frame(c.a), frame(c.b));
            let pts = c.points[..c.len].iter().map(|p| {
                let t = [p.tangent_impulse[0], p.tangent_impulse[1]];
                let sticking = p.normal_impulse > 0.0
                    && (t[0] * t[0] + t[1] * t[1]).sqrt()
                        < ANCHOR_STICK_FRACTION * c.friction * p.normal_impulse;
                let e = (xb + qb * p.anchor_b) - (xa + qa * p.anchor_a);
                let e_t = e - c.normal * c.normal.dot(e);
                let keep = s.solver.friction_anchors && sticking && e_t.length() <= s.linear_slop;
                CachedPoint {
                    feature: p.feature,
                    normal_impulse: p.normal_impulse,
                    tangent_impulse: c.tangents[0] * t[0] + c.tangents[1] * t[1],
                    local_b: p.local_b,
                    anchor: keep.then_some((p.anchor_a, p.anchor_b)),
                }
            });
            self.cache.insert(c.key, pts);
        }
        // 6. Continuous collision.
        if s.enable_ccd && !self.statics.is_empty() {
            stats.ccd_hits = self.continuous(&poses, &radius);
        }
        // 7. Sleeping.
        self.update_sleep(&constraints, dt);
        self.steps += 1;
        stats.step = self.steps;
        stats.awake = self.bodies.iter().filter(|b| active(b)).count();
        stats.hash = self.state_hash();
        times.finish_ms = clock.lap();
        stats.times = times;
        Ok(stats)
    }

    /// Every pair's manifolds (step 3), one entry per pair in the pairs' order:
    /// refreshed from the store when the pair barely moved, computed otherwise; the
    /// store is rebuilt for the next step. The answers' vector is the world's, reused
    /// from step to step (the caller puts it back).
    fn narrow_phase(
        &mut self,
        pairs: &[Pair],
        poses: &[Pose],
        stats: &mut StepStats,
    ) -> Vec<(PairManifolds, Answer)> {
        let mut answers = std::mem::take(&mut self.answers);
        self.pair_answers(pairs, poses, &mut answers);
        if self.settings.manifold_reuse_tolerance > 0.0 || !self.stored.is_empty() {
            let mut store_next = Vec::with_capacity(answers.len());
            for (_, answer) in &mut answers {
                match std::mem::replace(answer, Answer::Unstored) {
                    Answer::Reused(i) => {
                        stats.pairs_reused += 1;
                        if let Some(sp) = self.stored[i].take() {
                            store_next.push(sp);
                        }
                    }
                    Answer::Fresh(sp) => store_next.push(sp),
                    Answer::Unstored => {}
                }
            }
            store_next.sort_unstable_by_key(|sp| sp.key);
            self.stored_keys = store_next.iter().map(|sp| sp.key).collect();
            self.stored = store_next.into_iter().map(Some).collect();
        }
        answers
    }

    /// Fills `out` (cleared first) with every pair's answer, in the pairs' order.
    #[cfg(feature = "parallel")]
    fn pair_answers(&self, pairs: &[Pair], poses: &[Pose], out: &mut Vec<(PairManifolds, Answer)>) {
        use rayon::prelude::*;
        let mut run = || {
            pairs
                .par_iter()
                .map(|p| self.pair_manifolds(p, poses))
                .collect_into_vec(out)
        };
        match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        }
    }

    /// Fills `out` (cleared first) with every pair's answer, in the pairs' order.
    #[cfg(not(feature = "parallel"))]
    fn pair_answers(&self, pairs: &[Pair], poses: &[Pose], out: &mut Vec<(PairManifolds, Answer)>) {
        out.clear();
        out.extend(pairs.iter().map(|p| self.pair_manifolds(p, poses)));
    }

    fn pair_manifolds(&self, p: &Pair, poses: &[Pose]) -> (PairManifolds, Answer) {
        let b = &self.bodies[p.b as usize];
        let pose_b = &poses[p.b as usize];
        let (pose_a, g) = if p.a >= STATIC_BASE {
            let g = &self.statics[(p.a - STATIC_BASE) as usize];
            (&g.pose, Some(g))
        } else {
            (&poses[p.a as usize], None)
        };
        let tol = self.settings.manifold_reuse_tolerance;
        let key = (p.a, p.b);
        if tol > 0.0 {
            if let Ok(i) = self.stored_keys.binary_search(&key) {
                if let Some(ms) = self.stored[i]
                    .as_ref()
                    .and_then(|sp| sp.refresh(pose_a, pose_b, p.margin, tol))
                {
                    return (ms, Answer::Reused(i));
                }
            }
        }
        let margin = if tol > 0.0 {
            p.margin + 2.0 * tol
        } else {
            p.margin
        };
        let ms: PairManifolds = match g {
            Some(g) => static_pair(&g.shape, &g.pose, &b.collider, pose_b, margin)
                .iter()
                .map(WorldManifold::from)
                .collect(),
            None => {
                let a = &self.bodies[p.a as usize];
                match (&a.collider, &b.collider) {
                    // Two boxes: the closed form (crate::box_box_manifold).
                    (Collider::Convex(Shape::Cuboid(ca)), Collider::Convex(Shape::Cuboid(cb)))
                        if self.settings.box_box_closed_form =>
                    {
                        let m = box_box_manifold(ca, pose_a, cb, pose_b, margin);
                        if m.len == 0 {
                            PairManifolds::None
                        } else {
                            PairManifolds::One(WorldManifold::from(&m))
                        }
                    }
                    // Two convex colliders: one piece each, as `body_pair` (pieces 0
                    // and 0, no box test), without its piece lists.
                    (Collider::Convex(sa), Collider::Convex(sb)) => {
                        let m = manifold(sa, pose_a, sb, pose_b, margin);
                        if m.is_empty() {
                            PairManifolds::None
                        } else {
                            PairManifolds::One(WorldManifold::from(&PairManifold {
                                piece_a: 0,
                                piece_b: 0,
                                manifold: m,
                            }))
                        }
                    }
                    _ => body_pair(&a.collider, pose_a, &b.collider, pose_b, margin)
                        .iter()
                        .map(WorldManifold::from)
                        .collect(),
                }
            }
        };
        let answer = if tol > 0.0 {
            Answer::Fresh(StoredPair::new(key, pose_a, pose_b, margin, ms.as_slice()))
        } else {
            Answer::Unstored
        };
        (ms, answer)
    }

    /// Wakes the islands of `seeds`: every sleeping body connected to a seed through
    /// sleeping bodies whose boxes meet (`candidates`).
    fn wake_islands(&mut self, seeds: &[usize], candidates: &[(usize, usize)]) {
        let n = self.bodies.len();
        let sleeping = |b: &Body| b.asleep;
        let edges: Vec<(usize, usize)> = candidates
            .iter()
            .copied()
            .filter(|&(i, j)| sleeping(&self.bodies[i]) && sleeping(&self.bodies[j]))
            .collect();
        let isl = islands(n, edges, |i| self.bodies[i].asleep);
        let mut which = vec![usize::MAX; n];
        for (k, members) in isl.iter().enumerate() {
            for &m in members {
                which[m] = k;
            }
        }
        for &sd in seeds {
            if which[sd] == usize::MAX {
                continue;
            }
            for &m in &isl[which[sd]] {
                self.bodies[m].wake();
            }
        }
    }

    /// Step 6 of the module notes; the number of bodies moved back.
    fn continuous(&mut self, start: &[Pose], radius: &[Real]) -> usize {
        let slop = self.settings.linear_slop;
        let mut hits = 0;
        for i in 0..self.bodies.len() {
            let b = &self.bodies[i];
            if b.kind != BodyKind::Dynamic || b.asleep {
                continue;
            }
            let Ok(end) = b.collider_pose() else { continue };
            let delta = end.translation() - start[i].translation();
            let limit = self.settings.ccd_fraction * radius[i];
            if delta.length() <= limit.max(slop) {
                continue;
            }
            let motion = Motion {
                linear: delta,
                angular: Vector::ZERO,
            };
            let swept = b
                .collider
                .local_aabb()
                .transformed(&start[i])
                .swept(delta)
                .loosened(slop);
            let mut best: Option<(Real, Vector)> = None;
            for g in &self.statics {
                if g.aabb.is_some_and(|a| !a.intersects(&swept)) {
                    continue;
                }
                let Ok(cast) = static_dispatch::cast(
                    &g.shape,
                    &g.pose,
                    Motion::ZERO,
                    &b.collider,
                    &start[i],
                    motion,
                    1.0,
                    slop,
                    &QueryOptions::default(),
                ) else {
                    continue;
                };
                if cast.hit
                    && cast.start == minkowski::query::CastStart::Separated
                    && best.is_none_or(|(t, _)| cast.toi < t)
                {
                    best = Some((cast.toi, cast.normal));
                }
            }
            if let Some((toi, normal)) = best {
                // Only a body that ends up behind the surface is moved back: one resting
                // on it or sliding along it is left to the contacts.
                let b = &mut self.bodies[i];
                let back = start[i].translation() + delta * toi;
                b.position = back + b.rotation * b.local_center;
                // `normal` points from the geometry towards the body.
                let vn = b.linear_velocity.dot(normal);
                if vn < 0.0 {
                    b.linear_velocity -= normal * vn;
                }
                hits += 1;
            }
        }
        hits
    }

    /// Sleep timers and islands (module notes, step 7).
    fn update_sleep(&mut self, constraints: &[ContactConstraint], dt: Real) {
        let s = self.settings;
        let n = self.bodies.len();
        let mut touches_moving = vec![false; n];
        for c in constraints {
            for (x, y) in [(c.a, c.b), (c.b, c.a)] {
                if x < n && y < n && self.bodies[y].kind == BodyKind::Kinematic {
                    let by = &self.bodies[y];
                    if by.linear_velocity != Vector::ZERO || by.angular_velocity != Vector::ZERO {
                        touches_moving[x] = true;
                    }
                }
            }
        }
        for (b, moving) in self.bodies.iter_mut().zip(&touches_moving) {
            if b.kind != BodyKind::Dynamic || b.asleep {
                continue;
            }
            let still = b.linear_velocity.length() < s.sleep_linear_velocity
                && b.angular_velocity.length() < s.sleep_angular_velocity
                && !moving;
            b.sleep_time = if still { b.sleep_time + dt } else { 0.0 };
        }
        if !s.enable_sleep {
            return;
        }
        let edges = constraints
            .iter()
            .filter(|c| c.a < n && c.b < n)
            .map(|c| (c.a, c.b));
        let isl = islands(n, edges, |i| {
            self.bodies[i].kind == BodyKind::Dynamic && !self.bodies[i].asleep
        });
        for members in isl {
            let min = members
                .iter()
                .map(|&m| self.bodies[m].sleep_time)
                .fold(Real::INFINITY, Real::min);
            if min >= s.time_to_sleep {
                for m in members {
                    let b = &mut self.bodies[m];
                    b.asleep = true;
                    b.linear_velocity = Vector::ZERO;
                    b.angular_velocity = Vector::ZERO;
                }
            }
        }
    }
}

/// A stopwatch for [`PhaseTimes`].
struct Clock(std::time::Instant);

impl Clock {
    fn start() -> Clock {
        Clock(std::time::Instant::now())
    }
    /// Milliseconds since the last lap (or the start).
    fn lap(&mut self) -> f64 {
        let now = std::time::Instant::now();
        let ms = now.duration_since(self.0).as_secs_f64() * 1e3;
        self.0 = now;
        ms
    }
}

/// Pairs of boxes that overlap, by sweep and prune along X: `(i, j)` with `i < j`, in a
/// deterministic order (sorted).
pub fn sweep_and_prune(boxes: &[Aabb]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&i, &j| boxes[i].mins.x.total_cmp(&boxes[j].mins.x).then(i.cmp(&j)));
    let mut out = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        let bi = &boxes[i];
        for &j in &order[k + 1..] {
            let bj = &boxes[j];
            if bj.mins.x > bi.maxs.x {
                break;
            }
            if bi.intersects(bj) {
                out.push((i.min(j), i.max(j)));
            }
        }
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sweep and prune against all pairs on seeded random boxes (some touching exactly).
    #[test]
    fn sweep_and_prune_equals_brute_force() {
        let mut s: u64 = 42;
        let mut next = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 40) as Real / (1u64 << 24) as Real
        };
        for _ in 0..50 {
            let boxes: Vec<Aabb> = (0..60)
                .map(|_| {
                    let c = Vector::new(next() * 10.0, next() * 10.0, next() * 10.0);
                    let h = Vector::new(next(), next(), next()) + Vector::splat(0.1);
                    let c = (c * 4.0).round() / 4.0; // grid-aligned: exact touching
                    Aabb::new(c - h, c + h)
                })
                .collect();
            let mut brute = Vec::new();
            for i in 0..boxes.len() {
                for j in i + 1..boxes.len() {
                    if boxes[i].intersects(&boxes[j]) {
                        brute.push((i, j));
                    }
                }
            }
            assert_eq!(sweep_and_prune(&boxes), brute);
        }
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let mut w = World::new(WorldSettings::default());
        for dt in [0.0, -1.0, Real::NAN, Real::INFINITY] {
            assert!(matches!(w.step(dt), Err(WorldError::InvalidTimeStep(_))));
        }
        let ball = minkowski::shape::Shape::from(minkowski::shape::Sphere::new(1.0).unwrap());
        let mut d = BodyDesc::dynamic(ball.clone(), Pose::IDENTITY);
        d.linear_velocity = Vector::new(Real::NAN, 0.0, 0.0);
        assert!(matches!(w.add_body(d), Err(WorldError::Body(_))));
        let mut d = BodyDesc::dynamic(ball.clone(), Pose::IDENTITY);
        d.density = -1.0;
        assert!(matches!(
            w.add_body(d),
            Err(WorldError::Body(BodyError::Mass(_)))
        ));
        let mut d = BodyDesc::dynamic(ball.clone(), Pose::IDENTITY);
        d.restitution = 1.5;
        assert!(w.add_body(d).is_err());
        let plane = minkowski::shape::HalfSpace::new(Vector::Y, 0.0).unwrap();
        assert!(w
            .add_static(StaticShape::HalfSpace(plane), Pose::IDENTITY, -0.1, 0.0)
            .is_err());
        // A body sent beyond the valid range of poses: an error, and the world unchanged.
        let id = w.add_body(BodyDesc::dynamic(ball, Pose::IDENTITY)).unwrap();
        w.body_mut(id)
            .unwrap()
            .set_velocity(Vector::new(1e30, 0.0, 0.0), Vector::ZERO)
            .unwrap();
        w.step(1.0).unwrap();
        let h = w.state_hash();
        assert!(matches!(w.step(1.0), Err(WorldError::BodyOutOfRange(_))));
        assert_eq!(h, w.state_hash());
    }
}
