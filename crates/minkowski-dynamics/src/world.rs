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
use crate::contact_cache::{CachedPoint, ContactCache, PairKey, STATIC_BASE};
use crate::contact_manifold::{body_pair, static_pair, PairManifold};
use crate::hash::state_hash;
use crate::island::islands;
use crate::solver::{
    self, tangent_basis, ConstraintPoint, ContactConstraint, Softness, SolverBody, SolverSettings,
};
use minkowski::bounding::Aabb;
use minkowski::math::Matrix3;
use minkowski::query::{static_dispatch, Motion, QueryOptions};
use minkowski::shape::StaticShape;
use minkowski::{Pose, Real, Vector};

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
    /// Threads of the narrow phase's pool (0: rayon's global pool). The state hash does
    /// not depend on it.
    pub threads: usize,
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
            threads: 0,
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
    /// The deepest penetration found by this step's narrow phase (length, ≥ 0).
    pub max_penetration: Real,
    /// Dynamic bodies awake after the step.
    pub awake: usize,
    /// Bodies moved back by continuous collision.
    pub ccd_hits: usize,
}

/// The physics world (module notes).
#[derive(Debug)]
pub struct World {
    /// The parameters (may be changed between steps).
    pub settings: WorldSettings,
    bodies: Vec<Body>,
    statics: Vec<StaticGeometry>,
    cache: ContactCache,
    steps: u64,
    #[cfg(feature = "parallel")]
    pool: Option<rayon::ThreadPool>,
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
        // Narrow phase.
        let manifolds = self.narrow_phase(&pairs, &poses);
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
                    inv_i_local: b.inv_inertia_local,
                    inertia_local: b.inertia_local,
                    dynamic,
                    moves,
                }
            })
            .collect();
        sbodies.push(SolverBody::FIXED);
        let mut constraints: Vec<ContactConstraint> = Vec::new();
        let mut keys: Vec<PairKey> = Vec::new();
        let mut stats = StepStats::default();
        for (pair, ms) in pairs.iter().zip(&manifolds) {
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
            for pm in ms {
                let key = (pair.a, pair.b, pm.piece_a, pm.piece_b);
                let m = &pm.manifold;
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
                    if let Some(old) =
                        self.cache
                            .find(&key, mp.feature, local_b, 2.0 * s.speculative_distance)
                    {
                        p.normal_impulse = old.normal_impulse;
                        p.tangent_impulse = [
                            old.tangent_impulse.dot(tangents[0]),
                            old.tangent_impulse.dot(tangents[1]),
                        ];
                        stats.warm_started += 1;
                    }
                    c.points[c.len] = p;
                    c.len += 1;
                }
                stats.points += c.len;
                constraints.push(c);
                keys.push(key);
            }
        }
        stats.manifolds = constraints.len();
        // 5. Solve.
        solver::step(&mut sbodies, &mut constraints, &s.solver, s.gravity, dt);
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
        // Contact cache.
        let mut cache = ContactCache::new();
        for (c, key) in constraints.iter().zip(&keys) {
            let pts = c.points[..c.len]
                .iter()
                .map(|p| CachedPoint {
                    feature: p.feature,
                    normal_impulse: p.normal_impulse,
                    tangent_impulse: c.tangents[0] * p.tangent_impulse[0]
                        + c.tangents[1] * p.tangent_impulse[1],
                    local_b: p.local_b,
                })
                .collect();
            cache.insert(*key, pts);
        }
        self.cache = cache;
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
        Ok(stats)
    }

    #[cfg(feature = "parallel")]
    fn narrow_phase(&self, pairs: &[Pair], poses: &[Pose]) -> Vec<Vec<PairManifold>> {
        use rayon::prelude::*;
        let run = || {
            pairs
                .par_iter()
                .map(|p| self.pair_manifolds(p, poses))
                .collect()
        };
        match &self.pool {
            Some(pool) => pool.install(run),
            None => run(),
        }
    }

    #[cfg(not(feature = "parallel"))]
    fn narrow_phase(&self, pairs: &[Pair], poses: &[Pose]) -> Vec<Vec<PairManifold>> {
        pairs
            .iter()
            .map(|p| self.pair_manifolds(p, poses))
            .collect()
    }

    fn pair_manifolds(&self, p: &Pair, poses: &[Pose]) -> Vec<PairManifold> {
        let b = &self.bodies[p.b as usize];
        let pose_b = &poses[p.b as usize];
        if p.a >= STATIC_BASE {
            let g = &self.statics[(p.a - STATIC_BASE) as usize];
            static_pair(&g.shape, &g.pose, &b.collider, pose_b, p.margin)
        } else {
            let a = &self.bodies[p.a as usize];
            body_pair(
                &a.collider,
                &poses[p.a as usize],
                &b.collider,
                pose_b,
                p.margin,
            )
        }
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
