//! A rectangular pyramid along local +Y.

use super::{check_extents, ShapeError};
use crate::bounding::Aabb;
use crate::math::{Point, Vector};
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

    /// Bounding box in the local frame.
    pub fn local_aabb(&self) -> Aabb {
        Aabb::new(-self.half_extents, self.half_extents)
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
