//! A half-space: everything on one side of a plane (the ground, a wall, a level's
//! boundary).
//!
//! It is unbounded, so it has no support map (its support point in any direction but
//! `−normal` is at infinity) and is not a variant of the convex [`super::Shape`]: the
//! queries against it are closed forms of their own, in `query/halfspace.rs`
//! ([`crate::query::contact_halfspace`] and its siblings), built on the *other* shape's
//! support map.

use super::{ShapeError, MAX_MAGNITUDE};
use crate::math::{Point, Real, Vector};
use crate::tolerance::NORMAL_LENGTH_TOLERANCE;

/// The solid half-space `{x : normal · x ≤ offset}` in its local frame: the plane
/// `normal · x = offset` and everything below it, `normal` (unit) pointing out of the
/// solid.
///
/// Placed at a [`crate::Pose`], the world half-space is
/// `{x : n_w · x ≤ offset + n_w · t}` with `n_w = rotation · normal` and `t` the pose's
/// translation.
///
/// **Unbounded:** it has no bounding box, no bounding radius and no support map. A broad
/// phase has to treat it as overlapping every box on its inner side (the collision
/// world's integration is separate from this type). Queries pair it with a convex
/// [`super::Shape`] (or a [`super::Compound`]); see [`crate::query::contact_halfspace`].
///
/// ```
/// use minkowski::shape::HalfSpace;
/// use minkowski::Vector;
///
/// let ground = HalfSpace::new(Vector::Y, 0.0).unwrap();
/// assert_eq!(ground.signed_distance(Vector::new(3.0, 2.0, -1.0)), 2.0);
/// assert!(HalfSpace::new(Vector::new(0.0, 2.0, 0.0), 0.0).is_err()); // not unit
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HalfSpace {
    normal: Vector,
    offset: Real,
}

impl HalfSpace {
    /// The protocol name of the type: `"halfspace"`.
    pub const TYPE_NAME: &'static str = "halfspace";

    /// The half-space `{x : normal · x ≤ offset}` (local frame).
    ///
    /// `normal` must be finite with a length within
    /// [`NORMAL_LENGTH_TOLERANCE`](crate::tolerance::NORMAL_LENGTH_TOLERANCE) (1e-3) of
    /// 1; it is then renormalised. `offset` (length units, either sign) is the plane's
    /// signed distance from the local origin along `normal`, finite and of magnitude at
    /// most [`MAX_MAGNITUDE`].
    ///
    /// # Errors
    /// [`ShapeError::NonFinitePoint`] for a NaN or infinite normal component,
    /// [`ShapeError::NotUnit`] for a normal whose length is off by more than the
    /// tolerance (the zero vector included), [`ShapeError::NonFiniteValue`] for a NaN or
    /// infinite offset and [`ShapeError::OutOfRange`] for an offset beyond
    /// [`MAX_MAGNITUDE`].
    pub fn new(normal: Vector, offset: Real) -> Result<Self, ShapeError> {
        if !normal.is_finite() {
            return Err(ShapeError::NonFinitePoint {
                shape: Self::TYPE_NAME,
                field: "normal".into(),
                x: normal.x,
                y: normal.y,
                z: normal.z,
            });
        }
        // Finite components: the length is finite (at most √3 · Real::MAX overflows only
        // for components near Real::MAX, which give `inf`, refused below).
        let length = normal.length();
        if length.is_nan() || (length - 1.0).abs() > NORMAL_LENGTH_TOLERANCE {
            return Err(ShapeError::NotUnit {
                shape: Self::TYPE_NAME,
                field: "normal",
                length,
                tolerance: NORMAL_LENGTH_TOLERANCE,
            });
        }
        if !offset.is_finite() {
            return Err(ShapeError::NonFiniteValue {
                shape: Self::TYPE_NAME,
                field: "offset",
                value: offset,
            });
        }
        if offset.abs() > MAX_MAGNITUDE {
            return Err(ShapeError::OutOfRange {
                shape: Self::TYPE_NAME,
                field: "offset",
                value: offset,
                max: MAX_MAGNITUDE,
            });
        }
        Ok(Self {
            normal: normal / length,
            offset,
        })
    }

    /// The half-space whose boundary plane passes through `point` (local frame), with
    /// outward unit `normal`: offset `normal · point`.
    ///
    /// # Errors
    /// As [`HalfSpace::new`], plus [`ShapeError::NonFinitePoint`] /
    /// [`ShapeError::OutOfRange`] for a bad point.
    pub fn through(point: Point, normal: Vector) -> Result<Self, ShapeError> {
        let point = super::check_point(Self::TYPE_NAME, || "point".into(), point)?;
        let h = Self::new(normal, 0.0)?;
        Self::new(h.normal, h.normal.dot(point))
    }

    /// The outward unit normal (local frame): the solid lies on the side opposite to it.
    pub fn normal(&self) -> Vector {
        self.normal
    }

    /// The plane's signed distance from the local origin along the normal (length): the
    /// plane is `normal · x = offset`.
    pub fn offset(&self) -> Real {
        self.offset
    }

    /// The signed distance of a local point from the plane (length): `normal · p −
    /// offset`, negative inside the solid, 0 on the plane, positive outside. Exact up to
    /// one rounding per operation.
    pub fn signed_distance(&self, p: Point) -> Real {
        self.normal.dot(p) - self.offset
    }

    /// The point of the plane closest to the local point `p` (local frame):
    /// `p − signed_distance(p) · normal`.
    pub fn project_local_point(&self, p: Point) -> Point {
        p - self.normal * self.signed_distance(p)
    }

    /// A point of the plane (local frame): `offset · normal`, the one closest to the
    /// local origin.
    pub fn plane_point(&self) -> Point {
        self.normal * self.offset
    }

    /// The same half-space scaled about its local origin by `factor` (finite, > 0): the
    /// offset times `factor`, the normal unchanged.
    ///
    /// # Errors
    /// [`ShapeError::NonFiniteValue`] / [`ShapeError::OutOfRange`] when the scaled offset
    /// is out of range; [`ShapeError::InvalidLength`] for a factor that is not finite and
    /// > 0.
    pub fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(ShapeError::InvalidLength {
                shape: Self::TYPE_NAME,
                field: "scale factor",
                value: factor,
            });
        }
        Self::new(self.normal, self.offset * factor)
    }

    /// An example for tests and benchmarks: the ground `y ≤ 0`.
    pub fn example() -> Self {
        Self {
            normal: Vector::Y,
            offset: 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_and_renormalises() {
        let h = HalfSpace::new(Vector::new(0.0, 1.0005, 0.0), -2.0).unwrap();
        assert_eq!(h.normal(), Vector::Y);
        assert_eq!(h.offset(), -2.0);
        assert!(matches!(
            HalfSpace::new(Vector::new(0.0, 1.01, 0.0), 0.0),
            Err(ShapeError::NotUnit { .. })
        ));
        assert!(matches!(
            HalfSpace::new(Vector::ZERO, 0.0),
            Err(ShapeError::NotUnit { .. })
        ));
        assert!(matches!(
            HalfSpace::new(Vector::new(Real::NAN, 1.0, 0.0), 0.0),
            Err(ShapeError::NonFinitePoint { .. })
        ));
        assert!(matches!(
            HalfSpace::new(Vector::new(Real::MAX, Real::MAX, 0.0), 0.0),
            Err(ShapeError::NotUnit { .. })
        ));
        assert!(matches!(
            HalfSpace::new(Vector::Y, Real::INFINITY),
            Err(ShapeError::NonFiniteValue { .. })
        ));
        assert!(matches!(
            HalfSpace::new(Vector::Y, 2.0 * MAX_MAGNITUDE),
            Err(ShapeError::OutOfRange { .. })
        ));
        let t = HalfSpace::through(Vector::new(1.0, 2.0, 3.0), Vector::X).unwrap();
        assert_eq!(t.offset(), 1.0);
        assert_eq!(
            t.project_local_point(Vector::new(5.0, 1.0, 1.0)),
            Vector::new(1.0, 1.0, 1.0)
        );
        assert_eq!(t.scaled(2.0).unwrap().offset(), 2.0);
        assert!(t.scaled(Real::NAN).is_err());
    }
}
