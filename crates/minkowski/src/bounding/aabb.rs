//! Axis-aligned bounding boxes.

use crate::math::{Pose, Real, Vector};

/// An axis-aligned box `[mins, maxs]`. `mins <= maxs` componentwise for every box built
/// by this crate; a box may be flat or a single point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub mins: Vector,
    /// Largest corner.
    pub maxs: Vector,
}

impl Aabb {
    /// The box `[mins, maxs]`.
    pub fn new(mins: Vector, maxs: Vector) -> Self {
        Self { mins, maxs }
    }

    /// Centre of the box.
    pub fn center(&self) -> Vector {
        (self.mins + self.maxs) * 0.5
    }

    /// Half the size along each axis.
    pub fn half_extents(&self) -> Vector {
        (self.maxs - self.mins) * 0.5
    }

    /// The box grown by `margin` (a length) on every side.
    pub fn loosened(&self, margin: Real) -> Self {
        Self::new(
            self.mins - Vector::splat(margin),
            self.maxs + Vector::splat(margin),
        )
    }

    /// Whether the two closed boxes overlap (touching counts).
    pub fn intersects(&self, other: &Aabb) -> bool {
        self.mins.cmple(other.maxs).all() && other.mins.cmple(self.maxs).all()
    }

    /// The box, in the parent frame, that contains this local box once placed by `pose`
    /// (Arvo's method: the rotated half extents through `|R|`).
    pub fn transformed(&self, pose: &Pose) -> Self {
        let c = pose.transform_point(self.center());
        let h = self.half_extents();
        let r = glam_mat3(pose);
        let e = Vector::new(
            r[0].x.abs() * h.x + r[1].x.abs() * h.y + r[2].x.abs() * h.z,
            r[0].y.abs() * h.x + r[1].y.abs() * h.y + r[2].y.abs() * h.z,
            r[0].z.abs() * h.x + r[1].z.abs() * h.y + r[2].z.abs() * h.z,
        );
        Self::new(c - e, c + e)
    }
}

/// The rotation's columns (images of the local axes).
fn glam_mat3(pose: &Pose) -> [Vector; 3] {
    [
        pose.rotation * Vector::X,
        pose.rotation * Vector::Y,
        pose.rotation * Vector::Z,
    ]
}
