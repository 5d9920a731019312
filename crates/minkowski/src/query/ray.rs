//! Ray casts against a shape: closed forms for spheres, boxes, capsules and cylinders,
//! the GJK ray cast ([`crate::query::cast_shapes`]'s algorithm, a point cast against the
//! shape) for every other shape.
//!
//! # The closed forms
//!
//! Each one finds the interval `[t_in, t_out]` of the ray's line inside the shape, then
//! one rule answers for all (see [`cast_ray`]): the entry when the origin is outside, 0
//! or the exit when it is inside. The line's intervals:
//!
//! * **sphere** `‖x‖ ≤ r`: from the line's point closest to the centre, `p = o + t_c d`
//!   with `t_c = −o·d/d·d`, the half chord `√((r² − ‖p‖²)/d·d)`. Measuring from `p`
//!   rather than solving the quadratic in `t` avoids the cancellation of `b² − ac`
//!   when the origin is far (Haines et al., "Precision improvements for ray/sphere
//!   intersection", *Ray Tracing Gems*, 2019, ch. 7);
//! * **box**: the slabs `|x_i| ≤ h_i` (Kay and Kajiya 1986), entry the latest slab
//!   entry, exit the earliest slab exit; a direction parallel to a slab keeps the line
//!   in it or misses;
//! * **cylinder**: the slab `|y| ≤ h` and the infinite cylinder `x² + z² ≤ r²` (its chord
//!   as the sphere's, in the xz plane), intersected;
//! * **capsule**: the union of the two end balls and the side (the infinite cylinder cut
//!   by the slab): the ray enters the union at the earliest entry and leaves it at the
//!   latest exit, since the union is convex and each piece's interval lies in it.

// Negated comparisons (`!(x > 0.0)`) are meant: they send NaN to the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::cast::{cast_local, check_max_toi, CastEnd, CastError};
use super::QueryStatus;
use crate::math::{Point, Pose, Real, Vector};
use crate::query::gjk::GjkOptions;
use crate::shape::{PointShape, Shape, MAX_MAGNITUDE};

/// A ray: the points `origin + t · dir` for `t ≥ 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Where the ray starts (world frame).
    pub origin: Point,
    /// Its direction (world frame; any length but zero: times are in units of `dir`).
    pub dir: Vector,
}

impl Ray {
    /// The ray from `origin` along `dir`.
    pub fn new(origin: Point, dir: Vector) -> Self {
        Self { origin, dir }
    }

    /// The point at time `t`: `origin + t · dir`.
    pub fn point_at(&self, t: Real) -> Point {
        self.origin + self.dir * t
    }

    /// Checks the ray as user input (finite, within the magnitude limit, a non-zero
    /// direction).
    pub(crate) fn check(&self) -> Result<(), CastError> {
        check_vector("ray origin", self.origin)?;
        check_vector("ray direction", self.dir)?;
        if self.dir == Vector::ZERO {
            return Err(CastError::ZeroDirection);
        }
        Ok(())
    }
}

/// Checks a vector of user input: finite, components within [`MAX_MAGNITUDE`].
pub(crate) fn check_vector(field: &str, v: Vector) -> Result<(), CastError> {
    if !v.is_finite() {
        return Err(CastError::NonFiniteVector {
            field: field.to_string(),
            value: v.to_array(),
        });
    }
    let m = v.abs().max_element();
    if m > MAX_MAGNITUDE {
        return Err(CastError::TooLarge {
            field: field.to_string(),
            value: m,
        });
    }
    Ok(())
}

/// Options of a ray cast.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayOptions {
    /// The largest time searched (units of the ray's `dir`, `>= 0`, inclusive; default
    /// infinite).
    pub max_toi: Real,
    /// Whether the shape is solid (default): a ray starting inside hits at time 0. A
    /// hollow shape is hit where the ray leaves it.
    pub solid: bool,
}

impl Default for RayOptions {
    fn default() -> Self {
        Self {
            max_toi: Real::INFINITY,
            solid: true,
        }
    }
}

/// Where a ray hits a shape.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RayHit {
    /// The time of the hit (units of the ray's `dir`, in `[0, max_toi]`).
    pub toi: Real,
    /// The hit point, `origin + toi · dir` (world frame).
    pub point: Point,
    /// Unit normal of the surface at the hit, pointing out of the shape (world frame) —
    /// also where a ray leaves a hollow shape. For a flat shape (triangle, segment), the
    /// side facing the ray's origin. For a solid shape hit at 0 from inside, the
    /// reverse of the ray's direction (any unit vector would do).
    pub normal: Vector,
    /// Whether the ray starts inside the shape (a hit at 0 for a solid shape).
    pub inside: bool,
}

/// The answer of [`cast_ray`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RayCast {
    /// The hit, if the ray meets the shape for a time in `[0, max_toi]`.
    pub hit: Option<RayHit>,
    /// How the answer was obtained (`Converged` for the closed forms). Short of
    /// convergence, a hit's `toi` is still a lower bound (the ray reaches no point of the
    /// shape before it).
    pub status: QueryStatus,
    /// GJK iterations (0 for the closed forms).
    pub iterations: u32,
}

/// The part of a line `o + t d` inside a shape (local frame): entry and exit times, each
/// with the outward unit normal there.
#[derive(Debug, Clone, Copy)]
struct Span {
    t_in: Real,
    n_in: Vector,
    t_out: Real,
    n_out: Vector,
}

/// The chord of the ball `‖x‖ ≤ r` on the line (see the module notes). Its normals are
/// left zero: radial, they are computed only for the end the answer uses
/// ([`from_span`]'s `radial`).
fn ball_span(o: Point, d: Vector, r: Real) -> Option<Span> {
    let dd = d.dot(d);
    let tc = -o.dot(d) / dd;
    let p = o + d * tc;
    let h2 = r * r - p.length_squared();
    if !(h2 >= 0.0) {
        return None;
    }
    let half = (h2 / dd).sqrt();
    Some(Span {
        t_in: tc - half,
        n_in: Vector::ZERO,
        t_out: tc + half,
        n_out: Vector::ZERO,
    })
}

/// The slab `|x_axis| ≤ h` on the line: `None` when the line misses it, `Some(None)`
/// when the line runs inside it, parallel.
#[allow(clippy::option_option)]
fn slab(o: Real, d: Real, h: Real, axis: Vector) -> Option<Option<Span>> {
    if d == 0.0 {
        return if o.abs() <= h { Some(None) } else { None };
    }
    let (t1, t2) = ((-h - o) / d, (h - o) / d);
    // Entering through the face the direction points into.
    let (t_in, t_out) = if d > 0.0 { (t1, t2) } else { (t2, t1) };
    let s = d.signum();
    Some(Some(Span {
        t_in,
        n_in: -axis * s,
        t_out,
        n_out: axis * s,
    }))
}

/// The intersection of two spans (`None` for a line inside the whole set).
fn intersect(a: Option<Span>, b: Option<Span>) -> Option<Span> {
    match (a, b) {
        (None, x) | (x, None) => x,
        (Some(a), Some(b)) => {
            let (t_in, n_in) = if a.t_in >= b.t_in {
                (a.t_in, a.n_in)
            } else {
                (b.t_in, b.n_in)
            };
            let (t_out, n_out) = if a.t_out <= b.t_out {
                (a.t_out, a.n_out)
            } else {
                (b.t_out, b.n_out)
            };
            Some(Span {
                t_in,
                n_in,
                t_out,
                n_out,
            })
        }
    }
}

/// Where a line runs inside the set: `Err(())` when it misses, `Ok(None)` when every
/// point of the line is inside (a degenerate box parallel to its axes), else the span.
type LineSpan = Result<Option<Span>, ()>;

fn box_span(o: Point, d: Vector, h: Vector) -> LineSpan {
    let mut span = None;
    for (i, axis) in [Vector::X, Vector::Y, Vector::Z].into_iter().enumerate() {
        match slab(o[i], d[i], h[i], axis) {
            None => return Err(()),
            Some(s) => span = intersect(span, s),
        }
    }
    match span {
        Some(s) if s.t_in > s.t_out => Err(()),
        s => Ok(s),
    }
}

/// The infinite cylinder `x² + z² ≤ r²` on the line: `Ok(None)` for a line parallel to
/// the axis inside it.
fn tube_span(o: Point, d: Vector, r: Real) -> LineSpan {
    let flat = |v: Vector| Vector::new(v.x, 0.0, v.z);
    let (o2, d2) = (flat(o), flat(d));
    if d2 == Vector::ZERO {
        return if o2.length_squared() <= r * r {
            Ok(None)
        } else {
            Err(())
        };
    }
    let s = ball_span(o2, d2, r).ok_or(())?;
    Ok(Some(s))
}

fn cylinder_span(o: Point, d: Vector, h: Real, r: Real) -> LineSpan {
    let tube = tube_span(o, d, r)?;
    let cut = slab(o.y, d.y, h, Vector::Y).ok_or(())?;
    match intersect(tube, cut) {
        Some(s) if s.t_in > s.t_out => Err(()),
        s => Ok(s),
    }
}

fn capsule_span(o: Point, d: Vector, h: Real, r: Real) -> LineSpan {
    let up = Vector::new(0.0, h, 0.0);
    let mut pieces = [
        ball_span(o - up, d, r),
        ball_span(o + up, d, r),
        match cylinder_span(o, d, h, r) {
            Ok(Some(s)) => Some(s),
            // A line along the axis inside the side: the balls bound it.
            _ => None,
        },
    ];
    let mut span: Option<Span> = None;
    for s in pieces.iter_mut().flatten() {
        span = Some(match span {
            None => *s,
            Some(u) => Span {
                t_in: u.t_in.min(s.t_in),
                n_in: Vector::ZERO,
                t_out: u.t_out.max(s.t_out),
                n_out: Vector::ZERO,
            },
        });
    }
    // The side piece's normals point along ±y at its caps; the union's surface there is
    // the balls': every normal is computed from the segment ([`from_span`]'s `radial`).
    let mut s = span.ok_or(())?;
    s.n_in = Vector::ZERO;
    s.n_out = Vector::ZERO;
    Ok(Some(s))
}

/// The answer from a line's span: the entry when the origin is outside, 0 (solid) or
/// the exit (hollow) when inside. Times and normals in the local frame; a zero normal of
/// the span is `radial(t)` (the curved pieces').
fn from_span(
    span: LineSpan,
    d: Vector,
    options: &RayOptions,
    radial: impl Fn(Real) -> Vector,
) -> Option<(Real, Vector, bool)> {
    let s = match span {
        Err(()) => return None,
        // The whole line is inside (a flat box containing it): the ray starts inside and
        // never leaves.
        Ok(None) => {
            return options.solid.then(|| (0.0, -d.normalize(), true));
        }
        Ok(Some(s)) => s,
    };
    if !(s.t_out >= 0.0) {
        return None;
    }
    let normal = |n: Vector, t: Real| if n == Vector::ZERO { radial(t) } else { n };
    if s.t_in <= 0.0 {
        if options.solid {
            return Some((0.0, -d.normalize(), true));
        }
        return (s.t_out <= options.max_toi).then(|| (s.t_out, normal(s.n_out, s.t_out), true));
    }
    (s.t_in <= options.max_toi).then(|| (s.t_in, normal(s.n_in, s.t_in), false))
}

/// Casts `ray` (world frame) at `shape` placed at `pose`.
///
/// A ray starting inside a solid shape hits at 0 (`inside: true`); with
/// `solid: false` it hits where it leaves the shape. Spheres, boxes, capsules and
/// cylinders are answered in closed form; every other shape by the GJK ray cast, whose
/// `toi` is a certified lower bound within the tolerance of the surface (the ray point
/// at `toi` is within `τ σ` of the shape, [`crate::tolerance`]).
///
/// ```
/// use minkowski::query::{cast_ray, Ray, RayOptions};
/// use minkowski::shape::{Cuboid, Shape};
/// use minkowski::{Pose, Vector};
///
/// let crate_ = Shape::from(Cuboid::new(Vector::splat(1.0)).unwrap());
/// let ray = Ray::new(Vector::new(-5.0, 0.5, 0.0), Vector::new(2.0, 0.0, 0.0));
/// let hit = cast_ray(&crate_, &Pose::IDENTITY, &ray, &RayOptions::default()).unwrap().hit.unwrap();
/// assert_eq!(hit.toi, 2.0); // in units of dir: the point (-1, 0.5, 0)
/// assert_eq!(hit.normal, -Vector::X);
/// ```
///
/// # Errors
/// [`CastError`] for a non-finite or too large origin or direction, a zero direction,
/// or a negative or NaN `max_toi`.
pub fn cast_ray(
    shape: &Shape,
    pose: &Pose,
    ray: &Ray,
    options: &RayOptions,
) -> Result<RayCast, CastError> {
    ray.check()?;
    check_max_toi(options.max_toi)?;
    let o = pose.inverse_transform_point(ray.origin);
    let d = pose.inverse_transform_vector(ray.dir);
    let unit = |v: Vector| crate::math::normalize_robust(v).unwrap_or(-d.normalize());
    let local = match shape {
        Shape::Sphere(s) => from_span(
            ball_span(o, d, s.radius()).map(Some).ok_or(()),
            d,
            options,
            |t| unit(o + d * t),
        ),
        Shape::Cuboid(c) => from_span(box_span(o, d, c.half_extents()), d, options, |_| Vector::Y),
        Shape::Capsule(c) => {
            let h = c.half_height();
            from_span(capsule_span(o, d, h, c.radius()), d, options, |t| {
                let p = o + d * t;
                unit(p - Vector::new(0.0, p.y.clamp(-h, h), 0.0))
            })
        }
        Shape::Cylinder(c) => from_span(
            cylinder_span(o, d, c.half_height(), c.radius()),
            d,
            options,
            |t| {
                let p = o + d * t;
                unit(Vector::new(p.x, 0.0, p.z))
            },
        ),
        _ => {
            let (local, status, iterations) = gjk_ray(shape, o, d, options);
            return Ok(finish(local, ray, pose, status, iterations));
        }
    };
    Ok(finish(local, ray, pose, QueryStatus::Converged, 0))
}

/// The world-frame answer of a local one.
fn finish(
    local: Option<(Real, Vector, bool)>,
    ray: &Ray,
    pose: &Pose,
    status: QueryStatus,
    iterations: u32,
) -> RayCast {
    let hit = local.map(|(toi, normal, inside)| RayHit {
        toi,
        point: ray.point_at(toi),
        normal: pose.transform_vector(normal),
        inside,
    });
    RayCast {
        hit,
        status,
        iterations,
    }
}

/// The GJK ray cast in the shape's frame: the point `o` cast along `d` at the shape's
/// core, to within its margin.
fn gjk_ray(
    shape: &Shape,
    o: Point,
    d: Vector,
    options: &RayOptions,
) -> (Option<(Real, Vector, bool)>, QueryStatus, u32) {
    let opts = GjkOptions::default();
    let (core, margin) = shape.core();
    let point = PointShape::ORIGIN;
    let cast_from = |start: Point, dir: Vector, max_toi: Real| {
        let at = Pose::IDENTITY.with_translation(start);
        crate::with_core!(core, s => {
            let pair = crate::support::MinkowskiDifference::relative(s, &Pose::IDENTITY, &point, &at);
            cast_local(&pair, &mut [u32::MAX; 2], dir, margin, max_toi, &opts)
        })
    };
    let c = cast_from(o, d, options.max_toi);
    let status = c.status.into();
    match c.end {
        CastEnd::Miss => (None, status, c.iterations),
        CastEnd::Hit => (Some((c.toi, c.normal, false)), status, c.iterations),
        CastEnd::Within if options.solid => {
            (Some((0.0, -d.normalize(), true)), status, c.iterations)
        }
        CastEnd::Within => {
            // Inside a hollow shape: cast back from a point beyond it to find the exit.
            let reach = 2.0 * (o.length() + shape.bounding_radius());
            let back = (reach.max(Real::MIN_POSITIVE.sqrt())) / d.length();
            let e = cast_from(o + d * back, -d, back);
            let iterations = c.iterations + e.iterations;
            match e.end {
                CastEnd::Hit => {
                    let t = (back - e.toi).max(0.0);
                    let hit = (t <= options.max_toi).then_some((t, e.normal, true));
                    (hit, e.status.into(), iterations)
                }
                // Not reached for a start point beyond the shape; answer the start.
                _ => (Some((0.0, -d.normalize(), true)), status, iterations),
            }
        }
    }
}
