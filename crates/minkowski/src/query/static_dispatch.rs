//! Queries of a convex shape or compound against a piece of static level geometry
//! ([`StaticShape`]: a half-space, answered in closed form by [`super::halfspace`], a
//! heightfield or a triangle mesh): the static shape is A, the collider B; normals point from the
//! geometry towards the collider (world frame).
//!
//! A compound is queried part by part and the answers combined as
//! [`super::compound`] does (the least distance, the earliest hit, every part's
//! manifolds). Triangle geometry goes through [`super::static_geometry`], which owns the
//! ghost-collision rules.
//!
//! # A heightfield is solid below, a closed mesh solid inside
//!
//! A heightfield is the solid `{(x, z) in its rectangle, y ≤ surface}`. A shape that
//! touches none of its triangles but whose centre is under the surface is wholly inside:
//! it intersects, its distance is 0, and its contact pushes it up through the face of
//! the triangle above its centre (by its lowest point's depth below that face's plane).
//! Likewise a shape inside a closed [`crate::shape::TriMesh`] touching none of its
//! triangles is pushed out through the surface point nearest its centre. An open mesh is
//! a surface only.
//! For contacts and distances the surface is the two-triangle split of each cell; rays
//! and `height_at` use the bilinear patch (see [`crate::shape::HeightField`]).

use super::cast::{check_max_toi, CastError, CastStart, Motion, ShapeCast};
use super::compound::Collider;
use super::dispatch::QueryOptions;
use super::halfspace as hs;
use super::manifold::Manifold;
use super::point::PointProjection;
use super::ray::{Ray, RayCast, RayOptions};
use super::static_geometry as sg;
use super::{ClosestPoints, Contact, ContactMethod, QueryStatus};
use crate::math::{normalize_robust, Point, Pose, Real, Vector};
use crate::shape::{PointShape, Shape, StaticShape, TriangleSet};
use crate::support::SupportMap;

/// The convex pieces of `b` at `pose_b` (world poses).
fn pieces<'a>(b: &'a Collider, pose_b: &Pose) -> Vec<(&'a Shape, Pose)> {
    match b {
        Collider::Convex(s) => vec![(s, *pose_b)],
        Collider::Compound(c) => c.parts().iter().map(|(p, s)| (s, pose_b.mul(p))).collect(),
    }
}

/// The contact of a shape that touches no triangle of `s` but whose centre is inside its
/// solid — under a heightfield's surface, or inside a closed mesh (module notes) —,
/// `None` otherwise (and for half-spaces, which answer in closed form).
fn buried(s: &StaticShape, pose_s: &Pose, b: &Shape, pose_b: &Pose) -> Option<Contact> {
    let centre = pose_b.transform_point(b.local_center());
    let (n, on) = match s {
        StaticShape::HalfSpace(_) => return None,
        StaticShape::HeightField(field) => {
            let c = pose_s.inverse_transform_point(centre);
            let (t, y) = field.triangle_under(c.x, c.z)?;
            if c.y.is_nan() || c.y >= y {
                return None;
            }
            (
                pose_s.transform_vector(t.normal),
                pose_s.transform_point(t.vertices[0]),
            )
        }
        StaticShape::TriMesh(mesh) => {
            if !mesh.is_closed() {
                return None;
            }
            let p = super::project_point_trimesh(mesh, pose_s, centre).ok()?;
            if !p.inside {
                return None;
            }
            // Out through the nearest point of the surface.
            let n = normalize_robust(p.point - centre)?;
            (n, p.point)
        }
    };
    let pb = pose_b.transform_point(b.local_support(pose_b.inverse_transform_vector(-n)));
    let d = (pb - on).dot(n).min(0.0);
    Some(Contact {
        distance: d,
        lower_bound: d,
        upper_bound: d,
        normal: n,
        point_a: pb - n * d,
        point_b: pb,
        status: QueryStatus::Converged,
        method: ContactMethod::Analytic,
        iterations: 0,
    })
}

/// The triangle set of `s`, when it is made of triangles.
fn triangles(s: &StaticShape) -> Option<&dyn TriangleSet> {
    match s {
        StaticShape::HalfSpace(_) => None,
        StaticShape::HeightField(h) => Some(h.as_ref()),
        StaticShape::TriMesh(m) => Some(m.as_ref()),
    }
}

/// Whether B overlaps or touches the static shape (for a heightfield, its solid).
pub fn intersects(
    s: &StaticShape,
    pose_s: &Pose,
    b: &Collider,
    pose_b: &Pose,
    options: &QueryOptions,
) -> bool {
    pieces(b, pose_b).iter().any(|(shape, pose)| match s {
        StaticShape::HalfSpace(h) => hs::intersects_halfspace(h, pose_s, shape, pose),
        _ => {
            triangles(s).is_some_and(|set| sg::intersects(set, pose_s, shape, pose, options))
                || buried(s, pose_s, shape, pose).is_some()
        }
    })
}

/// The closest points of the static shape and B (world frame), as
/// [`super::closest_points`] answers them: distance ≥ 0, 0 when they overlap (then both
/// points are one point inside both). A shape with no triangle at all answers an
/// infinite distance.
pub fn closest_points(
    s: &StaticShape,
    pose_s: &Pose,
    b: &Collider,
    pose_b: &Pose,
    options: &QueryOptions,
) -> ClosestPoints {
    let mut best: Option<ClosestPoints> = None;
    for (shape, pose) in pieces(b, pose_b) {
        let c = piece_closest(s, pose_s, shape, &pose, options);
        if best.as_ref().is_none_or(|x| c.distance < x.distance) {
            best = Some(c);
        }
    }
    best.unwrap_or_else(|| far(pose_b.translation()))
}

/// The answer for geometry with nothing in it: infinitely far.
fn far(at: Point) -> ClosestPoints {
    ClosestPoints {
        distance: Real::INFINITY,
        lower_bound: Real::INFINITY,
        upper_bound: Real::INFINITY,
        intersecting: false,
        point_a: at,
        point_b: at,
        normal: Vector::ZERO,
        status: QueryStatus::Converged,
        iterations: 0,
    }
}

fn piece_closest(
    s: &StaticShape,
    pose_s: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
) -> ClosestPoints {
    match s {
        StaticShape::HalfSpace(h) => hs::closest_points_halfspace(h, pose_s, b, pose_b),
        _ => {
            if let Some(c) = buried(s, pose_s, b, pose_b) {
                let p = pose_b.transform_point(b.local_center());
                return ClosestPoints {
                    distance: 0.0,
                    lower_bound: 0.0,
                    upper_bound: 0.0,
                    intersecting: true,
                    point_a: p,
                    point_b: p,
                    normal: Vector::ZERO,
                    status: c.status,
                    iterations: 0,
                };
            }
            triangles(s)
                .and_then(|set| sg::closest_points(set, pose_s, b, pose_b, options))
                .map(|(c, _)| c)
                .unwrap_or_else(|| far(pose_b.translation()))
        }
    }
}

/// The signed distance, normal (from the geometry towards B) and witness points: the
/// deepest triangle contact after the ghost-collision rules when B touches the geometry,
/// the buried contact of a shape under a heightfield, else the closest points (distance
/// > 0).
pub fn contact(
    s: &StaticShape,
    pose_s: &Pose,
    b: &Collider,
    pose_b: &Pose,
    options: &QueryOptions,
) -> Contact {
    let mut best: Option<Contact> = None;
    for (shape, pose) in pieces(b, pose_b) {
        let c = piece_contact(s, pose_s, shape, &pose, options);
        if best.as_ref().is_none_or(|x| c.distance < x.distance) {
            best = Some(c);
        }
    }
    best.unwrap_or_else(|| from_closest(&far(pose_b.translation())))
}

fn from_closest(c: &ClosestPoints) -> Contact {
    Contact {
        distance: c.distance,
        lower_bound: c.lower_bound,
        upper_bound: c.upper_bound,
        normal: c.normal,
        point_a: c.point_a,
        point_b: c.point_b,
        status: c.status,
        method: ContactMethod::Gjk,
        iterations: c.iterations,
    }
}

fn piece_contact(
    s: &StaticShape,
    pose_s: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
) -> Contact {
    match s {
        StaticShape::HalfSpace(h) => hs::contact_halfspace(h, pose_s, b, pose_b),
        _ => {
            let set = triangles(s);
            if let Some(c) = set.and_then(|t| sg::contact(t, pose_s, b, pose_b, 0.0, options)) {
                return c.contact;
            }
            if let Some(c) = buried(s, pose_s, b, pose_b) {
                return c;
            }
            let Some(set) = set else {
                return from_closest(&far(pose_b.translation()));
            };
            match sg::closest_points(set, pose_s, b, pose_b, options) {
                Some((c, t)) if c.normal == Vector::ZERO => touching(set, t, pose_s, b, pose_b, &c),
                Some((c, _)) => from_closest(&c),
                None => from_closest(&far(pose_b.translation())),
            }
        }
    }
}

/// The contact of B touching triangle `t` of `set` within rounding, where the triangle
/// rules keep no contact (their floors and ties decide otherwise) and the closest
/// points, touching, carry no normal: the triangle's face normal on B's side (always the
/// outside of a one-sided set), else the direction from the witness to B's centre, else
/// the set's up (+y): a unit normal whatever the rounding.
fn touching(
    set: &dyn TriangleSet,
    t: u32,
    pose_s: &Pose,
    b: &Shape,
    pose_b: &Pose,
    c: &ClosestPoints,
) -> Contact {
    let centre = pose_b.transform_point(b.local_center());
    let face = set.triangle(t).map(|t| {
        let n = pose_s.transform_vector(t.normal);
        let behind = (centre - pose_s.transform_point(t.vertices[0])).dot(n) < 0.0;
        if behind && !set.one_sided() {
            -n
        } else {
            n
        }
    });
    let normal = face
        .or_else(|| normalize_robust(centre - c.point_a))
        .unwrap_or_else(|| pose_s.transform_vector(Vector::Y));
    Contact {
        normal,
        ..from_closest(c)
    }
}

/// The contact manifolds of B with the static shape within `margin` (length ≥ 0): one
/// per touching region (see [`sg::manifolds`]), every part of a compound's; empty when
/// nothing is that close. A shape buried under a heightfield gets one single-point
/// manifold from its buried contact.
pub fn manifolds(
    s: &StaticShape,
    pose_s: &Pose,
    b: &Collider,
    pose_b: &Pose,
    margin: Real,
    options: &QueryOptions,
) -> Vec<Manifold> {
    let mut out: Vec<Manifold> = manifolds_with_all(&[(s, *pose_s)], b, pose_b, margin, options)
        .into_iter()
        .map(|(_, m)| m)
        .collect();
    out.sort_by(|x, y| {
        let d = |m: &Manifold| m.points().first().map_or(Real::INFINITY, |p| p.distance);
        d(x).total_cmp(&d(y))
    });
    out
}

/// The contact manifolds of B with several static shapes at once (each with its world
/// pose), within `margin`: the triangle geometry of all of them is queried together, so
/// that the seam between two adjacent heightfields or meshes is no edge at all (see
/// [`sg`]'s voided features); each manifold comes with the index (into `statics`) of the
/// static shape of its deepest point. The world uses it for each object against the
/// static shapes its box meets.
pub fn manifolds_with_all(
    statics: &[(&StaticShape, Pose)],
    b: &Collider,
    pose_b: &Pose,
    margin: Real,
    options: &QueryOptions,
) -> Vec<(usize, Manifold)> {
    // The triangle statics, queried together, and their indices in `statics`.
    let (sets, which): (Vec<sg::Placed<'_>>, Vec<usize>) = statics
        .iter()
        .enumerate()
        .filter_map(|(k, (s, pose))| triangles(s).map(|t| ((t, *pose), k)))
        .unzip();
    let mut out = Vec::new();
    for (shape, pose) in pieces(b, pose_b) {
        let first = out.len();
        if !sets.is_empty() {
            for (set, m) in sg::manifolds_tagged(&sets, shape, &pose, margin, options) {
                out.push((which[set], m));
            }
        }
        for (k, (s, pose_s)) in statics.iter().enumerate() {
            match s {
                StaticShape::HalfSpace(h) => {
                    let m = hs::manifold_halfspace(h, pose_s, shape, &pose, margin);
                    if !m.is_empty() {
                        out.push((k, m));
                    }
                }
                _ => {
                    if out[first..].iter().all(|(i, _)| *i != k) {
                        if let Some(c) = buried(s, pose_s, shape, &pose) {
                            out.push((k, Manifold::single(&c)));
                        }
                    }
                }
            }
        }
    }
    out
}

/// A ray against the static shape (world frame), as [`super::cast_ray`] answers it.
///
/// # Errors
/// As [`super::cast_ray`].
pub fn cast_ray(
    s: &StaticShape,
    pose_s: &Pose,
    ray: &Ray,
    options: &RayOptions,
) -> Result<RayCast, CastError> {
    match s {
        StaticShape::HalfSpace(h) => hs::cast_ray_halfspace(h, pose_s, ray, options),
        StaticShape::HeightField(h) => super::cast_ray_heightfield(h, pose_s, ray, options),
        StaticShape::TriMesh(m) => super::cast_ray_trimesh(m, pose_s, ray, options),
    }
}

/// The first time B, moving by `motion_b` while the static shape moves by `motion_s`
/// (translations only), comes within `target_distance` of it in `[0, max_toi]`; start
/// rules and outcomes as [`super::cast_shapes`], with the ghost-collision rule for casts
/// of [`sg::cast`]. A shape buried under a heightfield starts overlapping.
///
/// # Errors
/// As [`super::cast_shapes`], and [`CastError::Unsupported`] for a turning motion.
#[allow(clippy::too_many_arguments)] // the parameters of a cast, as `compound::cast_colliders`
pub fn cast(
    s: &StaticShape,
    pose_s: &Pose,
    motion_s: Motion,
    b: &Collider,
    pose_b: &Pose,
    motion_b: Motion,
    max_toi: Real,
    target_distance: Real,
    options: &QueryOptions,
) -> Result<ShapeCast, CastError> {
    check_max_toi(max_toi)?;
    motion_s.check("A")?;
    motion_b.check("B")?;
    // Tiny motions in a longer time unit, as `cast_shapes` solves them.
    if let Some(unit) = super::cast::tiny_time_unit([&motion_s, &motion_b]) {
        let answer = cast(
            s,
            pose_s,
            super::cast::motion_in_time_unit(motion_s, unit),
            b,
            pose_b,
            super::cast::motion_in_time_unit(motion_b, unit),
            max_toi / unit[0] / unit[1],
            target_distance,
            options,
        )?;
        return Ok(super::cast::cast_from_time_unit(answer, unit, max_toi));
    }
    // No pose exists past the coordinate range: the interval ends there (as in
    // `cast_shapes`).
    let max_toi = max_toi
        .min(super::cast::range_horizon(pose_s, &motion_s))
        .min(super::cast::range_horizon(pose_b, &motion_b));
    let turning = !(motion_s.is_translation() && motion_b.is_translation());
    if turning && !matches!(s, StaticShape::HalfSpace(_)) {
        return Err(CastError::Unsupported(
            "casts against triangle geometry take translations only (no angular velocity)",
        ));
    }
    let velocity = motion_b.linear - motion_s.linear;
    let mut best: Option<ShapeCast> = None;
    for (shape, pose) in pieces(b, pose_b) {
        let hit = match s {
            StaticShape::HalfSpace(h) => {
                let mut input =
                    hs::HalfSpaceCastInput::new(h, *pose_s, motion_s, shape, pose, motion_b);
                input.max_toi = best.as_ref().map_or(max_toi, |c| c.toi);
                input.target_distance = target_distance;
                let c = hs::cast_shape_halfspace(&input)?;
                c.hit.then_some(c)
            }
            _ => {
                if let Some(c) = buried(s, pose_s, shape, &pose) {
                    Some(ShapeCast {
                        hit: true,
                        toi: 0.0,
                        normal: c.normal,
                        point_a: c.point_a,
                        point_b: c.point_b,
                        start: CastStart::Overlapping,
                        initial_distance: Some(c.distance),
                        status: QueryStatus::Converged,
                        iterations: 0,
                    })
                } else {
                    let Some(set) = triangles(s) else {
                        continue;
                    };
                    sg::cast(
                        set,
                        pose_s,
                        shape,
                        &pose,
                        velocity,
                        best.as_ref().map_or(max_toi, |c| c.toi),
                        target_distance,
                        options,
                    )?
                    .map(|(c, _)| c)
                }
            }
        };
        if let Some(h) = hit {
            if best.as_ref().is_none_or(|c| h.toi < c.toi) {
                best = Some(h);
            }
        }
    }
    if let Some(hit) = best {
        return Ok(hit);
    }
    // No hit: say whether the shapes started within the target (sliding or leaving).
    let c = contact(s, pose_s, b, pose_b, options);
    Ok(if c.distance <= target_distance {
        ShapeCast {
            initial_distance: Some(c.distance),
            ..ShapeCast::miss(CastStart::WithinTarget, QueryStatus::Converged, 0)
        }
    } else {
        ShapeCast::miss(CastStart::Separated, QueryStatus::Converged, 0)
    })
}

/// The point of the static shape's surface closest to `point` (world frame), whether
/// `point` is inside its solid, and the signed distance (negative inside).
///
/// # Errors
/// [`CastError::NonFiniteVector`] / [`CastError::TooLarge`] for a bad point.
pub fn project_point(
    s: &StaticShape,
    pose_s: &Pose,
    point: Point,
    options: &QueryOptions,
) -> Result<PointProjection, CastError> {
    let probe = Shape::Point(PointShape::ORIGIN);
    super::ray::check_vector("point", point)?;
    let at = Pose::from_parts(crate::math::Rotation::IDENTITY, point);
    match s {
        StaticShape::HalfSpace(h) => hs::project_point_halfspace(h, pose_s, point),
        StaticShape::TriMesh(m) => super::project_point_trimesh(m, pose_s, point),
        StaticShape::HeightField(h) => {
            let Some((c, _)) = sg::closest_points(h.as_ref(), pose_s, &probe, &at, options) else {
                return Ok(PointProjection {
                    point,
                    inside: false,
                    distance: Real::INFINITY,
                    status: QueryStatus::Converged,
                    iterations: 0,
                });
            };
            let local = pose_s.inverse_transform_point(point);
            let inside = h
                .triangle_under(local.x, local.z)
                .is_some_and(|(_, y)| local.y <= y);
            Ok(PointProjection {
                point: c.point_a,
                inside,
                distance: if inside { -c.distance } else { c.distance },
                status: c.status,
                iterations: c.iterations,
            })
        }
    }
}
