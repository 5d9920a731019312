//! A ball centred at the origin.

use super::{check_length, ConvexShape, CoreShape, PointShape, ShapeError, ShapeParams};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// A ball of radius `radius` centred at the local origin.
///
/// For queries a sphere is a point with margin `radius` (see [`super::Shape::core`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sphere {
    radius: Real,
}

impl Sphere {
    /// A ball of the given radius (length, finite, `>= 0`; 0 is a point).
    ///
    /// # Errors
    /// [`ShapeError::InvalidLength`] / [`ShapeError::OutOfRange`] for a bad radius.
    pub fn new(radius: Real) -> Result<Self, ShapeError> {
        Ok(Self {
            radius: check_length("sphere", "radius", radius)?,
        })
    }

    /// The radius.
    pub fn radius(&self) -> Real {
        self.radius
    }
}

/// Protocol: `{"type": "sphere", "radius": r}`. Core: the centre, with margin `r`.
impl ConvexShape for Sphere {
    const TYPE_NAME: &'static str = "sphere";

    fn core(&self) -> (CoreShape<'_>, Real) {
        (CoreShape::Point(PointShape::ORIGIN), self.radius)
    }

    fn local_aabb(&self) -> Aabb {
        Aabb::new(Vector::splat(-self.radius), Vector::splat(self.radius))
    }

    fn bounding_radius(&self) -> Real {
        self.radius
    }

    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error> {
        Ok(Self::new(params.number("radius")?)?)
    }

    fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        Sphere::new(self.radius() * factor)
    }

    fn example() -> Self {
        Self { radius: 0.5 }
    }
}

impl SupportMap for Sphere {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        dir.normalize_or_zero() * self.radius
    }
}
