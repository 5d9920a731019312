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
    pub inv_i: Matrix3,
    pub inv_i_local: Matrix3,
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
        inv_i_local: Matrix3::ZERO,
        inertia_local: Matrix3::ZERO,
        dynamic: false,
        moves: false,
    };
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
}

/// Two unit tangents orthogonal to the unit `n` (a deterministic basis).
pub(crate) fn tangent_basis(n: Vector) -> [Vector; 2] {
    let t1 = n.any_orthonormal_vector();
    [t1, n.cross(t1)]
}

fn effective_mass(a: &SolverBody, b: &SolverBody, ra: Vector, rb: Vector, dir: Vector) -> Real {
    let ca = ra.cross(dir);
    let cb = rb.cross(dir);
    let k = a.inv_mass + b.inv_mass + ca.dot(a.inv_i * ca) + cb.dot(b.inv_i * cb);
    if k > 0.0 && k.is_finite() {
        1.0 / k
    } else {
        0.0
    }
}

/// Effective masses and start velocities of every constraint (bodies as at the step's
/// start), and the softness for substep `h`.
pub(crate) fn prepare(
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
        for p in &mut c.points[..c.len] {
            p.local_a = a.q.inverse() * p.r_a;
            p.local_b = b.q.inverse() * p.r_b;
            p.normal_mass = effective_mass(a, b, p.r_a, p.r_b, c.normal);
            p.tangent_mass = [
                effective_mass(a, b, p.r_a, p.r_b, c.tangents[0]),
                effective_mass(a, b, p.r_a, p.r_b, c.tangents[1]),
            ];
            let dv = (b.v + b.w.cross(p.r_b)) - (a.v + a.w.cross(p.r_a));
            p.relative_velocity = c.normal.dot(dv);
            p.max_normal_impulse = 0.0;
        }
    }
}

fn apply(bodies: &mut [SolverBody], a: usize, b: usize, ra: Vector, rb: Vector, p: Vector) {
    let ba = &mut bodies[a];
    if ba.dynamic {
        ba.v -= ba.inv_mass * p;
        ba.w -= ba.inv_i * ra.cross(p);
    }
    let bb = &mut bodies[b];
    if bb.dynamic {
        bb.v += bb.inv_mass * p;
        bb.w += bb.inv_i * rb.cross(p);
    }
}

/// Applies the accumulated impulses.
pub(crate) fn warm_start(bodies: &mut [SolverBody], constraints: &[ContactConstraint]) {
    for c in constraints {
        for p in &c.points[..c.len] {
            let imp = c.normal * p.normal_impulse
                + c.tangents[0] * p.tangent_impulse[0]
                + c.tangents[1] * p.tangent_impulse[1];
            apply(bodies, c.a, c.b, p.r_a, p.r_b, imp);
        }
    }
}

/// One Gauss–Seidel pass over the constraints: normal impulses (soft with bias when
/// `use_bias`, rigid without), then friction.
pub(crate) fn solve(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    settings: &SolverSettings,
    inv_h: Real,
    use_bias: bool,
    reverse: bool,
) {
    for c in constraints.iter_mut() {
        let (ia, ib) = (c.a, c.b);
        let n = c.normal;
        for j in 0..c.len {
            let k = if reverse { c.len - 1 - j } else { j };
            let (a, b) = (bodies[ia], bodies[ib]);
            let p = &mut c.points[k];
            // Current separation from the bodies' motion since the step's start.
            let pra = a.q * p.local_a;
            let prb = b.q * p.local_b;
            let d = (b.dp - a.dp) + (prb - pra);
            let s = n.dot(d) + p.adjusted_separation;
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
            let dv = (b.v + b.w.cross(p.r_b)) - (a.v + a.w.cross(p.r_a));
            let vn = n.dot(dv);
            let imp = -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
            let new = (p.normal_impulse + imp).max(0.0);
            let imp = new - p.normal_impulse;
            p.normal_impulse = new;
            p.max_normal_impulse = p.max_normal_impulse.max(imp);
            let (ra, rb) = (p.r_a, p.r_b);
            apply(bodies, ia, ib, ra, rb, n * imp);
        }
        for j in 0..c.len {
            let k = if reverse { c.len - 1 - j } else { j };
            let (a, b) = (bodies[ia], bodies[ib]);
            let p = &mut c.points[k];
            let dv = (b.v + b.w.cross(p.r_b)) - (a.v + a.w.cross(p.r_a));
            let limit = c.friction * p.normal_impulse;
            let old = p.tangent_impulse;
            let mut new = [
                old[0] - p.tangent_mass[0] * c.tangents[0].dot(dv),
                old[1] - p.tangent_mass[1] * c.tangents[1].dot(dv),
            ];
            let len = (new[0] * new[0] + new[1] * new[1]).sqrt();
            if len > limit {
                let k = if len > 0.0 { limit / len } else { 0.0 };
                new = [new[0] * k, new[1] * k];
            }
            p.tangent_impulse = new;
            let imp = c.tangents[0] * (new[0] - old[0]) + c.tangents[1] * (new[1] - old[1]);
            let (ra, rb) = (p.r_a, p.r_b);
            apply(bodies, ia, ib, ra, rb, imp);
        }
    }
}

/// The restitution pass (module notes).
pub(crate) fn restitution(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    threshold: Real,
) {
    for c in constraints.iter_mut() {
        if c.restitution == 0.0 {
            continue;
        }
        let (ia, ib) = (c.a, c.b);
        for k in 0..c.len {
            let (a, b) = (bodies[ia], bodies[ib]);
            let p = &mut c.points[k];
            if p.relative_velocity > -threshold || p.max_normal_impulse == 0.0 {
                continue;
            }
            let dv = (b.v + b.w.cross(p.r_b)) - (a.v + a.w.cross(p.r_a));
            let vn = c.normal.dot(dv);
            let imp = -p.normal_mass * (vn + c.restitution * p.relative_velocity);
            let new = (p.normal_impulse + imp).max(0.0);
            let imp = new - p.normal_impulse;
            p.normal_impulse = new;
            p.max_normal_impulse = p.max_normal_impulse.max(imp);
            let (ra, rb) = (p.r_a, p.r_b);
            apply(bodies, ia, ib, ra, rb, c.normal * imp);
        }
    }
}

/// Velocities over one substep: gravity, and the gyroscopic step when enabled.
pub(crate) fn integrate_velocities(
    bodies: &mut [SolverBody],
    gravity: Vector,
    h: Real,
    gyroscopic: bool,
) {
    for b in bodies.iter_mut().filter(|b| b.dynamic) {
        b.v += gravity * h;
        if gyroscopic {
            b.w = gyroscopic_step(b.w, b.q, b.inertia_local, h);
        }
    }
}

/// Positions over one substep; the world inverse inertia follows the rotation.
pub(crate) fn integrate_positions(bodies: &mut [SolverBody], h: Real) {
    for b in bodies.iter_mut().filter(|b| b.moves) {
        b.dp += b.v * h;
        b.q = integrate_rotation(b.q, b.w, h);
        if b.dynamic {
            let r = Matrix3::from_quat(b.q);
            b.inv_i = r * b.inv_i_local * r.transpose();
        }
    }
}

/// One full soft step of `dt` over `bodies` and `constraints` (module notes).
pub(crate) fn step(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    settings: &SolverSettings,
    gravity: Vector,
    dt: Real,
) {
    let n = settings.substeps.max(1);
    let h = dt / n as Real;
    let inv_h = 1.0 / h;
    prepare(bodies, constraints, settings, h);
    // The points of a manifold are visited forwards and backwards in turn (symmetric
    // Gauss–Seidel), so that a new resting contact does not turn its body towards the
    // point solved first.
    let mut reverse = false;
    for _ in 0..n {
        integrate_velocities(bodies, gravity, h, settings.gyroscopic);
        warm_start(bodies, constraints);
        solve(bodies, constraints, settings, inv_h, true, reverse);
        reverse = !reverse;
        integrate_positions(bodies, h);
        for _ in 0..settings.relax_iterations {
            solve(bodies, constraints, settings, inv_h, false, reverse);
            reverse = !reverse;
        }
    }
    restitution(bodies, constraints, settings.restitution_threshold);
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
