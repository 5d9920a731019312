//! Andrew's monotone chain (A. M. Andrew, "Another efficient algorithm for convex hulls
//! in two dimensions", Inf. Process. Lett. 9(5), 1979).
//!
//! Sort the points lexicographically; the lower hull is then built left to right by a
//! stack that pops its top while the last two entries and the new point fail to make a
//! strict left turn, and the upper hull likewise with right turns. O(n log n) for the
//! sort, O(n) after. It is the simplest of the 2D algorithms and the reference the
//! others are tested against.

use glam::DVec2;

use super::predicates::prepare2;
use super::{join_chains, monotone_chains, sorted_unique, Hull2d, HullError};
use crate::math::Vector2;

/// The convex hull of `points` by Andrew's monotone chain.
///
/// Returns input indices in the [`Hull2d`] convention (counter-clockwise from the lowest
/// point, extreme points only, degenerate sets as one or two indices).
///
/// # Errors
/// [`HullError::Empty`] for no points, [`HullError::NonFinitePoint`] /
/// [`HullError::OutOfRange`] naming the first bad point.
///
/// ```
/// use minkowski::{hull::monotone_chain, math::Vector2};
/// let square = [[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.5, 0.0]];
/// let pts: Vec<Vector2> = square.iter().map(|p| Vector2::from(*p)).collect();
/// assert_eq!(monotone_chain(&pts).unwrap(), vec![0, 2, 1, 4]);
/// ```
pub fn monotone_chain(points: &[Vector2]) -> Result<Hull2d, HullError> {
    monotone_chain_prepared(prepare2(points)?)
}

/// The algorithm on validated points rescaled to `f64`.
pub(crate) fn monotone_chain_prepared(p: Vec<DVec2>) -> Result<Hull2d, HullError> {
    let sorted = sorted_unique(&p);
    let (lower, upper) = monotone_chains(&p, &sorted);
    Ok(join_chains(&p, &lower, &upper))
}
