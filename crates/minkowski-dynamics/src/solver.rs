//! The soft-step contact solver (after Box2D v3's "soft step").
//!
//! # The step
//!
//! Erin Catto's "Solver2D" study (box2d.org/posts/2024/02/solver2d/) compared solvers on
//! stacks, pyramids, high mass ratios and fast bodies, and Box2D v3 adopted the winner,
//! the *soft step*: sub-stepping with soft constraints and relaxation. One step of `dt`
//! with `n` substeps of `h = dt/n` runs, as we do:
//!
//! ```text
//! prepare contacts (anchors, effective masses, softness) at the step's start
//! repeat n times:
//!     integrate velocities     v += h g,  ω by the implicit gyroscopic step
//!     warm start               apply the accumulated impulses
//!     solve   (use bias)       soft non-penetration + friction
//!     integrate positions      Δx += h v,  q ← q + ½ h ω q (renormalised)
//!     relax   (no bias)        rigid non-penetration + friction: removes the velocity
//!                              the position bias added
//! restitution                  once, for points approaching faster than the threshold
//! store impulses               for the next step's warm start (contact cache)
//! ```
//!
//! # Soft contacts
//!
//! A contact is a spring–damper of stiffness given by a frequency `f` (hertz) and damping
//! ratio `ζ`, solved implicitly (Catto, "Soft Constraints", GDC 2011). With `ω = 2πf`,
//! `a₁ = 2ζ + hω`, `a₂ = hω a₁`, `a₃ = 1/(1 + a₂)`: the bias rate is `ω/a₁`, the mass scale
//! `a₂ a₃` and the impulse scale `a₃`. The normal impulse increment at a point of current
//! separation `s` and normal relative velocity `v_n` is
//! `Δλ = −m_n (mass_scale (v_n + b)) − impulse_scale λ` with `b = max(rate·s, −v_push)`
//! while penetrating, and `b = s/h` (speculative: only what closes the gap this substep
//! is stopped) while apart; `λ` is clamped to `λ ≥ 0`. The frequency is
//! `min(contact_hertz, substep rate / 4)` (twice that against static bodies), as Box2D.
//! The current separation is tracked without new collision queries: each point keeps
//! its anchors in both bodies, and `s = s₀ + n·((Δx_B + R_B r_B) − (Δx_A + R_A r_A)) −
//! n·(r_B − r_A)` from the bodies' displacement and rotation since the step's start.
//!
//! # Friction and restitution
//!
//! Two tangent directions per manifold; the two friction impulses are clamped together
//! to the disc `|λ_t| ≤ μ λ_n` (Coulomb's cone, not a pyramid). Restitution is applied
//! once after the substeps, to points whose approach speed at the step's start exceeded
//! the threshold and that took a normal impulse: the normal velocity is driven to
//! `−e · v_n(start)`.
//!
//! # Friction anchors
//!
//! Friction solved on velocities alone lets resting contacts creep: every step ends
//! with a small unconverged tangential velocity, and in a tall pyramid the creep adds up
//! row over row. Each point therefore keeps a pair of *anchors*, the point as fixed in
//! body A and in body B when it last started to stick; while static friction holds, the
//! anchors persist from step to step (through the contact cache) and the biased pass
//! adds `b_t = rate · t·(x_B + R_B a_B − x_A − R_A a_A)` to each friction row, pulling
//! the bodies back to where they stuck (the same rate as the soft contact; the relax
//! passes remove the velocity it adds, as for the normal rows). When the friction
//! impulse reaches the Coulomb limit (sliding), the point separates, or the anchors
//! drift apart by more than the slop, the anchors are reset to the current point. This
//! is the friction anchoring of Bullet's persistent manifold and PhysX's patch friction
//! in spirit (a point that sticks is held at the place it stuck), written in the soft
//! step's terms.
//!
//! Measured, the anchors did not pay on this crate's stacks, so they are off by
//! default: the 20-box stack's top drifted 14 mm in 1000 awake steps with them and
//! 4.7 mm without; the 20-row pyramid's top 15 cm with them and 2 mm without (both with
//! the colouring below on: 15 cm and 7.6 cm); they remain an option.
//!
//! # Parallel sweeps
//!
//! With [`SolverSettings::graph_colouring`] each sweep (warm start, solve, relax,
//! restitution) runs colour class by colour class ([`crate::graph_colouring`]): the
//! constraints of a class share no moving body, each reads the bodies as they were
//! before its class and keeps its new velocities, which are written after the class.
//! The result does not depend on the number of threads. It is off by default because
//! the coloured order converges worse on stacks than the world's order (pairs sorted by
//! body index, the bottom of a stack first): the 20-row pyramid's top drifted 8.3 cm in
//! 1000 awake steps coloured and 1.9 mm in order.
//!
//! # Memory layout of the sweeps
//!
//! Every sweep streams all constraints (17 sweeps a step at the defaults: per substep a
//! warm start, a biased solve and two relax passes, then restitution). Profiled
//! (`perf`) on the 100-row pyramid, the solve's hottest instruction was the first load
//! of each point, so the sweeps run on a packed copy (`HotConstraint`, made after
//! `prepare`, impulses copied back after the step) that holds only what they read: the
//! world anchors, friction anchors, restitution data, cache key and feature stay behind
//! in `ContactConstraint`. Each packed point keeps, per row (normal, two tangents)
//! and body, both the angular Jacobian `r × d` (for the relative velocity) and its
//! product with the body's world inverse inertia `I⁻¹ (r × d)` (the angular velocity
//! change per unit impulse, formed once per step by `HotConstraint::pack`; rapier
//! likewise stores it per contact row): in f32, 204 bytes per point, 888 per constraint (the
//! full constraint is 1280). An earlier layout formed `I⁻¹ (r × d)` on every impulse
//! instead (132 bytes per point, 672 per constraint): six 3×3 products per point and
//! sweep, with the two matrices kept live through the loop (the compiled solve spilled
//! and shuffled registers more than it computed). Storing the products streams 32 %
//! more bytes per sweep and was measured faster all the same (issue 22, 100-row
//! pyramid, 100 steps, one thread, on a loaded machine: solver phase 94.7 → 87.2
//! ms a step, the run's CPU time 7.78 → 7.35 s, medians of six alternating runs); the
//! sweeps are bound by arithmetic and its dependency chain more than by memory. Two
//! further layouts were measured slower than this one in the same session: forming
//! `r × d` on the fly from the 24 bytes of world anchors (156 bytes per point; CPU time
//! 7.61 s against 7.35) and SIMD-aligned vectors (`Vec3A`) for the rows and the body
//! velocities (256 bytes per point; 7.92 s). Storing the product changes no number:
//! `pack` evaluates the same matrix–vector product the impulse used to. The
//! restitution pass is skipped when no constraint has restitution (it would write back
//! the velocities it read).
//!
//! # Separation once per position update
//!
//! A point's current separation depends only on the positions, which change once per
//! substep (the position integration). The biased solve of a substep and the relax
//! passes before it therefore see the same separation: it is computed by the first
//! sweep after the positions move and kept in the packed point for the next two.
//!
//! Why the soft step rather than rapier's TGS-soft: both sub-step with soft contacts;
//! in Catto's published comparison the soft step with relaxation and restitution held
//! the large pyramid and high-mass-ratio stacks with one iteration per substep, and it
//! needs no separate position pass. That choice is taken from his measurements, not
//! ours: TGS-soft is not implemented here, so the two were not compared on this crate's
//! scenes.
//!
//! Departures from Box2D v3: two relax iterations per substep by default (one left the
//! 20-box stack swaying by 2 cm), the points of a manifold visited forwards and
//! backwards in turn, the first friction tangent along the slip, and 60 Hz contacts (the
//! substep rate's quarter at 4 substeps of 1/60 s): a soft contact under a load `λ` on
//! an effective mass `m` sags `λ/(m h ω²)` per substep impulse, about `2·N·g/ω²` under
//! `N` unit boxes, so 30 Hz left the bottom of a 20-box stack 1 cm deep and 60 Hz 2.6 mm.

use crate::graph_colouring::{colour_constraints, MAX_COLOURS};
use crate::integrate::{gyroscopic_step, integrate_rotation};
use minkowski::math::Matrix3;
use minkowski::{Real, Rotation, Vector};

/// The solver's parameters (SI-like units: seconds, length units, radians).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolverSettings {
    /// Substeps per step (≥ 1).
    pub substeps: u32,
    /// Relax iterations per substep (≥ 0; Box2D uses 1).
    pub relax_iterations: u32,
    /// Contact stiffness as a frequency (hertz, > 0); capped at a quarter of the substep
    /// rate.
    pub contact_hertz: Real,
    /// Contact damping ratio (≥ 0; Box2D uses 10: strongly over-damped).
    pub contact_damping_ratio: Real,
    /// The largest speed (length/s) at which penetration is pushed out.
    pub contact_push_max_velocity: Real,
    /// Normal approach speed (length/s) below which no restitution is applied.
    pub restitution_threshold: Real,
    /// Integrate the gyroscopic term implicitly (see [`crate::integrate`]).
    pub gyroscopic: bool,
    /// Hold sticking contacts at their friction anchors (module notes, "Friction
    /// anchors"); off (the default, see there why): friction acts on velocities only.
    pub friction_anchors: bool,
    /// Sweep the constraints by colour class ([`crate::graph_colouring`]), in parallel
    /// on rayon's pool with the `parallel` feature (module notes, "Parallel sweeps");
    /// off (the default): one sequential sweep in the world's constraint order.
    pub graph_colouring: bool,
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            substeps: 4,
            relax_iterations: 2,
            contact_hertz: 60.0,
            contact_damping_ratio: 10.0,
            contact_push_max_velocity: 3.0,
            restitution_threshold: 1.0,
            gyroscopic: true,
            friction_anchors: false,
            graph_colouring: false,
        }
    }
}

/// The soft constraint coefficients of a frequency, damping ratio and time step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Softness {
    /// Bias velocity per unit of separation (1/s).
    pub bias_rate: Real,
    /// Scale of the effective mass.
    pub mass_scale: Real,
    /// Scale of the accumulated impulse subtracted each iteration.
    pub impulse_scale: Real,
}

impl Softness {
    /// The coefficients of the module notes; a zero frequency gives a rigid constraint
    /// without bias.
    pub fn new(hertz: Real, zeta: Real, h: Real) -> Softness {
        if hertz <= 0.0 {
            return Softness {
                bias_rate: 0.0,
                mass_scale: 1.0,
                impulse_scale: 0.0,
            };
        }
        let omega = 2.0 * std::f64::consts::PI as Real * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }
}

/// A body as the solver sees it during a step.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SolverBody {
    pub v: Vector,
    pub w: Vector,
    /// Displacement of the centre of mass since the step's start.
    pub dp: Vector,
    pub q: Rotation,
    pub inv_mass: Real,
    /// World inverse inertia at the step's start (kept for the whole step, as Box2D
    /// keeps its anchors: the contact Jacobians are those of the step's start).
    pub inv_i: Matrix3,
    pub inertia_local: Matrix3,
    /// Moved by the solver (dynamic and awake).
    pub dynamic: bool,
    /// Moved by its own velocity (dynamic awake, or kinematic).
    pub moves: bool,
}

impl SolverBody {
    /// A body that never moves (static geometry, static and sleeping bodies).
    pub const FIXED: SolverBody = SolverBody {
        v: Vector::ZERO,
        w: Vector::ZERO,
        dp: Vector::ZERO,
        q: Rotation::IDENTITY,
        inv_mass: 0.0,
        inv_i: Matrix3::ZERO,
        inertia_local: Matrix3::ZERO,
        dynamic: false,
        moves: false,
    };
}

/// What the substeps read and write of a body (Box2D v3's `b2BodyState`): its velocities
/// and its motion since the step's start, 64 bytes in f32, so that the constraint loops
/// touch one cache line per body.
#[derive(Debug, Clone, Copy)]
struct BodyState {
    v: Vector,
    w: Vector,
    dp: Vector,
    q: Rotation,
}

/// One point of a contact constraint.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ConstraintPoint {
    /// Anchors from each centre of mass at the step's start (world axes).
    pub r_a: Vector,
    pub r_b: Vector,
    /// The same in each body's frame (to follow the rotation within the step).
    pub local_a: Vector,
    pub local_b: Vector,
    /// `s₀ − n·(r_B − r_A)`.
    pub adjusted_separation: Real,
    pub normal_impulse: Real,
    pub tangent_impulse: [Real; 2],
    pub max_normal_impulse: Real,
    pub normal_mass: Real,
    pub tangent_mass: [Real; 2],
    /// Normal relative velocity at the step's start (negative = approaching).
    pub relative_velocity: Real,
    pub feature: u32,
    /// The friction anchors in each body's frame (from its centre of mass; static
    /// geometry: world): where the point stuck when static friction took hold, kept
    /// while it holds (module notes, "Friction anchors").
    pub anchor_a: Vector,
    pub anchor_b: Vector,
    /// `t_k·(c_B − c_A)` for each tangent (the centres at the step's start), so that the
    /// anchors' tangential offset is `t_k·(Δx_B + R_B a_B − Δx_A − R_A a_A) + this`.
    pub adjusted_tangent: [Real; 2],
    /// Angular Jacobians of the rows `d` = normal, tangent 1, tangent 2: `r_A × d` and
    /// `r_B × d` (set by [`prepare`], fixed for the step as the anchors are).
    pub jacobian: [[Vector; 3]; 2],
}

/// A contact constraint: one manifold between bodies `a` and `b` (solver indices).
#[derive(Debug, Clone)]
pub(crate) struct ContactConstraint {
    pub a: usize,
    pub b: usize,
    pub normal: Vector,
    pub tangents: [Vector; 2],
    pub friction: Real,
    pub restitution: Real,
    pub points: [ConstraintPoint; 4],
    pub len: usize,
    pub soft: Softness,
    /// The bodies' inverse masses and world inverse inertias (zero for a body the
    /// solver does not move), copied at [`prepare`] so that the loops read them with
    /// the constraint.
    pub inv_mass: [Real; 2],
    pub inv_i: [Matrix3; 2],
    /// The contact cache's key of the manifold.
    pub key: crate::contact_cache::PairKey,
}

/// What the sweeps read and write of one point of a constraint: the subset of
/// [`ConstraintPoint`] used on every iteration (module notes, "Memory layout of the
/// sweeps"); the friction anchors, the restitution's start velocity, the feature and
/// the world anchors stay in the [`ContactConstraint`], read only by the passes that
/// need them.
#[derive(Debug, Clone, Copy, Default)]
struct HotPoint {
    local_a: Vector,
    local_b: Vector,
    adjusted_separation: Real,
    normal_impulse: Real,
    tangent_impulse: [Real; 2],
    max_normal_impulse: Real,
    normal_mass: Real,
    tangent_mass: [Real; 2],
    jacobian: [[Vector; 3]; 2],
    /// Each angular Jacobian times its body's world inverse inertia, `I_A⁻¹ (r_A × d)`
    /// and `I_B⁻¹ (r_B × d)` for the rows `d` = normal, tangent 1, tangent 2: the
    /// angular velocity change per unit impulse along the row (module notes, "Memory
    /// layout of the sweeps").
    inv_i_jacobian: [[Vector; 3]; 2],
    /// The current separation, as computed by the last sweep after the positions moved
    /// (module notes, "Separation once per position update").
    separation: Real,
}

/// What the sweeps read and write of a [`ContactConstraint`] (Box2D v3 likewise keeps
/// the solver's constraints apart from the contacts they come from), packed after
/// [`prepare`] and unpacked into the constraints' impulses after the step. The arithmetic is that of the full constraint, operation
/// for operation, so the packing changes no result.
#[derive(Debug, Clone, Copy)]
struct HotConstraint {
    a: u32,
    b: u32,
    len: u32,
    normal: Vector,
    tangents: [Vector; 2],
    friction: Real,
    soft: Softness,
    inv_mass: [Real; 2],
    points: [HotPoint; 4],
}

impl HotConstraint {
    /// The sweeps' part of a prepared constraint.
    fn pack(c: &ContactConstraint) -> HotConstraint {
        let mut points = [HotPoint::default(); 4];
        for (h, p) in points.iter_mut().zip(&c.points[..c.len]) {
            *h = HotPoint {
                local_a: p.local_a,
                local_b: p.local_b,
                adjusted_separation: p.adjusted_separation,
                normal_impulse: p.normal_impulse,
                tangent_impulse: p.tangent_impulse,
                max_normal_impulse: p.max_normal_impulse,
                normal_mass: p.normal_mass,
                tangent_mass: p.tangent_mass,
                jacobian: p.jacobian,
                // The products `apply_row` formed on every impulse before they were
                // stored here: the same operations, so the same numbers.
                inv_i_jacobian: [0, 1].map(|k| p.jacobian[k].map(|j| c.inv_i[k] * j)),
                separation: 0.0,
            };
        }
        HotConstraint {
            a: c.a as u32,
            b: c.b as u32,
            len: c.len as u32,
            normal: c.normal,
            tangents: c.tangents,
            friction: c.friction,
            soft: c.soft,
            inv_mass: c.inv_mass,
            points,
        }
    }

    /// Writes the impulses back into the constraint (for the contact cache and sleeping).
    fn unpack(&self, c: &mut ContactConstraint) {
        for (p, h) in c.points[..c.len].iter_mut().zip(&self.points) {
            p.normal_impulse = h.normal_impulse;
            p.tangent_impulse = h.tangent_impulse;
            p.max_normal_impulse = h.max_normal_impulse;
        }
    }

    /// The points in use.
    #[inline(always)]
    fn len(&self) -> usize {
        self.len as usize
    }
}

/// Two unit tangents orthogonal to the unit `n` (a deterministic basis).
pub(crate) fn tangent_basis(n: Vector) -> [Vector; 2] {
    let t1 = n.any_orthonormal_vector();
    [t1, n.cross(t1)]
}

fn effective_mass(c: &ContactConstraint, ra: Vector, rb: Vector, dir: Vector) -> Real {
    let ca = ra.cross(dir);
    let cb = rb.cross(dir);
    let k = c.inv_mass[0] + c.inv_mass[1] + ca.dot(c.inv_i[0] * ca) + cb.dot(c.inv_i[1] * cb);
    if k > 0.0 && k.is_finite() {
        1.0 / k
    } else {
        0.0
    }
}

/// Effective masses and start velocities of every constraint (bodies as at the step's
/// start), and the softness for substep `h`.
fn prepare(
    bodies: &[SolverBody],
    constraints: &mut [ContactConstraint],
    settings: &SolverSettings,
    h: Real,
) {
    let hertz = settings.contact_hertz.min(0.25 / h);
    let soft = Softness::new(hertz, settings.contact_damping_ratio, h);
    let soft_static = Softness::new(2.0 * hertz, settings.contact_damping_ratio, h);

    for c in constraints {
        let (a, b) = (&bodies[c.a], &bodies[c.b]);
        c.soft = if a.dynamic && b.dynamic {
            soft
        } else {
            soft_static
        };
        for (k, body) in [a, b].into_iter().enumerate() {
            (c.inv_mass[k], c.inv_i[k]) = if body.dynamic {
                (body.inv_mass, body.inv_i)
            } else {
                (0.0, Matrix3::ZERO)
            };
        }
        let (qa, qb) = (a.q.inverse(), b.q.inverse());
        for k in 0..c.len {
            let p = c.points[k];
            let normal_mass = effective_mass(c, p.r_a, p.r_b, c.normal);
            let tangent_mass = [
                effective_mass(c, p.r_a, p.r_b, c.tangents[0]),
                effective_mass(c, p.r_a, p.r_b, c.tangents[1]),
            ];
            let dv = (b.v + b.w.cross(p.r_b)) - (a.v + a.w.cross(p.r_a));
            let dirs = [c.normal, c.tangents[0], c.tangents[1]];
            let ja = dirs.map(|d| p.r_a.cross(d));
            let jb = dirs.map(|d| p.r_b.cross(d));
            let p = &mut c.points[k];
            p.jacobian = [ja, jb];
            p.local_a = qa * p.r_a;
            p.local_b = qb * p.r_b;
            p.normal_mass = normal_mass;
            p.tangent_mass = tangent_mass;
            p.relative_velocity = c.normal.dot(dv);
            p.max_normal_impulse = 0.0;
        }
    }
}

/// The velocities of a constraint's two bodies, loaded once per constraint and returned
/// after all its points (Box2D v3's pattern), with the impulse application.
#[derive(Debug, Clone, Copy)]
struct Pair {
    va: Vector,
    wa: Vector,
    vb: Vector,
    wb: Vector,
}

impl Pair {
    #[inline(always)]
    fn load(states: &[BodyState], c: &HotConstraint) -> Pair {
        let (a, b) = (&states[c.a as usize], &states[c.b as usize]);
        Pair {
            va: a.v,
            wa: a.w,
            vb: b.v,
            wb: b.w,
        }
    }
    /// The relative velocity of B with respect to A along row `row` (0 the normal, 1
    /// and 2 the tangents) of point `p`, direction `d`.
    #[inline(always)]
    fn row_velocity(&self, p: &HotPoint, row: usize, d: Vector) -> Real {
        d.dot(self.vb - self.va) + self.wb.dot(p.jacobian[1][row]) - self.wa.dot(p.jacobian[0][row])
    }
    /// Applies impulse `lambda` along row `row` of point `p` (direction `d`) on B, its
    /// opposite on A.
    #[inline(always)]
    fn apply_row(&mut self, c: &HotConstraint, p: &HotPoint, row: usize, d: Vector, lambda: Real) {
        self.va -= d * (c.inv_mass[0] * lambda);
        self.wa -= p.inv_i_jacobian[0][row] * lambda;
        self.vb += d * (c.inv_mass[1] * lambda);
        self.wb += p.inv_i_jacobian[1][row] * lambda;
    }
}

/// Applies one constraint's accumulated impulses (warm start).
fn warm_start(states: &[BodyState], c: &mut HotConstraint) -> Option<Pair> {
    let mut v = Pair::load(states, c);
    for p in &c.points[..c.len()] {
        v.apply_row(c, p, 0, c.normal, p.normal_impulse);
        v.apply_row(c, p, 1, c.tangents[0], p.tangent_impulse[0]);
        v.apply_row(c, p, 2, c.tangents[1], p.tangent_impulse[1]);
    }
    Some(v)
}

/// One constraint of a Gauss–Seidel pass: normal impulses (soft with bias when
/// `use_bias`, rigid without), then friction. `full` is the constraint `c` was packed
/// from, read only for the friction anchors. `moved`: the positions changed since the
/// last sweep, so each point's separation is computed again (and kept); otherwise the
/// kept separation is used (it is the same number).
#[allow(clippy::too_many_arguments)]
fn solve(
    states: &[BodyState],
    c: &mut HotConstraint,
    full: &ContactConstraint,
    settings: &SolverSettings,
    inv_h: Real,
    use_bias: bool,
    reverse: bool,
    moved: bool,
) -> Option<Pair> {
    let (sa, sb) = (states[c.a as usize], states[c.b as usize]);
    let mut v = Pair::load(states, c);
    let n = c.normal;
    let dp = sb.dp - sa.dp;
    let len = c.len();
    for j in 0..len {
        let k = if reverse { len - 1 - j } else { j };
        let p = c.points[k];
        // Current separation from the bodies' motion since the step's start.
        let s = if moved {
            let d = dp + (sb.q * p.local_b - sa.q * p.local_a);
            let s = n.dot(d) + p.adjusted_separation;
            c.points[k].separation = s;
            s
        } else {
            p.separation
        };
        let (bias, mass_scale, impulse_scale) = if s > 0.0 {
            (s * inv_h, 1.0, 0.0)
        } else if use_bias {
            (
                (c.soft.bias_rate * s).max(-settings.contact_push_max_velocity),
                c.soft.mass_scale,
                c.soft.impulse_scale,
            )
        } else {
            (0.0, 1.0, 0.0)
        };
        let vn = v.row_velocity(&p, 0, n);
        let imp = -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
        let new = (p.normal_impulse + imp).max(0.0);
        let imp = new - p.normal_impulse;
        let pm = &mut c.points[k];
        pm.normal_impulse = new;
        pm.max_normal_impulse = pm.max_normal_impulse.max(imp);
        v.apply_row(c, &p, 0, n, imp);
    }
    for j in 0..len {
        let k = if reverse { len - 1 - j } else { j };
        let p = c.points[k];
        let (t1, t2) = (c.tangents[0], c.tangents[1]);
        let dv = [v.row_velocity(&p, 1, t1), v.row_velocity(&p, 2, t2)];
        let limit = c.friction * p.normal_impulse;
        let old = p.tangent_impulse;
        // Static friction pulls the anchors back together (biased pass only).
        let bias = if use_bias && settings.friction_anchors && limit > 0.0 {
            let fp = &full.points[k];
            let d = dp + (sb.q * fp.anchor_b - sa.q * fp.anchor_a);
            let max = settings.contact_push_max_velocity;
            [0, 1].map(|i| {
                let e = c.tangents[i].dot(d) + fp.adjusted_tangent[i];
                (c.soft.bias_rate * e).clamp(-max, max)
            })
        } else {
            [0.0; 2]
        };
        let mut new = [
            old[0] - p.tangent_mass[0] * (dv[0] + bias[0]),
            old[1] - p.tangent_mass[1] * (dv[1] + bias[1]),
        ];
        let len = (new[0] * new[0] + new[1] * new[1]).sqrt();
        if len > limit {
            let k = if len > 0.0 { limit / len } else { 0.0 };
            new = [new[0] * k, new[1] * k];
        }
        c.points[k].tangent_impulse = new;
        v.apply_row(c, &p, 1, t1, new[0] - old[0]);
        v.apply_row(c, &p, 2, t2, new[1] - old[1]);
    }
    Some(v)
}

/// The restitution pass of one constraint (module notes); `None` (nothing to write)
/// when the constraint has no restitution.
fn restitution(
    states: &[BodyState],
    c: &mut HotConstraint,
    full: &ContactConstraint,
    threshold: Real,
) -> Option<Pair> {
    if full.restitution <= 0.0 {
        return None;
    }
    let mut v = Pair::load(states, c);
    for k in 0..c.len() {
        let p = c.points[k];
        let relative_velocity = full.points[k].relative_velocity;
        if relative_velocity > -threshold || p.max_normal_impulse == 0.0 {
            continue;
        }
        let vn = v.row_velocity(&p, 0, c.normal);
        let imp = -p.normal_mass * (vn + full.restitution * relative_velocity);
        let new = (p.normal_impulse + imp).max(0.0);
        let imp = new - p.normal_impulse;
        let pm = &mut c.points[k];
        pm.normal_impulse = new;
        pm.max_normal_impulse = pm.max_normal_impulse.max(imp);
        v.apply_row(c, &p, 0, c.normal, imp);
    }
    Some(v)
}

/// Colour classes smaller than this are swept on the calling thread (the result is the
/// same either way).
const PARALLEL_MIN_CLASS: usize = 256;

/// Runs `f` on every constraint, colour class by colour class (`classes` are the
/// ranges of each class in `hot`, the overflow class last; `full` the constraints `hot`
/// was packed from, in the same order): each constraint of a class reads the bodies as
/// they were before the class, and the velocities it returns (`None`: unchanged) are
/// then written to the bodies. Within a class no moving body is shared, so the sweep
/// equals a sequential Gauss–Seidel sweep in this order, for any number of threads.
/// The overflow class is swept one constraint at a time, each writing its bodies
/// before the next reads them. `outs` is scratch for a class's velocities.
fn sweep<F>(
    states: &mut [BodyState],
    hot: &mut [HotConstraint],
    full: &[ContactConstraint],
    classes: &[std::ops::Range<usize>],
    overflow: usize,
    outs: &mut Vec<Option<Pair>>,
    f: F,
) where
    F: Fn(&[BodyState], &mut HotConstraint, &ContactConstraint) -> Option<Pair> + Sync,
{
    let scatter = |states: &mut [BodyState], c: &HotConstraint, v: Option<Pair>| {
        let Some(v) = v else { return };
        if c.inv_mass[0] > 0.0 {
            states[c.a as usize].v = v.va;
            states[c.a as usize].w = v.wa;
        }
        if c.inv_mass[1] > 0.0 {
            states[c.b as usize].v = v.vb;
            states[c.b as usize].w = v.wb;
        }
    };
    for (k, range) in classes.iter().enumerate() {
        let class = &mut hot[range.clone()];
        let class_full = &full[range.clone()];
        if k == overflow {
            for (c, cf) in class.iter_mut().zip(class_full) {
                let v = f(states, c, cf);
                scatter(states, c, v);
            }
            continue;
        }
        outs.clear();
        #[cfg(feature = "parallel")]
        if class.len() >= PARALLEL_MIN_CLASS {
            use rayon::prelude::*;
            let read: &[BodyState] = states;
            class
                .par_iter_mut()
                .zip(class_full.par_iter())
                .with_min_len(64)
                .map(|(c, cf)| f(read, c, cf))
                .collect_into_vec(outs);
        } else {
            outs.extend(
                class
                    .iter_mut()
                    .zip(class_full)
                    .map(|(c, cf)| f(states, c, cf)),
            );
        }
        #[cfg(not(feature = "parallel"))]
        outs.extend(
            class
                .iter_mut()
                .zip(class_full)
                .map(|(c, cf)| f(states, c, cf)),
        );
        for (c, v) in class.iter().zip(outs.iter()) {
            scatter(states, c, *v);
        }
    }
}

/// Velocities over one substep: gravity, and the gyroscopic step when enabled.
fn integrate_velocities(
    bodies: &[SolverBody],
    states: &mut [BodyState],
    gravity: Vector,
    h: Real,
    gyroscopic: bool,
) {
    for (b, s) in bodies.iter().zip(states.iter_mut()) {
        if b.dynamic {
            s.v += gravity * h;
            if gyroscopic {
                s.w = gyroscopic_step(s.w, s.q, b.inertia_local, h);
            }
        }
    }
}

/// Positions over one substep.
fn integrate_positions(bodies: &[SolverBody], states: &mut [BodyState], h: Real) {
    for (b, s) in bodies.iter().zip(states.iter_mut()) {
        if b.moves {
            s.dp += s.v * h;
            s.q = integrate_rotation(s.q, s.w, h);
        }
    }
}

/// Reorders `constraints` by colour class (a stable counting sort); the class ranges
/// and the index of the overflow class.
fn colour_classes(
    bodies: &[SolverBody],
    constraints: &mut Vec<ContactConstraint>,
) -> (Vec<std::ops::Range<usize>>, usize) {
    let ends: Vec<(usize, usize)> = constraints.iter().map(|c| (c.a, c.b)).collect();
    let colours = colour_constraints(&ends, bodies.len(), |i| bodies[i].dynamic);
    let mut starts = [0usize; MAX_COLOURS + 2];
    for &c in &colours {
        starts[c as usize + 1] += 1;
    }
    for k in 1..starts.len() {
        starts[k] += starts[k - 1];
    }
    let classes = (0..=MAX_COLOURS)
        .map(|k| starts[k]..starts[k + 1])
        .collect();
    let mut order = vec![0usize; constraints.len()];
    let mut next = starts;
    for (i, &c) in colours.iter().enumerate() {
        order[next[c as usize]] = i;
        next[c as usize] += 1;
    }
    *constraints = order.iter().map(|&i| constraints[i].clone()).collect();
    (classes, MAX_COLOURS)
}

/// One full soft step of `dt` over `bodies` and `constraints` (module notes). The
/// constraints are left reordered by colour class ([`crate::graph_colouring`]).
pub(crate) fn step(
    bodies: &mut [SolverBody],
    constraints: &mut Vec<ContactConstraint>,
    settings: &SolverSettings,
    gravity: Vector,
    dt: Real,
) {
    let n = settings.substeps.max(1);
    let h = dt / n as Real;
    let inv_h = 1.0 / h;
    let (classes, overflow) = if settings.graph_colouring {
        colour_classes(bodies, constraints)
    } else {
        (std::iter::once(0..constraints.len()).collect(), 0)
    };
    prepare(bodies, constraints, settings, h);
    let mut hot: Vec<HotConstraint> = constraints.iter().map(HotConstraint::pack).collect();
    let full: &[ContactConstraint] = constraints;
    let mut outs = Vec::new();
    let mut states: Vec<BodyState> = bodies
        .iter()
        .map(|b| BodyState {
            v: b.v,
            w: b.w,
            dp: b.dp,
            q: b.q,
        })
        .collect();
    // The points of a manifold are visited forwards and backwards in turn (symmetric
    // Gauss–Seidel), so that a new resting contact does not turn its body towards the
    // point solved first.
    let mut reverse = false;
    // Whether the positions moved since the last solve sweep (module notes,
    // "Separation once per position update").
    let mut moved = true;
    let (st, hc, o) = (&mut states, &mut hot, &mut outs);
    for _ in 0..n {
        integrate_velocities(bodies, st, gravity, h, settings.gyroscopic);
        sweep(st, hc, full, &classes, overflow, o, |st, c, _| {
            warm_start(st, c)
        });
        let (r, m) = (reverse, moved);
        sweep(st, hc, full, &classes, overflow, o, |st, c, cf| {
            solve(st, c, cf, settings, inv_h, true, r, m)
        });
        reverse = !reverse;
        integrate_positions(bodies, st, h);
        moved = true;
        for _ in 0..settings.relax_iterations {
            let (r, m) = (reverse, moved);
            sweep(st, hc, full, &classes, overflow, o, |st, c, cf| {
                solve(st, c, cf, settings, inv_h, false, r, m)
            });
            (reverse, moved) = (!reverse, false);
        }
    }
    let threshold = settings.restitution_threshold;
    if full.iter().any(|c| c.restitution > 0.0) {
        sweep(st, hc, full, &classes, overflow, o, |st, c, cf| {
            restitution(st, c, cf, threshold)
        });
    }
    for (c, h) in constraints.iter_mut().zip(&hot) {
        h.unpack(c);
    }
    for (b, s) in bodies.iter_mut().zip(&states) {
        (b.v, b.w, b.dp, b.q) = (s.v, s.w, s.dp, s.q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The soft coefficients against their definitions, and their limits: a stiff spring
    /// (large hω) tends to a rigid constraint (mass scale → 1, impulse scale → 0).
    #[test]
    fn softness_coefficients() {
        let (f, z, h): (Real, Real, Real) = (30.0, 10.0, 1.0 / 240.0);
        let s = Softness::new(f, z, h);
        let w = 2.0 * std::f64::consts::PI as Real * f;
        let a1 = 2.0 * z + h * w;
        let a2 = h * w * a1;
        assert!((s.bias_rate - w / a1).abs() < 1e-4);
        assert!((s.mass_scale + s.impulse_scale - 1.0).abs() < 1e-6);
        assert!((s.impulse_scale - 1.0 / (1.0 + a2)).abs() < 1e-6);
        let stiff = Softness::new(1e6, 1.0, h);
        assert!(stiff.mass_scale > 0.999 && stiff.impulse_scale < 1e-3);
        let rigid = Softness::new(0.0, 1.0, h);
        assert_eq!(
            (rigid.bias_rate, rigid.mass_scale, rigid.impulse_scale),
            (0.0, 1.0, 0.0)
        );
    }

    #[test]
    fn tangent_basis_is_orthonormal() {
        for n in [
            Vector::X,
            Vector::Y,
            -Vector::Z,
            Vector::new(1.0, 2.0, -3.0).normalize(),
        ] {
            let [t1, t2] = tangent_basis(n);
            assert!(t1.dot(n).abs() < 1e-6 && t2.dot(n).abs() < 1e-6 && t1.dot(t2).abs() < 1e-6);
            assert!((t1.length() - 1.0).abs() < 1e-6 && (t2.length() - 1.0).abs() < 1e-6);
        }
    }
}
