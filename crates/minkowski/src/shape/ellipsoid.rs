//! An axis-aligned ellipsoid.

use super::{check_extents, ShapeError};
use crate::bounding::Aabb;
use crate::math::{Point, Vector};
use crate::support::SupportMap;

/// The ellipsoid `(x/a)² + (y/b)² + (z/c)² ≤ 1` with radii `(a, b, c)`. A zero radius
/// flattens it into an ellipse (or a segment, or a point).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ellipsoid {
    radii: Vector,
}

impl Ellipsoid {
    /// An ellipsoid with the given radii (lengths, each finite and `>= 0`).
    ///
    /// # Errors
    /// [`ShapeError::InvalidLength`] / [`ShapeError::OutOfRange`] for a bad radius.
    pub fn new(radii: Vector) -> Result<Self, ShapeError> {
        Ok(Self {
            radii: check_extents("ellipsoid", "radii", radii)?,
        })
    }

    /// The radii along local X, Y, Z.
    pub fn radii(&self) -> Vector {
        self.radii
    }

    /// Bounding box in the local frame.
    pub fn local_aabb(&self) -> Aabb {
        Aabb::new(-self.radii, self.radii)
    }
}

impl SupportMap for Ellipsoid {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        // The ellipsoid is R·(unit ball) with R = diag(radii), so
        // s(d) = R s_ball(R d) = R² d / ‖R d‖.
        let rd = self.radii * dir;
        let len = rd.length();
        if len > 0.0 {
            self.radii * rd / len
        } else {
            Vector::ZERO
        }
    }
}
