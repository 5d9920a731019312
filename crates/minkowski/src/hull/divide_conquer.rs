//! Divide and conquer with common tangents (F. P. Preparata and S. J. Hong, "Convex
//! hulls of finite sets of points in two and three dimensions", Comm. ACM 20(2), 1977;
//! the merge as in seed 003's "Common Tangent Algorithm").
//!
//! Sort the points lexicographically, split them into a left and a right half, hull each
//! half recursively, and merge the two hulls along their upper and lower common
//! tangents. Each hull is kept as its upper and lower chains (both left to right), so
//! the tangent walk of the seed becomes two independent walks: for the upper tangent,
//! the left end `a` moves left while its predecessor is on or above the line `a → b`,
//! and the right end `b` moves right while its successor is on or above it, until
//! neither moves; the lower tangent is the mirror image. The merged chains are the left
//! chain up to `a` followed by the right chain from `b`. O(n log n).
//!
//! "On or above" (orientation ≥ 0) moves past collinear points, so the merged chains stay
//! strictly convex, like every other builder's.

use glam::DVec2;

use super::predicates::{orient2, prepare2};
use super::{join_chains, sorted_unique, Hull2d, HullError};
use crate::math::Vector2;

/// The convex hull of `points` by divide and conquer.
///
/// Same answer, convention and errors as [`super::monotone_chain`].
pub fn divide_conquer(points: &[Vector2]) -> Result<Hull2d, HullError> {
    divide_conquer_prepared(prepare2(points)?)
}

/// The algorithm on validated points rescaled to `f64`.
pub(crate) fn divide_conquer_prepared(p: Vec<DVec2>) -> Result<Hull2d, HullError> {
    let sorted = sorted_unique(&p);
    let (lower, upper) = chains(&p, &sorted);
    Ok(join_chains(&p, &lower, &upper))
}

/// Lower and upper chains of a lexicographically sorted run of distinct points.
fn chains(p: &[DVec2], sorted: &[usize]) -> (Vec<usize>, Vec<usize>) {
    if sorted.len() <= 1 {
        return (sorted.to_vec(), sorted.to_vec());
    }
    let (left, right) = sorted.split_at(sorted.len() / 2);
    let (l_lower, l_upper) = chains(p, left);
    let (r_lower, r_upper) = chains(p, right);
    (
        merge(p, &l_lower, &r_lower, -1.0),
        merge(p, &l_upper, &r_upper, 1.0),
    )
}

/// Joins two chains along their common tangent: the upper one for `side = 1`, the lower
/// one for `side = -1`. Every point of `left` is lexicographically before every point of
/// `right`.
fn merge(p: &[DVec2], left: &[usize], right: &[usize], side: f64) -> Vec<usize> {
    let mut a = left.len() - 1;
    let mut b = 0;
    // Each move is monotone (a only decreases, b only increases), so the walk ends after
    // at most |left| + |right| moves.
    loop {
        let mut moved = false;
        while a > 0 && side * orient2(p[left[a]], p[right[b]], p[left[a - 1]]) >= 0.0 {
            a -= 1;
            moved = true;
        }
        while b + 1 < right.len() && side * orient2(p[left[a]], p[right[b]], p[right[b + 1]]) >= 0.0
        {
            b += 1;
            moved = true;
        }
        if !moved {
            break;
        }
    }
    let mut out = Vec::with_capacity(a + 1 + right.len() - b);
    out.extend_from_slice(&left[..=a]);
    out.extend_from_slice(&right[b..]);
    out
}
