//! A segment between two points.

use super::{check_point, farthest, ConvexShape, CoreShape, ShapeError, ShapeParams};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// The segment between `a` and `b` (local frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    a: Point,
    b: Point,
}

impl Segment {
    /// The segment from `a` to `b` (coordinates finite; `a == b` is allowed).
    ///
    /// # Errors
    /// [`ShapeError::NonFinitePoint`] / [`ShapeError::OutOfRange`] for a bad endpoint.
    pub fn new(a: Point, b: Point) -> Result<Self, ShapeError> {
        Ok(Self {
            a: check_point("segment", || "a".into(), a)?,
            b: check_point("segment", || "b".into(), b)?,
        })
    }

    pub(crate) fn new_unchecked(a: Point, b: Point) -> Self {
        Self { a, b }
    }

    /// First endpoint.
    pub fn a(&self) -> Point {
        self.a
    }

    /// Second endpoint.
    pub fn b(&self) -> Point {
        self.b
    }
}

/// Protocol: `{"type": "segment", "a": [x, y, z], "b": [x, y, z]}`. Core: itself.
impl ConvexShape for Segment {
    const TYPE_NAME: &'static str = "segment";

    fn core(&self) -> (CoreShape<'_>, Real) {
        (CoreShape::Segment(*self), 0.0)
    }

    fn local_aabb(&self) -> Aabb {
        Aabb::new(self.a.min(self.b), self.a.max(self.b))
    }

    fn bounding_radius(&self) -> Real {
        farthest(&[self.a, self.b])
    }

    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error> {
        Ok(Self::new(params.vector("a")?, params.vector("b")?)?)
    }

    fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        Segment::new(self.a() * factor, self.b() * factor)
    }

    fn example() -> Self {
        Self {
            a: Vector::new(-0.5, 0.0, 0.0),
            b: Vector::new(0.5, 0.1, 0.0),
        }
    }
}

impl SupportMap for Segment {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        if self.b.dot(dir) > self.a.dot(dir) {
            self.b
        } else {
            self.a
        }
    }
    /// The hint is the endpoint's index: 0 for `a`, 1 for `b`.
    #[inline]
    fn local_support_hinted(&self, dir: Vector, hint: &mut u32) -> Point {
        let far = self.b.dot(dir) > self.a.dot(dir);
        *hint = far as u32;
        if far {
            self.b
        } else {
            self.a
        }
    }
    #[inline]
    fn hinted_point(&self, hint: u32) -> Option<Point> {
        match hint {
            0 => Some(self.a),
            1 => Some(self.b),
            _ => None,
        }
    }
    fn local_center(&self) -> Point {
        (self.a + self.b) * 0.5
    }
}
