//! A box centred at the origin.

use super::{check_extents, ConvexShape, CoreShape, ShapeError, ShapeParams};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// An axis-aligned box `[-h, h]` in its local frame (`h` = half extents).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cuboid {
    half_extents: Vector,
}

impl Cuboid {
    /// A box with the given half extents (lengths, each finite and `>= 0`).
    ///
    /// # Errors
    /// [`ShapeError::InvalidLength`] / [`ShapeError::OutOfRange`] for a bad extent.
    pub fn new(half_extents: Vector) -> Result<Self, ShapeError> {
        Ok(Self {
            half_extents: check_extents("cuboid", "half_extents", half_extents)?,
        })
    }

    /// The half extents.
    pub fn half_extents(&self) -> Vector {
        self.half_extents
    }

    /// The eight corners, in the order of the sign bits of the index (bit 0 → x).
    pub fn vertices(&self) -> [Point; 8] {
        let h = self.half_extents;
        core::array::from_fn(|i| {
            Vector::new(
                if i & 1 == 0 { -h.x } else { h.x },
                if i & 2 == 0 { -h.y } else { h.y },
                if i & 4 == 0 { -h.z } else { h.z },
            )
        })
    }
}

/// Protocol: `{"type": "cuboid", "half_extents": [x, y, z]}`. Core: itself.
impl ConvexShape for Cuboid {
    const TYPE_NAME: &'static str = "cuboid";

    fn core(&self) -> (CoreShape<'_>, Real) {
        (CoreShape::Cuboid(self), 0.0)
    }

    fn local_aabb(&self) -> Aabb {
        Aabb::new(-self.half_extents, self.half_extents)
    }

    fn bounding_radius(&self) -> Real {
        self.half_extents.length()
    }

    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error> {
        Ok(Self::new(params.vector("half_extents")?)?)
    }

    fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        Cuboid::new(self.half_extents() * factor)
    }

    fn example() -> Self {
        Self {
            half_extents: Vector::new(0.5, 0.4, 0.3),
        }
    }
}

impl SupportMap for Cuboid {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        let h = self.half_extents;
        Vector::new(
            if dir.x < 0.0 { -h.x } else { h.x },
            if dir.y < 0.0 { -h.y } else { h.y },
            if dir.z < 0.0 { -h.z } else { h.z },
        )
    }
    /// The hint names the corner: bit `k` set when coordinate `k` is negative.
    #[inline]
    fn local_support_hinted(&self, dir: Vector, hint: &mut u32) -> Point {
        *hint = (dir.x < 0.0) as u32 | ((dir.y < 0.0) as u32) << 1 | ((dir.z < 0.0) as u32) << 2;
        self.local_support(dir)
    }
    #[inline]
    fn hinted_point(&self, hint: u32) -> Option<Point> {
        if hint >= 8 {
            return None;
        }
        let h = self.half_extents;
        let pick = |bit: u32, e: Real| if hint & (1 << bit) != 0 { -e } else { e };
        Some(Vector::new(pick(0, h.x), pick(1, h.y), pick(2, h.z)))
    }
}
