//! GJK: intersection, distance and closest points between two convex support maps.
//!
//! # The algorithm
//!
//! Gilbert, Johnson and Keerthi, "A fast procedure for computing the distance between
//! complex objects in three-dimensional space", IEEE J. Robotics and Automation 4(2),
//! 1988. The distance between convex sets A and B is the norm of the point of the
//! Minkowski difference `D = A ⊖ B` closest to the origin. GJK approaches that point
//! from outside with a sequence of simplices whose vertices are support points of `D`:
//!
//! ```text
//! v ← some point of D (here: centre of A − centre of B)
//! loop
//!     w ← s_D(−d)                      d = v (plain) or the momentum direction
//!     ℓ ← max(ℓ, d·w / ‖d‖)            every support point gives a lower bound on dist
//!     if ‖v‖ − ℓ ≤ ε_rel ‖v‖ + ε_abs σ  stop: converged (σ = scale of D seen so far)
//!     W ← W ∪ {w};  (v, W) ← closest point of conv W to the origin (signed volumes)
//!     if ‖v‖ did not strictly decrease  stop: numerical limit (keep the previous W)
//!     if |W| = 4 or ‖v‖ ≤ ε_abs σ        stop: intersecting
//! ```
//!
//! `‖v‖` is an upper bound and `ℓ` a lower bound on the distance at every step, so the
//! stopping test is a certificate, and both bounds are reported. The closest points on
//! A and B are the barycentric combinations of the simplex vertices' *source* points
//! (seed 004), since every vertex remembers the `a` and `b` it came from.
//!
//! The tolerances are relative: `ε_rel` bounds the distance error relative to the
//! distance, and `ε_abs σ` is the floor set by rounding, where `σ` is the largest
//! coordinate of the source points seen (the magnitude of the numbers GJK subtracts:
//! two nearly touching shapes give a tiny `w = a − b` made of large `a` and `b`). The strict
//! progress check (Jolt does the same) makes the loop stop where rounding would
//! otherwise make it cycle; an iteration bound makes it stop in every case, and the
//! result says which of these happened.
//!
//! # The accelerated variant
//!
//! [`GjkVariant::Nesterov`] follows Montaut, Le Lidec, Petrik, Sivic and Carpentier,
//! "Collision Detection Accelerated: An Optimization Perspective" (RSS 2022) and
//! "GJK++" (2024): GJK is the Frank–Wolfe method on `min ‖x‖², x ∈ D`, and the support
//! direction can carry Nesterov momentum,
//!
//! ```text
//! δ_k = (k+1)/(k+3),   y_k = δ_k v_k + (1−δ_k) w_{k−1},
//! d_k = δ_k d_{k−1}/‖d_{k−1}‖ + (1−δ_k) y_k/‖y_k‖      (normalised form, GJK++)
//! ```
//!
//! We depart from the paper in one place: instead of the Frank–Wolfe gap computed with
//! the momentum support point (which can under-estimate the gap, so the paper restarts
//! without momentum before accepting it), we stop on `‖v‖ − ℓ`, where `ℓ` is the best
//! lower bound `d·w/‖d‖` seen — valid for any direction `d`, with or without momentum.
//! Momentum is switched off for the rest of the query the first time it fails to make
//! strict progress, or makes less than 1% progress in `‖v‖²` (as `δ → 1` the mixed
//! direction hardly turns, and on overlapping curved shapes it can creep for the whole
//! iteration budget).
//!
//! # Frames
//!
//! The loop runs in A's local frame (B is brought in by the relative pose, so A's
//! support map is called without any transform). Results are returned in the world
//! frame unless a function says otherwise.

use std::cell::Cell;

use crate::math::{Matrix3, Point, Pose, Real, Vector, EPSILON};
use crate::query::simplex::Simplex;
use crate::support::{SupportMap, SupportPoint};
use crate::tolerance::{self, TIE_TILT, UNCERTIFIED_TOUCH};

/// Which GJK iteration to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GjkVariant {
    /// Classic GJK: the next support direction is `−v`.
    #[default]
    Plain,
    /// Nesterov-accelerated GJK (Montaut et al. 2022): the support direction carries
    /// momentum. Momentum is dropped when it stops making progress, and a run that does
    /// not converge is finished by plain GJK.
    Nesterov,
}

/// How a GJK run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GjkStatus {
    /// The distance is known within the tolerances (or exactly: the origin was enclosed,
    /// or the new support point was already a vertex).
    Converged,
    /// Rounding stopped strict progress before the tolerance was met. The result is the
    /// best the arithmetic allows; `distance` and `lower_bound` still bracket the truth.
    NumericalLimit,
    /// The iteration bound was reached; `distance` and `lower_bound` still bracket the
    /// truth.
    MaxIterations,
}

impl GjkStatus {
    /// The protocol name: `"converged"`, `"numerical_limit"`, `"max_iterations"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            GjkStatus::Converged => "converged",
            GjkStatus::NumericalLimit => "numerical_limit",
            GjkStatus::MaxIterations => "max_iterations",
        }
    }
}

/// Tolerances and limits for a GJK run.
///
/// Defaults: 128 iterations, relative tolerance 1e-5 (f32) or 1e-11 (f64), absolute
/// floor 16 ε, plain variant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GjkOptions {
    /// Iteration bound (each iteration is one support call on each shape).
    pub max_iterations: u32,
    /// Relative tolerance on the distance: stop when the gap between the upper and lower
    /// bounds is at most `rel_tolerance × distance` (plus the absolute floor).
    pub rel_tolerance: Real,
    /// Absolute floor, relative to the scale of the problem: the gap may be as large as
    /// `abs_tolerance × σ`, with `σ` the largest source-point coordinate seen; distances below
    /// it count as touching (intersecting).
    pub abs_tolerance: Real,
    /// Plain or Nesterov-accelerated iteration.
    pub variant: GjkVariant,
}

impl Default for GjkOptions {
    fn default() -> Self {
        Self {
            max_iterations: 128,
            rel_tolerance: tolerance::GJK_REL_TOLERANCE,
            abs_tolerance: tolerance::DEFAULT_ABS_TOLERANCE,
            variant: GjkVariant::Plain,
        }
    }
}

impl GjkOptions {
    /// The absolute tolerance GJK works with: [`abs_tolerance`](Self::abs_tolerance),
    /// but never below 4 ε (rounding alone reaches that).
    pub(crate) fn touch_tolerance(&self) -> Real {
        tolerance::abs_tolerance(self.abs_tolerance)
    }
}

/// State kept by the caller between queries on the same pair to warm-start GJK
/// (Box2D's `b2SimplexCache`, generalised to support maps).
///
/// It stores the support directions that produced the final simplex, in A's local
/// frame. The next query rebuilds the simplex from them, so coherent motion usually
/// converges in one or two iterations. After a query that found the shapes apart it also
/// keeps the separating direction: the next *intersection* test tries that axis first
/// and, when it still separates (the usual case between frames), answers with one
/// support call per shape (separating-axis caching, Rabbitz, "Fast collision detection
/// of moving convex polyhedra", Graphics Gems IV, 1994). A cache from an unrelated pair
/// is harmless: it only changes where the iteration starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GjkCache {
    dirs: [Vector; 4],
    len: u8,
    /// The last separating direction (A's frame, towards A from B in `A ⊖ B` terms: the
    /// closest point of the difference), zero after an overlap.
    axis: Vector,
    /// Support-search hints of A and B (see [`SupportMap::local_support_hinted`]) per
    /// cached direction, and after the last support call.
    hints: [[u32; 2]; 4],
    last_hints: [u32; 2],
}

impl Default for GjkCache {
    fn default() -> Self {
        Self::new()
    }
}

impl GjkCache {
    /// An empty cache (the next query starts cold).
    pub const fn new() -> Self {
        Self {
            dirs: [Vector::ZERO; 4],
            len: 0,
            axis: Vector::ZERO,
            // "No hint": support searches start cold.
            hints: [[u32::MAX; 2]; 4],
            last_hints: [u32::MAX; 2],
        }
    }

    /// Whether the cache holds a simplex.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets the cached simplex.
    pub fn clear(&mut self) {
        self.len = 0;
        self.axis = Vector::ZERO;
    }

    /// Keeps the final simplex, the search hints after the last support call, and the
    /// separating direction `axis` (zero when the shapes overlap).
    fn store(&mut self, s: &Simplex, hints: [u32; 2], axis: Vector) {
        self.axis = if axis.is_finite() { axis } else { Vector::ZERO };
        self.last_hints = hints;
        self.hints = s.hints;
        self.len = s.len as u8;
        self.dirs[..s.len].copy_from_slice(&s.dirs[..s.len]);
    }
}

/// What a GJK run proved about the distance between A and B less a margin, decided once
/// under the tolerance policy of [`crate::tolerance`]: every query that runs GJK decides
/// from this value, not from the run's internals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GjkOutcome {
    /// Certified apart: the distance less the margin lies in `[lower, upper]` (length
    /// units; `lower` may be 0 when only `upper` is known to exceed rounding).
    Apart {
        /// Certified lower bound (the best support point's separation, less the margin).
        lower: Real,
        /// Upper bound (`|v|`, less the margin).
        upper: Real,
    },
    /// Not certified apart, and the run stopped within rounding of the margin (see
    /// [`crate::tolerance::UNCERTIFIED_TOUCH`]): "touching" is the answer within the
    /// tolerance, "apart" would claim a gap nothing certifies.
    Touching,
    /// GJK enclosed the origin of `A ⊖ B` (or came within the touching floor of it, or
    /// within the margin in an intersection test): the shapes overlap or touch, and how
    /// deep is EPA's question.
    Overlapping,
}

/// The answer of [`distance`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GjkResult {
    /// How the iteration ended.
    pub status: GjkStatus,
    /// What the run proved (apart with bounds, touching, or overlapping), decided by
    /// the tolerance policy of [`crate::tolerance`]; the fields below are its numbers.
    pub outcome: GjkOutcome,
    /// Whether the shapes intersect (or touch within the tolerance). When true,
    /// `distance` is 0 and the normal is zero.
    pub intersecting: bool,
    /// Distance between the shapes (length, ≥ 0; an upper bound within the tolerance).
    pub distance: Real,
    /// Certified lower bound on the distance (length, ≥ 0).
    pub lower_bound: Real,
    /// Closest point on A, world frame. When intersecting, a point common to both shapes
    /// within the tolerance.
    pub point_a: Point,
    /// Closest point on B, world frame.
    pub point_b: Point,
    /// Unit vector from A towards B (world frame); zero when intersecting.
    pub normal: Vector,
    /// Iterations run (support calls per shape).
    pub iterations: u32,
}

/// The answer of [`intersects`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntersectionResult {
    /// Whether the distance between the shapes is at most the margin asked for.
    pub intersecting: bool,
    /// How the iteration ended.
    pub status: GjkStatus,
    /// Iterations run.
    pub iterations: u32,
}

/// Two support maps in A's local frame: A as is, B through the relative pose (as a
/// rotation matrix, cheaper than a quaternion per call), with one support-search hint
/// per shape carried from call to call.
pub(crate) struct Pair<'s, A: ?Sized, B: ?Sized> {
    pub a: &'s A,
    pub b: &'s B,
    rot: Matrix3,
    rot_t: Matrix3,
    trans: Vector,
    hints: Cell<[u32; 2]>,
}

impl<'s, A: SupportMap + ?Sized, B: SupportMap + ?Sized> Pair<'s, A, B> {
    /// The pair in A's local frame from the two world poses.
    pub fn new(a: &'s A, pose_a: &Pose, b: &'s B, pose_b: &Pose) -> Self {
        let rel = pose_a.inv_mul(pose_b);
        let rot = Matrix3::from_quat(rel.rotation());
        Self {
            a,
            b,
            rot,
            rot_t: rot.transpose(),
            trans: rel.translation(),
            hints: Cell::new([u32::MAX, u32::MAX]),
        }
    }

    /// Support point of `A ⊖ B` along `dir` (A's frame), with its sources.
    #[inline]
    pub fn support(&self, dir: Vector) -> SupportPoint {
        let [mut ha, mut hb] = self.hints.get();
        let a = self.a.local_support_hinted(dir, &mut ha);
        let b = self.rot * self.b.local_support_hinted(self.rot_t * -dir, &mut hb) + self.trans;
        self.hints.set([ha, hb]);
        SupportPoint { w: a - b, a, b }
    }

    /// The same pair with B translated by `offset` (A's frame).
    pub fn translated(&self, offset: Vector) -> Self {
        Self {
            a: self.a,
            b: self.b,
            rot: self.rot,
            rot_t: self.rot_t,
            trans: self.trans + offset,
            hints: Cell::new(self.hints.get()),
        }
    }

    /// The point of `A ⊖ B` whose sources the hints name (see
    /// [`SupportMap::hinted_point`]), when both shapes can name them.
    #[inline]
    pub fn hinted(&self, [ha, hb]: [u32; 2]) -> Option<SupportPoint> {
        let a = self.a.hinted_point(ha)?;
        let b = self.rot * self.b.hinted_point(hb)? + self.trans;
        Some(SupportPoint { w: a - b, a, b })
    }

    /// The current support-search hints of A and B.
    pub fn hints(&self) -> [u32; 2] {
        self.hints.get()
    }

    /// Starts the support searches from `hints` (e.g. a [`GjkCache`]'s).
    pub fn set_hints(&self, hints: [u32; 2]) {
        self.hints.set(hints);
    }

    /// The largest coordinate of B's translation in A's frame.
    pub fn translation_magnitude(&self) -> Real {
        self.trans.abs().max_element()
    }

    /// A point of `A ⊖ B`: centre of A minus centre of B.
    pub fn center_difference(&self) -> Vector {
        self.a.local_center() - (self.rot * self.b.local_center() + self.trans)
    }
}

/// The cached simplex rebuilt from its vertices' hints alone (see [`Pair::hinted`]):
/// `None` unless every vertex's sources can be named.
fn hinted_simplex<A, B>(pair: &Pair<'_, A, B>, c: &GjkCache) -> Option<Simplex>
where
    A: SupportMap + ?Sized,
    B: SupportMap + ?Sized,
{
    let mut s = Simplex::new();
    for i in 0..c.len as usize {
        s.push_hinted(pair.hinted(c.hints[i])?, c.dirs[i], c.hints[i]);
    }
    Some(s)
}

/// What a run is for.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Mode {
    /// Run to convergence.
    Distance,
    /// Stop as soon as the distance is known to be above or at most `margin`.
    Intersect { margin: Real },
}

/// The raw outcome of a run, in A's local frame.
#[derive(Clone, Copy)]
pub(crate) struct LocalGjk {
    pub simplex: Simplex,
    pub v: Vector,
    pub vv: Real,
    pub lower: Real,
    /// The unit normal (from A towards B) along which the shapes' separation was the
    /// largest of all the support points seen (zero before any): the direction that
    /// certified `lower` when it is positive.
    pub lower_normal: Vector,
    pub intersecting: bool,
    pub status: GjkStatus,
    pub iterations: u32,
    /// Largest coordinate magnitude of the support points' sources seen.
    pub scale: Real,
}

/// The magnitude of the numbers a support point was computed from: the rounding floor
/// of `w = a − b` is set by `|a|` and `|b|`, not by `|w|` (nearly touching shapes far
/// from their frame's origin have a tiny `w` made of large numbers).
#[inline]
fn magnitude(sp: &SupportPoint) -> Real {
    sp.a.abs().max_element().max(sp.b.abs().max_element())
}

/// When GJK stalls — the support point along `−v` is one it already has, or adds no
/// progress — while its bounds are still apart, the support plane holds a flat face of
/// `A ⊖ B` (a tie, such as a box face against a cylinder's side) and the tie went to a
/// vertex the simplex already uses, on one side of the face. The tilt to subtract from
/// the unit search direction so that the next support point comes from the face's other
/// side: along the face (perpendicular to `v`), away from that vertex `w`, taking one of
/// the run's `retries`. `None` when none are left or there is no such direction (`w` on
/// the line of `v`, or `v` zero).
///
/// The first tilt is [`TIE_TILT`]. The second (the first having found the same vertex)
/// is more when `v` is so short that its own direction is uncertain by more than that:
/// its coordinates carry rounding errors of about `ε σ` (`σ` the `scale` of the points
/// it was computed from), which turn it by up to `ε σ / |v|`, and a smaller tilt can be
/// undone by that error (seen in f64 at `|v| ≈ 2e-9 σ`). Any direction gives a valid
/// lower bound; a larger tilt only moves the support point of a curved surface further
/// from the tie (by `r θ² / 2`), which later iterations correct. Capped at 0.1 rad.
fn tilt_from(retries: &mut u32, v: Vector, vv: Real, w: Vector, scale: Real) -> Option<Vector> {
    if *retries == 0 {
        return None;
    }
    let away = v - w;
    let along = away - v * (away.dot(v) / vv);
    if along.length_squared() > 0.0 {
        *retries -= 1;
        let angle = if *retries == 0 {
            let noise = 2.0 * EPSILON * scale / vv.sqrt();
            TIE_TILT.max(noise).min(0.1)
        } else {
            TIE_TILT
        };
        Some(along.normalize() * angle)
    } else {
        None
    }
}

pub(crate) fn run<A, B>(
    pair: &Pair<'_, A, B>,
    mode: Mode,
    opts: &GjkOptions,
    mut cache: Option<&mut GjkCache>,
) -> LocalGjk
where
    A: SupportMap + ?Sized,
    B: SupportMap + ?Sized,
{
    let first = run_variant(pair, mode, opts, cache.as_deref_mut());
    if opts.variant == GjkVariant::Plain || first.status == GjkStatus::Converged {
        return first;
    }
    // The accelerated run did not converge: finish with plain GJK on the remaining
    // budget, so the variant never answers worse than plain GJK would.
    let plain = GjkOptions {
        variant: GjkVariant::Plain,
        max_iterations: opts.max_iterations.saturating_sub(first.iterations).max(8),
        ..*opts
    };
    let mut second = run_variant(pair, mode, &plain, cache);
    second.iterations += first.iterations;
    second
}

fn run_variant<A, B>(
    pair: &Pair<'_, A, B>,
    mode: Mode,
    opts: &GjkOptions,
    mut cache: Option<&mut GjkCache>,
) -> LocalGjk
where
    A: SupportMap + ?Sized,
    B: SupportMap + ?Sized,
{
    let margin = match mode {
        Mode::Intersect { margin } => margin,
        Mode::Distance => 0.0,
    };
    let abs_tol = opts.touch_tolerance();
    let mut out = LocalGjk {
        simplex: Simplex::new(),
        v: Vector::ZERO,
        vv: Real::INFINITY,
        lower: 0.0,
        lower_normal: Vector::ZERO,
        intersecting: false,
        status: GjkStatus::Converged,
        iterations: 0,
        // B's points are `R b + t`: their rounding is set by `|t|` as well, even where
        // the sum is small.
        scale: pair.translation_magnitude(),
    };

    // An intersection test first tries the cached separating axis: a support point
    // with `axis · w > margin·|axis|` certifies that the distance exceeds the margin
    // (it must by more than the rounding floor, as below).
    if let (Mode::Intersect { .. }, Some(c)) = (mode, cache.as_deref_mut()) {
        let axis_len = c.axis.length();
        if axis_len > 0.0 {
            pair.set_hints(c.last_hints);
            let sp = pair.support(-c.axis);
            let lower = c.axis.dot(sp.w) / axis_len;
            if lower > margin + abs_tol * out.scale.max(magnitude(&sp)) {
                c.last_hints = pair.hints();
                out.v = c.axis;
                out.vv = axis_len * axis_len;
                out.lower = lower;
                out.lower_normal = -c.axis / axis_len;
                out.iterations = 1;
                out.scale = out.scale.max(magnitude(&sp));
                return out;
            }
        }
    }

    // Warm start: the cached simplex's sources where the shapes are now, named by their
    // hints when both shapes can (no search), else searched again along the cached
    // directions, each from the vertex it was last found at.
    if let Some(c) = cache.as_deref() {
        if let Some(s) = hinted_simplex(pair, c) {
            for i in 0..s.len {
                if !out.simplex.contains(s.verts[i].w, 0.0) {
                    out.scale = out.scale.max(magnitude(&s.verts[i]));
                    out.simplex.push_hinted(s.verts[i], s.dirs[i], s.hints[i]);
                }
            }
        } else {
            for i in 0..c.len as usize {
                pair.set_hints(c.hints[i]);
                let sp = pair.support(c.dirs[i]);
                if !out.simplex.contains(sp.w, 0.0) {
                    out.scale = out.scale.max(magnitude(&sp));
                    out.simplex.push_hinted(sp, c.dirs[i], pair.hints());
                }
            }
        }
        pair.set_hints(c.last_hints);
    }
    if out.simplex.is_empty() {
        out.v = pair.center_difference();
        if out.v.length_squared() == 0.0 {
            out.v = Vector::X;
        }
    } else {
        let (v, vv) = out.simplex.reduce();
        out.v = v;
        out.vv = vv;
        if out.simplex.len == 4 || vv <= margin * margin {
            out.intersecting = true;
            out.vv = out.vv.min(vv);
            if let Some(c) = cache.as_deref_mut() {
                c.store(&out.simplex, pair.hints(), Vector::ZERO);
            }
            return out;
        }
    }

    let mut momentum = opts.variant == GjkVariant::Nesterov;
    let mut restarted = false;
    let mut best_before_restart: Option<(Simplex, Vector, Real)> = None;
    let mut d_prev = out.v;
    let mut w_prev = out.v;
    let mut k: u32 = 0;
    // A tilt of the next search direction after a stall on a tie (see `tilt_from`), and
    // how many such retries are left.
    let mut tilt: Option<Vector> = None;
    let mut tie_retries = 2;
    // The largest separation along any search direction so far (see `lower_normal`).
    let mut best_separation = Real::NEG_INFINITY;
    loop {
        if out.iterations >= opts.max_iterations {
            out.status = GjkStatus::MaxIterations;
            break;
        }
        out.iterations += 1;
        let mut dir = out.v;
        if let Some(t) = tilt.take() {
            dir = out.v.normalize_or_zero() - t;
        } else if momentum && !out.simplex.is_empty() {
            let delta = (k as Real + 1.0) / (k as Real + 3.0);
            let y = out.v * delta + w_prev * (1.0 - delta);
            let d = d_prev.normalize_or_zero() * delta + y.normalize_or_zero() * (1.0 - delta);
            if d.length_squared() > 0.0 {
                dir = d;
            }
        }
        k += 1;
        let sp = pair.support(-dir);
        let w = sp.w;
        if !w.is_finite() {
            // Only reachable through a user support map returning non-finite points.
            out.status = GjkStatus::NumericalLimit;
            break;
        }
        out.scale = out.scale.max(magnitude(&sp));

        // Every support point certifies a lower bound on the distance.
        let dir_len = dir.length();
        if dir_len > 0.0 {
            let along = dir.dot(w) / dir_len;
            if along > best_separation {
                best_separation = along;
                out.lower_normal = -dir / dir_len;
            }
            out.lower = out.lower.max(along);
        }
        // Beyond the margin by more than the rounding floor: distances within it count
        // as touching, as they do for a distance query.
        if matches!(mode, Mode::Intersect { .. }) && out.lower > margin + abs_tol * out.scale {
            out.intersecting = false;
            break;
        }
        if !out.simplex.is_empty() {
            let vnorm = out.vv.sqrt();
            if vnorm - out.lower <= opts.rel_tolerance * vnorm + abs_tol * out.scale {
                break;
            }
            if out.simplex.contains(w, 0.0) {
                if momentum {
                    momentum = false;
                    continue;
                }
                // The support point repeats while the bounds are still apart (the test
                // above failed): see `tilt_from`.
                tilt = tilt_from(&mut tie_retries, out.v, out.vv, w, out.scale);
                if tilt.is_some() {
                    continue;
                }
                break;
            }
        }

        let saved = out.simplex;
        out.simplex.push_hinted(sp, -dir, pair.hints());
        let (v, vv) = out.simplex.reduce();
        if out.simplex.len == 4 {
            out.v = Vector::ZERO;
            out.vv = 0.0;
            out.intersecting = true;
            break;
        }
        // A new |v| below the certified lower bound (beyond rounding) means the
        // sub-algorithm lost its precision on a nearly flat simplex (in f32: a triangle
        // ~1 wide with the origin 1e-5 off its plane can come back on the wrong side of
        // it, flipping the normal). Keep the last consistent simplex and stop: the true
        // distance is certified to lie between the lower bound and the last |v|.
        if !saved.is_empty() && out.vv.is_finite() && vv.sqrt() < out.lower - abs_tol * out.scale {
            out.simplex = saved;
            let vnorm = out.vv.sqrt();
            if vnorm - out.lower > 4.0 * (opts.rel_tolerance * vnorm + abs_tol * out.scale) {
                out.status = GjkStatus::NumericalLimit;
            }
            break;
        }
        if vv.is_nan() || vv >= out.vv {
            // No strict progress (or NaN from a hostile support map): keep what we had.
            out.simplex = saved;
            if momentum {
                momentum = false;
                continue;
            }
            // The same tie as a repeated support point, rounded a unit away from it.
            tilt = tilt_from(&mut tie_retries, out.v, out.vv, w, out.scale);
            if tilt.is_some() {
                continue;
            }
            if !restarted {
                // A simplex that mixes far and near vertices can lose the precision
                // to progress (curved rims against flat faces near contact). Start once
                // more from the best direction with an empty simplex.
                restarted = true;
                best_before_restart = Some((out.simplex, out.v, out.vv));
                out.simplex = Simplex::new();
                out.vv = Real::INFINITY;
                continue;
            }
            out.status = GjkStatus::NumericalLimit;
            break;
        }
        // Momentum that only creeps (the mixed direction hardly turns as δ → 1, seen on
        // overlapping curved shapes) is switched off: plain GJK is then faster.
        if momentum && vv > 0.99 * out.vv {
            momentum = false;
        }
        out.v = v;
        out.vv = vv;
        d_prev = dir;
        w_prev = w;
        let touch = abs_tol * out.scale;
        if vv <= touch * touch || vv <= margin * margin {
            out.intersecting = true;
            break;
        }
    }
    if let Some((simplex, v, vv)) = best_before_restart {
        if !out.intersecting && vv < out.vv {
            out.simplex = simplex;
            out.v = v;
            out.vv = vv;
        }
    }
    // Whatever ended the loop, a distance within the rounding floor is contact (the
    // convergence test can be met there before a reduction classifies it).
    let touch = abs_tol * out.scale;
    if !out.intersecting && out.vv <= touch * touch {
        out.intersecting = true;
    }
    // "Apart" needs a certificate (see `LocalGjk::outcome`).
    if let Mode::Intersect { .. } = mode {
        if !out.intersecting && out.touches(margin, abs_tol) {
            out.intersecting = true;
        }
    }
    if out.intersecting && margin == 0.0 {
        out.lower = 0.0;
    }
    if let Some(c) = cache {
        let axis = if out.intersecting {
            Vector::ZERO
        } else {
            out.v
        };
        c.store(&out.simplex, pair.hints(), axis);
    }
    out
}

impl LocalGjk {
    /// What the run proved about the distance less `margin`, with absolute tolerance
    /// `abs_tol` (relative to σ, the size of the points seen).
    ///
    /// "Touching" when the run is not certified apart — no support point beyond the
    /// margin by more than the rounding floor `abs_tol σ` — and `|v|` is within
    /// [`UNCERTIFIED_TOUCH`]` σ` of the margin: the true distance then lies in
    /// `[lower, |v|]`, an interval holding the margin, and "apart" would claim a gap
    /// nothing certifies. Seen: a box face on a cylinder's side (f64, size 0.1) stalled
    /// at bounds [0, 1.8e-9 σ]; a sphere on an ellipsoid (f32, size 1000) converged to
    /// `|v| − lower ≤ 10⁻⁵ |v|` around a margin of 600.
    pub(crate) fn outcome(&self, margin: Real, abs_tol: Real) -> GjkOutcome {
        if self.intersecting {
            GjkOutcome::Overlapping
        } else if self.touches(margin, abs_tol) {
            GjkOutcome::Touching
        } else {
            GjkOutcome::Apart {
                lower: (self.lower - margin).max(0.0),
                upper: self.vv.sqrt() - margin,
            }
        }
    }

    /// Whether the run leaves the shapes touching or overlapping (see [`Self::outcome`]).
    fn touches(&self, margin: Real, abs_tol: Real) -> bool {
        self.intersecting
            || (self.lower <= margin + abs_tol * self.scale
                && self.vv.sqrt() <= margin + UNCERTIFIED_TOUCH * (self.scale + margin))
    }

    /// Unit normal from A towards B in A's frame (meaningful when not intersecting).
    ///
    /// `v` is exactly perpendicular to the simplex feature it lies on, but when `v` is
    /// tiny its direction is rounding noise, and a normal that leaves the feature's normal
    /// cone misstates the gap in proportion to the feature's size. So the normal is
    /// projected back: for a triangle it is the triangle's own normal (from its edges,
    /// accurate whatever `‖v‖`), for a segment `−v/‖v‖` with its component along the
    /// segment removed; for a point the normal cone is wide and `−v/‖v‖` is the answer.
    pub fn normal(&self) -> Vector {
        let v_dir = -self.v / self.vv.sqrt();
        if self.simplex.len == 2 {
            let e = self.simplex.verts[1].w - self.simplex.verts[0].w;
            let ee = e.length_squared();
            if ee > 0.0 {
                if let Some(n) = (v_dir - e * (v_dir.dot(e) / ee)).try_normalize() {
                    return n;
                }
            }
        }
        if self.simplex.len == 3 {
            let [a, b, c] = [0, 1, 2].map(|i| self.simplex.verts[i].w);
            let m = (b - a).cross(c - a).normalize_or_zero();
            let side = m.dot(a + b + c);
            if m != Vector::ZERO && side != 0.0 {
                let n = if side > 0.0 { -m } else { m };
                // Only when it agrees with v (guards against a sliver triangle).
                if n.dot(v_dir) > 0.5 {
                    return n;
                }
            }
        }
        v_dir
    }
}

/// Distance and closest points between two convex shapes.
///
/// `a` and `b` are in their local frames, placed in the world by `pose_a` and `pose_b`.
/// Pass the same `cache` for the same pair every frame to warm-start (or `None`).
///
/// Returns distances in the caller's units and points and normal in the world frame.
/// The result always carries a [`GjkStatus`]; even on `MaxIterations` the true distance
/// lies in `[lower_bound, distance]`.
///
/// See also [`intersects`] (cheaper when only a yes/no is needed) and
/// [`crate::query::contact`] for the signed distance of overlapping shapes.
pub fn distance<A, B>(
    a: &A,
    pose_a: &Pose,
    b: &B,
    pose_b: &Pose,
    options: &GjkOptions,
    cache: Option<&mut GjkCache>,
) -> GjkResult
where
    A: SupportMap + ?Sized,
    B: SupportMap + ?Sized,
{
    let pair = Pair::new(a, pose_a, b, pose_b);
    let r = run(&pair, Mode::Distance, options, cache);
    to_world(&r, pose_a, options)
}

/// Converts a local run into the public result, in the world frame.
pub(crate) fn to_world(r: &LocalGjk, pose_a: &Pose, options: &GjkOptions) -> GjkResult {
    let (pa, pb) = r.simplex.witnesses();
    let (distance, normal) = if r.intersecting {
        (0.0, Vector::ZERO)
    } else {
        (r.vv.sqrt(), pose_a.transform_vector(r.normal()))
    };
    GjkResult {
        status: r.status,
        outcome: r.outcome(0.0, options.touch_tolerance()),
        intersecting: r.intersecting,
        distance,
        lower_bound: r.lower.min(distance),
        point_a: pose_a.transform_point(pa),
        point_b: pose_a.transform_point(pb),
        normal,
        iterations: r.iterations,
    }
}

/// Whether two convex shapes are within `margin` of each other (`margin = 0`: whether
/// they intersect or touch).
///
/// Stops as soon as either answer is certain: a separating plane found by any support
/// point (the early out of seed 001), or a simplex closer than `margin`.
///
/// `margin` is a length ≥ 0; a negative or NaN margin is treated as 0.
pub fn intersects<A, B>(
    a: &A,
    pose_a: &Pose,
    b: &B,
    pose_b: &Pose,
    margin: Real,
    options: &GjkOptions,
    cache: Option<&mut GjkCache>,
) -> IntersectionResult
where
    A: SupportMap + ?Sized,
    B: SupportMap + ?Sized,
{
    let margin = if margin > 0.0 { margin } else { 0.0 };
    let pair = Pair::new(a, pose_a, b, pose_b);
    let r = run(&pair, Mode::Intersect { margin }, options, cache);
    IntersectionResult {
        intersecting: r.intersecting,
        status: r.status,
        iterations: r.iterations,
    }
}
