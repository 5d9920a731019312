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
//! That is the idea. The implementation (`run` and the stages of its `Run`) adds a cache,
//! a margin for intersection tests, and recovery from stalls; every exit it has is
//! numbered here as in the code:
//!
//! ```text
//! cached axis   (intersection test with a cache) one support point along the last
//!               separating axis; beyond margin + ε_abs σ          → 1: apart
//! warm start    W ← the cached simplex's sources (named by hints, or searched again)
//! start         v ← closest point of W (or centre difference when W is empty);
//!               W encloses the origin or ‖v‖ ≤ margin             → 2: overlapping
//! step, repeated:
//!               iterations exhausted                               → 3: max iterations
//!               d ← v, tilted off a tie, or with momentum;  w ← s_D(−d)
//!               w not finite (a hostile support map)               → 4: numerical limit
//!               ℓ ← max(ℓ, d·w/‖d‖);  intersection test and
//!               ℓ > margin + ε_abs σ                               → 5: apart
//!               ‖v‖ − ℓ ≤ ε_rel ‖v‖ + ε_abs σ                       → 6: converged
//!               w ∈ W: stall recovery, else                        → 7: converged
//!               W ← W ∪ {w};  (v', W') ← closest point of conv W
//!               |W'| = 4                                           → 8: overlapping
//!               ‖v'‖ < ℓ − ε_abs σ (the sub-algorithm lost
//!               precision): keep W                                 → 9: converged, or
//!                                                                     numerical limit
//!                                                                     if the gap is wide
//!               ‖v'‖ ≥ ‖v‖: keep W; stall recovery, else           → 10: numerical limit
//!               v ← v';  ‖v‖ ≤ ε_abs σ or ‖v‖ ≤ margin             → 11: overlapping
//! stall         in order: drop momentum; tilt d off the tie (twice at most); after no
//! recovery      progress, restart once from an empty W; each continues the loop
//! finish        keep the better of before/after the restart; ‖v‖ ≤ ε_abs σ is
//!               contact; an intersection test that is not certified apart is
//!               touching; store the cache
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
//!
//! # Observing the iteration
//!
//! [`distance_traced`] runs the same loop with an observer that records every
//! iteration ([`GjkStep`]: search direction, support point and its sources, the reduced
//! simplex, `v`, both bounds), for teaching and debugging (the viewer's `J` key). The
//! observer is a type parameter of the loop; the other entry points pass one whose
//! methods are empty, so their compiled code carries no recording.

use crate::math::{Point, Pose, Real, Vector, EPSILON};
use crate::query::simplex::Simplex;
use crate::support::{MinkowskiDifference, Relative, SupportMap, SupportPoint};
use crate::tolerance::{self, OptionsError, TIE_TILT, UNCERTIFIED_TOUCH};

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
    /// Iteration bound (each iteration is one support call on each shape); clamped to
    /// `1..=`[`tolerance::MAX_GJK_ITERATIONS`].
    pub max_iterations: u32,
    /// Relative tolerance on the distance: stop when the gap between the upper and lower
    /// bounds is at most `rel_tolerance × distance` (plus the absolute floor). Clamped
    /// by [`tolerance::rel_tolerance`] to `[0, 1]` (NaN gives 0).
    pub rel_tolerance: Real,
    /// Absolute floor, relative to the scale of the problem: the gap may be as large as
    /// `abs_tolerance × σ`, with `σ` the largest source-point coordinate seen; distances below
    /// it count as touching (intersecting). Clamped by [`tolerance::abs_tolerance`] to
    /// [[`tolerance::MIN_ABS_TOLERANCE`], [`tolerance::MAX_ABS_TOLERANCE`]].
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
    /// The absolute tolerance GJK works with: [`abs_tolerance`](Self::abs_tolerance)
    /// clamped by [`tolerance::abs_tolerance`] (never below 4 ε, which rounding alone
    /// reaches; NaN gives the minimum).
    pub(crate) fn touch_tolerance(&self) -> Real {
        tolerance::abs_tolerance(self.abs_tolerance)
    }

    /// The relative tolerance GJK works with: [`rel_tolerance`](Self::rel_tolerance)
    /// clamped by [`tolerance::rel_tolerance`] (NaN or negative gives 0).
    #[inline]
    pub(crate) fn rel(&self) -> Real {
        tolerance::rel_tolerance(self.rel_tolerance)
    }

    /// The iteration bound GJK works with: [`max_iterations`](Self::max_iterations)
    /// clamped to `1..=`[`tolerance::MAX_GJK_ITERATIONS`] (a run with no support call
    /// would have no finite upper bound to report).
    #[inline]
    pub(crate) fn iteration_bound(&self) -> u32 {
        self.max_iterations.clamp(1, tolerance::MAX_GJK_ITERATIONS)
    }

    /// Checks every field against the range it is honoured in, so that options built
    /// from user data can be refused with a typed error.
    ///
    /// The queries never need this: they clamp each field to its range (NaN or negative
    /// relative tolerance → 0, absolute tolerance to
    /// [[`tolerance::MIN_ABS_TOLERANCE`], [`tolerance::MAX_ABS_TOLERANCE`]], iterations
    /// to `1..=`[`tolerance::MAX_GJK_ITERATIONS`]) and always terminate with finite
    /// answers. `validate` says when such a clamp would change what was asked.
    ///
    /// # Errors
    /// [`OptionsError`] naming the first field that is NaN, negative, or outside its
    /// range.
    pub fn validate(&self) -> Result<(), OptionsError> {
        tolerance::check_tolerance(
            "gjk",
            "rel_tolerance",
            self.rel_tolerance,
            tolerance::MAX_REL_TOLERANCE,
        )?;
        tolerance::check_tolerance(
            "gjk",
            "abs_tolerance",
            self.abs_tolerance,
            tolerance::MAX_ABS_TOLERANCE,
        )?;
        tolerance::check_count(
            "gjk",
            "max_iterations",
            self.max_iterations as usize,
            1,
            tolerance::MAX_GJK_ITERATIONS as usize,
        )
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

/// The cached simplex rebuilt from its vertices' hints alone (see
/// [`MinkowskiDifference::hinted_point`]): `None` unless every vertex's sources can be
/// named.
fn hinted_simplex<A: SupportMap, B: SupportMap>(
    pair: &Relative<A, B>,
    c: &GjkCache,
) -> Option<Simplex> {
    let mut s = Simplex::new();
    for i in 0..c.len as usize {
        s.push_hinted(pair.hinted_point(c.hints[i])?, c.dirs[i], c.hints[i]);
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
    /// The largest separation of the shapes (less nothing: no margin) along any
    /// direction searched, negative when every direction showed them overlapping;
    /// `-∞` before any. Where it is above `−ε` the depth is certified below `ε` (the
    /// depth is the least overlap over all directions), which is what a "touching"
    /// answer needs on the overlapping side.
    pub best_separation: Real,
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

/// A GJK run on `pair` (see the module's pseudo-code), in the pair's frame. `hints` are
/// the two shapes' support-search hints, carried in and left for the next support
/// call on the same pair (EPA's).
#[inline(always)]
pub(crate) fn run<A: SupportMap, B: SupportMap>(
    pair: &Relative<A, B>,
    hints: &mut [u32; 2],
    mode: Mode,
    opts: &GjkOptions,
    cache: Option<&mut GjkCache>,
) -> LocalGjk {
    run_observed(pair, hints, mode, opts, cache, &mut NoObserver)
}

/// What a run shows an observer after each iteration, in the pair's frame (A's local
/// frame). The normal entry points use [`NoObserver`], whose empty methods vanish
/// when `run_observed` is monomorphised for it; [`distance_traced`] records them.
pub(crate) trait Observer {
    /// The run starts from `out.v` (and the warm simplex `out.simplex`, empty when
    /// cold).
    #[inline(always)]
    fn start(&mut self, out: &LocalGjk) {
        let _ = out;
    }

    /// One iteration searched along `dir` (the support point is `s_D(−dir)`), found
    /// `sp`, and left `out` as it is now (simplex after reduction, or as it was when the
    /// step was rejected; `out.v`, `out.vv`, `out.lower`).
    #[inline(always)]
    fn step(&mut self, dir: Vector, sp: &SupportPoint, out: &LocalGjk) {
        let _ = (dir, sp, out);
    }
}

/// The observer of the untraced entry points: does nothing.
pub(crate) struct NoObserver;

impl Observer for NoObserver {}

/// [`run`] with an observer of every iteration.
pub(crate) fn run_observed<A: SupportMap, B: SupportMap, O: Observer>(
    pair: &Relative<A, B>,
    hints: &mut [u32; 2],
    mode: Mode,
    opts: &GjkOptions,
    mut cache: Option<&mut GjkCache>,
    obs: &mut O,
) -> LocalGjk {
    let first = run_variant(pair, hints, mode, opts, cache.as_deref_mut(), obs);
    if opts.variant == GjkVariant::Plain || first.status == GjkStatus::Converged {
        return first;
    }
    // The accelerated run did not converge: finish with plain GJK on the remaining
    // budget, so the variant never answers worse than plain GJK would.
    let plain = GjkOptions {
        variant: GjkVariant::Plain,
        max_iterations: opts
            .iteration_bound()
            .saturating_sub(first.iterations)
            .max(8),
        ..*opts
    };
    let mut second = run_variant(pair, hints, mode, &plain, cache, obs);
    second.iterations += first.iterations;
    second
}

/// One run of one variant: the stages of the module's pseudo-code, in order.
fn run_variant<A: SupportMap, B: SupportMap, O: Observer>(
    pair: &Relative<A, B>,
    hints: &mut [u32; 2],
    mode: Mode,
    opts: &GjkOptions,
    mut cache: Option<&mut GjkCache>,
    obs: &mut O,
) -> LocalGjk {
    // The answer is built in place (the stages borrow it): no copy of the simplex on
    // the way out, which the cheapest queries (an early "apart") would notice.
    let mut out = LocalGjk {
        simplex: Simplex::new(),
        v: Vector::ZERO,
        vv: Real::INFINITY,
        lower: 0.0,
        lower_normal: Vector::ZERO,
        best_separation: Real::NEG_INFINITY,
        intersecting: false,
        status: GjkStatus::Converged,
        iterations: 0,
        // B's points are `R b + t`: their rounding is set by `|t|` as well, even where
        // the sum is small.
        scale: pair.translation_magnitude(),
    };
    let mut run = Run::new(pair, hints, mode, opts, &mut out, obs);
    if let Some(c) = cache.as_deref_mut() {
        if let Mode::Intersect { .. } = mode {
            if run.cached_axis_separates(c) {
                return out;
            }
        }
        run.warm_start(c);
    }
    let started = run.start();
    run.obs.start(run.out);
    if let Flow::Stop = started {
        if let Some(c) = cache {
            c.store(&run.out.simplex, *run.hints, Vector::ZERO);
        }
        return out;
    }
    while let Flow::Continue = run.step() {}
    run.finish(cache);
    out
}

/// Whether a run goes on.
enum Flow {
    Continue,
    Stop,
}

/// Why the iteration stalled (see [`Run::recover_stall`]).
#[derive(Clone, Copy, PartialEq)]
enum Stall {
    /// The new support point is already a vertex of the simplex.
    RepeatedPoint,
    /// The new simplex's closest point is no closer than the last one.
    NoProgress,
}

/// A GJK run in progress: the pair, the answer being built, and the iteration's own
/// state (momentum, tie tilts, the one restart).
struct Run<'r, A, B, O> {
    pair: &'r Relative<A, B>,
    /// Sees every iteration ([`NoObserver`] on the normal path).
    obs: &'r mut O,
    hints: &'r mut [u32; 2],
    mode: Mode,
    opts: &'r GjkOptions,
    /// The margin of an intersection test (0 for a distance).
    margin: Real,
    /// The absolute tolerance (relative to `out.scale`).
    abs_tol: Real,
    out: &'r mut LocalGjk,
    /// Whether the next direction carries Nesterov momentum.
    momentum: bool,
    /// The last direction searched and support point found (momentum's memory).
    d_prev: Vector,
    w_prev: Vector,
    /// Momentum steps taken (the `k` of `δ_k`).
    k: u32,
    /// A tilt of the next search direction after a stall on a tie (see [`tilt_from`]),
    /// and how many such retries are left.
    tilt: Option<Vector>,
    tie_retries: u32,
    /// Whether the one restart from an empty simplex was used, and what it replaced.
    restarted: bool,
    best_before_restart: Option<(Simplex, Vector, Real)>,
}

impl<'r, A: SupportMap, B: SupportMap, O: Observer> Run<'r, A, B, O> {
    #[inline(always)]
    fn new(
        pair: &'r Relative<A, B>,
        hints: &'r mut [u32; 2],
        mode: Mode,
        opts: &'r GjkOptions,
        out: &'r mut LocalGjk,
        obs: &'r mut O,
    ) -> Self {
        let margin = match mode {
            Mode::Intersect { margin } => margin,
            Mode::Distance => 0.0,
        };
        Self {
            pair,
            obs,
            hints,
            mode,
            opts,
            margin,
            abs_tol: opts.touch_tolerance(),
            out,
            momentum: opts.variant == GjkVariant::Nesterov,
            d_prev: Vector::ZERO,
            w_prev: Vector::ZERO,
            k: 0,
            tilt: None,
            tie_retries: 2,
            restarted: false,
            best_before_restart: None,
        }
    }

    /// Stage "cached axis" (intersection tests only): one support call along the cached
    /// separating axis; a point with `axis · w > margin·|axis|` beyond the rounding
    /// floor certifies that the distance exceeds the margin (exit 1).
    fn cached_axis_separates(&mut self, c: &mut GjkCache) -> bool {
        let axis_len = c.axis.length();
        if axis_len > 0.0 {
            *self.hints = c.last_hints;
            let sp = self.pair.support_point_hinted(-c.axis, self.hints);
            let lower = c.axis.dot(sp.w) / axis_len;
            if lower > self.margin + self.abs_tol * self.out.scale.max(magnitude(&sp)) {
                c.last_hints = *self.hints;
                let out = &mut *self.out;
                out.v = c.axis;
                out.vv = axis_len * axis_len;
                out.lower = lower;
                out.lower_normal = -c.axis / axis_len;
                out.best_separation = lower;
                out.iterations = 1;
                out.scale = out.scale.max(magnitude(&sp));
                return true;
            }
        }
        false
    }

    /// Stage "warm start": the cached simplex's sources where the shapes are now, named
    /// by their hints when both shapes can (no search), else searched again along the
    /// cached directions, each from the vertex it was last found at.
    fn warm_start(&mut self, c: &GjkCache) {
        let out = &mut *self.out;
        if let Some(s) = hinted_simplex(self.pair, c) {
            for i in 0..s.len {
                if !out.simplex.contains(s.verts[i].w, 0.0) {
                    out.scale = out.scale.max(magnitude(&s.verts[i]));
                    out.simplex.push_hinted(s.verts[i], s.dirs[i], s.hints[i]);
                }
            }
        } else {
            for i in 0..c.len as usize {
                *self.hints = c.hints[i];
                let sp = self.pair.support_point_hinted(c.dirs[i], self.hints);
                if !out.simplex.contains(sp.w, 0.0) {
                    out.scale = out.scale.max(magnitude(&sp));
                    out.simplex.push_hinted(sp, c.dirs[i], *self.hints);
                }
            }
        }
        *self.hints = c.last_hints;
    }

    /// Stage "start": the first `v`, the closest point of the warm-started simplex, or
    /// the centres' difference when there is none. Stops when the warm simplex already
    /// encloses the origin or lies within the margin (exit 2).
    #[inline(always)]
    fn start(&mut self) -> Flow {
        let out = &mut *self.out;
        if out.simplex.is_empty() {
            out.v = self.pair.local_center();
            if out.v.length_squared() == 0.0 {
                out.v = Vector::X;
            }
        } else {
            let (v, vv) = out.simplex.reduce();
            out.v = v;
            out.vv = vv;
            if out.simplex.len == 4 || vv <= self.margin * self.margin {
                out.intersecting = true;
                out.vv = out.vv.min(vv);
                return Flow::Stop;
            }
        }
        self.d_prev = out.v;
        self.w_prev = out.v;
        Flow::Continue
    }

    /// The next search direction: `v`, tilted after a stall on a tie, or mixed with
    /// momentum (GJK++'s normalised form).
    #[inline(always)]
    fn search_direction(&mut self) -> Vector {
        let out = &*self.out;
        let mut dir = out.v;
        if let Some(t) = self.tilt.take() {
            dir = out.v.normalize_or_zero() - t;
        } else if self.momentum && !out.simplex.is_empty() {
            let delta = (self.k as Real + 1.0) / (self.k as Real + 3.0);
            let y = out.v * delta + self.w_prev * (1.0 - delta);
            let d = self.d_prev.normalize_or_zero() * delta + y.normalize_or_zero() * (1.0 - delta);
            if d.length_squared() > 0.0 {
                dir = d;
            }
        }
        dir
    }

    /// Stage "step": one iteration of the loop, exits 3 to 11 of the pseudo-code.
    #[inline(always)]
    fn step(&mut self) -> Flow {
        if self.out.iterations >= self.opts.iteration_bound() {
            self.out.status = GjkStatus::MaxIterations;
            return Flow::Stop; // exit 3
        }
        self.out.iterations += 1;
        let dir = self.search_direction();
        self.k += 1;
        let sp = self.pair.support_point_hinted(-dir, self.hints);
        let flow = self.absorb(dir, &sp);
        self.obs.step(dir, &sp, self.out);
        flow
    }

    /// The rest of stage "step" once the support point `sp` along `−dir` is known:
    /// exits 4 to 11.
    #[inline(always)]
    fn absorb(&mut self, dir: Vector, sp: &SupportPoint) -> Flow {
        let sp = *sp;
        let w = sp.w;
        let out = &mut *self.out;
        if !w.is_finite() {
            // Only reachable through a user support map returning non-finite points.
            out.status = GjkStatus::NumericalLimit;
            return Flow::Stop; // exit 4
        }
        out.scale = out.scale.max(magnitude(&sp));

        // Every support point certifies a lower bound on the distance.
        let dir_len = dir.length();
        if dir_len > 0.0 {
            let along = dir.dot(w) / dir_len;
            if along > out.best_separation {
                out.best_separation = along;
                out.lower_normal = -dir / dir_len;
            }
            out.lower = out.lower.max(along);
        }
        // Beyond the margin by more than the rounding floor: distances within it count
        // as touching, as they do for a distance query.
        if matches!(self.mode, Mode::Intersect { .. })
            && out.lower > self.margin + self.abs_tol * out.scale
        {
            out.intersecting = false;
            return Flow::Stop; // exit 5
        }
        if !out.simplex.is_empty() {
            let vnorm = out.vv.sqrt();
            if vnorm - out.lower <= self.opts.rel() * vnorm + self.abs_tol * out.scale {
                return Flow::Stop; // exit 6
            }
            if out.simplex.contains(w, 0.0) {
                // The support point repeats while the bounds are still apart.
                return self.recover_stall(Stall::RepeatedPoint, w); // exit 7
            }
        }

        let saved = out.simplex;
        out.simplex.push_hinted(sp, -dir, *self.hints);
        let (v, vv) = out.simplex.reduce();
        if out.simplex.len == 4 {
            out.v = Vector::ZERO;
            out.vv = 0.0;
            out.intersecting = true;
            return Flow::Stop; // exit 8
        }
        // A new |v| below the certified lower bound (beyond rounding) means the
        // sub-algorithm lost its precision on a nearly flat simplex (in f32: a triangle
        // ~1 wide with the origin 1e-5 off its plane can come back on the wrong side of
        // it, flipping the normal). Keep the last consistent simplex and stop: the true
        // distance is certified to lie between the lower bound and the last |v|.
        if !saved.is_empty()
            && out.vv.is_finite()
            && vv.sqrt() < out.lower - self.abs_tol * out.scale
        {
            out.simplex = saved;
            let vnorm = out.vv.sqrt();
            let tol = self.opts.rel() * vnorm + self.abs_tol * out.scale;
            if vnorm - out.lower > 4.0 * tol {
                out.status = GjkStatus::NumericalLimit;
            }
            return Flow::Stop; // exit 9
        }
        if vv.is_nan() || vv >= out.vv {
            // No strict progress (or NaN from a hostile support map): keep what we had.
            out.simplex = saved;
            return self.recover_stall(Stall::NoProgress, w); // exit 10
        }
        // Momentum that only creeps (the mixed direction hardly turns as δ → 1, seen on
        // overlapping curved shapes) is switched off: plain GJK is then faster.
        if self.momentum && vv > 0.99 * out.vv {
            self.momentum = false;
        }
        out.v = v;
        out.vv = vv;
        self.d_prev = dir;
        self.w_prev = w;
        let touch = self.abs_tol * out.scale;
        if vv <= touch * touch || vv <= self.margin * self.margin {
            out.intersecting = true;
            return Flow::Stop; // exit 11
        }
        Flow::Continue
    }

    /// Stage "stall recovery", in order: drop momentum; tilt the direction off a tie
    /// (see [`tilt_from`]); after no progress, restart once from an empty simplex (a
    /// simplex that mixes far and near vertices can lose the precision to progress, as
    /// curved rims against flat faces near contact do). Stops when none is left: after a
    /// repeated point the answer stands (converged as far as the support map can tell),
    /// after no progress it is the numerical limit.
    #[cold]
    fn recover_stall(&mut self, stall: Stall, w: Vector) -> Flow {
        if self.momentum {
            self.momentum = false;
            return Flow::Continue;
        }
        let out = &mut *self.out;
        self.tilt = tilt_from(&mut self.tie_retries, out.v, out.vv, w, out.scale);
        if self.tilt.is_some() {
            return Flow::Continue;
        }
        if stall == Stall::RepeatedPoint {
            return Flow::Stop;
        }
        if !self.restarted {
            self.restarted = true;
            self.best_before_restart = Some((out.simplex, out.v, out.vv));
            out.simplex = Simplex::new();
            out.vv = Real::INFINITY;
            return Flow::Continue;
        }
        out.status = GjkStatus::NumericalLimit;
        Flow::Stop
    }

    /// Stage "finish": the better of the runs before and after the restart; a distance
    /// within the rounding floor is contact; "apart" needs a certificate; the cache
    /// keeps the simplex, hints and separating axis.
    #[inline(always)]
    fn finish(self, cache: Option<&mut GjkCache>) {
        let (margin, abs_tol) = (self.margin, self.abs_tol);
        let out = &mut *self.out;
        if let Some((simplex, v, vv)) = self.best_before_restart {
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
        if let Mode::Intersect { .. } = self.mode {
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
            c.store(&out.simplex, *self.hints, axis);
        }
    }
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

    /// Certified bounds `(lower, upper)` on the distance between the shapes when they
    /// are the run's sets inflated by `margin` in all (length units, both ≥ 0): the
    /// cores' distance lies in `[lower, |v|]`, less the margin; `(0, 0)` when the cores
    /// overlap.
    pub(crate) fn distance_bounds(&self, margin: Real) -> (Real, Real) {
        if self.intersecting {
            (0.0, 0.0)
        } else {
            (
                (self.lower - margin).max(0.0),
                (self.vv.sqrt() - margin).max(0.0),
            )
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
    let pair = MinkowskiDifference::relative(a, pose_a, b, pose_b);
    let r = run(&pair, &mut [u32::MAX; 2], Mode::Distance, options, cache);
    to_world(&r, pose_a, options)
}

/// One GJK iteration as [`distance_traced`] saw it, in the world frame (lengths in the
/// caller's units).
///
/// Points of the Minkowski difference `A ⊖ B` are differences `a − b` of world points:
/// they are vectors (the difference does not move when both shapes are translated
/// together) and are expressed along the world axes, with the origin of the difference
/// standing for "A and B touch". The loop itself runs in A's local frame; the recorder
/// rotates its numbers by A's pose and nothing else (the run is the untraced one).
#[derive(Debug, Clone, PartialEq)]
pub struct GjkStep {
    /// The iteration's number, from 1 (as counted in [`GjkResult::iterations`]).
    pub iteration: u32,
    /// The pass: 0, or 1 for the plain GJK that finishes a [`GjkVariant::Nesterov`] run
    /// that did not converge (it starts again from the centres' difference, so `|v|`
    /// starts over).
    pub pass: u32,
    /// The support direction of the difference (not normalised): the new point is the
    /// one of `A ⊖ B` furthest along it, `−v` in plain GJK, tilted or mixed with
    /// momentum otherwise.
    pub direction: Vector,
    /// The new support point `w = a − b` of `A ⊖ B` along [`direction`](Self::direction).
    pub support: Vector,
    /// Its source on A: A's support point along `direction` (world point).
    pub support_a: Point,
    /// Its source on B: B's support point along `−direction` (world point).
    pub support_b: Point,
    /// The simplex after this iteration (0–4 points of `A ⊖ B`): after the reduction to
    /// the sub-simplex carrying `v`, or the previous simplex when the iteration was
    /// rejected (the point repeated, or no progress); empty after GJK's one restart.
    pub simplex: Vec<Vector>,
    /// The point of the simplex closest to the origin after this iteration (`v`, the
    /// vector from the origin of `A ⊖ B`; zero when the simplex encloses the origin).
    pub v: Vector,
    /// Upper bound on the distance after this iteration, `|v|` (length; `∞` right after
    /// a restart).
    pub upper: Real,
    /// Certified lower bound on the distance after this iteration (length, ≥ 0): the
    /// best support-plane separation seen so far.
    pub lower: Real,
}

/// The iterations of one GJK distance query (see [`distance_traced`]).
#[derive(Debug, Clone, PartialEq)]
pub struct GjkTrace {
    /// The first pass's first `v` (the difference of the shapes' centres for a cold start), world
    /// axes, length units.
    pub initial_v: Vector,
    /// One record per iteration, in order.
    pub steps: Vec<GjkStep>,
    /// The final simplex (points of `A ⊖ B`, world axes), the one the result's closest
    /// points come from: the last step's, or the better one before GJK's restart.
    pub final_simplex: Vec<Vector>,
    /// The final `v` (world axes): `|final_v|` is the result's distance when not
    /// intersecting.
    pub final_v: Vector,
    /// The answer, identical to what [`distance`] returns for the same input without a
    /// cache.
    pub result: GjkResult,
}

/// Records the iterations of a run, rotated to the world frame by A's pose.
struct Recorder<'p> {
    pose_a: &'p Pose,
    initial_v: Vector,
    /// Passes started (see [`GjkStep::pass`]).
    passes: u32,
    steps: Vec<GjkStep>,
}

impl Recorder<'_> {
    fn simplex(&self, s: &Simplex) -> Vec<Vector> {
        s.vertices()
            .iter()
            .map(|p| self.pose_a.transform_vector(p.w))
            .collect()
    }
}

impl Observer for Recorder<'_> {
    fn start(&mut self, out: &LocalGjk) {
        if self.passes == 0 {
            self.initial_v = self.pose_a.transform_vector(out.v);
        }
        self.passes += 1;
    }

    fn step(&mut self, dir: Vector, sp: &SupportPoint, out: &LocalGjk) {
        let pose = self.pose_a;
        let step = GjkStep {
            // Counted here: a Nesterov run finished by plain GJK counts its second
            // run's iterations from 1 again.
            iteration: self.steps.len() as u32 + 1,
            pass: self.passes.saturating_sub(1),
            direction: pose.transform_vector(-dir),
            support: pose.transform_vector(sp.w),
            support_a: pose.transform_point(sp.a),
            support_b: pose.transform_point(sp.b),
            simplex: self.simplex(&out.simplex),
            v: pose.transform_vector(out.v),
            upper: out.vv.sqrt(),
            lower: out.lower,
        };
        self.steps.push(step);
    }
}

/// [`distance`] (cold, no cache) with a record of every iteration, for inspection and
/// teaching: the same run, observed; its [`GjkTrace::result`] equals [`distance`]'s.
///
/// The recording allocates (a vector per step); the untraced entry points do not
/// record anything and are compiled without the observer.
pub fn distance_traced<A, B>(
    a: &A,
    pose_a: &Pose,
    b: &B,
    pose_b: &Pose,
    options: &GjkOptions,
) -> GjkTrace
where
    A: SupportMap + ?Sized,
    B: SupportMap + ?Sized,
{
    let pair = MinkowskiDifference::relative(a, pose_a, b, pose_b);
    let mut rec = Recorder {
        pose_a,
        initial_v: Vector::ZERO,
        passes: 0,
        steps: Vec::new(),
    };
    let r = run_observed(
        &pair,
        &mut [u32::MAX; 2],
        Mode::Distance,
        options,
        None,
        &mut rec,
    );
    GjkTrace {
        initial_v: rec.initial_v,
        final_simplex: rec.simplex(&r.simplex),
        final_v: pose_a.transform_vector(r.v),
        result: to_world(&r, pose_a, options),
        steps: rec.steps,
    }
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
    let pair = MinkowskiDifference::relative(a, pose_a, b, pose_b);
    let r = run(
        &pair,
        &mut [u32::MAX; 2],
        Mode::Intersect { margin },
        options,
        cache,
    );
    IntersectionResult {
        intersecting: r.intersecting,
        status: r.status,
        iterations: r.iterations,
    }
}
