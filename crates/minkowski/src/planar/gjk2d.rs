//! GJK in the plane (Gilbert, Johnson and Keerthi, IEEE J. Robotics and Automation 4(2),
//! 1988; the 2D form of seed 003, section 6).
//!
//! The distance between convex `A` and `B` is the distance from the origin to their
//! Minkowski difference `D = A ⊖ B`, whose support point along `d` is
//! `s_A(d) − s_B(−d)` (seed 003 eq. 4). GJK keeps a simplex of at most three support
//! points and its point `v` closest to the origin; each iteration adds `w = s_D(−v)` and
//! reduces the simplex to the smallest feature holding the new closest point:
//!
//! * segment `[a, b]`: `t = −a·(b − a)/‖b − a‖²`, clamped to `[0, 1]`;
//! * triangle: the origin is inside when the three signed areas it makes with the edges
//!   share the triangle's sign (then the shapes intersect); otherwise the closest point
//!   is on one of the three edges.
//!
//! Every `w` certifies the lower bound `(v · w)/‖v‖ ≤ dist`, and `‖v‖` is an upper bound,
//! so the iteration stops when the two meet within the tolerance; it also stops when a
//! support point repeats or `‖v‖` fails to decrease strictly (rounding), and after
//! `max_iterations` whatever happens. The first direction is the difference of the two
//! shapes' area centroids, seed 003's eq. 2–3 (fewer iterations than an arbitrary axis
//! on polygons of similar size).
//!
//! Circles are run as points with a margin (their radius), exactly: the distance of the
//! cores minus the radii.

use super::shape2d::{Core2d, Shape2d};
use crate::math::{Real, Vector2};
use crate::query::gjk::GjkStatus;
use crate::tolerance;

/// Options of the 2D GJK.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gjk2dOptions {
    /// Iteration bound (support calls per shape). Default 64; clamped to
    /// `1..=`[`MAX_GJK_ITERATIONS`](crate::tolerance::MAX_GJK_ITERATIONS).
    pub max_iterations: u32,
    /// Relative tolerance on the distance. Default 1e-6 (f32) / 1e-12 (f64); clamped by
    /// [`tolerance::rel_tolerance`] (NaN or negative gives 0).
    pub rel_tolerance: Real,
    /// Start from the difference of the area centroids (seed 003; default `true`) or,
    /// when `false`, from the `+x` axis (the baseline the seed improves on).
    pub centroid_start: bool,
}

impl Gjk2dOptions {
    /// Checks every field against the range it is honoured in (as
    /// [`GjkOptions::validate`](crate::query::gjk::GjkOptions::validate) does in 3D), so
    /// that options built from user data can be refused with a typed error. [`distance`]
    /// never needs it: it clamps each field to its range and always ends with finite
    /// answers; `validate` says when such a clamp would change what was asked.
    ///
    /// # Errors
    /// [`tolerance::OptionsError`] naming the first field that is NaN, negative, or
    /// outside its range.
    pub fn validate(&self) -> Result<(), tolerance::OptionsError> {
        tolerance::check_tolerance(
            "gjk2d",
            "rel_tolerance",
            self.rel_tolerance,
            tolerance::MAX_REL_TOLERANCE,
        )?;
        tolerance::check_count(
            "gjk2d",
            "max_iterations",
            self.max_iterations as usize,
            1,
            tolerance::MAX_GJK_ITERATIONS as usize,
        )
    }
}

impl Default for Gjk2dOptions {
    fn default() -> Self {
        Self {
            max_iterations: 64,
            rel_tolerance: if cfg!(minkowski_f64) { 1e-12 } else { 1e-6 } as Real,
            centroid_start: true,
        }
    }
}

/// The answer of [`distance`]: world coordinates, lengths in the shapes' units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Distance2d {
    /// How the iteration ended.
    pub status: GjkStatus,
    /// Whether the shapes overlap or touch (within the tolerance); then `distance` is 0.
    pub intersecting: bool,
    /// Distance between the shapes (≥ 0).
    pub distance: Real,
    /// Closest point on A (a common point when intersecting).
    pub point_a: Vector2,
    /// Closest point on B.
    pub point_b: Vector2,
    /// Unit vector from A towards B; zero when intersecting.
    pub normal: Vector2,
    /// Iterations run.
    pub iterations: u32,
}

#[derive(Clone, Copy, Default)]
struct Vert {
    w: Vector2,
    a: Vector2,
    b: Vector2,
}

/// Closest point to the origin on a segment of simplex vertices: the point, and the
/// sub-simplex (1 or 2 vertices) that holds it, with barycentric weights.
fn on_segment(p: Vert, q: Vert) -> (Vector2, [Vert; 2], [Real; 2], usize) {
    let e = q.w - p.w;
    let ee = e.length_squared();
    let t = if ee > 0.0 {
        (-p.w.dot(e) / ee).clamp(0.0, 1.0)
    } else {
        0.0
    };
    if t <= 0.0 {
        (p.w, [p, p], [1.0, 0.0], 1)
    } else if t >= 1.0 {
        (q.w, [q, q], [1.0, 0.0], 1)
    } else {
        (p.w + e * t, [p, q], [1.0 - t, t], 2)
    }
}

/// The distance between two 2D convex shapes, with closest points.
pub fn distance(a: &Shape2d, b: &Shape2d, options: &Gjk2dOptions) -> Distance2d {
    let (ca, ra) = a.core();
    let (cb, rb) = b.core();
    let start = if options.centroid_start {
        a.centroid() - b.centroid()
    } else {
        Vector2::X
    };
    let core = run(&ca, &cb, start, options);
    let margin = ra + rb;
    if core.intersecting || core.distance <= margin {
        // Overlapping cores, or cores closer than the radii: a common point is the
        // core point of A moved towards B by A's share of the overlap.
        let n = core.normal;
        let p = core.point_a + n * (ra.min(core.distance));
        return Distance2d {
            intersecting: true,
            distance: 0.0,
            point_a: p,
            point_b: p,
            normal: Vector2::ZERO,
            ..core
        };
    }
    Distance2d {
        distance: core.distance - margin,
        point_a: core.point_a + core.normal * ra,
        point_b: core.point_b - core.normal * rb,
        ..core
    }
}

/// Whether two 2D convex shapes overlap or touch.
pub fn intersects(a: &Shape2d, b: &Shape2d, options: &Gjk2dOptions) -> bool {
    distance(a, b, options).intersecting
}

/// GJK on two cores, from the start direction `v0` (a point of `A ⊖ B`).
fn run(a: &Core2d<'_>, b: &Core2d<'_>, v0: Vector2, opts: &Gjk2dOptions) -> Distance2d {
    // Out-of-range options are clamped as in 3D (`tolerance::rel_tolerance`, at least
    // one and at most `MAX_GJK_ITERATIONS` iterations), so every run ends with finite
    // bounds.
    let rel_tolerance = tolerance::rel_tolerance(opts.rel_tolerance);
    let max_iterations = opts.max_iterations.clamp(1, tolerance::MAX_GJK_ITERATIONS);
    let support = |d: Vector2| {
        let (pa, pb) = (a.support(d), b.support(-d));
        Vert {
            w: pa - pb,
            a: pa,
            b: pb,
        }
    };
    let mut simplex = [Vert::default(); 3];
    let mut weights = [0.0 as Real; 3];
    let mut len = 0usize;
    let mut v = if v0.length_squared() > 0.0 {
        v0
    } else {
        Vector2::X
    };
    let mut vv = Real::INFINITY;
    let mut lower: Real = 0.0;
    let mut scale: Real = 0.0;
    let mut status = GjkStatus::Converged;
    let mut intersecting = false;
    let mut iterations = 0;
    loop {
        if iterations >= max_iterations {
            status = GjkStatus::MaxIterations;
            break;
        }
        iterations += 1;
        let w = support(-v);
        scale = scale
            .max(w.a.abs().max_element())
            .max(w.b.abs().max_element());
        let abs_tol = crate::tolerance::DEFAULT_ABS_TOLERANCE * scale;
        let vlen = v.length();
        if vlen > 0.0 {
            lower = lower.max(v.dot(w.w) / vlen);
        }
        if len > 0 {
            let vnorm = vv.sqrt();
            if vnorm - lower <= rel_tolerance * vnorm + abs_tol
                || simplex[..len].iter().any(|s| s.w == w.w)
            {
                break;
            }
        }
        // Reduce simplex ∪ {w}.
        let (nv, nsimplex, nweights, nlen) = match len {
            0 => (w.w, [w, w, w], [1.0, 0.0, 0.0], 1),
            1 => {
                let (p, s, wt, l) = on_segment(simplex[0], w);
                (p, [s[0], s[1], w], [wt[0], wt[1], 0.0], l)
            }
            _ => {
                let (p, q) = (simplex[0], simplex[1]);
                let area = (q.w - p.w).perp_dot(w.w - p.w);
                let s1 = (q.w - p.w).perp_dot(-p.w);
                let s2 = (w.w - q.w).perp_dot(-q.w);
                let s3 = (p.w - w.w).perp_dot(-w.w);
                let inside = if area > 0.0 {
                    s1 >= 0.0 && s2 >= 0.0 && s3 >= 0.0
                } else if area < 0.0 {
                    s1 <= 0.0 && s2 <= 0.0 && s3 <= 0.0
                } else {
                    false
                };
                if inside {
                    intersecting = true;
                    // Barycentric weights of the origin (for a common point).
                    let (l1, l2) = (s2 / area, s3 / area);
                    simplex = [p, q, w];
                    weights = [l1, l2, 1.0 - l1 - l2];
                    len = 3;
                    vv = 0.0;
                    break;
                }
                let cands = [on_segment(p, q), on_segment(q, w), on_segment(w, p)];
                let best = cands
                    .iter()
                    .min_by(|x, y| x.0.length_squared().total_cmp(&y.0.length_squared()))
                    .copied()
                    .unwrap_or(cands[0]);
                (
                    best.0,
                    [best.1[0], best.1[1], w],
                    [best.2[0], best.2[1], 0.0],
                    best.3,
                )
            }
        };
        let nvv = nv.length_squared();
        if nvv.is_nan() || nvv >= vv {
            // No strict progress: rounding has the last word.
            let vnorm = vv.sqrt();
            if vnorm - lower > 4.0 * (rel_tolerance * vnorm + abs_tol) {
                status = GjkStatus::NumericalLimit;
            }
            break;
        }
        simplex = nsimplex;
        weights = nweights;
        len = nlen;
        v = nv;
        vv = nvv;
        if vv.sqrt() <= abs_tol {
            intersecting = true;
            break;
        }
    }
    let (mut pa, mut pb) = (Vector2::ZERO, Vector2::ZERO);
    for i in 0..len {
        pa += simplex[i].a * weights[i];
        pb += simplex[i].b * weights[i];
    }
    if intersecting {
        return Distance2d {
            status,
            intersecting,
            distance: 0.0,
            point_a: pa,
            point_b: pa,
            normal: Vector2::ZERO,
            iterations,
        };
    }
    let d = vv.sqrt();
    Distance2d {
        status,
        intersecting,
        distance: d,
        point_a: pa,
        point_b: pb,
        normal: if d > 0.0 { -v / d } else { Vector2::ZERO },
        iterations,
    }
}
