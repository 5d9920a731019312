//! The dispatcher: picks the cheapest exact routine for a pair of [`Shape`]s.
//!
//! Every shape is `core ⊕ ball(margin)` ([`Shape::core`]). The ladder, from the most
//! specific pair to the general one:
//!
//! 1. point and segment cores (sphere, capsule, point, segment, rounded versions):
//!    closest points of two segments, in closed form;
//! 2. a plain box and a point core (box–sphere): closed form;
//! 3. two plain boxes, for `contact`: the separating axis test, exact depth and
//!    witnesses; GJK when an axis separates them;
//! 4. anything else: GJK on the cores, then EPA on the cores when they overlap (two
//!    hulls of at most
//!    [`SAT_CONTACT_MAX_VERTICES`](crate::shape::SAT_CONTACT_MAX_VERTICES) vertices
//!    without margins that GJK finds overlapping: the separating axis test with
//!    Gauss-map pruning of the edge pairs instead, which hands touching pairs and
//!    non-unique witnesses on to EPA); the
//!    margins are added back exactly (the depth of `X ⊕ ball(r)` is the depth of `X`
//!    plus `r`).
//!
//! All outputs are in the world frame.

use super::contact::{ClosestPoints, Contact, ContactMethod, DistanceOutput, QueryStatus};
use super::epa::{self, EpaOptions, EpaWorkspace};
use super::gjk::{self, GjkCache, GjkOptions, GjkOutcome, LocalGjk, Mode};
use super::pair::{
    box_box, point_triangle, polytope_polytope, segment_segment, segment_triangle, sphere_box,
    sphere_sphere, LocalContact,
};
use crate::math::{Matrix3, Point, Pose, Real};
use crate::shape::{CoreShape, Shape};
use crate::support::{Relative, SupportMap};
use crate::tolerance::{self, touching_as_zero, OptionsError};

/// Options for the shape-level queries.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct QueryOptions {
    /// GJK tolerances, bound and variant.
    pub gjk: GjkOptions,
    /// EPA tolerances and bound.
    pub epa: EpaOptions,
}

impl QueryOptions {
    /// Checks both option sets ([`GjkOptions::validate`], then
    /// [`EpaOptions::validate`]). The queries clamp out-of-range options rather than
    /// fail, so this is for callers who build options from user data and want to refuse
    /// them instead.
    ///
    /// # Errors
    /// The first [`OptionsError`] found.
    pub fn validate(&self) -> Result<(), OptionsError> {
        self.gjk.validate()?;
        self.epa.validate()
    }
}

/// A point or segment core as a segment (a point is a segment of length zero).
fn as_segment(c: &CoreShape<'_>) -> Option<(Point, Point)> {
    match c {
        CoreShape::Point(p) => Some((p.point(), p.point())),
        CoreShape::Segment(s) => Some((s.a(), s.b())),
        _ => None,
    }
}

/// Closed-form contact in A's frame, when the pair has one. `rel` is B's pose in A's
/// frame.
fn analytic(
    ca: &CoreShape<'_>,
    ma: Real,
    cb: &CoreShape<'_>,
    mb: Real,
    rel: &Pose,
) -> Option<(LocalContact, ContactMethod)> {
    if let (CoreShape::Point(p), CoreShape::Point(q)) = (ca, cb) {
        let c = sphere_sphere::contact(p.point(), ma, rel.transform_point(q.point()), mb);
        return Some((c, ContactMethod::Analytic));
    }
    if let (Some((p1, q1)), Some((p2, q2))) = (as_segment(ca), as_segment(cb)) {
        let c = segment_segment::contact(
            p1,
            q1,
            ma,
            rel.transform_point(p2),
            rel.transform_point(q2),
            mb,
        );
        return Some((c, ContactMethod::Analytic));
    }
    match (ca, cb) {
        (CoreShape::Triangle(t), CoreShape::Point(p)) => {
            let [a, b, c] = t.vertices();
            let k = point_triangle::contact(a, b, c, rel.transform_point(p.point()), mb)?;
            Some((with_margin_a(k, ma), ContactMethod::Analytic))
        }
        (CoreShape::Point(p), CoreShape::Triangle(t)) => {
            // Solve in B's frame, then bring back and swap roles.
            let inv = rel.inverse();
            let [a, b, c] = t.vertices();
            let k = point_triangle::contact(a, b, c, inv.transform_point(p.point()), ma)?;
            let k = with_margin_a(k, mb);
            Some((k.solved_in_b_frame(rel), ContactMethod::Analytic))
        }
        (CoreShape::Triangle(t), CoreShape::Segment(s)) => {
            let [a, b, c] = t.vertices();
            let (p, q) = (rel.transform_point(s.a()), rel.transform_point(s.b()));
            let k = segment_triangle::contact(a, b, c, p, q, mb)?;
            Some((with_margin_a(k, ma), ContactMethod::Analytic))
        }
        (CoreShape::Segment(s), CoreShape::Triangle(t)) => {
            // Solve in B's frame, then bring back and swap roles.
            let inv = rel.inverse();
            let [a, b, c] = t.vertices();
            let (p, q) = (inv.transform_point(s.a()), inv.transform_point(s.b()));
            let k = with_margin_a(segment_triangle::contact(a, b, c, p, q, ma)?, mb);
            Some((k.solved_in_b_frame(rel), ContactMethod::Analytic))
        }
        (CoreShape::Cuboid(x), CoreShape::Point(p)) if ma == 0.0 => Some((
            sphere_box::contact(x.half_extents(), rel.transform_point(p.point()), mb),
            ContactMethod::Analytic,
        )),
        (CoreShape::Point(p), CoreShape::Cuboid(x)) if mb == 0.0 => {
            // Solve in B's frame, then bring back and swap roles.
            let inv = rel.inverse();
            let c = sphere_box::contact(x.half_extents(), inv.transform_point(p.point()), ma);
            let back = LocalContact {
                distance: c.distance,
                normal: rel.transform_vector(c.normal),
                point_a: rel.transform_point(c.point_a),
                point_b: rel.transform_point(c.point_b),
            };
            Some((back.swapped(), ContactMethod::Analytic))
        }
        _ => None,
    }
}

/// A contact of A's core with B moved out to A's surface when A has the margin `ma`.
fn with_margin_a(mut k: LocalContact, ma: Real) -> LocalContact {
    k.distance -= ma;
    k.point_a += k.normal * ma;
    k
}

/// The largest distance (length units) that counts as touching for a problem of size
/// `sigma` (the magnitude of the coordinates involved, margins included): GJK's touching
/// tolerance of that size, below which rounding decides the sign. Every query decides
/// touching with it, so that `intersects` and the `intersecting` flags of the others
/// agree on pairs that touch within rounding.
fn touch_floor(options: &QueryOptions, sigma: Real) -> Real {
    tolerance::touch_floor(options.gjk.touch_tolerance(), sigma)
}

/// The size of a closed-form problem: about how far from A's origin its numbers reach
/// (largest coordinates of B's translation and of both local boxes; no square roots, as
/// this runs in every closed-form query).
fn analytic_scale(a: &Shape, b: &Shape, rel: &Pose) -> Real {
    let reach = |s: &Shape| {
        let b = s.local_aabb();
        b.mins.abs().max(b.maxs.abs()).max_element()
    };
    rel.translation().abs().max_element() + reach(a) + reach(b)
}

/// For shapes that touch: replaces `c`'s normal (A's frame, from A towards B) by the
/// candidate with the largest separation of the shapes along it — the normal itself,
/// its reverse, GJK's normal and the direction of GJK's best lower bound — when it is
/// larger by more than the rounding `floor`. The witnesses are kept: without margins
/// they are a point common to both shapes within rounding, whatever the normal; with
/// margins the caller rebuilds them along the new normal.
fn best_touching_normal<A: SupportMap, B: SupportMap>(
    pair: &Relative<A, B>,
    hints: &mut [u32; 2],
    g: &LocalGjk,
    floor: Real,
    c: &mut LocalContact,
) {
    // Separation of the cores along unit `n`: min over B of n·x − max over A of n·x.
    let mut separation = |n: crate::math::Vector| -n.dot(pair.support_point_hinted(n, hints).w);
    let Some(own) = c.normal.try_normalize() else {
        return;
    };
    let mut best = separation(own);
    let gjk_normal = if g.intersecting {
        crate::math::Vector::ZERO
    } else {
        g.normal()
    };
    for n in [-own, gjk_normal, g.lower_normal] {
        let Some(n) = n.try_normalize() else {
            continue;
        };
        let s = separation(n);
        if s > best + floor {
            best = s;
            c.normal = n;
        }
    }
}

/// The normal of a separated pair whose GJK stopped on its absolute tolerance, checked.
///
/// GJK stops when `‖v‖ − lower ≤ ε_rel ‖v‖ + τ σ`, with `lower` the largest separation
/// seen along any searched direction (with momentum, seldom `v`'s own). That certifies
/// the distance, but not `v̂`: `v` and the closest point `v*` of `A ⊖ B` satisfy
/// `‖v − v*‖² ≤ ‖v‖² − ‖v*‖² ≤ ‖v‖² − lower²` (`v*` is the nearest point of a convex
/// set holding `v`), so when the absolute term `τ σ` dominates the gap, at distances a
/// few floors wide, `v̂` may be far off (seen in f32: two points 0.013 apart and a
/// vertex 1100 away made the last triangle, `‖v‖ = 0.004` in `[0.002, 0.004]`, and
/// the shapes overlapped by 341 along `v̂`). Only then is the separation along `v̂`
/// measured (one support call); the searched direction that certified `lower`,
/// [`LocalGjk::lower_normal`], replaces it when its larger error — the separation's
/// shortfall from the distance or the witnesses' departure from `distance · normal` —
/// is smaller than `v̂`'s shortfall by more than the floor. The witnesses are kept.
fn certified_apart_normal<A: SupportMap, B: SupportMap>(
    pair: &Relative<A, B>,
    hints: &mut [u32; 2],
    g: &LocalGjk,
    options: &GjkOptions,
    floor: Real,
    c: &mut LocalContact,
) {
    let vnorm = g.vv.sqrt();
    if g.intersecting || vnorm - g.lower <= options.rel() * vnorm {
        return;
    }
    let Some(n) = g.lower_normal.try_normalize() else {
        return;
    };
    // Each normal's error: how far the separation along it falls short of the distance,
    // and how far `point_b − point_a` is from `distance · normal` (0 for `v̂`).
    let own = c.distance - -c.normal.dot(pair.support_point_hinted(c.normal, hints).w);
    let residual = ((c.point_b - c.point_a) - n * c.distance).length();
    let lower = (c.distance - g.best_separation).max(residual);
    if lower + floor < own {
        c.normal = n;
    }
}

/// A separated pair's GJK run again to a tighter relative tolerance when its normal
/// measurably does not separate the shapes by the distance; `None` when it does, or
/// when the new run does no better.
///
/// GJK's relative stop, `‖v‖ − lower ≤ ε_rel ‖v‖`, certifies the distance to `ε_rel`,
/// but `v̂` only to the angle `θ ≤ ‖v − v*‖ / ‖v‖ ≤ √(‖v‖² − lower²) / ‖v‖ ≈ √(2 ε_rel)`
/// (see [`certified_apart_normal`]). Along a normal off by `θ` the separation falls
/// short of the distance by about `θ L`, `L` the lateral extent of the closest
/// features: nothing for curved ones (second order), but up to `θ σ` for parallel
/// faces, whose closest points are not unique (seen, f64: a small cylinder 1961 from
/// the 2000-wide face of another, `θ` = 4.5e-6, the separation 4.5e-3 short, the
/// witnesses at opposite ends of the tie). So when `θ σ` could exceed the tolerance,
/// the separation along `v̂` is measured (one support call), and only when it falls
/// short by more than [`tolerance::GJK_NORMAL_SHORTFALL`]` ε_rel σ` does GJK run again
/// with [`tolerance::GJK_NORMAL_TIGHTENING`] times the relative tolerance: on a face the
/// next support points span it and `v` lands on `v*`. The caller keeps the first run's
/// status when the second stops short of its tighter tolerance.
fn tightened_apart<A: SupportMap, B: SupportMap>(
    pair: &Relative<A, B>,
    hints: &mut [u32; 2],
    g: &LocalGjk,
    options: &GjkOptions,
    floor: Real,
) -> Option<LocalGjk> {
    let vnorm = g.vv.sqrt();
    if g.intersecting || !(vnorm.is_finite() && vnorm > 0.0) {
        return None;
    }
    // Curved closest features fall short by `2 ε_rel R` at most (second order in the
    // angle), parallel faces by up to `√(2 ε_rel) σ`: the threshold lies between.
    let tol = tolerance::GJK_NORMAL_SHORTFALL * options.rel() * g.scale + floor;
    let slack = (g.vv - g.lower * g.lower).max(0.0).sqrt();
    if slack * g.scale <= tol * vnorm {
        return None;
    }
    // How far the separation along a run's normal falls short of its distance.
    let shortfall = |g: &LocalGjk, hints: &mut [u32; 2]| {
        let n = g.normal();
        g.vv.sqrt() + n.dot(pair.support_point_hinted(n, hints).w)
    };
    let own = shortfall(g, hints);
    if own <= tol || own.is_nan() {
        return None;
    }
    let tight = GjkOptions {
        rel_tolerance: options.rel() * tolerance::GJK_NORMAL_TIGHTENING,
        ..*options
    };
    let again = gjk::run(pair, hints, Mode::Distance, &tight, None);
    let better = !again.intersecting && again.vv.is_finite() && shortfall(&again, hints) < own;
    better.then_some(again)
}

/// The interval `bounds` (lower, upper; length units) widened to hold the reported
/// `value` (which the touching rule may have rounded to 0), with its ends no lower than
/// `floor` (0 for unsigned distances). NaN ends are replaced by `value`.
fn enclosing((lower, upper): (Real, Real), value: Real, floor: Real) -> (Real, Real) {
    let lower = if lower.is_nan() {
        value
    } else {
        lower.max(floor).min(value)
    };
    let upper = if upper.is_nan() {
        value
    } else {
        upper.max(floor).max(value)
    };
    (lower, upper)
}

fn to_world(c: LocalContact, pose_a: &Pose) -> (Real, crate::math::Vector, Point, Point) {
    (
        c.distance,
        pose_a.transform_vector(c.normal),
        pose_a.transform_point(c.point_a),
        pose_a.transform_point(c.point_b),
    )
}

/// A problem below [`tolerance::RESCALE_BELOW`] brought to about unit size: both shapes
/// scaled by `factor` (a power of two, so exactly), A at the origin of its own frame and
/// B at the scaled relative pose. Its answers are in A's local frame, scaled: lengths
/// divide by `factor`, points go to the world through `pose_a` after that.
pub(crate) struct Rescaled {
    pub a: Shape,
    pub b: Shape,
    pub rel: Pose,
    pub factor: Real,
}

impl Rescaled {
    /// `Some` when the problem is small enough to need it (and every scaled shape could
    /// be built, which holds for powers of two below the shapes' range checks).
    /// `rel` is B's pose in A's frame. Cheap when the offset alone shows the problem is
    /// large enough (the usual case): one comparison.
    #[inline]
    pub fn of(a: &Shape, b: &Shape, rel: &Pose) -> Option<Rescaled> {
        let offset = rel.translation().abs().max_element();
        if offset >= tolerance::RESCALE_BELOW {
            return None;
        }
        Self::build(a, b, rel, offset)
    }

    #[cold]
    fn build(a: &Shape, b: &Shape, rel: &Pose, offset: Real) -> Option<Rescaled> {
        let sigma = a.bounding_radius().max(b.bounding_radius()).max(offset);
        let factor = tolerance::rescale_factor(sigma)?;
        Some(Rescaled {
            a: a.scaled(factor).ok()?,
            b: b.scaled(factor).ok()?,
            rel: Pose::from_parts(rel.rotation(), rel.translation() * factor),
            factor,
        })
    }

    /// A length of the scaled problem in the caller's units.
    pub fn length(&self, x: Real) -> Real {
        x / self.factor
    }

    /// A point of the scaled problem (A's frame) in the world frame.
    pub fn point(&self, p: Point, pose_a: &Pose) -> Point {
        pose_a.transform_point(p / self.factor)
    }
}

/// Whether A and B overlap or touch. See [`intersects_with`].
pub fn intersects(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose) -> bool {
    intersects_with(a, pose_a, b, pose_b, &QueryOptions::default(), None)
}

/// Whether A and B overlap or touch (distance ≤ 0 within the tolerance), with options
/// and an optional warm-start cache. Stops as soon as the answer is certain.
pub fn intersects_with(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
    cache: Option<&mut GjkCache>,
) -> bool {
    separation_bound_with(a, pose_a, b, pose_b, options, cache).is_none()
}

/// The intersection test of [`intersects_with`] with what it proved: `None` when A and B
/// overlap or touch (exactly when `intersects_with` is true), else `Some(d)`, a lower
/// bound on their distance (length units, ≥ 0): the separation that GJK's last support
/// point certifies, or the closed-form distance. A caller may skip the test while the
/// shapes have moved less than `d` in all (the collision world does).
pub fn separation_bound_with(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
    cache: Option<&mut GjkCache>,
) -> Option<Real> {
    let rel = pose_a.inv_mul(pose_b);
    if let Some(r) = Rescaled::of(a, b, &rel) {
        let d = separation_bound_with(&r.a, &Pose::IDENTITY, &r.b, &r.rel, options, cache);
        return d.map(|d| r.length(d));
    }
    let (ca, ma) = a.core();
    let (cb, mb) = b.core();
    if let Some((c, _)) = analytic(&ca, ma, &cb, mb, &rel) {
        let floor = touch_floor(options, analytic_scale(a, b, &rel));
        return (c.distance > floor).then_some(c.distance);
    }
    let margin = ma + mb;
    on_cores!(ca, cb, pose_a, pose_b, |pair, hints| {
        let r = gjk::run(
            &pair,
            hints,
            Mode::Intersect { margin },
            &options.gjk,
            cache,
        );
        match r.outcome(margin, options.gjk.touch_tolerance()) {
            GjkOutcome::Apart { lower, .. } => Some(lower),
            GjkOutcome::Touching | GjkOutcome::Overlapping => None,
        }
    })
}

/// Distance between A and B (0 when they overlap). See [`distance_with`].
pub fn distance(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose) -> DistanceOutput {
    distance_with(a, pose_a, b, pose_b, &QueryOptions::default(), None)
}

/// Distance between A and B (length ≥ 0; 0 when they overlap or touch), with options
/// and an optional warm-start cache.
pub fn distance_with(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
    cache: Option<&mut GjkCache>,
) -> DistanceOutput {
    let rel = pose_a.inv_mul(pose_b);
    if let Some(r) = Rescaled::of(a, b, &rel) {
        let d = distance_with(&r.a, &Pose::IDENTITY, &r.b, &r.rel, options, cache);
        return DistanceOutput {
            distance: r.length(d.distance),
            lower_bound: r.length(d.lower_bound),
            upper_bound: r.length(d.upper_bound),
            ..d
        };
    }
    let (ca, ma) = a.core();
    let (cb, mb) = b.core();
    // Only the distance is wanted: no witness points are built or transformed.
    let (distance, bounds, floor, status, iterations) = match analytic(&ca, ma, &cb, mb, &rel) {
        Some((c, _)) => (
            c.distance,
            (c.distance, c.distance),
            touch_floor(options, analytic_scale(a, b, &rel)),
            QueryStatus::Converged,
            0,
        ),
        None => {
            let g: LocalGjk = on_cores!(ca, cb, pose_a, pose_b, |pair, hints| {
                gjk::run(&pair, hints, Mode::Distance, &options.gjk, cache)
            });
            let gap = match g.outcome(ma + mb, options.gjk.touch_tolerance()) {
                GjkOutcome::Apart { upper, .. } => upper,
                GjkOutcome::Touching | GjkOutcome::Overlapping => -(ma + mb),
            };
            (
                gap,
                g.distance_bounds(ma + mb),
                touch_floor(options, g.scale + ma + mb),
                g.status.into(),
                g.iterations,
            )
        }
    };
    // Within the rounding floor: touching.
    let distance = if distance > floor { distance } else { 0.0 };
    let (lower_bound, upper_bound) = enclosing(bounds, distance, 0.0);
    DistanceOutput {
        distance,
        lower_bound,
        upper_bound,
        intersecting: distance <= 0.0,
        status,
        iterations,
    }
}

/// Distance and closest points. See [`closest_points_with`].
pub fn closest_points(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose) -> ClosestPoints {
    closest_points_with(a, pose_a, b, pose_b, &QueryOptions::default(), None)
}

/// Distance and closest points of A and B (world frame). When the shapes overlap,
/// both points are one point common to both shapes.
pub fn closest_points_with(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
    cache: Option<&mut GjkCache>,
) -> ClosestPoints {
    let rel = pose_a.inv_mul(pose_b);
    if let Some(r) = Rescaled::of(a, b, &rel) {
        let c = closest_points_with(&r.a, &Pose::IDENTITY, &r.b, &r.rel, options, cache);
        return ClosestPoints {
            distance: r.length(c.distance),
            lower_bound: r.length(c.lower_bound),
            upper_bound: r.length(c.upper_bound),
            point_a: r.point(c.point_a, pose_a),
            point_b: r.point(c.point_b, pose_a),
            normal: pose_a.transform_vector(c.normal),
            ..c
        };
    }
    let (ca, ma) = a.core();
    let (cb, mb) = b.core();
    // A closed form gives the core points while the cores are apart; when they overlap,
    // GJK's simplex gives a point common to both (penetration witnesses need not be).
    let closed = analytic(&ca, ma, &cb, mb, &rel)
        .map(|(c, _)| (c, c.distance + ma + mb))
        .filter(|&(_, core_distance)| core_distance > 0.0);
    let (core_distance, normal, pa, pb, status, iterations, sigma, bounds) =
        if let Some((c, d)) = closed {
            (
                d,
                c.normal,
                c.point_a - c.normal * ma,
                c.point_b + c.normal * mb,
                QueryStatus::Converged,
                0,
                analytic_scale(a, b, &rel),
                (c.distance, c.distance),
            )
        } else {
            let g: LocalGjk = on_cores!(ca, cb, pose_a, pose_b, |pair, hints| {
                gjk::run(&pair, hints, Mode::Distance, &options.gjk, cache)
            });
            let (pa, pb) = g.simplex.witnesses();
            let sigma = g.scale + ma + mb;
            let outcome = g.outcome(ma + mb, options.gjk.touch_tolerance());
            let bounds = g.distance_bounds(ma + mb);
            if outcome == GjkOutcome::Overlapping {
                (
                    0.0,
                    crate::math::Vector::ZERO,
                    pa,
                    pb,
                    g.status.into(),
                    g.iterations,
                    sigma,
                    bounds,
                )
            } else {
                // Not certified apart beyond the margins: touching, at the margins.
                let core = if outcome == GjkOutcome::Touching {
                    g.vv.sqrt().min(ma + mb)
                } else {
                    g.vv.sqrt()
                };
                (
                    core,
                    g.normal(),
                    pa,
                    pb,
                    g.status.into(),
                    g.iterations,
                    sigma,
                    bounds,
                )
            }
        };
    let margin = ma + mb;
    // Within the rounding floor of the margins: touching.
    let (distance, point_a, point_b) = if core_distance > margin + touch_floor(options, sigma) {
        (core_distance - margin, pa + normal * ma, pb - normal * mb)
    } else if core_distance > 0.0 {
        // Cores apart but within the margins: a common point on the segment between the
        // core points, within `ma` of A's core and `mb` of B's.
        let lo = (core_distance - mb).max(0.0);
        let hi = ma.min(core_distance);
        let p = pa + normal * ((lo + hi) * 0.5);
        (0.0, p, p)
    } else {
        let p = (pa + pb) * 0.5;
        (0.0, p, p)
    };
    let (lower_bound, upper_bound) = enclosing(bounds, distance, 0.0);
    ClosestPoints {
        distance,
        lower_bound,
        upper_bound,
        intersecting: distance <= 0.0,
        point_a: pose_a.transform_point(point_a),
        point_b: pose_a.transform_point(point_b),
        normal: if distance > 0.0 {
            pose_a.transform_vector(normal)
        } else {
            crate::math::Vector::ZERO
        },
        status,
        iterations,
    }
}

/// Signed distance, normal and witness points. See [`contact_with`].
pub fn contact(a: &Shape, pose_a: &Pose, b: &Shape, pose_b: &Pose) -> Contact {
    contact_with(a, pose_a, b, pose_b, &QueryOptions::default(), None)
}

/// Signed distance (negative = penetration depth), unit normal from A to B, and points
/// on both shapes (world frame), for any pair, separated or penetrating. See
/// [`Contact`] for the meaning of each field.
pub fn contact_with(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
    cache: Option<&mut GjkCache>,
) -> Contact {
    contact_in(a, pose_a, b, pose_b, options, cache, None)
}

/// [`contact_with`] with EPA's buffers from `workspace` (a
/// [`QueryContext`](super::QueryContext)'s), or from this thread's when `None`.
pub(crate) fn contact_in(
    a: &Shape,
    pose_a: &Pose,
    b: &Shape,
    pose_b: &Pose,
    options: &QueryOptions,
    cache: Option<&mut GjkCache>,
    workspace: Option<&mut EpaWorkspace>,
) -> Contact {
    let rel = pose_a.inv_mul(pose_b);
    if let Some(r) = Rescaled::of(a, b, &rel) {
        let c = contact_in(
            &r.a,
            &Pose::IDENTITY,
            &r.b,
            &r.rel,
            options,
            cache,
            workspace,
        );
        return Contact {
            distance: r.length(c.distance),
            lower_bound: r.length(c.lower_bound),
            upper_bound: r.length(c.upper_bound),
            normal: pose_a.transform_vector(c.normal),
            point_a: r.point(c.point_a, pose_a),
            point_b: r.point(c.point_b, pose_a),
            ..c
        };
    }
    let (ca, ma) = a.core();
    let (cb, mb) = b.core();
    // Closed forms first, then SAT for two boxes without margins.
    let closed = analytic(&ca, ma, &cb, mb, &rel).or_else(|| match (&ca, &cb) {
        (CoreShape::Cuboid(x), CoreShape::Cuboid(y)) if ma == 0.0 && mb == 0.0 => {
            let rot = Matrix3::from_quat(rel.rotation());
            box_box::contact(x.half_extents(), y.half_extents(), rot, rel.translation())
                .map(|c| (c, ContactMethod::Sat))
        }
        _ => None,
    });
    // Two small hulls without margins: once GJK finds them overlapping, the separating
    // axis test instead of EPA, when it finds them overlapping with unique witnesses
    // (else EPA). After GJK, not before: separated and touching pairs, the common case
    // of a broad phase's candidates and of resting contact, cost what they did (SAT
    // first measured +0.1 µs separated and +0.36 µs near touching on 8-point hulls).
    let small_hulls_sat = || match (&ca, &cb) {
        (CoreShape::Convex(x), CoreShape::Convex(y)) if ma == 0.0 && mb == 0.0 => {
            let (fx, fy) = (x.features()?, y.features()?);
            let rot = Matrix3::from_quat(rel.rotation());
            polytope_polytope::contact(x, fx, y, fy, rot, rel.translation())
        }
        _ => None,
    };
    if let Some((c, method)) = closed {
        let (distance, normal, point_a, point_b) = to_world(c, pose_a);
        let floor = touch_floor(options, analytic_scale(a, b, &rel));
        let distance = touching_as_zero(distance, floor);
        return Contact {
            distance,
            lower_bound: distance,
            upper_bound: distance,
            normal,
            point_a,
            point_b,
            status: QueryStatus::Converged,
            method,
            iterations: 0,
        };
    }
    let epa_opts: &EpaOptions = &options.epa;
    let local = on_cores!(ca, cb, pose_a, pose_b, |pair, hints| {
        let mut g = gjk::run(&pair, hints, Mode::Distance, &options.gjk, cache);
        let sigma = g.scale;
        let outcome = g.outcome(ma + mb, options.gjk.touch_tolerance());
        // GJK that stopped short of its tolerance at a separation within the rounding
        // zone has a noisy direction: let EPA, whose normals come from face edges, decide
        // (it reports small separations too).
        let noisy = g.status != gjk::GjkStatus::Converged
            && g.vv.sqrt() <= tolerance::NOISY_SEPARATION * g.scale;
        // "Touching" bounds the distance from above (`|v|` near the margins) but says
        // nothing of the overlapping side unless some direction searched showed the
        // cores no deeper than the floor: when every direction showed them deeper, they
        // may overlap deeply
        // (GJK's segment through the origin within rounding, 1e-3 from it with
        // coordinates of 1e3, has a normal that is noise), and EPA decides.
        let floor = touch_floor(options, sigma);
        let uncertified_touch = outcome == GjkOutcome::Touching && g.best_separation < -floor;
        let sat = if outcome == GjkOutcome::Overlapping && !noisy {
            small_hulls_sat()
        } else {
            None
        };
        let (mut c, status, method, iterations, bounds) = if let Some(k) = sat {
            // (The contact is in A's frame, as GJK's and EPA's are.)
            (
                k,
                QueryStatus::Converged,
                ContactMethod::Sat,
                g.iterations,
                (k.distance, k.distance),
            )
        } else if outcome == GjkOutcome::Overlapping || noisy || uncertified_touch {
            let e = match workspace {
                Some(ws) => epa::run(&pair, hints, &g, epa_opts, ws),
                None => epa::with_thread_workspace(|ws| epa::run(&pair, hints, &g, epa_opts, ws)),
            };
            (
                LocalContact {
                    distance: -e.depth,
                    normal: e.normal,
                    point_a: e.pa,
                    point_b: e.pb,
                },
                QueryStatus::from(e.status),
                ContactMethod::GjkEpa,
                g.iterations + e.iterations + e.refine_iterations,
                (-e.upper, -e.lower),
            )
        } else {
            if let Some(tight) = tightened_apart(&pair, hints, &g, &options.gjk, floor) {
                // The first run certified the distance to the caller's tolerance; the
                // second, a million times tighter, only sharpens the normal. Its stop
                // at rounding is not the answer's status, and the better of the two
                // certified lower bounds is kept.
                let status = match tight.status {
                    gjk::GjkStatus::Converged => tight.status,
                    _ => g.status,
                };
                g = LocalGjk {
                    iterations: g.iterations + tight.iterations,
                    status,
                    lower: g.lower.max(tight.lower).min(tight.vv.sqrt()),
                    ..tight
                };
            }
            let (pa, pb) = g.simplex.witnesses();
            // A run stopped by its bound before any direction showed a gap (`lower` 0,
            // `|v|` far from 0) has not excluded an overlap: the signed distance is only
            // bounded below by the best separation it saw, negative (the depth is the
            // least overlap over all directions). Seen with `max_iterations: 1`: an
            // overlap of 1.08 reported in [0, 1.22].
            let lower = if g.lower <= 0.0 && matches!(outcome, GjkOutcome::Apart { .. }) {
                g.best_separation.min(0.0)
            } else {
                g.lower
            };
            (
                LocalContact {
                    distance: g.vv.sqrt(),
                    normal: g.normal(),
                    point_a: pa,
                    point_b: pb,
                },
                QueryStatus::from(g.status),
                ContactMethod::Gjk,
                g.iterations,
                (lower, g.vv.sqrt()),
            )
        };
        // Cores touching within rounding: the normal of a stalled GJK (|v| at noise
        // level) or of EPA on a polytope through the origin can be anything, even
        // reversed. The right normals are those along which the cores' separation, here
        // 0, is largest; so keep the best of the candidates by their measured
        // separation (one support call each).
        // (With margins, only after a GJK stop on its absolute floor, and the witnesses
        // are rebuilt below: replacing the normal moves the inflated witnesses off each
        // other on curved pairs.)
        // The witnesses are kept, so only where the distance is rounding (an overlap
        // found by EPA is not: swapping its normal for a tie on the other side of
        // concentric shapes put `point_b − point_a` opposite to `distance · normal`).
        let near_zero = outcome == GjkOutcome::Touching || c.distance.abs() <= floor;
        let mut renormed = false;
        if ma + mb == 0.0 && near_zero {
            best_touching_normal(&pair, hints, &g, floor, &mut c);
        } else if ma + mb == 0.0 && method == ContactMethod::Gjk {
            certified_apart_normal(&pair, hints, &g, &options.gjk, floor, &mut c);
        } else if outcome == GjkOutcome::Touching
            && method == ContactMethod::Gjk
            && g.vv.sqrt() - g.lower > options.gjk.rel() * g.vv.sqrt()
        {
            // Rounded shapes touching, GJK stopped on its absolute floor (not its
            // relative tolerance): the cores are about the margins apart, a gap a few
            // floors wide at a large scale, where `v̂` is as noisy as above (seen in
            // f32: a rounded disc of radius 1000 and a point 0.001 above its rim, `v̂`
            // 20° off, the shapes overlapping by 60 along it). The best-separating
            // candidate is the same for the cores and for the rounded shapes; the
            // witnesses are rebuilt below to agree with it.
            let before = c.normal;
            best_touching_normal(&pair, hints, &g, floor, &mut c);
            renormed = c.normal != before;
        }
        (
            c, status, method, iterations, sigma, outcome, bounds, renormed,
        )
    });
    let (mut c, status, method, iterations, sigma, outcome, (core_lower, core_upper), renormed) =
        local;
    // Add the margins back: the shapes are the cores inflated by ma and mb.
    c.distance -= ma + mb;
    c.distance = touching_as_zero(c.distance, touch_floor(options, sigma + ma + mb));
    if !matches!(outcome, GjkOutcome::Apart { .. }) && c.distance > 0.0 {
        // Not certified apart beyond the margins (see `LocalGjk::outcome`).
        c.distance = 0.0;
    }
    c.point_a += c.normal * ma;
    c.point_b -= c.normal * mb;
    if renormed {
        // The cores' witnesses were found along the old `v̂`: inflated along the new
        // normal they no longer differ by `distance · normal`. Centre them on their
        // midpoint, that far apart along the normal. Each moves by at most
        // `(ma + mb) sin(θ/2)` off its surface, θ the normal's correction: the price of
        // a normal the shapes really touch along (the old one could be off by θ at
        // the shapes' whole size, 60 in the seed).
        let mid = (c.point_a + c.point_b) * 0.5;
        let half = c.normal * (c.distance * 0.5);
        c.point_a = mid - half;
        c.point_b = mid + half;
    }
    let (distance, normal, point_a, point_b) = to_world(c, pose_a);
    let (lower_bound, upper_bound) = enclosing(
        (core_lower - (ma + mb), core_upper - (ma + mb)),
        distance,
        Real::NEG_INFINITY,
    );
    Contact {
        distance,
        lower_bound,
        upper_bound,
        normal,
        point_a,
        point_b,
        status,
        method,
        iterations,
    }
}
