//! The CW separating-vector iteration (Chung and Wang), seed 002's Algorithm 2 — kept
//! as a baseline that GJK's intersection test is measured against
//! (`docs/gjk-sat-cw.md`).
//!
//! # The iteration
//!
//! K. Chung and W. Wang, "Quick collision detection of polytopes in virtual
//! environments", ACM VRST 1996. With `P` the point of A furthest along `d` and `Q` the
//! point of B furthest along `−d`, the plane normal to `d` separates the shapes when
//! `P·d < Q·d`; otherwise `d` is reflected across the plane normal to `n = (Q − P)/‖Q − P‖`:
//!
//! ```text
//! d ← centre of B − centre of A
//! repeat (bounded)
//!     P ← argmax_{p ∈ A} p·d;   Q ← argmin_{q ∈ B} q·d
//!     P·d < Q·d                   → separated (d is a separating direction)
//!     Q = P                       → touching: no separating direction
//!     d ← d − 2 (n·d) n,  n = (Q − P)/‖Q − P‖
//! ```
//!
//! The seed prints the extreme point of B along `+d` and the test `P·d < −Q·d`; the
//! iteration above is the paper's (B's extreme point along `−d`). It has no exit for
//! shapes that overlap — the reflection then never finds a separating direction — so it
//! is bounded by an iteration count and reports "not separated" when the bound is hit,
//! which is the right answer only if the bound is large enough: that is the cost the
//! comparison measures. Unlike GJK it gives no distance and no certificate of overlap.

use crate::math::{Point, Real, Vector};
use crate::support::{Relative, SupportMap};

/// What the CW iteration found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CwResult {
    /// Whether a separating direction was found (`false`: the shapes overlap or touch,
    /// or the iteration bound was reached first).
    pub separated: bool,
    /// The last direction (A's frame; separating when `separated`).
    pub direction: Vector,
    /// Iterations run (one support call per shape each).
    pub iterations: u32,
}

/// Runs the CW iteration on `pair` (`A ⊖ B` in A's frame, see
/// [`crate::support::MinkowskiDifference::relative`]) for at most `max_iterations`.
pub fn separate<A: SupportMap, B: SupportMap>(
    pair: &Relative<A, B>,
    max_iterations: u32,
) -> CwResult {
    let mut d = pair.b.local_center() - pair.a.local_center();
    if d == Vector::ZERO {
        d = Vector::X;
    }
    let mut iterations = 0;
    while iterations < max_iterations {
        iterations += 1;
        let p: Point = pair.a.local_support(d);
        let q: Point = pair.b.local_support(-d);
        if p.dot(d) < q.dot(d) {
            return CwResult {
                separated: true,
                direction: d,
                iterations,
            };
        }
        let Some(n) = (q - p).try_normalize() else {
            break;
        };
        d -= n * (2.0 * n.dot(d));
        // Keep `d` at unit scale (the reflection preserves length up to rounding).
        let len: Real = d.length();
        if !(len.is_finite() && len > 0.0) {
            break;
        }
        d /= len;
    }
    CwResult {
        separated: false,
        direction: d,
        iterations,
    }
}
