//! The nearest point of a convex polyhedron to a target: the character's position
//! solver (push out of several contacts at once) and its velocity clipping (glide along
//! several planes at once).
//!
//! # The problem
//!
//! Given planes `n_i · x ≥ d_i` (unit normals `n_i` pointing from the obstacle towards
//! the character, `d_i` the distance the character must move along `n_i`) and a target
//! displacement `t`, find
//!
//! ```text
//! x* = argmin ½ ‖x − t‖²   subject to   n_i · x ≥ d_i  for every i.
//! ```
//!
//! With one plane and `d = 0` this is seed 004's glide, `v' = v − min(0, v·n) n`: the
//! part of the motion into the plane is removed. With two planes the answer runs along
//! their crease, with three independent ones it stops in the corner — the cases a
//! sequential clip (clip by plane 1, then by plane 2) gets wrong: clipping by the
//! second plane can push the motion back into the first, which is the jitter of
//! characters in corners.
//!
//! # The method: active sets, exhaustively
//!
//! The objective is strictly convex, so the answer is unique when the polyhedron is not
//! empty, and it is characterised by the KKT conditions: `x* = t + Σ_{i∈A} λ_i n_i` with
//! `λ_i ≥ 0`, `n_i · x* = d_i` on the active set `A`, and every plane satisfied. By the
//! conic Carathéodory theorem an active set of linearly independent normals suffices,
//! and in 3D that is at most three planes. For a given `A` the multipliers solve the
//! Gram system `G λ = d_A − N_A t`, `G_ij = n_i · n_j` (1×1, 2×2 or 3×3, solved by
//! Cramer's rule). The solver tries `A = ∅`, then every single plane, every pair, every
//! triple, and returns the first candidate that satisfies all the conditions (within a
//! tolerance relative to the problem's size). That is at most
//! `1 + m + m(m−1)/2 + m(m−1)(m−2)/6` candidates for `m ≤` [`MAX_PLANES`] planes — 697
//! for 16 — each checked against `m` planes: bounded, exact up to rounding, and with no
//! convergence question (Box2D's mover solves the same problem by projected
//! Gauss–Seidel, which needs many sweeps when the planes meet at acute angles; Jolt's
//! character solver clips sequentially in time order).
//!
//! # When no point satisfies every plane
//!
//! Opposing planes that ask for more than the gap between them (a character squeezed
//! between a floor and a ceiling that came down) have no feasible point. The solver then
//! runs a bounded number of Cimmino steps (simultaneous projection onto every violated
//! plane, averaged), which converge to a least-squares compromise of the violations —
//! for two opposing planes, the midpoint — and says so with
//! [`PlaneStatus::Infeasible`].

// Negated comparisons (`!(x > y)`) are meant: NaN takes the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use minkowski::{Real, Vector};

use super::tolerance::{MIN_GRAM_DETERMINANT, PLANE_TOLERANCE, UNIT_LENGTH_TOLERANCE};

/// The most planes one solve takes ([`solve_planes`] refuses more): the character keeps
/// the deepest ones.
pub const MAX_PLANES: usize = 16;

/// Cimmino steps for an infeasible set.
const COMPROMISE_STEPS: u32 = 64;

/// One constraint `normal · x ≥ offset` on the displacement `x` (world frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollisionPlane {
    /// Unit normal, from the obstacle towards the character (world frame).
    pub normal: Vector,
    /// How far the character must move along `normal` (length; negative: it may move
    /// that far towards the obstacle, 0: it may not approach at all).
    pub offset: Real,
}

impl CollisionPlane {
    /// A plane through the origin: motion along `normal` only away from the obstacle
    /// (velocity clipping).
    pub fn through_origin(normal: Vector) -> Self {
        Self {
            normal,
            offset: 0.0,
        }
    }

    /// How far `x` is beyond the plane (length; negative: it violates it).
    pub fn separation(&self, x: Vector) -> Real {
        self.normal.dot(x) - self.offset
    }
}

/// How [`solve_planes`] found its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaneStatus {
    /// The target satisfies every plane and is the answer.
    Free,
    /// The nearest feasible point, with one to three planes active.
    Solved,
    /// No point satisfies every plane: the answer is a least-squares compromise of the
    /// violations.
    Infeasible,
}

/// The answer of [`solve_planes`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlaneSolution {
    /// The displacement (world frame, length): the nearest point to the target that
    /// satisfies every plane, or the compromise when none does.
    pub delta: Vector,
    /// The indices (into the planes given) of the active set, `None` past its size.
    pub active: [Option<u8>; 3],
    /// How the answer was found.
    pub status: PlaneStatus,
    /// Candidate active sets tried (or compromise steps taken).
    pub iterations: u32,
}

/// A bad plane set given to [`solve_planes`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlaneError {
    /// More planes than [`MAX_PLANES`].
    #[error("at most {max} planes, got {got}", max = MAX_PLANES)]
    TooManyPlanes {
        /// The number given.
        got: usize,
    },
    /// A normal that is not a finite unit vector, or a non-finite offset.
    #[error("plane {index}: the normal must be a finite unit vector and the offset finite")]
    BadPlane {
        /// Which plane.
        index: usize,
    },
    /// A target with a NaN or infinite component.
    #[error("the target must be finite")]
    BadTarget,
}

/// The nearest displacement to `target` that satisfies every plane (see the module
/// notes for the method and its bounds). Frames: whatever frame the normals and the
/// target share (the character uses the world frame).
///
/// # Errors
/// [`PlaneError`] for more than [`MAX_PLANES`] planes, a normal that is not a unit
/// vector (within [`UNIT_LENGTH_TOLERANCE`]), a non-finite offset or target.
pub fn solve_planes(
    target: Vector,
    planes: &[CollisionPlane],
) -> Result<PlaneSolution, PlaneError> {
    if planes.len() > MAX_PLANES {
        return Err(PlaneError::TooManyPlanes { got: planes.len() });
    }
    if !target.is_finite() {
        return Err(PlaneError::BadTarget);
    }
    for (index, p) in planes.iter().enumerate() {
        let unit = p.normal.is_finite() && (p.normal.length() - 1.0).abs() <= UNIT_LENGTH_TOLERANCE;
        if !(unit && p.offset.is_finite()) {
            return Err(PlaneError::BadPlane { index });
        }
    }
    Ok(solve_unchecked(target, planes))
}

/// [`solve_planes`] on planes the caller built itself (unit normals, finite numbers, at
/// most [`MAX_PLANES`]).
pub(crate) fn solve_unchecked(target: Vector, planes: &[CollisionPlane]) -> PlaneSolution {
    let scale = 1.0
        + target.abs().max_element()
        + planes.iter().map(|p| p.offset.abs()).fold(0.0, Real::max);
    let tol = PLANE_TOLERANCE * scale;
    let feasible = |x: Vector| planes.iter().all(|p| p.separation(x) >= -tol);
    let mut iterations = 1;
    if feasible(target) {
        return PlaneSolution {
            delta: target,
            active: [None; 3],
            status: PlaneStatus::Free,
            iterations,
        };
    }
    let m = planes.len();
    // The residual each plane asks of the target: d_i − n_i · t.
    let r = |i: usize| planes[i].offset - planes[i].normal.dot(target);
    let n = |i: usize| planes[i].normal;
    let done = |x: Vector, active: [Option<u8>; 3], iterations: u32| PlaneSolution {
        delta: x,
        active,
        status: PlaneStatus::Solved,
        iterations,
    };
    // Single planes: λ = r_i.
    for i in 0..m {
        iterations += 1;
        let l = r(i);
        if l >= -tol {
            let x = target + n(i) * l;
            if feasible(x) {
                return done(x, [Some(i as u8), None, None], iterations);
            }
        }
    }
    // Pairs: [1 c; c 1] λ = r, det = 1 − c².
    for i in 0..m {
        for j in i + 1..m {
            iterations += 1;
            let c = n(i).dot(n(j));
            let det = 1.0 - c * c;
            if !(det > MIN_GRAM_DETERMINANT) {
                continue;
            }
            let (ri, rj) = (r(i), r(j));
            let li = (ri - c * rj) / det;
            let lj = (rj - c * ri) / det;
            if li >= -tol && lj >= -tol {
                let x = target + n(i) * li + n(j) * lj;
                if feasible(x) {
                    return done(x, [Some(i as u8), Some(j as u8), None], iterations);
                }
            }
        }
    }
    // Triples: the Gram matrix of three normals, det = (n_i × n_j · n_k)²; the
    // multipliers by Cramer's rule with the dual basis: x − t = Σ λ n, and
    // n_a · (x − t) = r_a, so x − t = Σ r_a b_a with b the dual basis of the n's.
    for i in 0..m {
        for j in i + 1..m {
            for k in j + 1..m {
                iterations += 1;
                let (a, b, c) = (n(i), n(j), n(k));
                let triple = a.cross(b).dot(c);
                if !(triple * triple > MIN_GRAM_DETERMINANT) {
                    continue;
                }
                // The displacement that meets all three planes exactly.
                let (ra, rb, rc) = (r(i), r(j), r(k));
                let y = (b.cross(c) * ra + c.cross(a) * rb + a.cross(b) * rc) / triple;
                // Its multipliers: y = λ_a a + λ_b b + λ_c c.
                let la = y.dot(b.cross(c)) / triple;
                let lb = y.dot(c.cross(a)) / triple;
                let lc = y.dot(a.cross(b)) / triple;
                if la >= -tol && lb >= -tol && lc >= -tol {
                    let x = target + y;
                    if feasible(x) {
                        return done(x, [Some(i as u8), Some(j as u8), Some(k as u8)], iterations);
                    }
                }
            }
        }
    }
    // No candidate: infeasible (or rounding beyond the tolerance). Cimmino's
    // simultaneous projections, averaged over all the planes.
    let mut x = target;
    for step in 0..COMPROMISE_STEPS {
        let mut sum = Vector::ZERO;
        for p in planes {
            let s = p.separation(x);
            if s < 0.0 {
                sum -= p.normal * s;
            }
        }
        let move_by = sum / m.max(1) as Real;
        x += move_by;
        if !(move_by.length() > tol) {
            iterations += step + 1;
            break;
        }
        if step + 1 == COMPROMISE_STEPS {
            iterations += COMPROMISE_STEPS;
        }
    }
    PlaneSolution {
        delta: x,
        active: [None; 3],
        status: PlaneStatus::Infeasible,
        iterations,
    }
}

/// Seed 004's glide for several planes at once: the velocity nearest `v` that moves
/// into none of the planes (`n · v' ≥ 0` for every unit normal `n`): `v` itself when it
/// moves into none, `v − (v·n) n` against one plane, the crease direction against two,
/// zero in a corner of three. Always feasible (zero satisfies every plane). Normals past
/// [`MAX_PLANES`] are ignored (the caller keeps the ones that matter first).
pub fn clip_velocity(v: Vector, normals: &[Vector]) -> Vector {
    let mut planes = [CollisionPlane::through_origin(Vector::ZERO); MAX_PLANES];
    let mut m = 0;
    for n in normals.iter().take(MAX_PLANES) {
        planes[m] = CollisionPlane::through_origin(*n);
        m += 1;
    }
    let s = solve_unchecked(v, &planes[..m]);
    // A cone through the origin is never empty; a rounding failure falls back to the
    // one answer that satisfies every plane.
    if s.status == PlaneStatus::Infeasible {
        Vector::ZERO
    } else {
        s.delta
    }
}
