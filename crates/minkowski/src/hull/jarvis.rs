//! Jarvis march, or gift wrapping (R. A. Jarvis, "On the identification of the convex
//! hull of a finite set of points in the plane", Inf. Process. Lett. 2(1), 1973).
//!
//! From the lowest point, repeatedly choose the next vertex `q` such that no point lies
//! to the right of `p → q` (ties on the line: the furthest point, so that collinear
//! boundary points are skipped), until the walk returns to the start. O(n h) for `h`
//! hull vertices: fast when the hull is small, quadratic when every point is extreme.
//! The walk is bounded by `n + 1` steps whatever the input.

use glam::DVec2;

use super::graham::farther_on_ray;
use super::predicates::{bottom_cmp, orient2, prepare2};
use super::{Hull2d, HullError};
use crate::math::Vector2;

/// The convex hull of `points` by Jarvis march.
///
/// Same answer, convention and errors as [`super::monotone_chain`].
pub fn jarvis(points: &[Vector2]) -> Result<Hull2d, HullError> {
    jarvis_prepared(prepare2(points)?)
}

/// The algorithm on validated points rescaled to `f64`.
pub(crate) fn jarvis_prepared(p: Vec<DVec2>) -> Result<Hull2d, HullError> {
    let start = (0..p.len())
        .min_by(|&a, &b| bottom_cmp(p[a], p[b]))
        .expect("prepare2 refuses empty input");
    let mut hull = vec![start];
    let mut cur = start;
    for _ in 0..=p.len() {
        let mut next = None::<usize>;
        for (i, &pi) in p.iter().enumerate() {
            if pi == p[cur] {
                continue;
            }
            next = Some(match next {
                None => i,
                Some(q) => {
                    let s = orient2(p[cur], p[q], pi);
                    if s < 0.0 || (s == 0.0 && farther_on_ray(p[cur], pi, p[q]).is_gt()) {
                        i
                    } else {
                        q
                    }
                }
            });
        }
        match next {
            Some(q) if p[q] != p[start] => {
                hull.push(q);
                cur = q;
            }
            _ => break,
        }
    }
    Ok(hull)
}
