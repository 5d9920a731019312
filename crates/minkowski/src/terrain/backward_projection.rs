//! Backward projection: from a point in space to `(u, v, t)` on a base triangle.
//!
//! Seed 002 §2.4, §3.2. Given a point `P'`, find `(u, v, t)` with
//!
//! ```text
//! P' = p(u, v) + t n(u, v)                                     (Eq 2.1–2.2 inverted)
//! ```
//!
//! With `E_k = P_k − P0`, `F_k = N_k − N0` and `w = P' − P0` this is
//! `w − t N0 = u (E1 + t F1) + v (E2 + t F2)`: three equations, quadratic in the
//! unknowns. A point of the terrain is inside the triangle's prism when a solution has
//! `u, v ≥ 0`, `u + v ≤ 1` (§2.4.2: the vertex collides when `t < d(u, v)`).
//!
//! Three methods, one interface ([`backward_project`], [`BackProjectionMethod`]):
//!
//! * **Aligned plane** (§2.4.1; [`BackProjectionMethod::AlignedPlane`]): the old closed
//!   form, exact only when the three directions are parallel.
//! * **Aligned projection direction** (§3.2.1–3.2.2;
//!   [`BackProjectionMethod::AlignedProjection`]): minimise `|n × (P' − p)|²` by BFGS.
//! * **Alpha plane** (§3.2.3; [`BackProjectionMethod::AlphaPlane`]): the cubic in `t`,
//!   solved completely.
//!
//! The derivations are in each method's module. All three work on the triangle's
//! normalised copy (lengths and directions scaled by powers of two to about 1, `P0` at
//! the origin: see [`BaseTriangle`]) and share what this module defines: which answers
//! count as solutions and as inside, and which solution is reported.
//!
//! # Which solution
//!
//! A point can have several solutions: where directions converge, the lines
//! `p + t n` of different base points cross, and the forward projection folds. The
//! answer is, among the solutions inside the triangle, the one with the **smallest
//! `|t|`**: the one nearest the base along its direction. At `t = 0` the solution is
//! unique (`P' = p(u, v)`), and the smallest-`|t|` solution is the one reached by
//! following it continuously away from the base until the first fold, which is the
//! surface a displacement map describes (displacements are short against the
//! directions: within ±2 in the thesis, §3.5.7). It is also what the thesis's Newton
//! iteration from its implicit start `α = 0` aims at, without the jumps that land it on
//! a far root (Table 4.3). With no solution inside, the answer is the solution whose
//! base point `p(u, v)` is nearest the triangle (ties: smallest `|t|`), reported with
//! `inside: false`.
//!
//! # Outcomes
//!
//! A solution is accepted when the forward projection of the answer is within
//! [`BACKPROJECTION_RESIDUAL`]` σ` of the point (σ the larger of the longest edge, `|w|`
//! and `|t n(u, v)|`), and inside when `u, v ≥ −δ`, `u + v ≤ 1 + δ` with `δ =`
//! [`BACKPROJECTION_INSIDE_SLACK`]. Every answer carries a [`BackProjectionStatus`], its
//! iteration counts and its residual; none is NaN. Only the point is checked for errors
//! ([`BackProjectError`]); the triangle was checked when built.

use super::base_triangle::{BaseTriangle, Normalised};
use super::{aligned_plane, aligned_projection, alpha_plane};
use crate::math::{Point, Real, Vector};
use crate::shape::MAX_MAGNITUDE;
use crate::tolerance::{
    BACKPROJECTION_INSIDE_SLACK, BACKPROJECTION_MAX_REACH, BACKPROJECTION_RESIDUAL,
    TERRAIN_MIN_SINE,
};

/// Which backward projection to run (the protocol's `method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum BackProjectionMethod {
    /// `aligned_plane` (§2.4.1): the plane through the point parallel to the base
    /// triangle; no iteration. Exact when the three directions are parallel, an
    /// approximation otherwise (status [`BackProjectionStatus::Approximate`]).
    AlignedPlane,
    /// `aligned_projection` (§3.2.1–3.2.2, Alg 5): BFGS on `|n × (P' − p)|²` over
    /// `(u, v)`, from several starts until one reaches a solution inside.
    AlignedProjection,
    /// `alpha_plane` (§3.2.3): every real root of the cubic of Eq 3.4, the inside one
    /// nearest the base kept. The robust method.
    AlphaPlane,
}

impl BackProjectionMethod {
    /// Every method, in protocol order.
    pub const ALL: [BackProjectionMethod; 3] = [
        BackProjectionMethod::AlignedPlane,
        BackProjectionMethod::AlignedProjection,
        BackProjectionMethod::AlphaPlane,
    ];

    /// The protocol name: `"aligned_plane"`, `"aligned_projection"`, `"alpha_plane"`.
    pub fn as_str(self) -> &'static str {
        match self {
            BackProjectionMethod::AlignedPlane => "aligned_plane",
            BackProjectionMethod::AlignedProjection => "aligned_projection",
            BackProjectionMethod::AlphaPlane => "alpha_plane",
        }
    }

    /// The method named `name` (a protocol name), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }
}

/// How a backward projection obtained its answer (the protocol's `status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum BackProjectionStatus {
    /// `converged`: the answer is a solution: its forward projection is within
    /// [`BACKPROJECTION_RESIDUAL`]` σ` of the point.
    Converged,
    /// `approximate`: the aligned plane's answer, whose forward projection misses the
    /// point by more than that (skewed directions: Tables 4.2, 4.3). `residual` says by
    /// how much.
    Approximate,
    /// `local_minimum`: BFGS stopped, from every start, where `|n × (P' − p)|²` is
    /// stationary but not zero (or where `n(u, v) = 0`): not a solution.
    LocalMinimum,
    /// `max_iterations`: an iteration bound was reached first; the answer is the best
    /// found, not a solution.
    MaxIterations,
    /// `numerical_limit`: the iteration stopped at the limit of the arithmetic short of
    /// the residual tolerance (a point at a fold of the projection, where the solution is
    /// ill-conditioned); the answer is the best found.
    NumericalLimit,
    /// `no_solution`: the alpha plane's cubic has no usable real root (no solution
    /// exists, or only at a collapsed alpha triangle); the answer is the aligned plane's.
    NoSolution,
    /// `degenerate`: the aligned plane's triangle collapsed to a segment at the point's
    /// height; the answer is the orthogonal projection onto the base triangle's plane
    /// (`u`, `v`) with the aligned plane's `t`.
    Degenerate,
}

impl BackProjectionStatus {
    /// The protocol name (`"converged"`, `"approximate"`, `"local_minimum"`,
    /// `"max_iterations"`, `"numerical_limit"`, `"no_solution"`, `"degenerate"`).
    pub fn as_str(self) -> &'static str {
        match self {
            BackProjectionStatus::Converged => "converged",
            BackProjectionStatus::Approximate => "approximate",
            BackProjectionStatus::LocalMinimum => "local_minimum",
            BackProjectionStatus::MaxIterations => "max_iterations",
            BackProjectionStatus::NumericalLimit => "numerical_limit",
            BackProjectionStatus::NoSolution => "no_solution",
            BackProjectionStatus::Degenerate => "degenerate",
        }
    }
}

/// The answer of a backward projection: `point ≈ p(u, v) + t n(u, v)`
/// ([`BaseTriangle::forward_project`]`(u, v, t)`), in the triangle's frame.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BackProjection {
    /// Barycentric parameter along `P1 − P0` (Eq 2.1).
    pub u: Real,
    /// Barycentric parameter along `P2 − P0`.
    pub v: Real,
    /// The parameter along the interpolated direction `n(u, v)` (relative to its length,
    /// as a displacement `d`); for the aligned plane `Σ λ_i α_i` with `λ = (1 − u − v, u,
    /// v)`.
    pub t: Real,
    /// Whether `(u, v)` lies in the triangle: `u, v ≥ −δ`, `u + v ≤ 1 + δ`
    /// (`δ =` [`BACKPROJECTION_INSIDE_SLACK`]). False also when no solution exists inside
    /// and the answer is the nearest one outside.
    pub inside: bool,
    /// Iterations: 0 for the aligned plane; BFGS iterations over all starts for the
    /// aligned projection; Newton (and bisection) steps on the chosen root, polishing
    /// included, for the alpha plane.
    pub iterations: u32,
    /// The aligned projection's line-search halvings over all starts (the thesis's
    /// second count, "3+6"); 0 for the other methods.
    pub line_search_steps: u32,
    /// `|point − forward_project(u, v, t)|` (length units): 0 up to rounding for a
    /// solution, the method's error for an approximation.
    pub residual: Real,
    /// How the answer was obtained.
    pub status: BackProjectionStatus,
}

/// Why a point could not be backward-projected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BackProjectError {
    /// The point has a NaN or infinite coordinate.
    #[error("point must have finite coordinates")]
    NonFinitePoint,
    /// A coordinate's magnitude is above [`MAX_MAGNITUDE`].
    #[error("point magnitude must be <= {max}, got {value}")]
    PointOutOfRange {
        /// The coordinate given.
        value: Real,
        /// The limit, [`MAX_MAGNITUDE`].
        max: Real,
    },
    /// The point is farther from `P0` than [`BACKPROJECTION_MAX_REACH`] times the
    /// triangle's longest edge.
    #[error(
        "point is {reach} triangle sizes from the base triangle, more than the {max} \
         a backward projection accepts"
    )]
    PointTooFar {
        /// The distance from `P0` in units of the longest edge (about).
        reach: Real,
        /// The limit, [`BACKPROJECTION_MAX_REACH`].
        max: Real,
    },
    /// The answer is not representable: `t` overflows (directions very short against
    /// the distances involved).
    #[error("the backward projection's answer is not representable (t overflows)")]
    NotRepresentable,
}

/// A method's answer on the normalised copy, before scaling back.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Solution {
    pub u: Real,
    pub v: Real,
    /// `t` on the normalised copy.
    pub tau: Real,
    pub iterations: u32,
    pub line_search_steps: u32,
    pub status: BackProjectionStatus,
}

/// Whether `(u, v)` is in the triangle, within [`BACKPROJECTION_INSIDE_SLACK`].
pub(super) fn is_inside(u: Real, v: Real) -> bool {
    let d = BACKPROJECTION_INSIDE_SLACK;
    u >= -d && v >= -d && u + v <= 1.0 + d
}

/// `n(u, v)` on the normalised copy.
pub(super) fn direction(nz: &Normalised, u: Real, v: Real) -> Vector {
    nz.n[0] + u * nz.f1 + v * nz.f2
}

/// `|w − (p(u, v) + τ n(u, v))|` and the scale σ it is measured against, on the
/// normalised copy.
pub(super) fn residual(nz: &Normalised, w: Vector, u: Real, v: Real, tau: Real) -> (Real, Real) {
    let n = direction(nz, u, v);
    let step = tau * n;
    let miss = w - (u * nz.e1 + v * nz.e2 + step);
    let sigma = (1.0 as Real)
        .max(w.length())
        .max(step.length())
        .max((u * nz.e1 + v * nz.e2).length());
    (miss.length(), sigma)
}

/// Whether `(u, v, τ)` solves the equation within [`BACKPROJECTION_RESIDUAL`].
pub(super) fn is_solution(nz: &Normalised, w: Vector, u: Real, v: Real, tau: Real) -> bool {
    let (miss, sigma) = residual(nz, w, u, v, tau);
    miss <= BACKPROJECTION_RESIDUAL * sigma
}

/// The distance (normalised lengths) from the base point `p(u, v)` to the triangle: 0
/// inside.
pub(super) fn outside_distance(nz: &Normalised, u: Real, v: Real) -> Real {
    if is_inside(u, v) {
        return 0.0;
    }
    let x = u * nz.e1 + v * nz.e2;
    let segment = |a: Vector, b: Vector| {
        let ab = b - a;
        let s = ((x - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
        (x - (a + s * ab)).length()
    };
    segment(Vector::ZERO, nz.e1)
        .min(segment(Vector::ZERO, nz.e2))
        .min(segment(nz.e1, nz.e2))
}

/// The barycentric coordinates `(u, v)` of `q` in the plane of `a1`, `a2`:
/// `q ≈ u a1 + v a2`, the component of `q` across the plane ignored; `None` when `a1`
/// and `a2` are (nearly) parallel. The three are first scaled by one power of two, so
/// nothing overflows.
pub(super) fn plane_coordinates(a1: Vector, a2: Vector, q: Vector) -> Option<(Real, Real)> {
    let m = a1.abs().max(a2.abs()).max(q.abs()).max_element();
    if !(m.is_finite() && m > 0.0) {
        return None;
    }
    let s = crate::math::inverse_power_of_two(m);
    let (a1, a2, q) = (a1 * s, a2 * s, q * s);
    let normal = a1.cross(a2);
    let nn = normal.length_squared();
    if nn.is_nan() || nn <= (TERRAIN_MIN_SINE * a1.length() * a2.length()).powi(2) || nn == 0.0 {
        return None;
    }
    let u = q.cross(a2).dot(normal) / nn;
    let v = a1.cross(q).dot(normal) / nn;
    (u.is_finite() && v.is_finite()).then_some((u, v))
}

/// Backward-projects `point` onto `triangle` with `method`: `(u, v, t)` such that
/// `point ≈ triangle.forward_project(u, v, t)`, the inside solution nearest the base
/// when there are several, or the solution nearest the triangle with `inside: false`
/// when none is inside (see the module notes).
///
/// The point is in the triangle's frame and units. Bounded: at most
/// [`crate::tolerance::BFGS_MAX_ITERATIONS`] BFGS iterations per start (5 starts), at
/// most [`crate::tolerance::ALPHA_PLANE_MAX_ITERATIONS`] Newton steps per cubic root.
///
/// # Errors
/// [`BackProjectError`]: a non-finite or out-of-range point, a point farther than
/// [`BACKPROJECTION_MAX_REACH`] triangle sizes, or a `t` that overflows.
///
/// ```
/// use minkowski::terrain::{backward_project, BackProjectionMethod, BaseTriangle};
/// use minkowski::Vector;
///
/// let tri = BaseTriangle::new(
///     [Vector::new(0.0, 0.0, 0.0), Vector::new(4.0, 0.0, 1.0), Vector::new(2.0, 4.0, 2.0)],
///     [Vector::new(-3.0, -2.0, 2.0), Vector::new(1.0, 0.0, 1.0), Vector::new(0.0, 1.0, 1.0)],
/// )
/// .unwrap();
/// let point = tri.forward_project(0.3, 0.2, 1.0);
/// let b = backward_project(&tri, point, BackProjectionMethod::AlphaPlane).unwrap();
/// assert!(b.inside && (b.u - 0.3).abs() < 1e-4 && (b.v - 0.2).abs() < 1e-4);
/// assert!((b.t - 1.0).abs() < 1e-4);
/// ```
pub fn backward_project(
    triangle: &BaseTriangle,
    point: Point,
    method: BackProjectionMethod,
) -> Result<BackProjection, BackProjectError> {
    if !point.is_finite() {
        return Err(BackProjectError::NonFinitePoint);
    }
    if let Some(value) = point
        .to_array()
        .into_iter()
        .find(|x| x.abs() > MAX_MAGNITUDE)
    {
        return Err(BackProjectError::PointOutOfRange {
            value,
            max: MAX_MAGNITUDE,
        });
    }
    let nz = &triangle.norm;
    let w = (point - triangle.vertices()[0]) * nz.pos_scale;
    let reach = w.length();
    if reach.is_nan() || reach > BACKPROJECTION_MAX_REACH {
        return Err(BackProjectError::PointTooFar {
            reach,
            max: BACKPROJECTION_MAX_REACH,
        });
    }
    let s = match method {
        BackProjectionMethod::AlignedPlane => aligned_plane::solve(nz, w),
        BackProjectionMethod::AlignedProjection => aligned_projection::solve(nz, w),
        BackProjectionMethod::AlphaPlane => alpha_plane::solve(nz, w),
    };
    let (miss, _) = residual(nz, w, s.u, s.v, s.tau);
    // t = τ · dir_scale / pos_scale, residual = miss / pos_scale (both exact scalings
    // unless they overflow).
    let t = s.tau * nz.dir_scale / nz.pos_scale;
    let residual = miss / nz.pos_scale;
    if !(t.is_finite() && residual.is_finite() && s.u.is_finite() && s.v.is_finite()) {
        return Err(BackProjectError::NotRepresentable);
    }
    Ok(BackProjection {
        u: s.u,
        v: s.v,
        t,
        inside: is_inside(s.u, s.v),
        iterations: s.iterations,
        line_search_steps: s.line_search_steps,
        residual,
        status: s.status,
    })
}

impl BaseTriangle {
    /// Backward-projects `point` with `method`: the same as [`backward_project`].
    ///
    /// # Errors
    /// See [`backward_project`].
    pub fn backward_project(
        &self,
        point: Point,
        method: BackProjectionMethod,
    ) -> Result<BackProjection, BackProjectError> {
        backward_project(self, point, method)
    }
}
