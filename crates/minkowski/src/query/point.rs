//! Point queries: whether a shape contains a point, the point of its surface closest to
//! a point, and the signed distance.
//!
//! All three are the contact query ([`crate::query::contact`]) between the shape and a
//! point: GJK for a point outside (the closest point), EPA for a point inside (the
//! nearest surface point, at the penetration depth), closed forms for spheres and
//! boxes. Shapes without an interior (point, segment, triangle, and flat or degenerate
//! shapes: a box with a zero extent, a planar hull) contain no point in their interior:
//! they answer `inside: false` and a distance `>= 0`.

use super::cast::CastError;
use super::dispatch::{contact_with, QueryOptions};
use super::ray::check_vector;
use super::QueryStatus;
use crate::hull::Dimension;
use crate::math::{Point, Pose, Real, Rotation};
use crate::shape::{CoreShape, PointShape, Shape};

/// The answer of [`project_point`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PointProjection {
    /// The point of the shape's surface closest to the query point (world frame).
    pub point: Point,
    /// Whether the query point is inside the shape (surface included). Always false for
    /// a shape without an interior.
    pub inside: bool,
    /// Signed distance from the query point to the surface (length): positive outside,
    /// negative inside (minus the depth), 0 on the surface.
    pub distance: Real,
    /// How the answer was obtained (`Converged` for closed forms).
    pub status: QueryStatus,
    /// GJK plus EPA iterations (0 for closed forms).
    pub iterations: u32,
}

/// Whether the shape has an interior: a solid of positive volume.
fn has_interior(shape: &Shape) -> bool {
    let (core, margin) = shape.core();
    if margin > 0.0 {
        return true;
    }
    match core {
        CoreShape::Point(_) | CoreShape::Segment(_) | CoreShape::Triangle(_) => false,
        CoreShape::Cuboid(c) => c.half_extents().min_element() > 0.0,
        CoreShape::Pyramid(p) => p.half_extents().min_element() > 0.0,
        CoreShape::Ellipsoid(e) => e.radii().min_element() > 0.0,
        CoreShape::Cylinder(c) => c.half_height() > 0.0 && c.radius() > 0.0,
        CoreShape::Cone(c) => c.half_height() > 0.0 && c.radius() > 0.0,
        CoreShape::Convex(c) => c.hull().dimension() == Dimension::Polyhedron,
    }
}

/// The point of `shape` (placed at `pose`) closest to `point`, whether `point` is inside,
/// and its signed distance; every point and vector in the world frame.
///
/// ```
/// use minkowski::query::project_point;
/// use minkowski::shape::{Shape, Sphere};
/// use minkowski::{Pose, Vector};
///
/// let ball = Shape::from(Sphere::new(2.0).unwrap());
/// let p = project_point(&ball, &Pose::IDENTITY, Vector::new(0.0, 0.5, 0.0)).unwrap();
/// assert!(p.inside);
/// assert!((p.distance + 1.5).abs() < 1e-6);
/// assert!((p.point - Vector::new(0.0, 2.0, 0.0)).length() < 1e-6);
/// ```
///
/// # Errors
/// [`CastError`] for a point with a non-finite coordinate or one above the magnitude
/// limit.
pub fn project_point(
    shape: &Shape,
    pose: &Pose,
    point: Point,
) -> Result<PointProjection, CastError> {
    project_point_with(shape, pose, point, &QueryOptions::default())
}

/// [`project_point`] with options.
///
/// # Errors
/// As [`project_point`].
pub fn project_point_with(
    shape: &Shape,
    pose: &Pose,
    point: Point,
    options: &QueryOptions,
) -> Result<PointProjection, CastError> {
    check_vector("point", point)?;
    let probe = Shape::Point(PointShape::ORIGIN);
    let at = Pose::from_parts(Rotation::IDENTITY, point);
    let c = contact_with(shape, pose, &probe, &at, options, None);
    let solid = has_interior(shape);
    let distance = if solid {
        c.distance
    } else {
        c.distance.max(0.0)
    };
    Ok(PointProjection {
        point: c.point_a,
        inside: solid && c.distance <= 0.0,
        distance,
        status: c.status,
        iterations: c.iterations,
    })
}

/// Whether `shape` placed at `pose` contains `point` (world frame), surface included
/// (within the touching tolerance of [`crate::tolerance`]). A shape without an interior
/// contains the points of its own surface only.
///
/// # Errors
/// As [`project_point`].
pub fn contains_point(shape: &Shape, pose: &Pose, point: Point) -> Result<bool, CastError> {
    check_vector("point", point)?;
    let probe = Shape::Point(PointShape::ORIGIN);
    let at = Pose::from_parts(Rotation::IDENTITY, point);
    Ok(super::dispatch::intersects(shape, pose, &probe, &at))
}

/// The signed distance from `point` (world frame) to the surface of `shape` placed at
/// `pose` (length; negative inside): [`project_point`]'s `distance`.
///
/// # Errors
/// As [`project_point`].
pub fn signed_distance(shape: &Shape, pose: &Pose, point: Point) -> Result<Real, CastError> {
    project_point(shape, pose, point).map(|p| p.distance)
}
