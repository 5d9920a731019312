//! Axis-aligned bounding boxes.

use crate::math::{Matrix3, Pose, Real, Vector};

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

    /// Distance from the origin to the box's farthest corner (length units): the radius
    /// of the smallest origin-centred ball holding the box.
    pub fn origin_radius(&self) -> Real {
        self.mins.abs().max(self.maxs.abs()).length()
    }

    /// The box grown by `margin` (a length) on every side.
    pub fn loosened(&self, margin: Real) -> Self {
        Self::new(
            self.mins - Vector::splat(margin),
            self.maxs + Vector::splat(margin),
        )
    }

    /// The smallest box containing both.
    pub fn merged(&self, other: &Aabb) -> Self {
        Self::new(self.mins.min(other.mins), self.maxs.max(other.maxs))
    }

    /// Whether `other` lies inside this closed box.
    pub fn contains(&self, other: &Aabb) -> bool {
        self.mins.cmple(other.mins).all() && other.maxs.cmple(self.maxs).all()
    }

    /// Whether the point lies in the closed box.
    pub fn contains_point(&self, p: Vector) -> bool {
        self.mins.cmple(p).all() && p.cmple(self.maxs).all()
    }

    /// Surface area (square length units): the cost measure of bounding-volume trees.
    pub fn surface_area(&self) -> Real {
        let d = self.maxs - self.mins;
        2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
    }

    /// The box swept by a translation `motion` (length units): the union of the box at
    /// the start and at the end.
    pub fn swept(&self, motion: Vector) -> Self {
        Self::new(
            self.mins.min(self.mins + motion),
            self.maxs.max(self.maxs + motion),
        )
    }

    /// The box grown by `half_extents` (lengths, `>= 0`) along each axis: the set of
    /// centres of boxes of those half extents that meet this one.
    pub fn grown(&self, half_extents: Vector) -> Self {
        Self::new(self.mins - half_extents, self.maxs + half_extents)
    }

    /// Where the ray `origin + t · dir`, `t ∈ [0, max_t]`, first meets the closed box:
    /// the entry parameter `t` (0 when the origin is inside), or `None` if it misses.
    /// `dir` need not be unit length (`t` is in units of `dir`); zero components are
    /// handled (the ray is then parallel to that slab). See also [`Aabb::ray_span`].
    pub fn ray_entry(&self, origin: Vector, dir: Vector, max_t: Real) -> Option<Real> {
        self.ray_span(origin, dir, max_t).map(|s| s.0)
    }

    /// The times `(t_in, t_out)`, `0 <= t_in <= t_out <= max_t`, during which the ray
    /// `origin + t · dir` is in the closed box (units of `dir`), or `None` if it is not
    /// for any `t ∈ [0, max_t]`. A NaN in the input gives `None`.
    #[allow(clippy::neg_cmp_op_on_partial_ord)] // NaN goes to the miss branch
    pub fn ray_span(&self, origin: Vector, dir: Vector, max_t: Real) -> Option<(Real, Real)> {
        let (mut t0, mut t1) = (0.0 as Real, max_t);
        for k in 0..3 {
            if dir[k] == 0.0 {
                if !(origin[k] >= self.mins[k] && origin[k] <= self.maxs[k]) {
                    return None;
                }
                continue;
            }
            let inv = 1.0 / dir[k];
            let (mut a, mut b) = (
                (self.mins[k] - origin[k]) * inv,
                (self.maxs[k] - origin[k]) * inv,
            );
            if a > b {
                std::mem::swap(&mut a, &mut b);
            }
            t0 = t0.max(a);
            t1 = t1.min(b);
            if !(t0 <= t1) {
                return None;
            }
        }
        Some((t0, t1))
    }

    /// Whether the two closed boxes overlap (touching counts).
    pub fn intersects(&self, other: &Aabb) -> bool {
        self.mins.cmple(other.maxs).all() && other.mins.cmple(self.maxs).all()
    }

    /// The box, in the parent frame, that contains this local box once placed by `pose`
    /// (Arvo's method: the rotated half extents through `|R|`).
    ///
    /// The rotation goes through its matrix, built once (a third of the arithmetic of
    /// rotating the centre and the three axes by the quaternion); the narrow phase
    /// places shapes by the same matrix. Up to rounding: callers that need a sure bound
    /// loosen the box (the world's [`object_box`](crate::world::object_box) does).
    pub fn transformed(&self, pose: &Pose) -> Self {
        let r = Matrix3::from_quat(pose.rotation());
        let c = r * self.center() + pose.translation();
        let h = self.half_extents();
        let a = Matrix3::from_cols(r.x_axis.abs(), r.y_axis.abs(), r.z_axis.abs());
        let e = a * h;
        Self::new(c - e, c + e)
    }
}
