//! CCSA: conservative convex separable approximations with MMA-type approximating
//! functions (Svanberg, "A class of globally convergent optimization methods based on
//! conservative convex separable approximations", SIAM J. Optim. 12(2), 2002; seed 002,
//! §3.5.2–3.5.3, Eq 3.8–3.17, Alg 7).
//!
//! # The problem (Eq 3.8)
//!
//! ```text
//! minimise    f0(x)
//! subject to  fi(x) ≤ 0,              i = 1..m
//!             xmin_j ≤ x_j ≤ xmax_j,  j = 1..n
//! ```
//!
//! with `f0..fm` continuously differentiable, given by values and gradients through
//! [`CcsaProblem`]. The bounds must be finite: they set the initial size of the moving
//! asymptotes (below), and the thesis found NLopt looping with bounds the optimum
//! pressed against (§3.5.7) — a caller picks bounds well away from any optimum it expects.
//!
//! # The extended problem (Eq 3.9–3.10)
//!
//! Every constraint gets an elastic variable `y_i ≥ 0`:
//!
//! ```text
//! minimise    f0(x) + Σ (c y_i + ½ y_i²)
//! subject to  fi(x) − y_i ≤ 0,   x in the box,   y ≥ 0
//! ```
//!
//! This is Eq 3.10 with `a_0 = 1`, `a_i = 0` (so its `z` is 0 at every optimum and is
//! left out), `c_i = c` ([`CcsaOptions::penalty`]) and `d_i = 1`. It is feasible from any
//! start, so an infeasible start is handled: the iterates move towards feasibility as
//! the penalty `c y_i` dominates. When the original problem is feasible and `c` exceeds
//! its Lagrange multipliers, its solutions have `y = 0` and solve Eq 3.8; a final
//! `y_i > 0` beyond [`CcsaOptions::feasibility_tolerance`] is reported as
//! [`CcsaStatus::Infeasible`].
//!
//! # Outer iterations: the approximation (Eq 3.12–3.15)
//!
//! At the iterate `ξ = x⁽ᵏ⁾` each `f_i` is replaced by the convex separable
//!
//! ```text
//! g_i(x) = f_i(ξ) + Σ_j [σ_j² f'_ij d_j + σ_j |f'_ij| d_j²] / (σ_j² − d_j²)
//!                 + ρ_i · ½ Σ_j d_j² / (σ_j² − d_j²),          d_j = x_j − ξ_j
//! ```
//!
//! (`f'_ij = ∂f_i/∂x_j(ξ)`), the `v_i + ρ_i w_i` of Eq 3.15. Equivalently (Eq 3.13–3.14)
//! `g_i = Σ_j p_ij/(u_j − x_j) + q_ij/(x_j − l_j) + r_i` with moving asymptotes
//! `u_j, l_j = ξ_j ± σ_j` and
//!
//! ```text
//! p_ij = σ_j² max(0, f'_ij) + ρ_i σ_j / 4,    q_ij = σ_j² max(0, −f'_ij) + ρ_i σ_j / 4.
//! ```
//!
//! `g_i` matches `f_i` in value and gradient at `ξ` and is strictly convex on
//! `(l_j, u_j)`. The subproblem minimises the extended problem with `g_i` in place of
//! `f_i`, over the box cut down to `X⁽ᵏ⁾ = [ξ_j − 0.9 σ_j, ξ_j + 0.9 σ_j]` (Eq 3.11).
//!
//! # Inner iterations: conservativeness (Alg 7, Eq 3.16)
//!
//! The subproblem's solution `x̂` is accepted when every approximation is conservative
//! there, `g_i(x̂) ≥ f_i(x̂)` for `i = 0..m` (to a rounding slack). Otherwise each
//! offending `ρ_i` grows and the subproblem is solved again. The thesis sets
//! `ρ_i ← ρ_i + δ_i` with `δ_i = (f_i(x̂) − g_i(x̂)) / w(x̂)`, which makes `g_i(x̂) = f_i(x̂)`
//! exactly; here, as in Svanberg's paper (§4), `ρ_i ← min(1.1 (ρ_i + δ_i), 10 ρ_i)`, which
//! makes it strictly conservative there and bounds the number of inner iterations. The
//! extended objective then decreases at every accepted step, which is what makes the
//! method globally convergent.
//!
//! # Stopping
//!
//! After an accepted step: converged when no variable moved by more than
//! `x_tolerance_rel |x_j| + x_tolerance_abs`, or the extended objective (`f0` at feasible
//! points) changed by at most `f_tolerance_rel |·| + f_tolerance_abs`; then
//! [`CcsaStatus::Converged`] if feasible, else [`CcsaStatus::Infeasible`]. Every loop is
//! capped ([`CcsaOptions`]): §3.5.6 saw NLopt run forever when rounding made the iterate
//! oscillate.
//!
//! # Parameter updates (Eq 3.16–3.17)
//!
//! * `ρ_i = 1` at the start; each outer iteration starts from `max(0.1 ρ_i, ρ_min)`.
//! * `σ_j = ½ (xmax_j − xmin_j)` for the first two iterations, then `σ_j ← γ_j σ_j` with
//!   `γ_j = 0.7` when `x_j` oscillated over the last two steps, `1.2` when it moved
//!   monotonically, `1` when it stood still; kept in
//!   `[1e-10 (xmax_j − xmin_j), 10 (xmax_j − xmin_j)]` (as NLopt does).
//!
//! # The subproblem's dual
//!
//! For multipliers `λ ≥ 0` the Lagrangian of the subproblem is separable: in `x_j` it is
//! `P_j/(u_j − x_j) + Q_j/(x_j − l_j)` plus terms free of `x`, with
//! `P_j = Σ_i w_i p_ij`, `Q_j = Σ_i w_i q_ij` (`w_0 = 1`, `w_i = λ_i`), minimised at
//!
//! ```text
//! x_j(λ) = ξ_j + σ_j (√Q_j − √P_j) / (√Q_j + √P_j),   clamped to the box,
//! ```
//!
//! and in `y_i` it is minimised at `y_i = max(0, λ_i − c)`. The dual function
//! `φ(λ) = L(x(λ), y(λ), λ)` is concave and continuously differentiable with
//! `∂φ/∂λ_i = g_i(x(λ)) − y_i(λ)`; its maximiser over `λ ≥ 0` gives the subproblem's
//! unique solution. It is maximised by a projected Newton method (Bertsekas, "Projected
//! Newton methods for optimization problems with simple constraints", SIAM J. Control
//! Optim. 20(2), 1982): the multipliers at zero with a negative derivative are held
//! there, and on the others the step solves `(G D Gᵀ + Y) Δ = ∇φ`, where `G` is the
//! Jacobian of the `g_i` at `x(λ)`, `D_j` the inverse curvature of the Lagrangian in
//! `x_j` (0 where `x_j` is clamped) and `Y` marks the multipliers above `c`, followed by
//! an Armijo search along the projection arc. `G` is the sparse part of the gradients
//! plus the rank-one `ρ_i ω_j` part of the penalty term, so `G D Gᵀ` is assembled from
//! sparse column products. The dual iterations are bounded; an inexact answer only costs
//! an inner iteration, since acceptance is decided on the true functions.
//!
//! # Departures from NLopt's `LD_MMA`
//!
//! NLopt maximises the same dual with its own quadratic CCSA method and has no elastic
//! variables (an infeasible subproblem makes its dual unbounded, and it then stops);
//! the approximation, the `ρ` and `σ` rules and the acceptance test are the same, so
//! both converge to the same local optimum (the bench crate's `nlopt` feature compares
//! them).
//!
//! # Precision
//!
//! Everything is `f64` in both builds of the library: this is a preprocessing tool, and
//! its answers are held to 1e-6 against other solvers.

// Dense numerical loops over parallel arrays read best with indices.
#![allow(clippy::needless_range_loop)]

use crate::tolerance::{
    CCSA_DUAL_TOLERANCE, CCSA_FEASIBILITY, CCSA_F_TOLERANCE_REL, CCSA_X_TOLERANCE_ABS,
    CCSA_X_TOLERANCE_REL,
};

/// A smooth inequality-constrained problem for [`ccsa_minimize`]: `n` variables, an
/// objective `f0` and `m` constraints `f_i(x) ≤ 0`.
pub trait CcsaProblem {
    /// The number of variables `n` (at least 1).
    fn dimension(&self) -> usize;

    /// The number of constraints `m` (0 or more).
    fn constraint_count(&self) -> usize;

    /// Evaluates at `x` (length `n`): `values[i] = f_i(x)` for `i = 0..=m` (`values[0]` the
    /// objective) and `gradients[i * n + j] = ∂f_i/∂x_j` (row-major, `(m + 1) × n`).
    ///
    /// Gradient entries that are exactly `0.0` are treated as structurally zero and
    /// skipped: a problem whose constraints each depend on a few variables costs in
    /// proportion to its non-zeros, not to `m n`. A non-finite value or gradient stops the
    /// solver with [`CcsaStatus::NonFiniteEvaluation`].
    fn evaluate(&mut self, x: &[f64], values: &mut [f64], gradients: &mut [f64]);
}

/// Settings of [`ccsa_minimize`]. The defaults come from [`crate::tolerance`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CcsaOptions {
    /// Most outer iterations (accepted steps) before [`CcsaStatus::MaxIterations`].
    pub max_outer_iterations: usize,
    /// Most inner iterations (ρ increases) in one outer iteration before
    /// [`CcsaStatus::InnerIterationLimit`].
    pub max_inner_iterations: usize,
    /// Most projected Newton steps on one subproblem's dual.
    pub max_dual_iterations: usize,
    /// Stop when every `|Δx_j| ≤ x_tolerance_rel |x_j| + x_tolerance_abs` in an accepted
    /// step (and the point is feasible).
    pub x_tolerance_rel: f64,
    /// See [`Self::x_tolerance_rel`]; in the variables' units.
    pub x_tolerance_abs: f64,
    /// Stop when `|Δf0| ≤ f_tolerance_rel |f0| + f_tolerance_abs` in an accepted step
    /// (and the point is feasible).
    pub f_tolerance_rel: f64,
    /// See [`Self::f_tolerance_rel`]; in the objective's units.
    pub f_tolerance_abs: f64,
    /// The largest `f_i(x)` counted as satisfied, in the constraints' units.
    pub feasibility_tolerance: f64,
    /// The elastic variables' linear price `c` (Eq 3.10's `c_i`): must exceed the
    /// problem's Lagrange multipliers for the answer to be feasible. Scale the
    /// constraints so that it does.
    pub penalty: f64,
    /// `ρ_min` of Eq 3.16 (positive).
    pub rho_min: f64,
}

impl Default for CcsaOptions {
    fn default() -> Self {
        CcsaOptions {
            max_outer_iterations: 2000,
            max_inner_iterations: 60,
            max_dual_iterations: 100,
            x_tolerance_rel: CCSA_X_TOLERANCE_REL,
            x_tolerance_abs: CCSA_X_TOLERANCE_ABS,
            f_tolerance_rel: CCSA_F_TOLERANCE_REL,
            f_tolerance_abs: 0.0,
            feasibility_tolerance: CCSA_FEASIBILITY,
            penalty: 1e4,
            rho_min: 1e-5,
        }
    }
}

/// How a [`ccsa_minimize`] run ended. Every status comes with the last accepted point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CcsaStatus {
    /// A step met the `x` or `f` tolerance at a point feasible within the feasibility
    /// tolerance: a KKT point to the tolerances.
    Converged,
    /// A step met a tolerance, but constraints are still violated beyond the feasibility
    /// tolerance: the problem is (locally) infeasible, or the penalty is below its
    /// multipliers. `x` minimises the extended problem.
    Infeasible,
    /// The outer iteration cap was reached.
    MaxIterations,
    /// The approximations did not become conservative within the inner iteration cap
    /// (rounding at a point where `f` cannot decrease further, §3.5.6).
    InnerIterationLimit,
    /// The problem returned a non-finite value or gradient; `x` is the last point where
    /// everything was finite (the start's values are reported as they came if the start
    /// itself was not).
    NonFiniteEvaluation,
}

/// The answer of [`ccsa_minimize`].
#[derive(Debug, Clone, PartialEq)]
pub struct CcsaResult {
    /// How the run ended.
    pub status: CcsaStatus,
    /// The last accepted point (within the bounds).
    pub x: Vec<f64>,
    /// `f0(x)`.
    pub objective: f64,
    /// `max(0, max_i f_i(x))`: 0 when every constraint holds.
    pub max_violation: f64,
    /// Outer iterations (accepted steps) taken.
    pub iterations: usize,
    /// Inner iterations (subproblems solved), all outer iterations together.
    pub subproblems: usize,
    /// Calls to [`CcsaProblem::evaluate`].
    pub evaluations: usize,
    /// Whether the start violated a constraint beyond the feasibility tolerance.
    pub started_infeasible: bool,
}

/// Why [`ccsa_minimize`] refused its input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CcsaError {
    /// The problem has no variables.
    #[error("the problem has no variables")]
    NoVariables,
    /// A slice's length is not the problem's dimension.
    #[error("{what} has length {got}, expected {expected}")]
    WrongLength {
        /// `"x0"`, `"lower"` or `"upper"`.
        what: &'static str,
        /// The problem's dimension.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A start coordinate or bound is NaN or infinite.
    #[error("{what}[{index}] must be finite")]
    NonFinite {
        /// `"x0"`, `"lower"` or `"upper"`.
        what: &'static str,
        /// The coordinate.
        index: usize,
    },
    /// A lower bound is above its upper bound.
    #[error("lower[{index}] is above upper[{index}]")]
    EmptyBox {
        /// The coordinate.
        index: usize,
    },
    /// The problem is too large to hold: `(constraints + 1) × variables` gradient
    /// entries overflow `usize`.
    #[error("{constraints} constraints over {variables} variables: too large to hold")]
    TooLarge {
        /// The problem's constraint count.
        constraints: usize,
        /// The problem's dimension.
        variables: usize,
    },
    /// An option is out of range (a tolerance negative or NaN, the penalty or `ρ_min` not
    /// positive, an iteration cap zero).
    #[error("invalid CCSA option {what}")]
    InvalidOption {
        /// The option's field name.
        what: &'static str,
    },
}

fn check_options(o: &CcsaOptions) -> Result<(), CcsaError> {
    let nonneg = |v: f64| v.is_finite() && v >= 0.0;
    let checks: [(bool, &'static str); 10] = [
        (o.max_outer_iterations > 0, "max_outer_iterations"),
        (o.max_inner_iterations > 0, "max_inner_iterations"),
        (o.max_dual_iterations > 0, "max_dual_iterations"),
        (nonneg(o.x_tolerance_rel), "x_tolerance_rel"),
        (nonneg(o.x_tolerance_abs), "x_tolerance_abs"),
        (nonneg(o.f_tolerance_rel), "f_tolerance_rel"),
        (nonneg(o.f_tolerance_abs), "f_tolerance_abs"),
        (nonneg(o.feasibility_tolerance), "feasibility_tolerance"),
        (o.penalty.is_finite() && o.penalty > 0.0, "penalty"),
        (o.rho_min.is_finite() && o.rho_min > 0.0, "rho_min"),
    ];
    for (ok, what) in checks {
        if !ok {
            return Err(CcsaError::InvalidOption { what });
        }
    }
    Ok(())
}

fn check_slice(what: &'static str, s: &[f64], n: usize) -> Result<(), CcsaError> {
    if s.len() != n {
        return Err(CcsaError::WrongLength {
            what,
            expected: n,
            got: s.len(),
        });
    }
    match s.iter().position(|v| !v.is_finite()) {
        Some(index) => Err(CcsaError::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// `f0 + Σ (c y_i + ½ y_i²)` with `y_i = max(0, f_i)`: the extended problem's objective.
fn merit(values: &[f64], penalty: f64) -> f64 {
    values[1..].iter().fold(values[0], |m, &v| {
        let y = v.max(0.0);
        m + penalty * y + 0.5 * y * y
    })
}

fn max_violation(values: &[f64]) -> f64 {
    values[1..].iter().fold(0.0_f64, |m, &v| m.max(v))
}

/// The approximations at one outer iterate: gradients stored sparsely (by row for the
/// dual's `P`, `Q` and values, by column for the Newton matrix).
struct Approximation {
    n: usize,
    m: usize,
    xi: Vec<f64>,
    sigma: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
    f: Vec<f64>,
    rho: Vec<f64>,
    penalty: f64,
    // Rows i = 0..=m: entries row_start[i]..row_start[i + 1] of (row_col, row_val).
    row_start: Vec<usize>,
    row_col: Vec<usize>,
    row_val: Vec<f64>,
    // Columns j for constraints only: (constraint index i − 1, value).
    col_start: Vec<usize>,
    col_row: Vec<usize>,
    col_val: Vec<f64>,
    // Per-constraint scale of the dual's stopping test.
    scale: Vec<f64>,
}

/// Scratch of the dual solver, reused across subproblems.
#[derive(Default)]
struct DualScratch {
    ap: Vec<f64>,
    am: Vec<f64>,
    x: Vec<f64>,
    clamped: Vec<bool>,
    g: Vec<f64>,
    grad: Vec<f64>,
    trial: Vec<f64>,
    free: Vec<usize>,
    pos: Vec<usize>,
    h: Vec<f64>,
    rhs: Vec<f64>,
    dvec: Vec<f64>,
    s_row: Vec<f64>,
    old: Vec<f64>,
}

impl Approximation {
    fn build(&mut self, values: &[f64], gradients: &[f64], lower: &[f64], upper: &[f64]) {
        let (n, m) = (self.n, self.m);
        self.f.copy_from_slice(values);
        for j in 0..n {
            let s = 0.9 * self.sigma[j];
            self.lo[j] = lower[j].max(self.xi[j] - s);
            self.hi[j] = upper[j].min(self.xi[j] + s);
        }
        self.row_start.clear();
        self.row_col.clear();
        self.row_val.clear();
        let mut col_count = vec![0usize; n + 1];
        for i in 0..=m {
            self.row_start.push(self.row_col.len());
            let row = &gradients[i * n..(i + 1) * n];
            let mut scale = values[i].abs();
            for (j, &a) in row.iter().enumerate() {
                if a != 0.0 {
                    self.row_col.push(j);
                    self.row_val.push(a);
                    scale += a.abs() * self.sigma[j];
                    if i > 0 {
                        col_count[j + 1] += 1;
                    }
                }
            }
            if i > 0 {
                self.scale[i - 1] = scale.max(f64::MIN_POSITIVE);
            }
        }
        self.row_start.push(self.row_col.len());
        for j in 0..n {
            col_count[j + 1] += col_count[j];
        }
        self.col_start.clear();
        self.col_start.extend_from_slice(&col_count);
        let nnz = col_count[n];
        self.col_row.clear();
        self.col_row.resize(nnz, 0);
        self.col_val.clear();
        self.col_val.resize(nnz, 0.0);
        let mut fill = col_count;
        for i in 1..=m {
            for k in self.row_start[i]..self.row_start[i + 1] {
                let j = self.row_col[k];
                self.col_row[fill[j]] = i - 1;
                self.col_val[fill[j]] = self.row_val[k];
                fill[j] += 1;
            }
        }
    }

    /// `W(x) = ½ Σ d²/(σ² − d²)`, the penalty term's shape `w` of Eq 3.15.
    fn w(&self, x: &[f64]) -> f64 {
        let mut w = 0.0;
        for j in 0..self.n {
            let d = x[j] - self.xi[j];
            let s = self.sigma[j];
            w += d * d / (s * s - d * d);
        }
        0.5 * w
    }

    /// `g_i(x)` for every `i = 0..=m` into `out` (Eq 3.15, evaluated in `d` to avoid the
    /// cancellation of the `p/q/r` form).
    fn values(&self, x: &[f64], out: &mut [f64]) {
        let w = self.w(x);
        for (i, o) in out.iter_mut().enumerate().take(self.m + 1) {
            let mut g = self.f[i];
            for k in self.row_start[i]..self.row_start[i + 1] {
                let j = self.row_col[k];
                let a = self.row_val[k];
                let (d, s) = (x[j] - self.xi[j], self.sigma[j]);
                g += (s * s * a * d + s * a.abs() * d * d) / (s * s - d * d);
            }
            *o = g + self.rho[i] * w;
        }
    }

    /// `x(λ)` into `sc.x` (and which coordinates the box clamped), then the dual value;
    /// `sc.g` gets `g_i(x(λ))`.
    fn dual_value(&self, lambda: &[f64], sc: &mut DualScratch) -> f64 {
        let n = self.n;
        sc.ap.iter_mut().for_each(|v| *v = 0.0);
        sc.am.iter_mut().for_each(|v| *v = 0.0);
        let mut r = self.rho[0];
        for i in 0..=self.m {
            let wi = if i == 0 { 1.0 } else { lambda[i - 1] };
            if i > 0 {
                r += wi * self.rho[i];
            }
            if wi == 0.0 {
                continue;
            }
            for k in self.row_start[i]..self.row_start[i + 1] {
                let (j, a) = (self.row_col[k], self.row_val[k]);
                if a > 0.0 {
                    sc.ap[j] += wi * a;
                } else {
                    sc.am[j] -= wi * a;
                }
            }
        }
        for j in 0..n {
            let s = self.sigma[j];
            let p = s * s * sc.ap[j] + 0.25 * s * r;
            let q = s * s * sc.am[j] + 0.25 * s * r;
            let (sp, sq) = (p.sqrt(), q.sqrt());
            let free = self.xi[j] + s * (sq - sp) / (sq + sp);
            let x = free.clamp(self.lo[j], self.hi[j]);
            sc.clamped[j] = x != free;
            sc.x[j] = x;
        }
        let mut g = std::mem::take(&mut sc.g);
        self.values(&sc.x, &mut g);
        let mut phi = g[0];
        for i in 0..self.m {
            let y = (lambda[i] - self.penalty).max(0.0);
            phi += lambda[i] * (g[i + 1] - y) + self.penalty * y + 0.5 * y * y;
        }
        sc.g = g;
        phi
    }

    /// Maximises the dual over `λ ≥ 0` from the given `λ` (warm start); leaves the
    /// subproblem's `x` in `sc.x`. Returns the Newton steps taken.
    fn solve_dual(&self, lambda: &mut [f64], sc: &mut DualScratch, max_iter: usize) -> usize {
        let (n, m) = (self.n, self.m);
        let mut phi = self.dual_value(lambda, sc);
        if m == 0 {
            return 0;
        }
        let mut iterations = 0;
        let mut mu_rel = 1e-10;
        while iterations < max_iter {
            // Gradient and the optimality test.
            let mut lambda_max: f64 = 1.0;
            for i in 0..m {
                let y = (lambda[i] - self.penalty).max(0.0);
                sc.grad[i] = sc.g[i + 1] - y;
                lambda_max = lambda_max.max(lambda[i]);
            }
            let mut optimal = true;
            let mut residual: f64 = 0.0;
            for i in 0..m {
                let tol = CCSA_DUAL_TOLERANCE * (self.scale[i] + self.rho[i]);
                let gi = sc.grad[i];
                let slack = lambda[i] * (-gi).max(0.0);
                if gi > tol || slack > tol * lambda_max {
                    optimal = false;
                }
                residual = residual.max((lambda[i] - (lambda[i] + gi).max(0.0)).abs());
            }
            if optimal {
                break;
            }
            iterations += 1;
            // Free set: everything except multipliers (near) zero that want to go down.
            let eps = residual.min(1e-8);
            sc.free.clear();
            for i in 0..m {
                sc.pos[i] = usize::MAX;
                if lambda[i] <= eps && sc.grad[i] < 0.0 {
                    continue;
                }
                sc.pos[i] = sc.free.len();
                sc.free.push(i);
            }
            let k = sc.free.len();
            if k == 0 {
                break;
            }
            // H = G D Gᵀ + Y on the free set.
            let mut r_tot = self.rho[0];
            for i in 0..m {
                r_tot += lambda[i] * self.rho[i + 1];
            }
            sc.h.clear();
            sc.h.resize(k * k, 0.0);
            let mut omega_d_omega = 0.0;
            sc.s_row.iter_mut().for_each(|v| *v = 0.0); // t_i = Σ_j D_j S_ij ω_j
            for j in 0..n {
                sc.dvec[j] = 0.0;
                if sc.clamped[j] {
                    continue;
                }
                let s = self.sigma[j];
                let d = sc.x[j] - self.xi[j];
                let (um, ml) = (s - d, s + d);
                let p = s * s * sc.ap[j] + 0.25 * s * r_tot;
                let q = s * s * sc.am[j] + 0.25 * s * r_tot;
                let curv = 2.0 * p / (um * um * um) + 2.0 * q / (ml * ml * ml);
                if curv.is_finite() && curv > 0.0 {
                    let dj = 1.0 / curv;
                    sc.dvec[j] = dj;
                    let omega = 0.25 * s * (1.0 / (um * um) - 1.0 / (ml * ml));
                    omega_d_omega += dj * omega * omega;
                    let (c0, c1) = (self.col_start[j], self.col_start[j + 1]);
                    for a_idx in c0..c1 {
                        let ia = self.col_row[a_idx];
                        let pa = sc.pos[ia];
                        if pa == usize::MAX {
                            continue;
                        }
                        let va = self.col_val[a_idx];
                        let sa = s * s * (va.max(0.0) / (um * um) - (-va).max(0.0) / (ml * ml));
                        sc.s_row[ia] += dj * sa * omega;
                        for b_idx in c0..c1 {
                            let pb = sc.pos[self.col_row[b_idx]];
                            if pb == usize::MAX || pb < pa {
                                continue;
                            }
                            let vb = self.col_val[b_idx];
                            let sb = s * s * (vb.max(0.0) / (um * um) - (-vb).max(0.0) / (ml * ml));
                            sc.h[pa * k + pb] += dj * sa * sb;
                        }
                    }
                }
            }
            let mut diag_max: f64 = 0.0;
            for a in 0..k {
                let ia = sc.free[a];
                let (ra, ta) = (self.rho[ia + 1], sc.s_row[ia]);
                for b in a..k {
                    let ib = sc.free[b];
                    let (rb, tb) = (self.rho[ib + 1], sc.s_row[ib]);
                    let v = sc.h[a * k + b] + ra * tb + rb * ta + ra * rb * omega_d_omega;
                    sc.h[a * k + b] = v;
                    sc.h[b * k + a] = v;
                }
                if lambda[ia] > self.penalty {
                    sc.h[a * k + a] += 1.0;
                }
                diag_max = diag_max.max(sc.h[a * k + a]);
            }
            // Newton direction, regularised Levenberg–Marquardt style: `mu_rel` grows when
            // the full step is not accepted (the dual is flat along directions where `H`
            // is singular, e.g. more free multipliers than variables) and shrinks when it
            // is.
            sc.rhs.clear();
            sc.rhs.extend(sc.free.iter().map(|&i| sc.grad[i]));
            let mut mu = mu_rel * diag_max + f64::MIN_POSITIVE;
            let mut solved = false;
            for _ in 0..12 {
                if cholesky_solve(&sc.h, k, mu, &mut sc.rhs) {
                    solved = true;
                    break;
                }
                sc.rhs.clear();
                sc.rhs.extend(sc.free.iter().map(|&i| sc.grad[i]));
                mu = mu * 100.0 + 1e-300;
            }
            if !solved {
                // Scaled gradient instead.
                for a in 0..k {
                    let d = sc.h[a * k + a] + mu;
                    sc.rhs[a] = sc.grad[sc.free[a]] / if d > 0.0 { d } else { 1.0 };
                }
            }
            // Armijo search along the projection arc.
            let mut t = 1.0;
            let mut accepted = false;
            sc.old.clear();
            sc.old.extend_from_slice(lambda);
            for _ in 0..30 {
                sc.trial.copy_from_slice(&sc.old);
                let mut predicted = 0.0;
                for a in 0..k {
                    let i = sc.free[a];
                    let v = (sc.old[i] + t * sc.rhs[a]).max(0.0);
                    predicted += sc.grad[i] * (v - sc.old[i]);
                    sc.trial[i] = v;
                }
                let trial = std::mem::take(&mut sc.trial);
                let value = self.dual_value(&trial, sc);
                sc.trial = trial;
                if value >= phi + 1e-4 * predicted && value.is_finite() {
                    lambda.copy_from_slice(&sc.trial);
                    phi = value;
                    accepted = true;
                    break;
                }
                t *= 0.25;
            }
            if accepted && t == 1.0 {
                mu_rel = (mu_rel * 0.1).max(1e-14);
            } else if accepted {
                mu_rel = (mu_rel * 10.0).min(1e8);
            } else {
                // Restore x(λ); retry with a heavier regularisation, or stop.
                lambda.copy_from_slice(&sc.old);
                self.dual_value(lambda, sc);
                if mu_rel >= 1e8 {
                    break;
                }
                mu_rel = (mu_rel * 1000.0).min(1e8);
            }
        }
        iterations
    }
}

/// Solves `(A + μ I) z = b` in place for a symmetric `k × k` `A` (row-major) by Cholesky;
/// false when the matrix is not numerically positive definite.
fn cholesky_solve(a: &[f64], k: usize, mu: f64, b: &mut [f64]) -> bool {
    let mut l = vec![0.0; k * k];
    for i in 0..k {
        for j in 0..=i {
            let mut s = a[i * k + j];
            if i == j {
                s += mu;
            }
            for p in 0..j {
                s -= l[i * k + p] * l[j * k + p];
            }
            if i == j {
                if s <= 0.0 || s.is_nan() {
                    return false;
                }
                l[i * k + i] = s.sqrt();
            } else {
                l[i * k + j] = s / l[j * k + j];
            }
        }
    }
    for i in 0..k {
        let mut s = b[i];
        for p in 0..i {
            s -= l[i * k + p] * b[p];
        }
        b[i] = s / l[i * k + i];
    }
    for i in (0..k).rev() {
        let mut s = b[i];
        for p in i + 1..k {
            s -= l[p * k + i] * b[p];
        }
        b[i] = s / l[i * k + i];
    }
    b.iter().all(|v| v.is_finite())
}

/// Minimises `problem` from `x0` within `[lower, upper]` by CCSA with MMA-type
/// approximations (see the module notes for the method, its parameters and its sources).
///
/// `x0` is clamped into the box first; it need not satisfy the constraints. The run is
/// bounded by [`CcsaOptions`]'s iteration caps and always returns the last accepted point
/// with a [`CcsaStatus`].
///
/// # Errors
/// [`CcsaError`]: no variables, slices of the wrong length, non-finite start or bounds
/// (infinite bounds included), a lower bound above its upper bound, invalid options, a problem whose
/// gradients overflow `usize`.
pub fn ccsa_minimize<P: CcsaProblem + ?Sized>(
    problem: &mut P,
    x0: &[f64],
    lower: &[f64],
    upper: &[f64],
    options: &CcsaOptions,
) -> Result<CcsaResult, CcsaError> {
    let n = problem.dimension();
    let m = problem.constraint_count();
    if n == 0 {
        return Err(CcsaError::NoVariables);
    }
    if m.checked_add(1).and_then(|r| r.checked_mul(n)).is_none() {
        return Err(CcsaError::TooLarge {
            constraints: m,
            variables: n,
        });
    }
    check_slice("x0", x0, n)?;
    check_slice("lower", lower, n)?;
    check_slice("upper", upper, n)?;
    if let Some(index) = (0..n).find(|&j| lower[j] > upper[j]) {
        return Err(CcsaError::EmptyBox { index });
    }
    check_options(options)?;

    let mut x: Vec<f64> = (0..n).map(|j| x0[j].clamp(lower[j], upper[j])).collect();
    let mut values = vec![0.0; m + 1];
    let mut grads = vec![0.0; (m + 1) * n];
    problem.evaluate(&x, &mut values, &mut grads);
    let mut evaluations = 1;
    let finite = |v: &[f64], g: &[f64]| v.iter().chain(g).all(|a| a.is_finite());
    let mut result = CcsaResult {
        status: CcsaStatus::MaxIterations,
        x: x.clone(),
        objective: values[0],
        max_violation: if m > 0 { max_violation(&values) } else { 0.0 },
        iterations: 0,
        subproblems: 0,
        evaluations,
        started_infeasible: false,
    };
    if !finite(&values, &grads) {
        result.status = CcsaStatus::NonFiniteEvaluation;
        return Ok(result);
    }
    result.started_infeasible = result.max_violation > options.feasibility_tolerance;

    let range: Vec<f64> = (0..n).map(|j| upper[j] - lower[j]).collect();
    let mut ap = Approximation {
        n,
        m,
        xi: x.clone(),
        sigma: range
            .iter()
            .map(|&r| if r > 0.0 { 0.5 * r } else { 1.0 })
            .collect(),
        lo: vec![0.0; n],
        hi: vec![0.0; n],
        f: vec![0.0; m + 1],
        rho: vec![1.0; m + 1],
        penalty: options.penalty,
        row_start: Vec::new(),
        row_col: Vec::new(),
        row_val: Vec::new(),
        col_start: Vec::new(),
        col_row: Vec::new(),
        col_val: Vec::new(),
        scale: vec![0.0; m],
    };
    let mut sc = DualScratch {
        ap: vec![0.0; n],
        am: vec![0.0; n],
        x: vec![0.0; n],
        clamped: vec![false; n],
        g: vec![0.0; m + 1],
        grad: vec![0.0; m],
        trial: vec![0.0; m],
        pos: vec![usize::MAX; m],
        dvec: vec![0.0; n],
        s_row: vec![0.0; m],
        ..Default::default()
    };
    let mut lambda = vec![0.0; m];
    let mut prev1 = x.clone();
    let mut prev2 = x.clone();
    let mut new_values = vec![0.0; m + 1];
    let mut new_grads = vec![0.0; (m + 1) * n];
    let mut approx_at_new = vec![0.0; m + 1];

    for k in 0..options.max_outer_iterations {
        // σ (Eq 3.17) and ρ (Eq 3.16).
        if k >= 2 {
            for j in 0..n {
                if range[j] <= 0.0 {
                    continue;
                }
                let trend = (x[j] - prev1[j]) * (prev1[j] - prev2[j]);
                let gamma = if trend < 0.0 {
                    0.7
                } else if trend > 0.0 {
                    1.2
                } else {
                    1.0
                };
                ap.sigma[j] = (gamma * ap.sigma[j]).clamp(1e-10 * range[j], 10.0 * range[j]);
            }
        }
        if k >= 1 {
            for r in ap.rho.iter_mut() {
                *r = (0.1 * *r).max(options.rho_min);
            }
        }
        ap.xi.copy_from_slice(&x);
        ap.build(&values, &grads, lower, upper);

        // Inner iterations.
        let mut inner = 0;
        loop {
            if inner >= options.max_inner_iterations {
                result.status = CcsaStatus::InnerIterationLimit;
                return Ok(finish(result, &x, &values, m, k, evaluations));
            }
            inner += 1;
            result.subproblems += 1;
            ap.solve_dual(&mut lambda, &mut sc, options.max_dual_iterations);
            let xhat = sc.x.clone();
            problem.evaluate(&xhat, &mut new_values, &mut new_grads);
            evaluations += 1;
            if !finite(&new_values, &new_grads) {
                result.status = CcsaStatus::NonFiniteEvaluation;
                return Ok(finish(result, &x, &values, m, k, evaluations));
            }
            ap.values(&xhat, &mut approx_at_new);
            let w = ap.w(&xhat);
            let mut conservative = true;
            for i in 0..=m {
                // Rounding slack: the magnitudes the linear model is made of.
                let mut lin = 0.0;
                for kk in ap.row_start[i]..ap.row_start[i + 1] {
                    let j = ap.row_col[kk];
                    lin += (ap.row_val[kk] * (xhat[j] - ap.xi[j])).abs();
                }
                let slack = 64.0
                    * f64::EPSILON
                    * (ap.f[i].abs() + new_values[i].abs() + lin + ap.rho[i] * w);
                if approx_at_new[i] + slack < new_values[i] {
                    conservative = false;
                    if w > 0.0 {
                        let delta = (new_values[i] - approx_at_new[i]) / w;
                        ap.rho[i] = (1.1 * (ap.rho[i] + delta)).min(10.0 * ap.rho[i]);
                    } else {
                        ap.rho[i] *= 10.0;
                    }
                }
            }
            if conservative {
                // Accept x̂.
                let mut x_small = true;
                for j in 0..n {
                    let tol = options.x_tolerance_rel * xhat[j].abs() + options.x_tolerance_abs;
                    if (xhat[j] - x[j]).abs() > tol {
                        x_small = false;
                    }
                }
                // On the extended objective (Eq 3.10 at the least elastic y), which is
                // f0 itself at feasible points.
                let (merit_old, merit_new) = (
                    merit(&values, options.penalty),
                    merit(&new_values, options.penalty),
                );
                let f_small = (merit_new - merit_old).abs()
                    <= options.f_tolerance_rel * merit_new.abs() + options.f_tolerance_abs;
                prev2.copy_from_slice(&prev1);
                prev1.copy_from_slice(&x);
                x.copy_from_slice(&xhat);
                std::mem::swap(&mut values, &mut new_values);
                std::mem::swap(&mut grads, &mut new_grads);
                if x_small || f_small {
                    let violation = if m > 0 { max_violation(&values) } else { 0.0 };
                    result.status = if violation <= options.feasibility_tolerance {
                        CcsaStatus::Converged
                    } else {
                        CcsaStatus::Infeasible
                    };
                    return Ok(finish(result, &x, &values, m, k + 1, evaluations));
                }
                break;
            }
        }
    }
    result.status = CcsaStatus::MaxIterations;
    Ok(finish(
        result,
        &x,
        &values,
        m,
        options.max_outer_iterations,
        evaluations,
    ))
}

fn finish(
    mut result: CcsaResult,
    x: &[f64],
    values: &[f64],
    m: usize,
    iterations: usize,
    evaluations: usize,
) -> CcsaResult {
    result.x = x.to_vec();
    result.objective = values[0];
    result.max_violation = if m > 0 { max_violation(values) } else { 0.0 };
    result.iterations = iterations;
    result.evaluations = evaluations;
    result
}
