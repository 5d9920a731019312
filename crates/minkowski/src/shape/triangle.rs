//! A triangle.

use super::{check_point, farthest, ConvexShape, CoreShape, ShapeError, ShapeParams};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// The (solid, two-sided) triangle `abc` in the local frame. Degenerate triangles
/// (collinear or coincident corners) are allowed and behave as their hull.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Triangle {
    a: Point,
    b: Point,
    c: Point,
}

impl Triangle {
    /// The triangle with corners `a`, `b`, `c` (finite coordinates).
    ///
    /// # Errors
    /// [`ShapeError::NonFinitePoint`] / [`ShapeError::OutOfRange`] for a bad corner.
    pub fn new(a: Point, b: Point, c: Point) -> Result<Self, ShapeError> {
        Ok(Self {
            a: check_point("triangle", || "a".into(), a)?,
            b: check_point("triangle", || "b".into(), b)?,
            c: check_point("triangle", || "c".into(), c)?,
        })
    }

    /// The corners `[a, b, c]`.
    pub fn vertices(&self) -> [Point; 3] {
        [self.a, self.b, self.c]
    }
}

/// Protocol: `{"type": "triangle", "a": [..], "b": [..], "c": [..]}`. Core: itself.
impl ConvexShape for Triangle {
    const TYPE_NAME: &'static str = "triangle";

    fn core(&self) -> (CoreShape<'_>, Real) {
        (CoreShape::Triangle(self), 0.0)
    }

    fn local_aabb(&self) -> Aabb {
        Aabb::new(
            self.a.min(self.b).min(self.c),
            self.a.max(self.b).max(self.c),
        )
    }

    fn bounding_radius(&self) -> Real {
        farthest(&self.vertices())
    }

    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error> {
        Ok(Self::new(
            params.vector("a")?,
            params.vector("b")?,
            params.vector("c")?,
        )?)
    }

    fn scaled(&self, factor: Real) -> Result<Self, ShapeError> {
        let [a, b, c] = self.vertices();
        Triangle::new(a * factor, b * factor, c * factor)
    }

    fn example() -> Self {
        Self {
            a: Vector::new(-0.5, 0.0, -0.3),
            b: Vector::new(0.5, 0.0, -0.3),
            c: Vector::new(0.0, 0.0, 0.5),
        }
    }
}

impl SupportMap for Triangle {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        let (da, db, dc) = (self.a.dot(dir), self.b.dot(dir), self.c.dot(dir));
        if da >= db && da >= dc {
            self.a
        } else if db >= dc {
            self.b
        } else {
            self.c
        }
    }
    fn local_center(&self) -> Point {
        (self.a + self.b + self.c) / 3.0
    }
}
