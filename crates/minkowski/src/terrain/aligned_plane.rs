//! The aligned plane method (seed 002 §2.4.1): the closed form the thesis replaces.
//!
//! The plane through the point `P'` parallel to the base triangle cuts each vertex's
//! projection line `P_i + α N_i` at
//!
//! ```text
//! Nb  = (P1 − P0) × (P2 − P0)
//! α_i = (P' − P_i) · Nb / (N_i · Nb)          (derived: P'_i · Nb = P' · Nb)
//! P'_i = P_i + α_i N_i
//! ```
//!
//! and `(u, v)` are the barycentric coordinates of `P'` in the aligned triangle
//! `P'0 P'1 P'2`. The thesis uses them as the base triangle's parameters; the answer's
//! `t` is the interpolated `Σ λ_i α_i`, `λ = (1 − u − v, u, v)` (the protocol's
//! definition). Exact when the three directions are parallel (the prism is then an
//! affine image of a right prism); otherwise an approximation whose error grows with
//! the skew and the length of the displacement (Fig 2.8, Tables 4.2–4.3): the status is
//! then [`BackProjectionStatus::Approximate`], with the miss in `residual`.
//!
//! `N_i · Nb ≠ 0` is guaranteed by [`super::BaseTriangle`]'s validation. The aligned
//! triangle collapses where the directions cross at the point's height; then
//! [`BackProjectionStatus::Degenerate`].

use super::backward_projection::{is_solution, plane_coordinates, BackProjectionStatus, Solution};
use super::base_triangle::Normalised;
use crate::math::{Real, Vector};

/// The aligned plane's `(u, v, t)` for the point `w` (relative to `P0`) on the
/// normalised copy.
pub(super) fn solve(nz: &Normalised, w: Vector) -> Solution {
    let nb = nz.nb;
    let alpha = [
        w.dot(nb) / nz.n_dot_nb[0],
        (w - nz.e1).dot(nb) / nz.n_dot_nb[1],
        (w - nz.e2).dot(nb) / nz.n_dot_nb[2],
    ];
    let p0 = alpha[0] * nz.n[0];
    let p1 = nz.e1 + alpha[1] * nz.n[1];
    let p2 = nz.e2 + alpha[2] * nz.n[2];
    let interpolate = |u: Real, v: Real| (1.0 - u - v) * alpha[0] + u * alpha[1] + v * alpha[2];
    match plane_coordinates(p1 - p0, p2 - p0, w - p0) {
        Some((u, v)) => {
            let tau = interpolate(u, v);
            let status = if is_solution(nz, w, u, v, tau) {
                BackProjectionStatus::Converged
            } else {
                BackProjectionStatus::Approximate
            };
            Solution {
                u,
                v,
                tau,
                iterations: 0,
                line_search_steps: 0,
                status,
            }
        }
        None => {
            // The base triangle is not degenerate (validated), so this succeeds.
            let (u, v) = plane_coordinates(nz.e1, nz.e2, w).unwrap_or((0.0, 0.0));
            Solution {
                u,
                v,
                tau: interpolate(u, v),
                iterations: 0,
                line_search_steps: 0,
                status: BackProjectionStatus::Degenerate,
            }
        }
    }
}
