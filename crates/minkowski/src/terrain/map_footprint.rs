//! Where in the displacement map a point can backward-project: a closed-form box in
//! `(s, t)` per base triangle, the texel level's lateral test (seed 002 §2.4.2, §3.6
//! Alg 12; derived here, not in the thesis).
//!
//! # The bound (derived)
//!
//! Take a base triangle `P0 P1 P2` with directions `N_i`, its unit normal `N̂b` oriented
//! toward them and `c_i = N_i · N̂b > 0` (a valid [`crate::terrain::BaseTriangle`]). A
//! point `x = p(u, v) + t n(u, v)` with `(u, v)` in the triangle has height `h = (x −
//! P0) · N̂b = t c(u, v)`, so `p(u, v) = x − h w` with `w = n(u, v) / c(u, v)`, and `w`
//! lies in the triangle `conv{W_i}`, `W_i = N_i / c_i` (the weights `λ_i c_i / Σ λ_j c_j`
//! are convex; the per-vertex baseline's prism bound rests on the same identity).
//! Every `W_i · N̂b = 1`, so each `x − h W_i` lies in the base plane, and the map
//! coordinates are affine there: `s = s0 + (q − P0) · S`, `t = t0 + (q − P0) · T` for a
//! base-plane point `q`, with `S = (s1 − s0) G1 + (s2 − s0) G2`, `T` likewise and `G1 =
//! (E2 × N̂b) / δ`, `G2 = (N̂b × E1) / δ`, `δ = (E1 × E2) · N̂b` the dual basis of the
//! edges `E1 = P1 − P0`, `E2 = P2 − P0` (so `S · N̂b = T · N̂b = 0`). Hence
//!
//! ```text
//! s ∈ s0 + (x − P0) · S − h · [min_i W_i · S, max_i W_i · S]   (bounds swapped for h < 0)
//! ```
//!
//! and likewise `t`: three dot products per point and triangle. With parallel
//! directions (a heightfield) the interval is a single point: the texel is known
//! exactly. The box is widened by [`MapFootprint::slack`] for rounding and for the
//! `(u, v)` the alpha plane lets stray outside the triangle.

use super::displaced_terrain::TerrainTriangle;
use super::early_out::EarlyOutPlanes;
use crate::math::{Point, Real, Vector};
use crate::tolerance::TERRAIN_DETECTION_SLACK;

/// The closed-form `(s, t)` bound of one base triangle (see the module notes). World
/// frame; `s`, `t` in map cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapFootprint {
    origin: Point,
    normal: Vector,
    s_axis: Vector,
    t_axis: Vector,
    st0: [Real; 2],
    ws: [Real; 2],
    wt: [Real; 2],
}

/// A box `[s_lo, s_hi] × [t_lo, t_hi]` in map cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapBox {
    /// Smallest `s`.
    pub s_lo: Real,
    /// Largest `s`.
    pub s_hi: Real,
    /// Smallest `t`.
    pub t_lo: Real,
    /// Largest `t`.
    pub t_hi: Real,
}

impl MapBox {
    /// Whether the box meets the map cell `[i, i + 1] × [j, j + 1]` (closed).
    #[inline]
    pub fn meets_cell(&self, i: u32, j: u32) -> bool {
        let (i, j) = (i as Real, j as Real);
        self.s_lo <= i + 1.0 && self.s_hi >= i && self.t_lo <= j + 1.0 && self.t_hi >= j
    }
}

impl MapBox {
    /// Whether the box meets the half of the map on triangle `k`'s side of the diagonal
    /// of the quad whose first node is `(s0, t0)` (`k = 0`: `s − s0 ≥ t − t0`; `k = 1`:
    /// `s − s0 ≤ t − t0`; [`crate::terrain::Quad::triangles`]).
    #[inline]
    pub fn meets_half(&self, s0: u32, t0: u32, k: usize) -> bool {
        let (s0, t0) = (s0 as Real, t0 as Real);
        if k == 0 {
            self.s_hi - s0 >= self.t_lo - t0
        } else {
            self.t_hi - t0 >= self.s_lo - s0
        }
    }
}

impl MapFootprint {
    /// The bound of `triangle`, whose early-out planes are `planes` (for their unit
    /// normal). `None` for a degenerate triangle (no dual basis).
    pub fn new(triangle: &TerrainTriangle, planes: &EarlyOutPlanes) -> Option<Self> {
        let base = triangle.base();
        let [p0, p1, p2] = base.vertices();
        let nb = planes.normal;
        let (e1, e2) = (p1 - p0, p2 - p0);
        let det = e1.cross(e2).dot(nb);
        if !(det.abs() > 0.0 && det.is_finite()) {
            return None;
        }
        let g1 = e2.cross(nb) / det;
        let g2 = nb.cross(e1) / det;
        let [q0, q1, q2] = triangle.nodes().map(|q| [q[0] as Real, q[1] as Real]);
        let s_axis = g1 * (q1[0] - q0[0]) + g2 * (q2[0] - q0[0]);
        let t_axis = g1 * (q1[1] - q0[1]) + g2 * (q2[1] - q0[1]);
        let (mut ws, mut wt) = (
            [Real::INFINITY, Real::NEG_INFINITY],
            [Real::INFINITY, Real::NEG_INFINITY],
        );
        for n in base.directions() {
            let c = n.dot(nb);
            if c <= 0.0 || c.is_nan() {
                return None;
            }
            let w = n / c;
            let (a, b) = (w.dot(s_axis), w.dot(t_axis));
            ws = [ws[0].min(a), ws[1].max(a)];
            wt = [wt[0].min(b), wt[1].max(b)];
        }
        let all = [ws[0], ws[1], wt[0], wt[1]];
        if !(all.iter().all(|v| v.is_finite()) && s_axis.is_finite() && t_axis.is_finite()) {
            return None;
        }
        Some(Self {
            origin: p0,
            normal: nb,
            s_axis,
            t_axis,
            st0: q0,
            ws,
            wt,
        })
    }

    /// The widening of a box for rounding (map cells): 1/64 of a cell plus
    /// [`TERRAIN_DETECTION_SLACK`] times the magnitudes of the terms summed.
    pub fn slack(magnitude: Real) -> Real {
        1.0 / 64.0 + TERRAIN_DETECTION_SLACK * magnitude
    }

    /// The height `h` of `x` over the base plane, and the box of map coordinates its
    /// backward projection onto this triangle can have, if it is in the triangle's solid
    /// (see the module notes).
    #[inline]
    pub fn bound(&self, x: Point) -> (Real, MapBox) {
        let d = x - self.origin;
        let h = d.dot(self.normal);
        let (s, t) = (
            self.st0[0] + d.dot(self.s_axis),
            self.st0[1] + d.dot(self.t_axis),
        );
        let span = |w: [Real; 2]| {
            if h >= 0.0 {
                [-h * w[1], -h * w[0]]
            } else {
                [-h * w[0], -h * w[1]]
            }
        };
        let (ds, dt) = (span(self.ws), span(self.wt));
        let magnitude = d.abs().dot(self.s_axis.abs() + self.t_axis.abs())
            + h.abs() * (self.ws[0].abs() + self.ws[1].abs() + self.wt[0].abs() + self.wt[1].abs())
            + self.st0[0].abs()
            + self.st0[1].abs();
        let m = Self::slack(magnitude);
        (
            h,
            MapBox {
                s_lo: s + ds[0] - m,
                s_hi: s + ds[1] + m,
                t_lo: t + dt[0] - m,
                t_hi: t + dt[1] + m,
            },
        )
    }
}
