//! A single point.

use super::{check_point, ShapeError};
use crate::bounding::Aabb;
use crate::math::{Point, Vector};
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

    /// Bounding box in the local frame (degenerate: a single point).
    pub fn local_aabb(&self) -> Aabb {
        Aabb::new(self.p, self.p)
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
