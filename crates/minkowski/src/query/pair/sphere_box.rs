//! Box–sphere: closed form in the box's frame.

use super::LocalContact;
use crate::math::{length_robust, Point, Real, Vector};

/// Contact between the box `[-h, h]` (shape A, at the origin of this frame) and the ball
/// of radius `r` centred at `c` (shape B).
///
/// Outside the box the closest box point is the clamp of `c`; inside, the nearest face
/// gives the shortest way out (ties go to the lowest axis, then to +).
pub(crate) fn contact(h: Vector, c: Point, r: Real) -> LocalContact {
    let q = c.clamp(-h, h);
    let d = c - q;
    let len = length_robust(d);
    if len > 0.0 {
        let normal = d / len;
        return LocalContact {
            distance: len - r,
            normal,
            point_a: q,
            point_b: c - normal * r,
        };
    }
    // Centre inside (or on) the box: leave through the nearest face.
    let gaps = h - c.abs();
    let axis = if gaps.x <= gaps.y && gaps.x <= gaps.z {
        0
    } else if gaps.y <= gaps.z {
        1
    } else {
        2
    };
    let mut normal = Vector::ZERO;
    normal[axis] = if c[axis] < 0.0 { -1.0 } else { 1.0 };
    let mut on_face = c;
    on_face[axis] = normal[axis] * h[axis];
    LocalContact {
        distance: -(gaps[axis] + r),
        normal,
        point_a: on_face,
        point_b: c - normal * r,
    }
}
