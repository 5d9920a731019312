//! The aligned projection direction method (seed 002 §3.2.1–3.2.2): BFGS on the
//! misalignment of `P' − p(u, v)` with `n(u, v)`.
//!
//! Objective (Eq 3.1), over `x = (u, v)`:
//!
//! ```text
//! r = n(u, v) = N0 + u F1 + v F2,   g = P' − p(u, v) = w − u E1 − v E2
//! f(u, v) = |r × g|²
//! ```
//!
//! (`E_k = P_k − P0`, `F_k = N_k − N0`, `w = P' − P0`). `f = 0` exactly where `g` is
//! parallel to `r`, and then `t = g · r / |r|²`. Gradient (derived): with `c = r × g`,
//! `∂r/∂u = F1`, `∂g/∂u = −E1`,
//!
//! ```text
//! ∂f/∂u = 2 c · (F1 × g − r × E1),   ∂f/∂v = 2 c · (F2 × g − r × E2).
//! ```
//!
//! BFGS as Alg 5: `S0 = I`, direction `p_k = −S_k ∇f(x_k)`, backtracking line search,
//! `s_k = x_{k+1} − x_k`, `y_k = ∇f(x_{k+1}) − ∇f(x_k)` and the inverse-Hessian update
//! (Eq 3.2)
//!
//! ```text
//! S_{k+1} = S_k + (sᵀy + yᵀS y) s sᵀ / (sᵀy)² − (S y sᵀ + s yᵀ S) / sᵀy.
//! ```
//!
//! # Departures from the thesis
//!
//! The thesis gives neither the start, the line search's acceptance test nor the
//! termination. Here:
//!
//! * the line search starts at step 1 and halves (at most
//!   [`BFGS_MAX_BACKTRACKS`] times) until the Armijo condition
//!   `f(x + a p) ≤ f(x) + c a ∇f·p` holds (`c =` [`BFGS_ARMIJO`]), not mere decrease;
//! * the update is skipped when `sᵀy ≤ ε |s| |y|` (it would not stay positive definite),
//!   and `S` is reset to `I` when `p` is not a descent direction;
//! * a run stops when the point is within `16 ε σ` of the line `p + t n` (solved), when
//!   the step is below rounding (stationary), when no step decreases `f` (the limit of
//!   the arithmetic), or after [`BFGS_MAX_ITERATIONS`];
//! * `f` has several minima, some of them outside the triangle (Table 4.3: from
//!   `(0, 0)` BFGS reaches `(1.0516, 0.7196)`), and zeros where `n(u, v) = 0`, which
//!   are not solutions. So runs start in turn from the aligned plane's answer, the
//!   centroid and the centroids of the three corner sub-triangles, until one ends at a
//!   solution inside. Otherwise the answer is the solution nearest the triangle
//!   (`inside: false`), or, with no solution at all, the run with the least `f` and its
//!   stopping reason as the status. `iterations` and `line_search_steps` add up every
//!   run.

use super::backward_projection::{
    direction, is_inside, is_solution, outside_distance, residual, BackProjectionStatus, Solution,
};
use super::base_triangle::Normalised;
use crate::math::{Real, Vector, EPSILON};
use crate::tolerance::{
    BACKPROJECTION_MAX_REACH, BFGS_ARMIJO, BFGS_MAX_BACKTRACKS, BFGS_MAX_ITERATIONS,
};

type X = [Real; 2];

/// `f` and `∇f` at `x` (Eq 3.1 and its derived gradient).
fn objective(nz: &Normalised, w: Vector, x: X) -> (Real, X) {
    let [u, v] = x;
    let r = direction(nz, u, v);
    let g = w - u * nz.e1 - v * nz.e2;
    let c = r.cross(g);
    let du = 2.0 * c.dot(nz.f1.cross(g) - r.cross(nz.e1));
    let dv = 2.0 * c.dot(nz.f2.cross(g) - r.cross(nz.e2));
    (c.length_squared(), [du, dv])
}

/// `t` at `x` (`g · r / |r|²`), if `n(u, v) ≠ 0`.
fn parameter(nz: &Normalised, w: Vector, x: X) -> Option<Real> {
    let r = direction(nz, x[0], x[1]);
    let g = w - x[0] * nz.e1 - x[1] * nz.e2;
    let rr = r.length_squared();
    let tau = g.dot(r) / rr;
    (rr > 0.0 && tau.is_finite()).then_some(tau)
}

/// Why a run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Solved,
    Stationary,
    Stalled,
    MaxIterations,
}

struct Run {
    x: X,
    f: Real,
    iterations: u32,
    backtracks: u32,
    stop: Stop,
}

fn dot(a: X, b: X) -> Real {
    a[0] * b[0] + a[1] * b[1]
}

fn mat_vec(s: &[[Real; 2]; 2], y: X) -> X {
    [dot(s[0], y), dot(s[1], y)]
}

/// Whether the point is within `16 ε σ` of the line through `p(x)` along `n(x)`.
fn solved(nz: &Normalised, w: Vector, x: X) -> bool {
    parameter(nz, w, x).is_some_and(|tau| {
        let (miss, sigma) = residual(nz, w, x[0], x[1], tau);
        miss <= 16.0 * EPSILON * sigma
    })
}

/// One BFGS run (Alg 5) from `x0`.
fn run(nz: &Normalised, w: Vector, x0: X) -> Run {
    let mut x = x0;
    let (mut f, mut grad) = objective(nz, w, x);
    let mut s_mat = [[1.0, 0.0], [0.0, 1.0]];
    let mut out = Run {
        x,
        f,
        iterations: 0,
        backtracks: 0,
        stop: Stop::MaxIterations,
    };
    loop {
        if solved(nz, w, x) {
            out.stop = Stop::Solved;
            break;
        }
        if out.iterations >= BFGS_MAX_ITERATIONS {
            out.stop = Stop::MaxIterations;
            break;
        }
        let mut p = mat_vec(&s_mat, grad).map(|c| -c);
        let mut slope = dot(grad, p);
        if !(p[0].is_finite() && p[1].is_finite() && slope < 0.0) {
            s_mat = [[1.0, 0.0], [0.0, 1.0]];
            p = grad.map(|c| -c);
            slope = dot(grad, p);
        }
        if slope.is_nan() || slope >= 0.0 {
            out.stop = Stop::Stationary; // ∇f = 0
            break;
        }
        // Backtracking (Armijo).
        let mut a: Real = 1.0;
        let mut accepted = None;
        for _ in 0..=BFGS_MAX_BACKTRACKS {
            let xn = [x[0] + a * p[0], x[1] + a * p[1]];
            if xn[0].abs() <= BACKPROJECTION_MAX_REACH && xn[1].abs() <= BACKPROJECTION_MAX_REACH {
                let (fn_, gn) = objective(nz, w, xn);
                if fn_.is_finite() && fn_ <= f + BFGS_ARMIJO * a * slope {
                    accepted = Some((xn, fn_, gn));
                    break;
                }
            }
            a *= 0.5;
            out.backtracks += 1;
        }
        let Some((xn, fn_, gn)) = accepted else {
            out.stop = Stop::Stalled;
            break;
        };
        out.iterations += 1;
        let s = [xn[0] - x[0], xn[1] - x[1]];
        let y = [gn[0] - grad[0], gn[1] - grad[1]];
        let sy = dot(s, y);
        let (s_len, y_len) = (dot(s, s).sqrt(), dot(y, y).sqrt());
        if sy > EPSILON * s_len * y_len {
            // Eq 3.2.
            let sy_vec = mat_vec(&s_mat, y);
            let y_s_y = dot(y, sy_vec);
            let k1 = (sy + y_s_y) / (sy * sy);
            // S symmetric: (S y)ᵀ = yᵀ S.
            let mut next = s_mat;
            for (i, row) in next.iter_mut().enumerate() {
                for (j, e) in row.iter_mut().enumerate() {
                    *e += k1 * s[i] * s[j] - (sy_vec[i] * s[j] + s[i] * sy_vec[j]) / sy;
                }
            }
            if next.iter().flatten().all(|e| e.is_finite()) {
                s_mat = next;
            }
        }
        (x, f, grad) = (xn, fn_, gn);
        if s_len <= 4.0 * EPSILON * (1.0 + dot(x, x).sqrt()) {
            out.stop = Stop::Stationary;
            break;
        }
    }
    out.x = x;
    out.f = f;
    out
}

/// The aligned projection's answer for the point `w` (relative to `P0`) on the
/// normalised copy.
pub(super) fn solve(nz: &Normalised, w: Vector) -> Solution {
    let aligned = super::aligned_plane::solve(nz, w);
    let third = 1.0 / 3.0;
    let sixth = 1.0 / 6.0;
    let starts = [
        (aligned.status != BackProjectionStatus::Degenerate
            && aligned.u.abs() <= 4.0
            && aligned.v.abs() <= 4.0)
            .then_some([aligned.u, aligned.v]),
        Some([third, third]),
        Some([sixth, sixth]),
        Some([2.0 * third, sixth]),
        Some([sixth, 2.0 * third]),
    ];
    let (mut iterations, mut backtracks) = (0, 0);
    // Ranked by (not a solution?, distance outside or f, |t|).
    let mut best: Option<((bool, Real, Real), Solution)> = None;
    for x0 in starts.into_iter().flatten() {
        let r = run(nz, w, x0);
        iterations += r.iterations;
        backtracks += r.backtracks;
        let [u, v] = r.x;
        let tau = parameter(nz, w, r.x);
        let solution = tau.is_some_and(|tau| is_solution(nz, w, u, v, tau));
        let tau = tau.unwrap_or(0.0);
        let status = if solution {
            BackProjectionStatus::Converged
        } else {
            match r.stop {
                Stop::MaxIterations => BackProjectionStatus::MaxIterations,
                Stop::Stalled => BackProjectionStatus::NumericalLimit,
                Stop::Solved | Stop::Stationary => BackProjectionStatus::LocalMinimum,
            }
        };
        let candidate = Solution {
            u,
            v,
            tau,
            iterations: 0,
            line_search_steps: 0,
            status,
        };
        if solution && is_inside(u, v) {
            best = Some(((false, 0.0, tau.abs()), candidate));
            break;
        }
        let key = (
            !solution,
            if solution {
                outside_distance(nz, u, v)
            } else {
                r.f
            },
            tau.abs(),
        );
        let better = match &best {
            None => true,
            Some((k, _)) => key.partial_cmp(k) == Some(std::cmp::Ordering::Less),
        };
        if better {
            best = Some((key, candidate));
        }
    }
    let mut s = best.map_or(aligned, |(_, s)| s);
    s.iterations = iterations;
    s.line_search_steps = backtracks;
    s
}
