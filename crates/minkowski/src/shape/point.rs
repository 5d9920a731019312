//! A single point.

use super::{check_point, ConvexShape, CoreShape, ShapeError, ShapeParams};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// The single point `p` (local frame). Named `PointShape` to keep `Point` for the vector
/// alias.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointShape {
    p: Point,
}

impl PointShape {
    /// The local origin.
    pub const ORIGIN: PointShape = PointShape { p: Vector::ZERO };

    /// The point `p` (finite coordinates).
    ///
    /// # Errors
    /// [`ShapeError::NonFinitePoint`] / [`ShapeError::OutOfRange`].
    pub fn new(p: Point) -> Result<Self, ShapeError> {
        Ok(Self {
            p: check_point("point", || "p".into(), p)?,
        })
    }

    /// The point.
    pub fn point(&self) -> Point {
        self.p
    }
}

/// Protocol: `{"type": "point", "p": [x, y, z]}` (`p` optional, the origin by
/// default). Core: itself. Its bounding box is degenerate: the point.
impl ConvexShape for PointShape {
    const TYPE_NAME: &'static str = "point";

    fn core(&self) -> (CoreShape<'_>, Real) {
        (CoreShape::Point(*self), 0.0)
    }

    fn local_aabb(&self) -> Aabb {
        Aabb::new(self.p, self.p)
    }

    fn bounding_radius(&self) -> Real {
        self.p.length()
    }

    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error> {
        Ok(Self::new(
            params.optional_vector("p")?.unwrap_or(Vector::ZERO),
        )?)
    }

    fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        PointShape::new(self.point() * factor)
    }

    fn example() -> Self {
        Self::ORIGIN
    }
}

impl SupportMap for PointShape {
    #[inline]
    fn local_support(&self, _dir: Vector) -> Point {
        self.p
    }
    fn local_center(&self) -> Point {
        self.p
    }
}
