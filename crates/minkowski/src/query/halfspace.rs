//! Queries between a [`HalfSpace`] (A) and a convex [`Shape`] or a [`Compound`] (B): all
//! closed forms on B's support map, exact up to rounding.
//!
//! # The math
//!
//! Let the half-space be `H = {x : n·x ≤ c}` (unit `n`, in H's local frame; B's pose is
//! brought into that frame, `rel = pose_h⁻¹ · pose_b`). For a convex B with support
//! function `h_B(u) = max_{x ∈ B} u·x` and support point `s_B(u)`,
//!
//! ```text
//! δ = min_{x ∈ B} (n·x − c) = −h_B(−n) − c,      attained at  x* = s_B(−n).
//! ```
//!
//! * B apart from H (`δ > 0`): every point of H is below the plane, so the distance of
//!   a point `x` from H is `max(0, n·x − c)`, and the distance of B from H is its least
//!   value over B: `δ`, between `x*` and its projection `x* − δ n` onto the plane.
//! * B overlapping H (`δ ≤ 0`): B translated by `t` is clear of H exactly when
//!   `min n·(x + t) ≥ c`, i.e. `n·t ≥ −δ`; the shortest such `t` is `−δ n`. So the
//!   penetration depth is `−δ`, along `n`, with the same witnesses.
//!
//! Either way the contact normal (from A towards B) is always `n`, the signed distance
//! is `δ`, and no iteration is involved: one support call. B is `core ⊕ ball(r)`
//! ([`Shape::core`]): the support point is the core's in `−n` moved by `r` along `−n`,
//! so `δ = n·s_core(−n) − r − c` exactly (no rounded-surface normalisation). Everything
//! is evaluated in H's frame, so the rounding error is a few `ε` times the magnitude of
//! the coordinates involved (σ: `|c|`, the support point, the margin), and a positive
//! `δ` within the touching floor `16 ε σ` ([`crate::tolerance`]) is reported as touching
//! (0), as every other query does.
//!
//! # Manifolds
//!
//! Every point of B within `margin` of the plane, reduced to at most four: for a core
//! with vertices and no margin (box, pyramid, triangle, hull, segment, point) every
//! vertex `v` with `n·v − c ≤ margin` is a candidate (a box face down gives its four
//! corners, an edge two, a corner one — and a tilted box with a large margin every
//! corner within it); for curved or rounded shapes the support feature of B in `−n`
//! ([`super::feature`]: a cylinder cap or cone base as a 16-gon, a capsule's or
//! cylinder's side line within the feature angle of parallel, a rounded face, else one
//! point) and B's exact lowest point give the candidates. The candidates are reduced as
//! [`mod@super::manifold`] does (the deepest, then the largest area). The plane is always
//! the reference face, so each `point_b` is B's surface point and `point_a` its
//! projection on the plane, with
//! `point_b − point_a = distance · n` by construction.
//!
//! # Casts
//!
//! Under translation only, `n` is fixed and every point of B moves along `n` at the
//! same rate `(v_B − v_H)·n`, so the signed distance is linear in time,
//! `δ(t) = δ(0) + t (v_B − v_H)·n`, and the time it comes down to a target `s` is
//! `(δ(0) − s) / ((v_H − v_B)·n)` — a closed form. When B also turns (at `ω_B` about
//! its local origin), `δ` shrinks at most at `μ = (v_H − v_B)·n + ‖ω_B × n‖ ρ_B` (`ρ_B`
//! B's bounding radius; Mirtich's bound, as in [`super::advancement`]), and conservative
//! advancement steps `t ← t + (δ(t) − s)/μ`, each step certified, with `δ(t)` exact at
//! every step. A turning half-space is refused ([`CastError::Unsupported`]): its plane
//! sweeps points at a speed that grows with their distance from its origin, which no
//! constant bound covers.

// Negated comparisons (`!(x > 0.0)`) are meant: they send NaN to the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::advancement::{MAX_STEPS, REL_TOLERANCE};
use super::cast::{check_max_toi, CastError, CastStart, Motion, ShapeCast, SLIDING_COSINE};
use super::compound::PartAnswer;
use super::contact::{ClosestPoints, Contact, ContactMethod, QueryStatus};
use super::feature::support_feature;
use super::manifold::{
    reduce, Candidate, Manifold, ManifoldPoint, MAX_MANIFOLD_POINTS, SEPARATION_REL_TOLERANCE,
};
use super::point::PointProjection;
use super::ray::{check_vector, Ray, RayCast, RayHit, RayOptions};
use crate::math::{normalize_robust, Point, Pose, Real, Vector};
use crate::shape::{Compound, CoreShape, HalfSpace, Shape, MAX_MAGNITUDE};
use crate::support::SupportMap;
use crate::tolerance::{self, touching_as_zero, DEFAULT_ABS_TOLERANCE};

/// B's lowest point relative to the plane, in H's local frame.
#[derive(Debug, Clone, Copy)]
struct Lowest {
    /// `n·x − c` at B's lowest point (length, margin included), not rounded to 0.
    delta: Real,
    /// That point, on B's surface (H's frame).
    point: Point,
    /// The size of the numbers involved (σ, length).
    sigma: Real,
}

impl Lowest {
    /// The touching floor of this problem (length).
    fn floor(&self) -> Real {
        tolerance::touch_floor(DEFAULT_ABS_TOLERANCE, self.sigma)
    }
    /// The signed distance reported: `delta`, a separation within the floor as 0.
    fn distance(&self) -> Real {
        touching_as_zero(self.delta, self.floor())
    }
}

/// B's lowest point along `−n`, B at `rel` in H's frame (see the module notes).
fn lowest(h: &HalfSpace, b: &Shape, rel: &Pose) -> Lowest {
    let n = h.normal();
    let (core, margin) = b.core();
    let dir = rel.inverse_transform_vector(-n);
    let c = rel.transform_point(core.local_support(dir));
    let point = c - n * margin;
    let delta = n.dot(c) - h.offset() - margin;
    let sigma = c.abs().max_element().max(h.offset().abs()) + margin;
    Lowest {
        delta,
        point,
        sigma,
    }
}

/// The lowest part of a compound (B at `rel` in H's frame): the part's index and answer.
/// Ties go to the first part.
fn lowest_part(h: &HalfSpace, c: &Compound, rel: &Pose) -> (u32, Lowest) {
    let mut best: Option<(u32, Lowest)> = None;
    for (i, (pose, part)) in c.parts().iter().enumerate() {
        let l = lowest(h, part, &rel.mul(pose));
        if best.is_none_or(|(_, b)| l.delta < b.delta) {
            best = Some((i as u32, l));
        }
    }
    // A compound has at least one part (its constructor refuses none).
    best.unwrap_or((
        0,
        Lowest {
            delta: Real::INFINITY,
            point: Point::ZERO,
            sigma: 0.0,
        },
    ))
}

/// The world-frame contact of a lowest point.
fn contact_of(h: &HalfSpace, pose_h: &Pose, low: &Lowest) -> Contact {
    let distance = low.distance();
    let n = pose_h.transform_vector(h.normal());
    let point_b = pose_h.transform_point(low.point);
    Contact {
        distance,
        lower_bound: distance,
        upper_bound: distance,
        normal: n,
        point_a: point_b - n * distance,
        point_b,
        status: QueryStatus::Converged,
        method: ContactMethod::Analytic,
        iterations: 0,
    }
}

/// Whether the half-space `h` at `pose_h` and the convex shape `b` at `pose_b` overlap
/// or touch: [`distance_halfspace`] `≤ 0` (a separation within the touching floor of
/// [`crate::tolerance`] counts as touching). Exact: one support call of B.
///
/// See also [`contact_halfspace`], [`crate::query::intersects`] (two convex shapes).
pub fn intersects_halfspace(h: &HalfSpace, pose_h: &Pose, b: &Shape, pose_b: &Pose) -> bool {
    lowest(h, b, &pose_h.inv_mul(pose_b)).distance() <= 0.0
}

/// The signed distance between the half-space `h` at `pose_h` and the convex shape `b`
/// at `pose_b` (length): `min over B of n·x − offset` in H's frame, positive apart, 0
/// touching (within the touching floor), negative overlapping (minus the penetration
/// depth along the plane's normal). Exact up to rounding.
///
/// See also [`contact_halfspace`] for the witnesses.
pub fn distance_halfspace(h: &HalfSpace, pose_h: &Pose, b: &Shape, pose_b: &Pose) -> Real {
    lowest(h, b, &pose_h.inv_mul(pose_b)).distance()
}

/// The closest points of the half-space `h` at `pose_h` and the convex shape `b` at
/// `pose_b`, as [`crate::query::closest_points`] gives them for two convex shapes (world
/// frame): apart, `distance > 0`, `point_b` B's point nearest the plane, `point_a` its
/// projection on the plane, `normal` the plane's world normal; overlapping or touching,
/// `distance = 0`, `intersecting`, both points B's deepest point (inside the half-space:
/// a point common to both) and a zero `normal`. Bounds equal the distance; status
/// `Converged`, 0 iterations.
pub fn closest_points_halfspace(
    h: &HalfSpace,
    pose_h: &Pose,
    b: &Shape,
    pose_b: &Pose,
) -> ClosestPoints {
    let c = contact_halfspace(h, pose_h, b, pose_b);
    if c.distance > 0.0 {
        ClosestPoints {
            distance: c.distance,
            lower_bound: c.distance,
            upper_bound: c.distance,
            intersecting: false,
            point_a: c.point_a,
            point_b: c.point_b,
            normal: c.normal,
            status: QueryStatus::Converged,
            iterations: 0,
        }
    } else {
        ClosestPoints {
            distance: 0.0,
            lower_bound: 0.0,
            upper_bound: 0.0,
            intersecting: true,
            point_a: c.point_b,
            point_b: c.point_b,
            normal: Vector::ZERO,
            status: QueryStatus::Converged,
            iterations: 0,
        }
    }
}

/// The contact of the half-space `h` at `pose_h` (A) and the convex shape `b` at
/// `pose_b` (B), world frame, for any configuration:
///
/// * `normal`: the plane's world normal, always (from A towards B: translating B by
///   `−distance · normal` separates an overlapping pair);
/// * `distance`: `min over B of n·x − offset` (length, margins included; negative =
///   penetration depth; a separation within the touching floor is 0), with
///   `lower_bound = upper_bound = distance`;
/// * `point_b`: B's lowest point along the normal (its deepest point when overlapping,
///   its closest when apart), on B's surface; `point_a = point_b − distance · normal`,
///   on the plane;
/// * `status` [`QueryStatus::Converged`], `method` [`ContactMethod::Analytic`], 0
///   iterations.
///
/// Exact up to rounding: see the [module notes](self). Never fails on valid shapes and
/// poses.
///
/// ```
/// use minkowski::query::contact_halfspace;
/// use minkowski::shape::{Cuboid, HalfSpace, Shape};
/// use minkowski::{Pose, Vector};
///
/// let ground = HalfSpace::new(Vector::Y, 0.0).unwrap();
/// let crate_ = Shape::from(Cuboid::new(Vector::splat(0.5)).unwrap());
/// let at = Pose::from_translation(Vector::new(2.0, 0.45, 0.0)).unwrap();
/// let c = contact_halfspace(&ground, &Pose::IDENTITY, &crate_, &at);
/// assert!((c.distance + 0.05).abs() < 1e-6); // 5 cm into the ground
/// assert_eq!(c.normal, Vector::Y);
/// assert!(c.point_a.y.abs() < 1e-6);
/// ```
pub fn contact_halfspace(h: &HalfSpace, pose_h: &Pose, b: &Shape, pose_b: &Pose) -> Contact {
    contact_of(h, pose_h, &lowest(h, b, &pose_h.inv_mul(pose_b)))
}

/// The contact of the half-space `h` at `pose_h` and a compound `b` at `pose_b`: the
/// contact of its lowest part ([`contact_halfspace`] for each part, the least signed
/// distance; ties go to the first part), with the part's index in `part_b` (`part_a`
/// is `None`). World frame, outcomes as [`contact_halfspace`].
///
/// The distance of the compound is the least of its parts' (the union's lowest point
/// is a part's lowest point), so this is exact too; its intersection test is
/// `answer.distance <= 0`.
pub fn contact_halfspace_compound(
    h: &HalfSpace,
    pose_h: &Pose,
    b: &Compound,
    pose_b: &Pose,
) -> PartAnswer<Contact> {
    let (part, low) = lowest_part(h, b, &pose_h.inv_mul(pose_b));
    PartAnswer {
        answer: contact_of(h, pose_h, &low),
        part_a: None,
        part_b: Some(part),
    }
}

/// Room for manifold candidates before they are reduced (a box has 8 corners, a disc
/// 16 vertices; a hull with more candidates is reduced every time this fills, keeping
/// the deepest and the largest area).
const CANDIDATES: usize = 64;

/// The id of a curved or rounded shape's lowest point among the manifold candidates (see
/// [`collect`]); the largest vertex id, so that ties go to the feature's points.
const LOWEST_POINT_ID: u32 = 0x000f_ffff;

/// The bits of a manifold point's feature id that name B's vertex (the bits above name
/// a compound's part).
const ID_MASK: u32 = 0x000f_ffff;

/// Manifold candidates in H's frame: a fixed buffer, reduced when full.
struct Candidates {
    c: [Candidate; CANDIDATES],
    len: usize,
    /// The largest coordinate magnitude seen (and the margin): the reduction's scale.
    size: Real,
    normal: Vector,
}

impl Candidates {
    fn new(normal: Vector, margin: Real, offset: Real) -> Self {
        Candidates {
            c: [Candidate {
                q: Point::ZERO,
                s: 0.0,
                id: 0,
            }; CANDIDATES],
            len: 0,
            size: margin.max(offset.abs()),
            normal,
        }
    }

    fn push(&mut self, c: Candidate) {
        if self.len == CANDIDATES {
            let (picked, k) = reduce(&self.c, self.normal, self.size);
            let mut kept = [self.c[0]; MAX_MANIFOLD_POINTS];
            for (slot, &i) in kept.iter_mut().zip(&picked[..k]) {
                *slot = self.c[i];
            }
            self.c[..k].copy_from_slice(&kept[..k]);
            self.len = k;
        }
        self.size = self.size.max(c.q.abs().max_element());
        self.c[self.len] = c;
        self.len += 1;
    }
}

/// Adds B's manifold candidates (B at `rel` in H's frame; ids `base | vertex id`): every
/// candidate point with separation at most `margin` (plus rounding). `low` is B's lowest
/// point.
fn collect(
    h: &HalfSpace,
    b: &Shape,
    rel: &Pose,
    margin: Real,
    low: &Lowest,
    base: u32,
    out: &mut Candidates,
) {
    let n = h.normal();
    let offset = h.offset();
    let mut add = |q: Point, id: u32| {
        let s = n.dot(q) - offset;
        let slack = SEPARATION_REL_TOLERANCE * q.abs().max_element().max(offset.abs()).max(margin);
        if s <= margin + slack {
            out.push(Candidate {
                q,
                s,
                id: base | (id & ID_MASK),
            });
        }
    };
    let (core, radius) = b.core();
    if radius == 0.0 {
        let vertices: Option<&[Point]> = match &core {
            CoreShape::Cuboid(c) => {
                for (i, v) in c.vertices().into_iter().enumerate() {
                    add(rel.transform_point(v), i as u32);
                }
                return;
            }
            CoreShape::Pyramid(p) => {
                for (i, v) in p.vertices().into_iter().enumerate() {
                    add(rel.transform_point(v), i as u32);
                }
                return;
            }
            CoreShape::Triangle(t) => {
                for (i, v) in t.vertices().into_iter().enumerate() {
                    add(rel.transform_point(v), i as u32);
                }
                return;
            }
            CoreShape::Segment(s) => {
                add(rel.transform_point(s.a()), 0);
                add(rel.transform_point(s.b()), 1);
                return;
            }
            CoreShape::Point(p) => {
                add(rel.transform_point(p.point()), 0);
                return;
            }
            CoreShape::Convex(p) => Some(p.points()),
            _ => None,
        };
        if let Some(vs) = vertices {
            for (i, &v) in vs.iter().enumerate() {
                add(rel.transform_point(v), i as u32);
            }
            return;
        }
    }
    // Curved or rounded: the support feature facing the plane (points on B's surface:
    // a cap's inscribed polygon, a side line, a rounded face, or one point), and B's
    // lowest point itself. The feature is only within the feature angle of facing the
    // plane, so its points may all sit a little higher than the lowest point (a cylinder
    // tilted by 10⁻³ rad); with the lowest point among the candidates the deepest is
    // always reported, and the feature's points within the margin spread the manifold
    // (the same cap gives the same points from one tilt to the next, no flicker). The
    // lowest point's id is the largest, so a feature point as deep up to rounding (an
    // upright cap's, a sphere's) is kept in its place by the reduction.
    let f = support_feature(b, rel, -n);
    for (p, &id) in f.pts().iter().zip(&f.ids) {
        add(*p, id);
    }
    add(low.point, LOWEST_POINT_ID);
}

/// The manifold of the candidates gathered (H's frame) in the world frame.
fn finish_manifold(h: &HalfSpace, pose_h: &Pose, cands: &Candidates) -> Manifold {
    let n = h.normal();
    let nw = pose_h.transform_vector(n);
    let mut m = Manifold::empty(nw, QueryStatus::Converged);
    let c = &cands.c[..cands.len];
    if c.is_empty() {
        return m;
    }
    let (picked, k) = reduce(c, n, cands.size);
    for &i in &picked[..k] {
        let Candidate { q, s, id } = c[i];
        m.push(ManifoldPoint {
            point_a: pose_h.transform_point(q - n * s),
            point_b: pose_h.transform_point(q),
            distance: s,
            feature: id,
        });
    }
    m
}

/// A NaN or negative margin is 0.
fn clean_margin(margin: Real) -> Real {
    if margin > 0.0 {
        margin
    } else {
        0.0
    }
}

/// The contact manifold of the half-space `h` at `pose_h` (A) and the convex shape `b`
/// at `pose_b` (B), world frame: every point of B within `margin` (length, ≥ 0; NaN or
/// negative is 0) of the plane, reduced to at most [`MAX_MANIFOLD_POINTS`] (the deepest
/// first, then the largest area), all sharing the plane's world normal (from A towards
/// B; also the normal of an empty manifold).
///
/// Outcomes:
/// * B farther from the plane than `margin`: no points;
/// * a face of a polytope (box, pyramid, hull, triangle) down: its corners (up to 4); an
///   edge down: 2; a corner: 1 — every vertex within `margin` of the plane is a
///   candidate, so a tilted box with a large margin reports the corners within it;
/// * a capsule lying parallel (within the feature angle,
///   [`crate::query::manifold::FEATURE_ANGLE_COS`]): 2; a cylinder or cone on its flat
///   end: 4 points of the rim ([`crate::query::manifold::DISC_VERTICES`]-gon inscribed,
///   reduced); a cylinder on its side: 2; a sphere, ellipsoid or any curved contact: 1.
///
/// Each point: `point_b` on B's surface (a vertex, or a support feature's point on the
/// rounded or curved surface), `point_a` its projection on the plane, `distance` its
/// signed separation (negative = penetrating, at most `margin` plus
/// [`SEPARATION_REL_TOLERANCE`] of the coordinates' size), `point_b − point_a =
/// distance · normal`. `feature` is the id of B's vertex that made the point (box
/// corners in [`crate::shape::Cuboid::vertices`] order, hull vertex indices, segment
/// ends 0 and 1, a disc's vertices `16·cap + k`, as in [`mod@crate::query::manifold`]),
/// stable while the same vertices touch; `0xfffff` for a curved or rounded shape's
/// exact lowest point (when it is deeper than its support feature's points). Status `Converged`. No heap allocation.
///
/// ```
/// use minkowski::query::manifold_halfspace;
/// use minkowski::shape::{Cuboid, HalfSpace, Shape};
/// use minkowski::{Pose, Vector};
///
/// let ground = HalfSpace::new(Vector::Y, 0.0).unwrap();
/// let crate_ = Shape::from(Cuboid::new(Vector::splat(0.5)).unwrap());
/// let at = Pose::from_translation(Vector::new(0.0, 0.49, 0.0)).unwrap();
/// let m = manifold_halfspace(&ground, &Pose::IDENTITY, &crate_, &at, 0.0);
/// assert_eq!(m.len(), 4); // the four bottom corners, 1 cm deep
/// assert!(m.points().iter().all(|p| (p.distance + 0.01).abs() < 1e-6));
/// ```
pub fn manifold_halfspace(
    h: &HalfSpace,
    pose_h: &Pose,
    b: &Shape,
    pose_b: &Pose,
    margin: Real,
) -> Manifold {
    let margin = clean_margin(margin);
    let rel = pose_h.inv_mul(pose_b);
    if rel.translation().abs().max_element() < tolerance::RESCALE_BELOW {
        if let Some(m) = manifold_halfspace_rescaled(h, pose_h, b, &rel, margin) {
            return m;
        }
    }
    let low = lowest(h, b, &rel);
    let mut cands = Candidates::new(h.normal(), margin, h.offset());
    if low.distance() <= margin {
        collect(h, b, &rel, margin, &low, 0, &mut cands);
    }
    finish_manifold(h, pose_h, &cands)
}

/// [`manifold_halfspace`] for a problem below [`tolerance::RESCALE_BELOW`] (B's size,
/// its offset and the plane's): solved at about unit size (every length multiplied by
/// a power of two, exact) and scaled back, as the dispatcher does. B's support features
/// are found from products of its tiny edges, which underflow (a rounded triangle of
/// 1e-36 in `f32` got a second point and lost its vertex). `None` when the problem is
/// large enough.
#[cold]
#[inline(never)]
fn manifold_halfspace_rescaled(
    h: &HalfSpace,
    pose_h: &Pose,
    b: &Shape,
    rel: &Pose,
    margin: Real,
) -> Option<Manifold> {
    let sigma = b
        .bounding_radius()
        .max(rel.translation().abs().max_element())
        .max(h.offset().abs());
    let factor = tolerance::rescale_factor(sigma)?;
    let hs = HalfSpace::new(h.normal(), h.offset() * factor).ok()?;
    let bs = b.scaled(factor).ok()?;
    let rs = Pose::from_parts(rel.rotation(), rel.translation() * factor);
    let m = manifold_halfspace(&hs, &Pose::IDENTITY, &bs, &rs, margin * factor);
    Some(m.scaled_back(factor, pose_h))
}

/// The contact manifold of the half-space `h` at `pose_h` and a compound `b` at
/// `pose_b`: every part's candidates ([`manifold_halfspace`]) merged and reduced to at
/// most [`MAX_MANIFOLD_POINTS`] together (a table's four legs give one point each).
/// Frames, normal and outcomes as [`manifold_halfspace`]; `feature` is
/// `part << 20 | vertex id` (the vertex id's low 20 bits).
pub fn manifold_halfspace_compound(
    h: &HalfSpace,
    pose_h: &Pose,
    b: &Compound,
    pose_b: &Pose,
    margin: Real,
) -> Manifold {
    let margin = clean_margin(margin);
    let rel = pose_h.inv_mul(pose_b);
    let mut cands = Candidates::new(h.normal(), margin, h.offset());
    for (i, (pose, part)) in b.parts().iter().enumerate() {
        let at = rel.mul(pose);
        let low = lowest(h, part, &at);
        if low.distance() <= margin {
            collect(h, part, &at, margin, &low, (i as u32) << 20, &mut cands);
        }
    }
    finish_manifold(h, pose_h, &cands)
}

/// Casts `ray` (world frame) at the half-space `h` placed at `pose`, with the same
/// conventions as [`crate::query::cast_ray`]:
///
/// * origin outside (`n·o > offset`) and the ray heading into the plane: a hit at
///   `toi = (n·o − offset) / (−n·dir)` (units of `dir`) when it is at most `max_toi`
///   (inclusive), `normal` the plane's world normal, `inside: false`;
/// * origin outside and the ray parallel to the plane or heading away: no hit;
/// * origin inside (on the plane included) and `solid`: a hit at 0, `inside: true`,
///   `normal` the reverse of the ray's direction (as [`RayHit`] documents);
/// * origin inside and not `solid` (hollow): the hit where the ray leaves through the
///   plane (`normal` the plane's, `inside: true`), if it heads out and within
///   `max_toi`; none if it stays inside (parallel or heading down).
///
/// Closed form: status `Converged`, 0 iterations. A hit time that overflows (a ray
/// within rounding of parallel) is a miss.
///
/// # Errors
/// [`CastError`] for a non-finite or too large origin or direction, a zero direction,
/// or a negative or NaN `max_toi`.
pub fn cast_ray_halfspace(
    h: &HalfSpace,
    pose: &Pose,
    ray: &Ray,
    options: &RayOptions,
) -> Result<RayCast, CastError> {
    ray.check()?;
    check_max_toi(options.max_toi)?;
    if super::ray::is_tiny(ray) {
        return super::ray::solve_at_unit_scale(ray, options, |r, o| {
            cast_ray_halfspace(h, pose, r, o)
        });
    }
    let n = h.normal();
    let o = pose.inverse_transform_point(ray.origin);
    let d = pose.inverse_transform_vector(ray.dir);
    let s0 = h.signed_distance(o);
    let dn = n.dot(d);
    let within = |t: Real| t.is_finite() && t <= options.max_toi;
    let local: Option<(Real, Vector, bool)> = if s0 <= 0.0 {
        if options.solid {
            Some((0.0, normalize_robust(-d).unwrap_or(n), true))
        } else if dn > 0.0 {
            let t = (-s0 / dn).max(0.0);
            within(t).then_some((t, n, true))
        } else {
            None
        }
    } else if dn < 0.0 {
        let t = s0 / -dn;
        within(t).then_some((t, n, false))
    } else {
        None
    };
    let hit = local.map(|(toi, normal, inside)| RayHit {
        toi,
        point: ray.point_at(toi),
        normal: pose.transform_vector(normal),
        inside,
    });
    Ok(RayCast {
        hit,
        status: QueryStatus::Converged,
        iterations: 0,
    })
}

/// The point of the plane of the half-space `h` (at `pose`) closest to `point`, whether
/// `point` is inside the solid (plane included, within the touching floor), and its
/// signed distance (length, negative inside, a separation within the touching floor as
/// 0). World frame; closed form (status `Converged`, 0 iterations).
///
/// # Errors
/// [`CastError`] for a point with a non-finite coordinate or one above the magnitude
/// limit.
pub fn project_point_halfspace(
    h: &HalfSpace,
    pose: &Pose,
    point: Point,
) -> Result<PointProjection, CastError> {
    check_vector("point", point)?;
    let p = pose.inverse_transform_point(point);
    let delta = h.signed_distance(p);
    let sigma = p.abs().max_element().max(h.offset().abs());
    let distance = touching_as_zero(delta, tolerance::touch_floor(DEFAULT_ABS_TOLERANCE, sigma));
    Ok(PointProjection {
        point: pose.transform_point(p - h.normal() * delta),
        inside: distance <= 0.0,
        distance,
        status: QueryStatus::Converged,
        iterations: 0,
    })
}

/// Whether the half-space `h` at `pose` contains `point` (world frame), its plane
/// included (within the touching floor): [`project_point_halfspace`]'s `inside`.
///
/// # Errors
/// As [`project_point_halfspace`].
pub fn contains_point_halfspace(
    h: &HalfSpace,
    pose: &Pose,
    point: Point,
) -> Result<bool, CastError> {
    project_point_halfspace(h, pose, point).map(|p| p.inside)
}

/// The signed distance from `point` (world frame) to the plane of the half-space `h` at
/// `pose` (length; negative inside): [`project_point_halfspace`]'s `distance`.
///
/// # Errors
/// As [`project_point_halfspace`].
pub fn signed_distance_halfspace(
    h: &HalfSpace,
    pose: &Pose,
    point: Point,
) -> Result<Real, CastError> {
    project_point_halfspace(h, pose, point).map(|p| p.distance)
}

/// The input of a shape cast of a convex shape against a half-space
/// ([`cast_shape_halfspace`]): both at time 0, how each moves, the interval and the
/// distance to stop at. The same fields as [`crate::query::CastInput`], with the
/// half-space as A.
#[derive(Debug, Clone, Copy)]
pub struct HalfSpaceCastInput<'s> {
    /// The half-space (A).
    pub halfspace: &'s HalfSpace,
    /// Its pose at time 0 (world frame).
    pub pose_h: Pose,
    /// How it moves: translation only (a turning half-space is refused).
    pub motion_h: Motion,
    /// The convex shape (B).
    pub shape: &'s Shape,
    /// Its pose at time 0 (world frame).
    pub pose_b: Pose,
    /// How it moves (translation, and rotation about its local origin).
    pub motion_b: Motion,
    /// The end of the interval searched (time units, `>= 0`, inclusive; may be
    /// infinite). Default infinite. The cast also ends where a shape's origin would leave
    /// the coordinate range [`crate::shape::MAX_MAGNITUDE`] (a miss: no pose exists
    /// beyond it), as [`crate::query::CastInput::max_toi`] says.
    pub max_toi: Real,
    /// The distance to stop at (length, `>= 0`, finite). Default 0 (contact).
    pub target_distance: Real,
}

impl<'s> HalfSpaceCastInput<'s> {
    /// A cast of `shape` at `pose_b` moving by `motion_b` against `halfspace` at
    /// `pose_h` moving by `motion_h`, over `[0, ∞)`, to contact.
    pub fn new(
        halfspace: &'s HalfSpace,
        pose_h: Pose,
        motion_h: Motion,
        shape: &'s Shape,
        pose_b: Pose,
        motion_b: Motion,
    ) -> Self {
        Self {
            halfspace,
            pose_h,
            motion_h,
            shape,
            pose_b,
            motion_b,
            max_toi: Real::INFINITY,
            target_distance: 0.0,
        }
    }

    fn check(&self) -> Result<(), CastError> {
        self.motion_h.check("A")?;
        self.motion_b.check("B")?;
        check_max_toi(self.max_toi)?;
        let s = self.target_distance;
        if !(0.0..=MAX_MAGNITUDE).contains(&s) {
            return Err(CastError::InvalidNumber {
                field: "target_distance",
                expected: "a finite length >= 0 within the magnitude limit",
                value: s,
            });
        }
        if !self.motion_h.is_translation() {
            return Err(CastError::Unsupported(
                "a turning half-space: its plane sweeps points at a speed that grows with \
                 their distance from its origin (give the half-space a translation only, \
                 or turn the other shape instead)",
            ));
        }
        Ok(())
    }
}

/// A cast that does not hit.
fn miss(start: CastStart, initial_distance: Option<Real>, iterations: u32) -> ShapeCast {
    ShapeCast {
        hit: false,
        toi: 0.0,
        normal: Vector::ZERO,
        point_a: Point::ZERO,
        point_b: Point::ZERO,
        start,
        initial_distance,
        status: QueryStatus::Converged,
        iterations,
    }
}

/// The contact and its lowest point at time `t`.
fn contact_at(input: &HalfSpaceCastInput<'_>, t: Real) -> (Contact, Lowest) {
    let ph = input.motion_h.pose_at(&input.pose_h, t);
    let pb = input.motion_b.pose_at(&input.pose_b, t);
    let low = lowest(input.halfspace, input.shape, &ph.inv_mul(&pb));
    (contact_of(input.halfspace, &ph, &low), low)
}

/// The first time the convex shape B comes within `target_distance` of the half-space
/// A, both moving: the same outcomes and start rules as [`crate::query::cast_shapes`]
/// (see [`ShapeCast`]), answered in closed form (see the [module notes](self)):
///
/// * starting overlapping (signed distance < 0): a hit at 0, `start: Overlapping`,
///   `initial_distance` the (negative) signed distance, the contact's normal and points;
/// * starting within the target (distance ≤ target, touching included) and
///   approaching (the contact points' relative velocity along the normal below
///   `−1024 ε` of its length): a hit at 0, `start: WithinTarget`; not approaching
///   (sliding along the plane, or leaving): no hit, `start: WithinTarget`, with
///   `initial_distance`;
/// * starting apart: under translation only, the exact time `(δ − s) / ((v_A − v_B)·n)`
///   when it is at most `max_toi` (inclusive), else no hit (also when B does not
///   approach the plane: parallel motion misses); status `Converged`, 0 iterations.
///   When B turns, conservative advancement (at most
///   [`crate::query::advancement::MAX_STEPS`] steps, each one exact support call;
///   `iterations` counts them): a hit within
///   [`crate::query::advancement::REL_TOLERANCE`] of B's bounding radius above the
///   target, a certified lower bound on the time of impact whatever the status
///   (`MaxIterations` when the step bound stopped it, `NumericalLimit` when rounding
///   did — then `hit` reports the bound, as [`crate::query::cast_shapes`] does).
///
/// At a hit, `normal` is the plane's world normal, `point_b` B's lowest point at `toi`
/// (B moved there) and `point_a = point_b − target · normal` on the plane at `toi`.
/// Frames: world; times in the velocities' unit.
///
/// ```
/// use minkowski::query::{cast_shape_halfspace, HalfSpaceCastInput, Motion};
/// use minkowski::shape::{HalfSpace, Shape, Sphere};
/// use minkowski::{Pose, Vector};
///
/// let ground = HalfSpace::new(Vector::Y, 0.0).unwrap();
/// let ball = Shape::from(Sphere::new(0.5).unwrap());
/// let start = Pose::from_translation(Vector::new(0.0, 10.0, 0.0)).unwrap();
/// let fall = Motion::linear(Vector::new(1.0, -4.75, 0.0));
/// let input = HalfSpaceCastInput::new(&ground, Pose::IDENTITY, Motion::ZERO, &ball, start, fall);
/// let hit = cast_shape_halfspace(&input).unwrap();
/// assert!(hit.hit);
/// assert!((hit.toi - 2.0).abs() < 1e-6); // 9.5 to fall at 4.75 per unit time
/// ```
///
/// # Errors
/// [`CastError`] for a non-finite or too large velocity, a negative or NaN `max_toi`,
/// a negative or non-finite `target_distance`, and [`CastError::Unsupported`] for a
/// half-space with an angular velocity.
pub fn cast_shape_halfspace(input: &HalfSpaceCastInput<'_>) -> Result<ShapeCast, CastError> {
    input.check()?;
    // Tiny motions in a longer time unit, as `cast_shapes` solves them; the interval
    // ends where a pose would leave the coordinate range.
    if let Some(unit) = super::cast::tiny_time_unit([&input.motion_h, &input.motion_b]) {
        let scaled = HalfSpaceCastInput {
            motion_h: super::cast::motion_in_time_unit(input.motion_h, unit),
            motion_b: super::cast::motion_in_time_unit(input.motion_b, unit),
            max_toi: input.max_toi / unit[0] / unit[1],
            ..*input
        };
        let answer = cast_shape_halfspace(&scaled)?;
        return Ok(super::cast::cast_from_time_unit(
            answer,
            unit,
            input.max_toi,
        ));
    }
    let horizon = super::cast::range_horizon(&input.pose_h, &input.motion_h)
        .min(super::cast::range_horizon(&input.pose_b, &input.motion_b));
    if horizon < input.max_toi {
        return cast_shape_halfspace(&HalfSpaceCastInput {
            max_toi: horizon,
            ..*input
        });
    }
    let s = input.target_distance;
    let (c, low) = contact_at(input, 0.0);
    let band = low.floor() * tolerance::SLACK;
    if c.distance < 0.0 {
        return Ok(ShapeCast {
            hit: true,
            toi: 0.0,
            normal: c.normal,
            point_a: c.point_a,
            point_b: c.point_b,
            start: CastStart::Overlapping,
            initial_distance: Some(c.distance),
            status: QueryStatus::Converged,
            iterations: 0,
        });
    }
    if c.distance <= s + band {
        let u = input.motion_b.point_velocity(&input.pose_b, c.point_b)
            - input.motion_h.point_velocity(&input.pose_h, c.point_a);
        if !(u.dot(c.normal) < -SLIDING_COSINE * u.length()) {
            return Ok(miss(CastStart::WithinTarget, Some(c.distance), 0));
        }
        return Ok(ShapeCast {
            hit: true,
            toi: 0.0,
            normal: c.normal,
            point_a: c.point_a,
            point_b: c.point_b,
            start: CastStart::WithinTarget,
            initial_distance: Some(c.distance),
            status: QueryStatus::Converged,
            iterations: 0,
        });
    }
    let n = c.normal;
    let closing = (input.motion_h.linear - input.motion_b.linear).dot(n);
    let hit_at = |t: Real, point_b: Point, status: QueryStatus, iterations: u32| ShapeCast {
        hit: true,
        toi: t,
        normal: n,
        point_a: point_b - n * s,
        point_b,
        start: CastStart::Separated,
        initial_distance: None,
        status,
        iterations,
    };
    if input.motion_b.is_translation() {
        // Every point of B closes on the plane at the same rate.
        if !(closing > 0.0) {
            return Ok(miss(CastStart::Separated, None, 0));
        }
        let t = (c.distance - s) / closing;
        if !(t.is_finite() && t <= input.max_toi) {
            return Ok(miss(CastStart::Separated, None, 0));
        }
        let point_b = c.point_b + input.motion_b.linear * t;
        return Ok(hit_at(t, point_b, QueryStatus::Converged, 0));
    }
    // B turns: conservative advancement with the exact distance at every step.
    let rho = input.shape.bounding_radius();
    let mu = closing + input.motion_b.angular.cross(n).length() * rho;
    if !(mu > 0.0) {
        return Ok(miss(CastStart::Separated, None, 1));
    }
    let tol = (REL_TOLERANCE * rho).max(band);
    let mut t: Real = 0.0;
    let mut distance = c.distance;
    let mut iterations = 1;
    let mut status = QueryStatus::MaxIterations;
    while iterations < MAX_STEPS {
        if distance <= s + tol {
            status = QueryStatus::Converged;
            break;
        }
        let next = t + (distance - s) / mu;
        if !(next > t) {
            // No certified progress is left to make (rounding): a lower bound.
            status = QueryStatus::NumericalLimit;
            break;
        }
        if !(next <= input.max_toi) {
            return Ok(miss(CastStart::Separated, None, iterations));
        }
        t = next;
        distance = contact_at(input, t).0.distance;
        iterations += 1;
    }
    if status == QueryStatus::MaxIterations && distance <= s + tol {
        status = QueryStatus::Converged;
    }
    let (c, _) = contact_at(input, t);
    Ok(hit_at(t, c.point_b, status, iterations))
}
