//! A cone along local +Y.

use super::cylinder::disc_support;
use super::{check_length, ConvexShape, CoreShape, ShapeError, ShapeParams};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// A solid cone: base disc of radius `r` at `y = -h`, apex at `(0, h, 0)`.
///
/// The origin is the middle of the axis, not the centroid (which is at `y = -h/2`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cone {
    half_height: Real,
    radius: Real,
}

impl Cone {
    /// A cone of half height `half_height` and base radius `radius` (lengths, `>= 0`).
    ///
    /// # Errors
    /// [`ShapeError::InvalidLength`] / [`ShapeError::OutOfRange`] for a bad length.
    pub fn new(half_height: Real, radius: Real) -> Result<Self, ShapeError> {
        Ok(Self {
            half_height: check_length("cone", "half_height", half_height)?,
            radius: check_length("cone", "radius", radius)?,
        })
    }

    /// Half the height (apex at `+half_height`, base at `-half_height`).
    pub fn half_height(&self) -> Real {
        self.half_height
    }

    /// The base radius.
    pub fn radius(&self) -> Real {
        self.radius
    }
}

/// Protocol: `{"type": "cone", "half_height": h, "radius": r}`. Core: itself.
impl ConvexShape for Cone {
    const TYPE_NAME: &'static str = "cone";

    fn core(&self) -> (CoreShape<'_>, Real) {
        (CoreShape::Cone(self), 0.0)
    }

    fn local_aabb(&self) -> Aabb {
        let e = Vector::new(self.radius, self.half_height, self.radius);
        Aabb::new(-e, e)
    }

    /// The apex is at the half height, the base rim at `hypot(h, r)`.
    fn bounding_radius(&self) -> Real {
        self.half_height.hypot(self.radius)
    }

    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error> {
        Ok(Self::new(
            params.number("half_height")?,
            params.number("radius")?,
        )?)
    }

    fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        Cone::new(self.half_height() * factor, self.radius() * factor)
    }

    fn example() -> Self {
        Self {
            half_height: 0.5,
            radius: 0.4,
        }
    }
}

impl SupportMap for Cone {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        let h = self.half_height;
        let (x, z) = disc_support(dir, self.radius);
        let base = Vector::new(x, -h, z);
        // The apex wins when it is at least as far along dir as the best rim point.
        if dir.y * h >= base.dot(dir) {
            Vector::new(0.0, h, 0.0)
        } else {
            base
        }
    }
}
