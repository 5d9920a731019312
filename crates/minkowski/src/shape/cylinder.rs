//! A cylinder along local +Y.

use super::{check_length, ConvexShape, CoreShape, ShapeError, ShapeParams};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// A solid cylinder of radius `r` with flat caps at `y = ±h`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cylinder {
    half_height: Real,
    radius: Real,
}

impl Cylinder {
    /// A cylinder of half height `half_height` and radius `radius` (lengths, `>= 0`).
    ///
    /// # Errors
    /// [`ShapeError::InvalidLength`] / [`ShapeError::OutOfRange`] for a bad length.
    pub fn new(half_height: Real, radius: Real) -> Result<Self, ShapeError> {
        Ok(Self {
            half_height: check_length("cylinder", "half_height", half_height)?,
            radius: check_length("cylinder", "radius", radius)?,
        })
    }

    /// Half the height (caps at `y = ±half_height`).
    pub fn half_height(&self) -> Real {
        self.half_height
    }

    /// The radius.
    pub fn radius(&self) -> Real {
        self.radius
    }
}

/// Protocol: `{"type": "cylinder", "half_height": h, "radius": r}`. Core: itself.
impl ConvexShape for Cylinder {
    const TYPE_NAME: &'static str = "cylinder";

    fn core(&self) -> (CoreShape<'_>, Real) {
        (CoreShape::Cylinder(self), 0.0)
    }

    fn local_aabb(&self) -> Aabb {
        let e = Vector::new(self.radius, self.half_height, self.radius);
        Aabb::new(-e, e)
    }

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
        Cylinder::new(self.half_height() * factor, self.radius() * factor)
    }

    fn example() -> Self {
        Self {
            half_height: 0.5,
            radius: 0.4,
        }
    }
}

/// The point of the disc of radius `r` in the XZ plane furthest along `dir` (the centre
/// when `dir` is parallel to Y).
#[inline]
pub(crate) fn disc_support(dir: Vector, r: Real) -> (Real, Real) {
    let len2 = dir.x * dir.x + dir.z * dir.z;
    if len2 > 0.0 {
        let s = r / len2.sqrt();
        (dir.x * s, dir.z * s)
    } else {
        (0.0, 0.0)
    }
}

impl SupportMap for Cylinder {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        let (x, z) = disc_support(dir, self.radius);
        let y = if dir.y < 0.0 {
            -self.half_height
        } else {
            self.half_height
        };
        Vector::new(x, y, z)
    }
}
