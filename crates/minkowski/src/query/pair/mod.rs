//! Specialised routines for cheap shape pairs, each exact and faster than GJK/EPA on
//! its pair. The dispatcher ([`crate::query::dispatch`]) picks them; they share the
//! output convention of [`crate::query::Contact`]: signed distance, unit normal from A
//! to B, witness points, all in A's local frame (the dispatcher moves them to the
//! world frame).

pub(crate) mod box_box;
pub(crate) mod box_triangle;
pub(crate) mod box_triangle_contact;
pub(crate) mod point_triangle;
pub(crate) mod polytope_polytope;
pub(crate) mod segment_segment;
pub(crate) mod segment_triangle;
pub(crate) mod sphere_box;
pub(crate) mod sphere_sphere;

use crate::math::{Point, Pose, Real, Vector};

/// A contact in A's local frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LocalContact {
    /// Signed distance (negative = penetration depth).
    pub distance: Real,
    /// Unit normal from A towards B.
    pub normal: Vector,
    /// Point on A.
    pub point_a: Point,
    /// Point on B.
    pub point_b: Point,
}

impl LocalContact {
    /// The same contact seen from the other shape (A and B swapped).
    pub fn swapped(self) -> Self {
        Self {
            distance: self.distance,
            normal: -self.normal,
            point_a: self.point_b,
            point_b: self.point_a,
        }
    }

    /// A contact solved with the roles swapped, in B's frame (B's shape as `A`), brought
    /// back to A's frame by `rel` (B's pose in A's frame) and swapped back.
    pub fn solved_in_b_frame(self, rel: &Pose) -> Self {
        Self {
            distance: self.distance,
            normal: rel.transform_vector(self.normal),
            point_a: rel.transform_point(self.point_a),
            point_b: rel.transform_point(self.point_b),
        }
        .swapped()
    }
}
