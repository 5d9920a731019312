//! Melkman's algorithm (A. A. Melkman, "On-line construction of the convex hull of a
//! simple polyline", Inf. Process. Lett. 25(1), 1987).
//!
//! For a *simple* polyline, the hull is kept in a deque whose two ends both hold the
//! most recently added hull vertex. A new vertex strictly inside both end edges is
//! inside the hull and skipped (this is where simplicity is used: such a vertex cannot
//! see anything else); otherwise the front and the back are popped while they fail to
//! turn strictly left towards the new vertex, and the vertex is pushed at both ends.
//! O(n) for a polyline.
//!
//! On an arbitrary point set, [`melkman`] first orders the points into a simple
//! polyline by sorting them by `x` (then `y`), as seed 003 does, which makes the whole
//! O(n log n). A leading run of collinear vertices is replaced by its two extremes, since
//! the algorithm needs a proper starting triangle.

use std::collections::VecDeque;

use glam::DVec2;

use super::predicates::{lex_cmp, orient2, prepare2};
use super::{canonical_start, sorted_unique, Hull2d, HullError};
use crate::math::Vector2;

/// The convex hull of `points` by Melkman's algorithm on the `x`-sorted points.
///
/// Same answer, convention and errors as [`super::monotone_chain`].
pub fn melkman(points: &[Vector2]) -> Result<Hull2d, HullError> {
    melkman_prepared(prepare2(points)?)
}

/// The algorithm on validated points rescaled to `f64`.
pub(crate) fn melkman_prepared(p: Vec<DVec2>) -> Result<Hull2d, HullError> {
    let order = sorted_unique(&p);
    Ok(melkman_indices(&p, &order))
}

/// The convex hull of the simple polyline `points[order[0]], points[order[1]], ...` by
/// Melkman's algorithm, in O(n).
///
/// The answer is correct only if the polyline is simple (does not cross itself);
/// [`melkman`] builds such a polyline from any point set. Repeated consecutive vertices
/// are allowed.
///
/// # Errors
/// [`HullError::Empty`] for an empty `order`, [`HullError::BadIndex`] for an index out
/// of range, and the point errors of [`super::monotone_chain`] for the points named.
pub fn melkman_polyline(points: &[Vector2], order: &[usize]) -> Result<Hull2d, HullError> {
    if let Some(&index) = order.iter().find(|&&i| i >= points.len()) {
        return Err(HullError::BadIndex {
            index,
            len: points.len(),
        });
    }
    if order.is_empty() {
        return Err(HullError::Empty);
    }
    let used: Vec<Vector2> = order.iter().map(|&i| points[i]).collect();
    let p = prepare2(&used)?;
    let mut local: Vec<usize> = (0..p.len()).collect();
    local.dedup_by(|a, b| p[*a] == p[*b]);
    Ok(melkman_indices(&p, &local)
        .into_iter()
        .map(|i| order[i])
        .collect())
}

fn melkman_indices(p: &[DVec2], poly: &[usize]) -> Hull2d {
    // Leading collinear run: every vertex before the first that leaves the line through
    // the first two.
    let Some(&first) = poly.first() else {
        return Vec::new();
    };
    let Some(&second) = poly.get(1) else {
        return vec![first];
    };
    let mut k = 2;
    while k < poly.len() && orient2(p[first], p[second], p[poly[k]]) == 0.0 {
        k += 1;
    }
    // The run's extremes (lexicographic order is order along a line).
    let run = &poly[..k];
    let lo = *run
        .iter()
        .min_by(|&&a, &&b| lex_cmp(p[a], p[b]))
        .expect("run is not empty");
    let hi = *run
        .iter()
        .max_by(|&&a, &&b| lex_cmp(p[a], p[b]))
        .expect("run is not empty");
    if k == poly.len() {
        return canonical_start(p, if lo == hi { vec![lo] } else { vec![lo, hi] });
    }
    let c = poly[k];
    let mut dq: VecDeque<usize> = VecDeque::with_capacity(64);
    if orient2(p[lo], p[hi], p[c]) > 0.0 {
        dq.extend([c, lo, hi, c]);
    } else {
        dq.extend([c, hi, lo, c]);
    }
    for &v in &poly[k + 1..] {
        let n = dq.len();
        let outside_back = orient2(p[dq[n - 2]], p[dq[n - 1]], p[v]) <= 0.0;
        let outside_front = orient2(p[v], p[dq[0]], p[dq[1]]) <= 0.0;
        if !outside_back && !outside_front {
            continue;
        }
        while dq.len() >= 3 && orient2(p[dq[dq.len() - 2]], p[dq[dq.len() - 1]], p[v]) <= 0.0 {
            dq.pop_back();
        }
        dq.push_back(v);
        while dq.len() >= 3 && orient2(p[v], p[dq[0]], p[dq[1]]) <= 0.0 {
            dq.pop_front();
        }
        dq.push_front(v);
    }
    dq.pop_back();
    canonical_start(p, dq.into())
}
