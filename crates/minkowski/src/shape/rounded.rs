//! Any shape inflated by a ball.

use super::{check_length, Shape, ShapeError};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// The Minkowski sum of a shape and a ball of radius `radius` (a "rounded" box, a
/// "swept sphere" triangle, ...). Queries run on the inner shape's core and add the
/// radius analytically.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundedShape {
    inner: Box<Shape>,
    radius: Real,
}

impl RoundedShape {
    /// `inner ⊕ ball(radius)`; `radius` is a length, finite and `>= 0`.
    ///
    /// # Errors
    /// [`ShapeError::InvalidLength`] / [`ShapeError::OutOfRange`] for a bad radius, or
    /// when the total margin (nested rounding) exceeds the limit.
    pub fn new(inner: Shape, radius: Real) -> Result<Self, ShapeError> {
        let radius = check_length("rounded", "radius", radius)?;
        check_length("rounded", "radius", inner.core().1 + radius)?;
        Ok(Self {
            inner: Box::new(inner),
            radius,
        })
    }

    /// The inner shape.
    pub fn inner(&self) -> &Shape {
        &self.inner
    }

    /// The radius added to the inner shape.
    pub fn radius(&self) -> Real {
        self.radius
    }

    /// Bounding box in the local frame.
    pub fn local_aabb(&self) -> Aabb {
        self.inner.local_aabb().loosened(self.radius)
    }
}

impl SupportMap for RoundedShape {
    fn local_support(&self, dir: Vector) -> Point {
        self.inner.local_support(dir) + dir.normalize_or_zero() * self.radius
    }
    fn local_center(&self) -> Point {
        self.inner.local_center()
    }
}
