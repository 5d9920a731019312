//! A capsule along local +Y.

use super::{check_length, ConvexShape, CoreShape, Segment, ShapeError, ShapeParams};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// The segment from `(0, -h, 0)` to `(0, h, 0)` swept by a ball of radius `r`.
///
/// For queries a capsule is its segment with margin `r` (seed 004: "capsule reduced to
/// its segment + radius").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Capsule {
    half_height: Real,
    radius: Real,
}

impl Capsule {
    /// A capsule of half height `half_height` (of the inner segment) and radius `radius`.
    ///
    /// # Errors
    /// [`ShapeError::InvalidLength`] / [`ShapeError::OutOfRange`] for a bad length.
    pub fn new(half_height: Real, radius: Real) -> Result<Self, ShapeError> {
        Ok(Self {
            half_height: check_length("capsule", "half_height", half_height)?,
            radius: check_length("capsule", "radius", radius)?,
        })
    }

    /// Half the length of the inner segment.
    pub fn half_height(&self) -> Real {
        self.half_height
    }

    /// The radius.
    pub fn radius(&self) -> Real {
        self.radius
    }

    /// The inner segment (the capsule's core).
    pub fn segment(&self) -> Segment {
        Segment::new_unchecked(
            Vector::new(0.0, -self.half_height, 0.0),
            Vector::new(0.0, self.half_height, 0.0),
        )
    }
}

/// Protocol: `{"type": "capsule", "half_height": h, "radius": r}`. Core: the inner
/// segment, with margin `r`.
impl ConvexShape for Capsule {
    const TYPE_NAME: &'static str = "capsule";

    fn core(&self) -> (CoreShape<'_>, Real) {
        (CoreShape::Segment(self.segment()), self.radius)
    }

    fn local_aabb(&self) -> Aabb {
        let e = Vector::new(self.radius, self.half_height + self.radius, self.radius);
        Aabb::new(-e, e)
    }

    fn bounding_radius(&self) -> Real {
        self.half_height + self.radius
    }

    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error> {
        Ok(Self::new(
            params.number("half_height")?,
            params.number("radius")?,
        )?)
    }

    fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        Capsule::new(self.half_height() * factor, self.radius() * factor)
    }

    fn example() -> Self {
        Self {
            half_height: 0.4,
            radius: 0.25,
        }
    }
}

impl SupportMap for Capsule {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        let y = if dir.y < 0.0 {
            -self.half_height
        } else {
            self.half_height
        };
        Vector::new(0.0, y, 0.0) + dir.normalize_or_zero() * self.radius
    }
}
