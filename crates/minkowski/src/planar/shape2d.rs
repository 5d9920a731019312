//! 2D convex shapes for [`super::gjk2d`].

use crate::hull::{monotone_chain, HullError};
use crate::math::{Real, Vector2};

/// A convex 2D shape in world coordinates (lengths in the caller's units).
#[derive(Debug, Clone, PartialEq)]
pub enum Shape2d {
    /// A convex polygon: its vertices counter-clockwise from the lowest point (extreme
    /// points only). One or two vertices describe a point or a segment.
    Polygon(Vec<Vector2>),
    /// A disc.
    Circle {
        /// Centre.
        center: Vector2,
        /// Radius (≥ 0).
        radius: Real,
    },
    /// A segment (a degenerate polygon, kept as its own kind for clarity).
    Segment(Vector2, Vector2),
}

/// The core of a shape, which GJK sees; the shape is the core inflated by a margin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Core2d<'a> {
    /// Convex polygon vertices, counter-clockwise (or one or two points).
    Polygon(&'a [Vector2]),
    /// A point.
    Point(Vector2),
    /// A segment.
    Segment(Vector2, Vector2),
}

impl Shape2d {
    /// The convex polygon spanned by `points` (their convex hull; order, repeats and
    /// interior points do not matter).
    ///
    /// # Errors
    /// [`HullError::Empty`], [`HullError::NonFinitePoint`] or [`HullError::OutOfRange`].
    pub fn polygon(points: &[Vector2]) -> Result<Self, HullError> {
        let ring = monotone_chain(points)?;
        Ok(Shape2d::Polygon(
            ring.into_iter().map(|i| points[i]).collect(),
        ))
    }

    /// A circle.
    ///
    /// # Errors
    /// [`HullError::NonFinitePoint`] (index 0) for a non-finite centre or radius, a
    /// negative radius, or [`HullError::OutOfRange`] beyond the magnitude limit.
    pub fn circle(center: Vector2, radius: Real) -> Result<Self, HullError> {
        Self::polygon(&[center])?;
        if !radius.is_finite() || radius < 0.0 {
            return Err(HullError::NonFinitePoint { index: 0 });
        }
        if radius > crate::shape::MAX_MAGNITUDE {
            return Err(HullError::OutOfRange {
                index: 0,
                value: radius,
                max: crate::shape::MAX_MAGNITUDE,
            });
        }
        Ok(Shape2d::Circle { center, radius })
    }

    /// A segment from `a` to `b`.
    ///
    /// # Errors
    /// As [`polygon`](Self::polygon) for the two end points.
    pub fn segment(a: Vector2, b: Vector2) -> Result<Self, HullError> {
        Self::polygon(&[a, b])?;
        Ok(Shape2d::Segment(a, b))
    }

    /// The core and the margin (the circle's radius; 0 otherwise).
    pub fn core(&self) -> (Core2d<'_>, Real) {
        match self {
            Shape2d::Polygon(v) => (Core2d::Polygon(v), 0.0),
            Shape2d::Circle { center, radius } => (Core2d::Point(*center), *radius),
            Shape2d::Segment(a, b) => (Core2d::Segment(*a, *b), 0.0),
        }
    }

    /// The area centroid (seed 003 eq. 3: `C = 1/(6A) Σ (pᵢ + pᵢ₊₁)(pᵢ × pᵢ₊₁)`, summed
    /// relative to the first vertex for accuracy); for a polygon without area, the mean
    /// of its vertices.
    pub fn centroid(&self) -> Vector2 {
        match self {
            Shape2d::Circle { center, .. } => *center,
            Shape2d::Segment(a, b) => (*a + *b) * 0.5,
            Shape2d::Polygon(v) => {
                let o = v[0];
                let (mut area2, mut c) = (0.0 as Real, Vector2::ZERO);
                for w in v.windows(2).skip(1) {
                    let (p, q) = (w[0] - o, w[1] - o);
                    let cross = p.perp_dot(q);
                    area2 += cross;
                    c += (p + q) * cross;
                }
                if area2 > 0.0 {
                    o + c / (3.0 * area2)
                } else {
                    v.iter().fold(Vector2::ZERO, |s, p| s + *p) / v.len() as Real
                }
            }
        }
    }

    /// The support point along `dir` (any length; for a zero direction some point of
    /// the shape).
    pub fn support(&self, dir: Vector2) -> Vector2 {
        let (core, margin) = self.core();
        core.support(dir) + dir.normalize_or_zero() * margin
    }

    /// The shape moved by `t` (seed 003 eq. 5).
    pub fn translated(&self, t: Vector2) -> Self {
        self.map(|p| p + t, 1.0)
    }

    /// The shape scaled by `s` about the fixed point `fixed` (seed 003 eq. 6, with one
    /// factor: a circle must stay a circle). `s` must be finite and ≥ 0.
    pub fn scaled(&self, s: Real, fixed: Vector2) -> Self {
        self.map(|p| (p - fixed) * s + fixed, s.abs())
    }

    /// The shape rotated by `angle` radians (counter-clockwise) about `pivot`.
    pub fn rotated(&self, angle: Real, pivot: Vector2) -> Self {
        let r = Vector2::from_angle(angle);
        self.map(|p| pivot + r.rotate(p - pivot), 1.0)
    }

    fn map(&self, f: impl Fn(Vector2) -> Vector2, radius_scale: Real) -> Self {
        match self {
            Shape2d::Polygon(v) => {
                let moved: Vec<Vector2> = v.iter().map(|p| f(*p)).collect();
                // Re-canonicalise (rotation changes which vertex is lowest).
                Shape2d::polygon(&moved).unwrap_or(Shape2d::Polygon(moved))
            }
            Shape2d::Circle { center, radius } => Shape2d::Circle {
                center: f(*center),
                radius: radius * radius_scale,
            },
            Shape2d::Segment(a, b) => Shape2d::Segment(f(*a), f(*b)),
        }
    }
}

impl Core2d<'_> {
    /// Support point of the core along `dir` (first of equals).
    pub fn support(&self, dir: Vector2) -> Vector2 {
        match *self {
            Core2d::Point(p) => p,
            Core2d::Segment(a, b) => {
                if b.dot(dir) > a.dot(dir) {
                    b
                } else {
                    a
                }
            }
            Core2d::Polygon(v) => {
                let mut best = v[0];
                let mut best_dot = best.dot(dir);
                for p in &v[1..] {
                    let d = p.dot(dir);
                    if d > best_dot {
                        best_dot = d;
                        best = *p;
                    }
                }
                best
            }
        }
    }
}
