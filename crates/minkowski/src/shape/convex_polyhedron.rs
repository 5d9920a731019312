//! The convex hull of a point cloud.

use super::{check_point, ShapeError};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// The convex hull of a finite, non-empty point set (local frame). The points need not
/// all be on the hull: interior points are never returned by the support map except on
/// ties.
///
/// The support map is a linear scan over the points; hill climbing over hull adjacency
/// comes with the hull builder.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexPolyhedron {
    points: Vec<Point>,
    center: Point,
}

impl ConvexPolyhedron {
    /// The hull of `points` (at least one point; finite coordinates).
    ///
    /// # Errors
    /// [`ShapeError::EmptyPointSet`], or [`ShapeError::NonFinitePoint`] /
    /// [`ShapeError::OutOfRange`] naming the first bad point.
    pub fn new(points: Vec<Point>) -> Result<Self, ShapeError> {
        if points.is_empty() {
            return Err(ShapeError::EmptyPointSet { shape: "convex" });
        }
        for (i, p) in points.iter().enumerate() {
            check_point("convex", || format!("points[{i}]"), *p)?;
        }
        // The mean of the points is inside the hull: a good GJK starting point.
        let sum = points.iter().fold(Vector::ZERO, |acc, p| acc + *p);
        let center = sum / points.len() as Real;
        Ok(Self { points, center })
    }

    /// The points the hull was built from, in input order.
    pub fn points(&self) -> &[Point] {
        &self.points
    }

    /// Bounding box in the local frame.
    pub fn local_aabb(&self) -> Aabb {
        let (mut lo, mut hi) = (self.points[0], self.points[0]);
        for p in &self.points[1..] {
            lo = lo.min(*p);
            hi = hi.max(*p);
        }
        Aabb::new(lo, hi)
    }
}

impl SupportMap for ConvexPolyhedron {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        let mut best = self.points[0];
        let mut best_dot = best.dot(dir);
        for p in &self.points[1..] {
            let d = p.dot(dir);
            if d > best_dot {
                best_dot = d;
                best = *p;
            }
        }
        best
    }
    fn local_center(&self) -> Point {
        self.center
    }
}
