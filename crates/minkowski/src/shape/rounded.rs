//! Any shape inflated by a ball.

use super::{check_length, ConvexShape, CoreShape, Cuboid, Shape, ShapeError, ShapeParams};
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
}

/// Protocol: `{"type": "rounded", "shape": {...}, "radius": r}`. Core: the inner
/// shape's core, with the inner margin plus `r`.
impl ConvexShape for RoundedShape {
    const TYPE_NAME: &'static str = "rounded";

    fn core(&self) -> (CoreShape<'_>, Real) {
        let (core, margin) = self.inner.core();
        (core, margin + self.radius)
    }

    fn local_aabb(&self) -> Aabb {
        self.inner.local_aabb().loosened(self.radius)
    }

    fn bounding_radius(&self) -> Real {
        self.inner.bounding_radius() + self.radius
    }

    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error> {
        let inner = params.shape("shape")?;
        Ok(Self::new(inner, params.number("radius")?)?)
    }

    /// A rounded box: [`Cuboid`]'s example inflated by `0.1`.
    fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        RoundedShape::new(self.inner().scaled(factor)?, self.radius() * factor)
    }

    fn example() -> Self {
        Self {
            inner: Box::new(Cuboid::example().into()),
            radius: 0.1,
        }
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
