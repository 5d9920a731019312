//! Ray casts against a shape: closed forms for spheres, boxes, capsules, cylinders and
//! cones (the cone's in [`super::ray_cone`]), plane clipping for solid hulls
//! ([`super::cyrus_beck`]), the GJK ray cast ([`crate::query::cast_shapes`]'s algorithm, a
//! point cast against the shape) for every other shape.
//!
//! # The path of a query
//!
//! The input is checked once, by one pass of comparisons that NaN fails (the typed
//! error is built only on failure); [`cast_ray`] is a short dispatch to one function
//! per closed form. A ball is rotation-invariant: its ray is only moved by the
//! pose's translation and its normal needs no rotation back (`sphere_ray`). A capsule
//! needs of the ray only its components along the axis and across it, the same in
//! every frame: only the axis is worked out of the rotation, and the answer stays in the
//! world frame (`capsule_ray`). A box (`box_ray`) and every other shape (`local_ray`)
//! get the ray's origin and direction in their local frame (three dot products each
//! with the columns of the pose's rotation matrix, built once) and the normal rotated
//! back by that matrix. Round normals are the offset from the centre or axis divided by
//! the radius, which is their length at a hit up to rounding (else normalised).
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
//! * **capsule**: the infinite cylinder's chord first; each of its ends that lies in the
//!   slab `|y| ≤ h` is the capsule's, and each beyond it is replaced by the end of the
//!   ball on that side (see `capsule_ray`); a line along the axis is bounded by the
//!   union of the two balls.

// Negated comparisons (`!(x > 0.0)`) are meant: they send NaN to the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::cast::{cast_local, check_max_toi, CastEnd, CastError};
use super::QueryStatus;
use crate::math::{Matrix3, Point, Pose, Real, Vector};
use crate::query::gjk::GjkOptions;
use crate::shape::{PointShape, Shape, MAX_MAGNITUDE};
use crate::support::SupportMap;
use crate::tolerance;

use super::cyrus_beck::clip_span;
use super::ray_cone::{self, cone_span};

/// A ray: the points `origin + t · dir` for `t ≥ 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Where the ray starts (world frame).
    pub origin: Point,
    /// Its direction (world frame; any length but zero: times are in units of `dir`). A
    /// hit whose time is beyond the precision's range (a tiny direction from far away)
    /// is reported as no hit.
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

/// Whether `ray`'s direction is below [`tolerance::RESCALE_VELOCITY_BELOW`] in every
/// component (one vector compare: the common case pays nothing more).
#[inline]
pub(crate) fn is_tiny(ray: &Ray) -> bool {
    ray.dir
        .abs()
        .cmplt(Vector::splat(tolerance::RESCALE_VELOCITY_BELOW))
        .all()
}

/// Answers a ray with a tiny (non-zero, checked) direction (see
/// [`tolerance::RESCALE_VELOCITY_BELOW`]) through `cast` on the same ray with its
/// direction scaled by `2^k` to a largest component in `[1, 2)`, and `max_toi` by
/// `2^-k`: powers of two scale exactly, so the scaled problem has the same hit point and
/// normal at `2^-k` times the time. The time is scaled back; a time beyond the
/// precision's range (a hit that cannot be written) is reported as no hit.
#[cold]
#[inline(never)]
pub(crate) fn solve_at_unit_scale(
    ray: &Ray,
    options: &RayOptions,
    cast: impl FnOnce(&Ray, &RayOptions) -> Result<RayCast, CastError>,
) -> Result<RayCast, CastError> {
    let unit = tolerance::time_rescale(ray.dir.abs().max_element());
    let [f1, f2] = unit;
    let scaled = Ray::new(ray.origin, ray.dir * f1 * f2);
    let scaled_options = RayOptions {
        max_toi: options.max_toi / f1 / f2,
        ..*options
    };
    let mut answer = cast(&scaled, &scaled_options)?;
    if let Some(hit) = answer.hit.as_mut() {
        match tolerance::time_from_rescaled(hit.toi, unit, options.max_toi) {
            Some(toi) => hit.toi = toi,
            None => answer.hit = None,
        }
    }
    Ok(answer)
}

/// [`cast_ray`] for a problem smaller than [`tolerance::RESCALE_BELOW`]: the shape's
/// size and the ray origin's offset from it (`None` when it is not that small). The GJK
/// ray cast and the chord forms measure against tolerances of unit size, which swallow a
/// shape of 2⁻⁴⁰: measured before this rule, in f32, a pyramid of 2⁻⁴⁰ was hit at the
/// wrong time and one of 2⁻⁸⁰ at time 0 from outside. The problem is moved to the shape's
/// origin and its lengths scaled by a power of two `f` to unit size (exactly), the
/// direction kept: a time of the scaled ray is `f` times the caller's, divided back
/// exactly. The hit point is the caller's ray at that time; normals do not change.
#[cold]
#[inline(never)]
fn solve_small(
    shape: &Shape,
    pose: &Pose,
    ray: &Ray,
    options: &RayOptions,
) -> Option<Result<RayCast, CastError>> {
    let offset = ray.origin - pose.translation();
    let sigma = shape.bounding_radius().max(offset.abs().max_element());
    let f = tolerance::rescale_factor(sigma)?;
    let scaled = shape.scaled(f).ok()?;
    let at_origin = Pose::from_parts(pose.rotation(), Vector::ZERO);
    let options_f = RayOptions {
        max_toi: options.max_toi * f,
        ..*options
    };
    let answer = cast_ray(
        &scaled,
        &at_origin,
        &Ray::new(offset * f, ray.dir),
        &options_f,
    );
    Some(answer.map(|mut a| {
        if let Some(hit) = a.hit.as_mut() {
            hit.toi /= f;
            hit.point = ray.point_at(hit.toi);
        }
        a
    }))
}

/// Options of a ray cast.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayOptions {
    /// The largest time searched (units of the ray's `dir`, `>= 0`, inclusive; default
    /// infinite). A hit at a time beyond the precision's range (a tiny `dir`) is no hit.
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
    /// The hit, if the ray meets the shape for a time in `[0, max_toi]` (and within the
    /// precision's range: see [`RayOptions::max_toi`]).
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
pub(super) struct Span {
    pub(super) t_in: Real,
    pub(super) n_in: Vector,
    pub(super) t_out: Real,
    pub(super) n_out: Vector,
}

/// The chord of the ball `‖x‖ ≤ r` on the line (see the module notes). Its normals are
/// left zero: radial, they are computed only for the end the answer uses.
#[inline(always)]
fn ball_span(o: Point, d: Vector, r: Real) -> Option<Span> {
    // One division, off the path of the square root.
    ball_chord(o, d, 1.0 / d.dot(d), r)
}

/// [`ball_span`] with `inv_dd = 1 / d·d` already worked out (a caller that needs it
/// first, to tell a line along an axis, divides once).
#[inline(always)]
fn ball_chord(o: Point, d: Vector, inv_dd: Real, r: Real) -> Option<Span> {
    let tc = -o.dot(d) * inv_dd;
    let p = o + d * tc;
    let h2 = r * r - p.length_squared();
    if !(h2 >= 0.0) {
        return None;
    }
    let half = (h2 * inv_dd).sqrt();
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
pub(super) fn slab(o: Real, d: Real, h: Real, axis: Vector) -> Option<Option<Span>> {
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
pub(super) fn intersect(a: Option<Span>, b: Option<Span>) -> Option<Span> {
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
pub(super) type LineSpan = Result<Option<Span>, ()>;

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

/// The union of the balls of radius `r` at `±up` on the line (both, or either one).
fn union_of_balls(o: Point, d: Vector, up: Vector, r: Real) -> LineSpan {
    match (ball_span(o - up, d, r), ball_span(o + up, d, r)) {
        (None, None) => Err(()),
        (Some(s), None) | (None, Some(s)) => Ok(Some(s)),
        (Some(a), Some(b)) => Ok(Some(Span {
            t_in: a.t_in.min(b.t_in),
            n_in: Vector::ZERO,
            t_out: a.t_out.max(b.t_out),
            n_out: Vector::ZERO,
        })),
    }
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
/// `solid: false` it hits where it leaves the shape. Spheres, boxes, capsules,
/// cylinders and cones are answered in closed form, hulls ([`crate::shape::ConvexPolyhedron`]
/// with a solid hull) by clipping the ray against their face planes; every other shape
/// (and rounded ones) by the GJK ray cast, whose `toi` is a certified lower bound within
/// the tolerance of the surface (the ray point at `toi` is within `τ σ` of the shape,
/// [`crate::tolerance`]).
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
    if !input_ok(ray, options.max_toi) {
        return Err(input_error(ray, options.max_toi));
    }
    if is_tiny(ray) {
        return solve_at_unit_scale(ray, options, |r, o| cast_ray(shape, pose, r, o));
    }
    // A problem below `tolerance::RESCALE_BELOW` (a tiny shape, the ray starting near
    // it) is solved at unit size, as the pair queries solve theirs: one compare here.
    if (ray.origin - pose.translation()).abs().max_element() < tolerance::RESCALE_BELOW {
        if let Some(answer) = solve_small(shape, pose, ray, options) {
            return answer;
        }
    }
    // The three closed forms users cast at most go straight to a function of their own
    // (see the module notes); the others take the local frame.
    let c = match shape {
        Shape::Sphere(s) => sphere_ray(s.radius(), pose.translation(), ray, options),
        Shape::Cuboid(c) => box_ray(c.half_extents(), pose, ray, options),
        Shape::Capsule(c) => capsule_ray(c.half_height(), c.radius(), pose, ray, options),
        _ => return Ok(local_ray(shape, pose, ray, options)),
    };
    // The one place the closed forms' answer is built: their paths meet as scalars
    // (kept in registers), and the answer is written once, in place. (Built on each
    // path, it was assembled in a temporary by narrow stores and copied out by wide
    // loads, which the processor cannot forward: a stall of a dozen cycles per query.)
    Ok(RayCast {
        hit: c.hit.then_some(RayHit {
            toi: c.toi,
            point: ray.point_at(c.toi),
            normal: c.normal,
            inside: c.inside,
        }),
        status: QueryStatus::Converged,
        iterations: 0,
    })
}

/// A closed form's answer, before [`cast_ray`] builds its [`RayCast`]: `toi` and the
/// world `normal` of the hit when `hit`.
#[derive(Clone, Copy)]
struct Closed {
    toi: Real,
    normal: Vector,
    hit: bool,
    inside: bool,
}

/// No hit, from a closed form.
const MISS: Closed = Closed {
    toi: 0.0,
    normal: Vector::ZERO,
    hit: false,
    inside: false,
};

/// A closed form's hit at `toi` with the world `normal`.
#[inline(always)]
fn hit_at(toi: Real, normal: Vector, inside: bool) -> Closed {
    Closed {
        toi,
        normal,
        hit: true,
        inside,
    }
}

/// [`from_span`]'s rule on a world-frame chord `[t_in, t_out]`: `normal(t)` is the world
/// normal at the time the answer uses (computed for that one only), `entry` when that is
/// `t_in`.
#[inline(always)]
fn chord_answer(
    ray: &Ray,
    t_in: Real,
    t_out: Real,
    options: &RayOptions,
    normal: impl Fn(Real, bool) -> Vector,
) -> Closed {
    if !(t_out >= 0.0) {
        return MISS;
    }
    // The time the answer uses: the entry, or the exit from inside a hollow shape.
    let (t, entry) = if t_in <= 0.0 {
        if options.solid {
            return hit_at(0.0, -ray.dir.normalize(), true);
        }
        (t_out, false)
    } else {
        (t_in, true)
    };
    if !(t <= options.max_toi) {
        return MISS;
    }
    // One call of `normal`: it is inlined (called for each end, it was kept out of line).
    hit_at(t, normal(t, entry), !entry)
}

/// The outward unit normal of a round surface of radius `r` at the offset `q` from its
/// centre or axis: `q / r` when `‖q‖² = r²` up to rounding
/// ([`tolerance::RADIAL_BY_RADIUS`]), else [`radial`]'s normalisation (a far origin's
/// rounding in `q`, a radius too small to square).
#[inline(always)]
fn round_normal(q: Vector, r: Real, d: Vector) -> Vector {
    let (l2, r2) = (q.length_squared(), r * r);
    if (l2 - r2).abs() <= tolerance::RADIAL_BY_RADIUS * r2 && r2 >= Real::MIN_POSITIVE {
        q * r.recip()
    } else {
        radial(q, r, d)
    }
}

/// The ray at a ball of radius `r` centred at `center` (world frame): [`ball_span`]'s
/// chord, the normal radial, all in the world frame (a ball has no orientation).
fn sphere_ray(r: Real, center: Point, ray: &Ray, options: &RayOptions) -> Closed {
    let (o, d) = (ray.origin - center, ray.dir);
    let Some(s) = ball_span(o, d, r) else {
        return MISS;
    };
    chord_answer(ray, s.t_in, s.t_out, options, |t, _| {
        round_normal(o + d * t, r, d)
    })
}

/// The ray at a box of half extents `h` placed at `pose`: the slabs `|x_i| ≤ h_i` (Kay
/// and Kajiya) in the box's frame (origin and direction moved there by the rows of the
/// rotation matrix), all three at once and without a branch per axis (random rays make
/// such branches unpredictable): entry the latest slab entry, exit the earliest slab
/// exit. A direction parallel to a slab (a zero component) keeps the line in it for all
/// times or never, selected in place of its quotients (which would be `0 · ∞` on the
/// face). The face normal is `±` the entry (exit) axis's column of the matrix, the local
/// unit axis rotated back exactly; ties go to the earlier axis.
fn box_ray(h: Vector, pose: &Pose, ray: &Ray, options: &RayOptions) -> Closed {
    let m = Matrix3::from_quat(pose.rotation());
    let to_local = |v: Vector| Vector::new(m.x_axis.dot(v), m.y_axis.dot(v), m.z_axis.dot(v));
    let o = to_local(ray.origin - pose.translation());
    let d = to_local(ray.dir);
    let inv = Vector::ONE / d;
    let (t1, t2) = ((-h - o) * inv, (h - o) * inv);
    let parallel = d.cmpeq(Vector::ZERO);
    let within = o.abs().cmple(h);
    let all = Vector::splat(Real::INFINITY);
    // Parallel and within the slab: all times; parallel and outside: none.
    let lo = Vector::select(parallel, Vector::select(within, -all, all), t1.min(t2));
    let hi = Vector::select(parallel, Vector::select(within, all, -all), t1.max(t2));
    let (t_in, t_out) = (lo.max_element(), hi.min_element());
    if !(t_in <= t_out) {
        return MISS;
    }
    if t_in == Real::NEG_INFINITY {
        // Parallel to every slab, inside them all (a direction rounded to zero in the
        // box's frame): the whole line is inside.
        return if options.solid {
            hit_at(0.0, -ray.dir.normalize(), true)
        } else {
            MISS
        };
    }
    chord_answer(ray, t_in, t_out, options, |_, entry| {
        // Entering through the face the direction points into, leaving through the
        // other.
        let (a, s) = if entry {
            let a = if lo.x >= lo.y && lo.x >= lo.z {
                0
            } else if lo.y >= lo.z {
                1
            } else {
                2
            };
            (a, -d[a].signum())
        } else {
            let a = if hi.x <= hi.y && hi.x <= hi.z {
                0
            } else if hi.y <= hi.z {
                1
            } else {
                2
            };
            (a, d[a].signum())
        };
        m.col(a) * s
    })
}

/// The ray at a capsule (half height `hh` of its segment along its local y axis, radius
/// `r`) placed at `pose`, in the world frame: the capsule's closed form (module notes)
/// needs of the ray only its components along the axis `a` (the rotated y axis, one
/// column of the rotation) and across it, which are the same in either frame, so only
/// `a` is worked out of the rotation; the normal is radial from the segment, already a
/// world vector.
fn capsule_ray(hh: Real, r: Real, pose: &Pose, ray: &Ray, options: &RayOptions) -> Closed {
    let q = pose.rotation();
    // The rotated y axis (the middle column of the rotation matrix).
    let a = Vector::new(
        2.0 * (q.x * q.y - q.w * q.z),
        1.0 - 2.0 * (q.x * q.x + q.z * q.z),
        2.0 * (q.y * q.z + q.w * q.x),
    );
    let (o, d) = (ray.origin - pose.translation(), ray.dir);
    let (oy, dy) = (o.dot(a), d.dot(a));
    let (o2, d2) = (o - a * oy, d - a * dy);
    let up = a * hh;
    let inv_dd = 1.0 / d2.length_squared();
    let (t_in, t_out) = if !(inv_dd < Real::INFINITY) {
        // Along the axis (no component across it to divide by): the balls bound it.
        match union_of_balls(o, d, up, r) {
            Ok(Some(s)) => (s.t_in, s.t_out),
            _ => return MISS,
        }
    } else {
        // The infinite cylinder's chord, as the ball's across the axis.
        let Some(tube) = ball_chord(o2, d2, inv_dd, r) else {
            return MISS;
        };
        // The capsule lies in the tube, so the line meets it, if at all, while inside
        // the tube. Where the line enters the tube above the top (below the bottom),
        // the capsule's points on it are the top (bottom) ball's: crossing `y = ±hh`
        // inside the tube happens inside that ball's disc. So each end is the tube's
        // when it lies in the slab `|y| ≤ hh`, else that of the ball on its side, and a
        // missed ball is a missed capsule: one square root for a side hit, not three.
        // (Working out both balls' chords and selecting the ends, without a branch,
        // measured slower: two more square roots cost more than the mispredictions.)
        let end = |t: Real, entry: bool| -> Option<Real> {
            let y = oy + dy * t;
            if y.abs() <= hh {
                return Some(t);
            }
            let c = if y > hh { up } else { -up };
            let b = ball_span(o - c, d, r)?;
            Some(if entry { b.t_in } else { b.t_out })
        };
        let Some(t_in) = end(tube.t_in, true) else {
            return MISS;
        };
        let Some(t_out) = end(tube.t_out, false) else {
            return MISS;
        };
        (t_in, t_out)
    };
    chord_answer(ray, t_in, t_out, options, |t, _| {
        let p = o + d * t;
        round_normal(p - a * p.dot(a).clamp(-hh, hh), r, d)
    })
}

/// [`cast_ray`] for the shapes answered in their local frame: cylinders, cones, hulls
/// and the GJK ray cast (kept out of line: the dispatch above stays short).
#[inline(never)]
fn local_ray(shape: &Shape, pose: &Pose, ray: &Ray, options: &RayOptions) -> RayCast {
    // The rotation as a matrix: its columns are the local axes in the world, so the
    // world-to-local map is three dot products with them, and the normal comes back as
    // one matrix product (cheaper than three quaternion rotations).
    let m = Matrix3::from_quat(pose.rotation());
    let to_local = |v: Vector| Vector::new(m.x_axis.dot(v), m.y_axis.dot(v), m.z_axis.dot(v));
    let o = to_local(ray.origin - pose.translation());
    let d = to_local(ray.dir);
    let local = match shape {
        Shape::Cylinder(c) => {
            let r = c.radius();
            from_span(cylinder_span(o, d, c.half_height(), r), d, options, |t| {
                let p = o + d * t;
                radial(Vector::new(p.x, 0.0, p.z), r, d)
            })
        }
        Shape::Cone(c) => match ray_cone::closed_form_slope(c) {
            Some(k) => from_span(cone_span(o, d, c.half_height(), k), d, options, |t| {
                ray_cone::side_normal(o + d * t, k)
            }),
            None => return gjk_ray(shape, o, d, ray, &m, options),
        },
        Shape::Convex(c) if !c.face_planes().is_empty() => {
            match clip_span(c.face_planes(), o - c.local_center(), d) {
                // Every normal of the span is a face's.
                Some(span) => from_span(span, d, options, |_| Vector::Y),
                None => return gjk_ray(shape, o, d, ray, &m, options),
            }
        }
        _ => return gjk_ray(shape, o, d, ray, &m, options),
    };
    finish(local, ray, Some(&m), QueryStatus::Converged, 0)
}

/// Whether the ray and `max_toi` are valid input (see [`Ray::check`] and
/// [`check_max_toi`]): one pass of comparisons that NaN fails, no branch per field.
#[inline]
fn input_ok(ray: &Ray, max_toi: Real) -> bool {
    let limit = Vector::splat(MAX_MAGNITUDE);
    ray.origin.abs().cmple(limit).all()
        & ray.dir.abs().cmple(limit).all()
        & (ray.dir != Vector::ZERO)
        & (max_toi >= 0.0)
}

/// The typed error of input that [`input_ok`] refused (the checks in their documented
/// order).
#[cold]
#[inline(never)]
fn input_error(ray: &Ray, max_toi: Real) -> CastError {
    match ray.check().and_then(|()| check_max_toi(max_toi)) {
        Err(e) => e,
        // Not reached: input_ok and the checks refuse the same input. Report the
        // direction, the input a check could disagree on last.
        Ok(()) => CastError::ZeroDirection,
    }
}

/// The outward unit normal `q / ‖q‖` of a round surface of radius `r` at the offset `q`
/// from its centre (or axis), robustly normalised when `r` is too small for the plain
/// square root; `−d̂` for a zero `q` (a ball of radius 0).
///
/// `q` is `o + d t`, computed from an origin `o` that may be far from the surface: its
/// rounding is an ulp of `‖o‖`, not of `r`, so `‖q‖ = r` does not hold in floating point
/// (a ball of radius 1e-3 hit from 62.5 away in `f32` had `‖q‖ / r = 0.997`). Dividing by
/// `‖q‖` rather than `r` keeps the normal unit whatever the cancellation.
#[inline]
fn radial(q: Vector, r: Real, d: Vector) -> Vector {
    let plain = if r >= Real::MIN_POSITIVE.sqrt() {
        q.try_normalize()
    } else {
        None
    };
    plain
        .or_else(|| crate::math::normalize_robust(q))
        .unwrap_or_else(|| -d.normalize())
}

/// The world-frame answer of a local one.
/// `rotation` (the pose's, as a matrix) turns the local normal to the world; `None` when
/// it is already a world one.
fn finish(
    local: Option<(Real, Vector, bool)>,
    ray: &Ray,
    rotation: Option<&Matrix3>,
    status: QueryStatus,
    iterations: u32,
) -> RayCast {
    let hit = local.map(|(toi, normal, inside)| RayHit {
        toi,
        point: ray.point_at(toi),
        normal: rotation.map_or(normal, |m| *m * normal),
        inside,
    });
    RayCast {
        hit,
        status,
        iterations,
    }
}

/// The GJK ray cast: the point `o` (the ray's origin in the shape's frame) cast along
/// `d` (its direction there) at the shape's core, to within its margin; answered in the
/// world frame (`rotation`: the pose's, as a matrix).
#[inline(never)]
fn gjk_ray(
    shape: &Shape,
    o: Point,
    d: Vector,
    ray: &Ray,
    rotation: &Matrix3,
    options: &RayOptions,
) -> RayCast {
    let (local, status, iterations) = gjk_local(shape, o, d, options);
    finish(local, ray, Some(rotation), status, iterations)
}

/// [`gjk_ray`] in the shape's frame.
fn gjk_local(
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
