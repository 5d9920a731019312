//! A rectangular pyramid along local +Y.

use super::{check_extents, farthest, ConvexShape, CoreShape, ShapeError, ShapeParams};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// A pyramid with rectangular base `(±x, -y, ±z)` and apex `(0, y, 0)`, where
/// `(x, y, z)` are the half extents.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pyramid {
    half_extents: Vector,
}

impl Pyramid {
    /// A pyramid with the given half extents (lengths, each finite and `>= 0`).
    ///
    /// # Errors
    /// [`ShapeError::InvalidLength`] / [`ShapeError::OutOfRange`] for a bad extent.
    pub fn new(half_extents: Vector) -> Result<Self, ShapeError> {
        Ok(Self {
            half_extents: check_extents("pyramid", "half_extents", half_extents)?,
        })
    }

    /// The half extents.
    pub fn half_extents(&self) -> Vector {
        self.half_extents
    }

    /// The five vertices: four base corners then the apex.
    pub fn vertices(&self) -> [Point; 5] {
        let h = self.half_extents;
        [
            Vector::new(-h.x, -h.y, -h.z),
            Vector::new(h.x, -h.y, -h.z),
            Vector::new(h.x, -h.y, h.z),
            Vector::new(-h.x, -h.y, h.z),
            Vector::new(0.0, h.y, 0.0),
        ]
    }
}

/// Protocol: `{"type": "pyramid", "half_extents": [x, y, z]}`. Core: itself.
impl ConvexShape for Pyramid {
    const TYPE_NAME: &'static str = "pyramid";

    fn core(&self) -> (CoreShape<'_>, Real) {
        (CoreShape::Pyramid(self), 0.0)
    }

    fn local_aabb(&self) -> Aabb {
        Aabb::new(-self.half_extents, self.half_extents)
    }

    fn bounding_radius(&self) -> Real {
        farthest(&self.vertices())
    }

    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error> {
        Ok(Self::new(params.vector("half_extents")?)?)
    }

    fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        Pyramid::new(self.half_extents() * factor)
    }

    fn example() -> Self {
        Self {
            half_extents: Vector::new(0.5, 0.5, 0.4),
        }
    }
}

impl SupportMap for Pyramid {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        let h = self.half_extents;
        let base = Vector::new(
            if dir.x < 0.0 { -h.x } else { h.x },
            -h.y,
            if dir.z < 0.0 { -h.z } else { h.z },
        );
        if dir.y * h.y >= base.dot(dir) {
            Vector::new(0.0, h.y, 0.0)
        } else {
            base
        }
    }
}
