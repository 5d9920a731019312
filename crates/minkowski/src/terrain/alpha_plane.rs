//! The alpha plane method (seed 002 §3.2.3), made robust by solving its cubic fully.
//!
//! Move every vertex along its direction by the same parameter α (Eq 3.3),
//! `P'_i(α) = P_i + α N_i`, and ask the "alpha triangle" to pass through the point
//! (Eq 3.4):
//!
//! ```text
//! f(α) = ((P'1 − P'0) × (P'2 − P'0)) · (P' − P'0) = 0
//! ```
//!
//! With `E_k = P_k − P0`, `F_k = N_k − N0`, `w = P' − P0` the edges are `E_k + α F_k` and
//! (derived)
//!
//! ```text
//! (E1 + α F1) × (E2 + α F2) = c0 + α c1 + α² c2,
//!     c0 = E1 × E2,  c1 = E1 × F2 + F1 × E2,  c2 = F1 × F2
//! f(α) = (c0 + α c1 + α² c2) · (w − α N0) = a0 + a1 α + a2 α² + a3 α³,
//!     a0 = c0·w,  a1 = c1·w − c0·N0,  a2 = c2·w − c1·N0,  a3 = −c2·N0
//! ```
//!
//! At a root, `w − α N0 = u (E1 + α F1) + v (E2 + α F2)` for the barycentric `(u, v)` of
//! the point in the alpha triangle, which is exactly `P' = p(u, v) + α n(u, v)`: the
//! solution, with `t = α`. A root where the alpha triangle collapses (`c0 + α c1 + α² c2
//! = 0`, the directions crossing) makes `f` vanish whatever the point: it is skipped.
//!
//! # Departures from the thesis
//!
//! The thesis runs Newton's method on `f` and gives no start or stopping test. From the
//! implicit start α = 0, Newton can converge to a root whose `(u, v)` is outside the
//! triangle (Case II of §4.2: roots ≈ −3.28, −1.27 and 1.0; Newton from 0 reaches
//! −3.283, `(u, v) = (−1.72, 3.05)`). Here every real root is found: the coefficients
//! are scaled by a power of two so that the largest is about 1; the roots lie within
//! Fujiwara's bound `B = 2 max_k |a_k / a_n|^{1/(n−k)}` (the `k = 0` term halved); the
//! critical points (roots of `f'` by the cancellation-free quadratic formula
//! `q = −(b + sign(b) √(b² − 4ac)) / 2`, roots `q / a`, `c / q`) and the inflection
//! point `−a2 / (3 a3)` cut `[−B, B]` into pieces where `f` is monotone and of one
//! convexity; a piece whose ends differ in sign holds one root, which Newton started at
//! the piece's Fourier end (`f f'' > 0`) reaches monotonically (bisection takes over if
//! rounding pushes an iterate out, at most
//! [`ALPHA_PLANE_MAX_ITERATIONS`](crate::tolerance::ALPHA_PLANE_MAX_ITERATIONS) steps); a
//! root of even multiplicity is taken at a critical point where `|f|` is within the
//! rounding of its evaluation. Two cheap refinements change only the step counts: the
//! pieces are also cut at `±|w · Nb̂| / min |N_i · Nb̂|` (no root beyond can be
//! inside), and Newton starts from the aligned plane's `t` when it lies on the Fourier
//! side of a bracket (where convergence is still monotone; on the other side it shortens
//! the bracket instead). Each bracket's iteration stops once `|f|` is within the
//! rounding of its evaluation. No closed form (Cardano, Viète): they lose half the
//! digits near multiple roots and need cases for vanishing leading coefficients, where
//! brackets need none (a tiny `a3` only moves `B`). Each root is polished by Newton on the
//! determinant evaluated directly from the edges (up to
//! [`ALPHA_PLANE_POLISH_ITERATIONS`] steps, kept only while `|f|` decreases: the
//! expanded coefficients carry cancellation the direct form does not), and the roots
//! whose `(u, v)` is inside are kept; of those the one with the smallest `|α|` is the
//! answer (see [`super::backward_projection`] for why). With none inside, the root whose
//! base point is nearest the triangle, `inside: false`. `iterations` counts the steps
//! spent on the chosen root, bracketing and polishing.
//!
//! Roots farther than `∛(Real::MAX) / 4` (normalised units) are not searched: no
//! solution inside the triangle can be there (`|t| ≤ |w · Nb̂| / min |N_i · Nb̂|` inside,
//! and `|w|` is at most [`crate::tolerance::BACKPROJECTION_MAX_REACH`]).

use super::backward_projection::{
    is_inside, is_solution, outside_distance, plane_coordinates, BackProjectionStatus, Solution,
};
use super::base_triangle::Normalised;
use super::cubic::{self, ZeroSet};
use crate::math::{Real, Vector, EPSILON};
use crate::tolerance::ALPHA_PLANE_POLISH_ITERATIONS;

/// `f(α)` (Eq 3.4) and `f'(α)`, from the edges directly.
fn determinant(nz: &Normalised, w: Vector, alpha: Real) -> (Real, Real) {
    let a1 = nz.e1 + alpha * nz.f1;
    let a2 = nz.e2 + alpha * nz.f2;
    let q = w - alpha * nz.n[0];
    let m = a1.cross(a2);
    let dm = nz.f1.cross(a2) + a1.cross(nz.f2);
    (m.dot(q), dm.dot(q) - m.dot(nz.n[0]))
}

/// Newton on the direct determinant from `alpha`, while `|f|` decreases.
fn polish(nz: &Normalised, w: Vector, mut alpha: Real) -> (Real, u32) {
    let (mut f, mut df) = determinant(nz, w, alpha);
    let mut steps = 0;
    while steps < ALPHA_PLANE_POLISH_ITERATIONS && f != 0.0 {
        let next = alpha - f / df;
        if !next.is_finite() || (next - alpha).abs() <= EPSILON * alpha.abs() {
            break;
        }
        let (fn_, dfn) = determinant(nz, w, next);
        steps += 1;
        if fn_.is_nan() || fn_.abs() >= f.abs() {
            break;
        }
        (alpha, f, df) = (next, fn_, dfn);
    }
    (alpha, steps)
}

/// The alpha plane's answer for the point `w` (relative to `P0`) on the normalised
/// copy.
pub(super) fn solve(nz: &Normalised, w: Vector) -> Solution {
    let [c0, c1, c2] = nz.c;
    let n0 = nz.n[0];
    let a = [
        c0.dot(w),
        c1.dot(w) - c0.dot(n0),
        c2.dot(w) - c1.dot(n0),
        -c2.dot(n0),
    ];
    let limit = Real::MAX.cbrt() / 4.0;
    // Inside the triangle w · Nb = t n(u, v) · Nb, so |t| ≤ |w · Nb̂| / min |N_i · Nb̂|:
    // cutting the pieces there shortens the brackets of the roots that can be inside.
    let reach = 1.01 * w.dot(nz.nb).abs() / (nz.nb.length() * nz.min_crossing);
    // The aligned plane's t is a cheap guess of the root nearest the base.
    let guess = super::aligned_plane::solve(nz, w).tau;
    let roots = match cubic::real_roots(a, limit, &[-reach, reach], guess) {
        ZeroSet::Roots(r) => r,
        ZeroSet::Everywhere => cubic::Roots {
            x: [0.0; 3],
            iterations: [0; 3],
            len: 0,
        },
    };
    // Ranked by (outside?, distance outside, |t|).
    let mut best: Option<((bool, Real, Real), Solution)> = None;
    let mut spent = 0;
    for (root, bracket_steps) in roots.iter() {
        spent += bracket_steps;
        let (alpha, polish_steps) = polish(nz, w, root);
        spent += polish_steps;
        let Some((u, v)) =
            plane_coordinates(nz.e1 + alpha * nz.f1, nz.e2 + alpha * nz.f2, w - alpha * n0)
        else {
            continue; // a collapsed alpha triangle
        };
        let key = (!is_inside(u, v), outside_distance(nz, u, v), alpha.abs());
        let better = match &best {
            None => true,
            Some((k, _)) => {
                (key.0, key.1, key.2).partial_cmp(&(k.0, k.1, k.2))
                    == Some(std::cmp::Ordering::Less)
            }
        };
        if better {
            let status = if is_solution(nz, w, u, v, alpha) {
                BackProjectionStatus::Converged
            } else {
                BackProjectionStatus::NumericalLimit
            };
            best = Some((
                key,
                Solution {
                    u,
                    v,
                    tau: alpha,
                    iterations: bracket_steps + polish_steps,
                    line_search_steps: 0,
                    status,
                },
            ));
        }
    }
    match best {
        Some((_, s)) => s,
        None => Solution {
            iterations: spent,
            status: BackProjectionStatus::NoSolution,
            ..super::aligned_plane::solve(nz, w)
        },
    }
}
