//! An axis-aligned ellipsoid.

use super::{check_extents, ConvexShape, CoreShape, ShapeError, ShapeParams};
use crate::bounding::Aabb;
use crate::math::{normalize_robust, Point, Real, Vector};
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
}

/// Protocol: `{"type": "ellipsoid", "radii": [a, b, c]}`. Core: itself.
impl ConvexShape for Ellipsoid {
    const TYPE_NAME: &'static str = "ellipsoid";

    fn core(&self) -> (CoreShape<'_>, Real) {
        (CoreShape::Ellipsoid(self), 0.0)
    }

    fn local_aabb(&self) -> Aabb {
        Aabb::new(-self.radii, self.radii)
    }

    fn bounding_radius(&self) -> Real {
        self.radii.max_element()
    }

    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error> {
        Ok(Self::new(params.vector("radii")?)?)
    }

    fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        Ellipsoid::new(self.radii() * factor)
    }

    fn example() -> Self {
        Self {
            radii: Vector::new(0.5, 0.35, 0.25),
        }
    }
}

impl SupportMap for Ellipsoid {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        // The ellipsoid is R·(unit ball) with R = diag(radii), so
        // s(d) = R s_ball(R d) = R² d / ‖R d‖.
        let rd = self.radii * dir;
        let len_sq = rd.length_squared();
        if len_sq >= Real::MIN_POSITIVE {
            self.radii * rd / len_sq.sqrt()
        } else {
            // Tiny radii or direction (R d about 1e-19 or less in f32): the square
            // underflows, so normalise after dividing by the largest component.
            normalize_robust(rd).map_or(Vector::ZERO, |u| self.radii * u)
        }
    }
}
