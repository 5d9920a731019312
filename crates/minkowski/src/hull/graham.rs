//! Graham scan (R. L. Graham, "An efficient algorithm for determining the convex hull of
//! a finite planar set", Inf. Process. Lett. 1(4), 1972).
//!
//! Take the lowest (then leftmost) point `p₀`, which is a hull vertex; sort the others by
//! the angle of `p − p₀` (all angles are in `[0, π)`), breaking ties by distance from
//! `p₀`; then walk the sorted sequence with a stack, popping while the top two entries
//! and the next point do not make a strict left turn. O(n log n).
//!
//! The angle comparison is the exact orientation `orient(p₀, a, b) > 0` (a comes first),
//! which is a strict weak order on a half-plane of directions; ties (points on one ray)
//! are ordered by comparing coordinates, also exactly. With ascending distances on every
//! ray, interior points of the first and last edges are popped like any other collinear
//! point, so no special case is needed.

use std::cmp::Ordering;

use glam::DVec2;

use super::predicates::{bottom_cmp, orient2, prepare2};
use super::{canonical_start, Hull2d, HullError};
use crate::math::Vector2;

/// Whether `a` is further than `b` from `o`, for `a` and `b` on one ray from `o` (exact:
/// compares coordinates, never rounded differences).
pub(crate) fn farther_on_ray(o: DVec2, a: DVec2, b: DVec2) -> Ordering {
    if a.x != o.x || b.x != o.x {
        if a.x > o.x || b.x > o.x {
            a.x.total_cmp(&b.x)
        } else {
            b.x.total_cmp(&a.x)
        }
    } else if a.y > o.y || b.y > o.y {
        a.y.total_cmp(&b.y)
    } else {
        b.y.total_cmp(&a.y)
    }
}

/// The convex hull of `points` by Graham scan.
///
/// Same answer, convention and errors as [`super::monotone_chain`].
pub fn graham(points: &[Vector2]) -> Result<Hull2d, HullError> {
    graham_prepared(prepare2(points)?)
}

/// The algorithm on validated points rescaled to `f64`.
pub(crate) fn graham_prepared(p: Vec<DVec2>) -> Result<Hull2d, HullError> {
    let origin = (0..p.len())
        .min_by(|&a, &b| bottom_cmp(p[a], p[b]))
        .expect("prepare2 refuses empty input");
    let o = p[origin];
    let mut rest: Vec<usize> = (0..p.len()).filter(|&i| p[i] != o).collect();
    rest.sort_unstable_by(|&i, &j| {
        let s = orient2(o, p[i], p[j]);
        if s > 0.0 {
            Ordering::Less
        } else if s < 0.0 {
            Ordering::Greater
        } else {
            farther_on_ray(o, p[i], p[j])
        }
    });
    let mut stack: Vec<usize> = Vec::with_capacity(64);
    stack.push(origin);
    for &i in &rest {
        while stack.len() >= 2
            && orient2(p[stack[stack.len() - 2]], p[stack[stack.len() - 1]], p[i]) <= 0.0
        {
            stack.pop();
        }
        // A repeat of the top (equal points sort next to each other) is skipped.
        if p[*stack.last().expect("stack holds the origin")] != p[i] {
            stack.push(i);
        }
    }
    Ok(canonical_start(&p, stack))
}
