//! Linear casts: the first time two convex shapes, each translating at a constant
//! velocity, come within a chosen distance of each other — by GJK ray casting on their
//! Minkowski difference.
//!
//! # The reduction
//!
//! Let B move relative to A by `r` per unit time (`r = v_B − v_A`, in A's frame). At
//! time `λ` the difference of the two sets is `D(λ) = A ⊖ B − λ r`, and the shapes are
//! within `R` of each other exactly when the origin is within `R` of `D(λ)`, i.e. when
//! the ray `λ r` comes within `R` of `D = A ⊖ B`. The cores are cast (a sphere is a
//! point, a capsule a segment): `R` is the sum of the two margins plus the target
//! distance, so rounded shapes cost no more than their cores.
//!
//! # The algorithm (van den Bergen 2004)
//!
//! G. van den Bergen, "Ray casting against general convex objects with application to
//! continuous collision detection", 2004 (also *Collision Detection in Interactive 3D
//! Environments*, §4.3.4). GJK runs on `D(λ)`; whenever a support point proves the
//! origin farther than `R` from `D(λ)`, the ray jumps to where that support plane comes
//! within `R`:
//!
//! ```text
//! λ ← 0;  v ← a point of D(0);  W ← ∅
//! loop
//!     w ← s_D(−v) − λ r               support point of D(λ), sources kept
//!     if v·w > R ‖v‖                   the plane {x : x·v = w·v} holds D(λ) beyond R:
//!         if v·r ≤ 0                     the ray never gets within R of it → miss
//!         λ ← λ + (v·w − R ‖v‖) / v·r    first λ where it does (then a hit is at or after λ)
//!         λ > max_toi                    → miss
//!         n ← v;  every vertex of W moves with λ (its sources are kept, w = a − b − λ r)
//!     W ← W ∪ {w};  (v, W) ← closest point of conv W to the origin (signed volumes)
//!     ‖v‖ ≤ R + tol                      → hit at λ (or, with λ = 0, "within R at the start")
//!     no strict progress at this λ        → numerical limit: hit at λ (a lower bound)
//! ```
//!
//! Every jump of `λ` is certified by a support plane, so `λ` is at every step a lower
//! bound on the time of impact: a run cut short (iteration bound, numerical limit) may
//! report an early hit, never a late one or a miss of a real hit. `tol` is GJK's:
//! `ε_rel max(R, σ) + τ σ` ([`crate::tolerance`]), so at a hit the cores are between `R` and
//! `R + tol` apart.
//!
//! The normal at the hit is `−v/‖v‖` when `‖v‖` is well above rounding (`R > 0`: the
//! closest-point direction of the cores), and otherwise the last support plane's `−n`
//! (van den Bergen's choice for `R = 0`; on a curved surface it is accurate to about
//! `√ε`).

// Negated comparisons (`!(x > 0.0)`) are meant: they send NaN to the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use super::context::ShapePair;
use super::dispatch::{contact_with, QueryOptions, Rescaled};
use super::gjk::{GjkOptions, GjkStatus};
use super::QueryStatus;
use crate::math::{Matrix3, Point, Pose, Real, Rotation, Vector, EPSILON};
use crate::query::simplex::Simplex;
use crate::shape::{CoreShape, Shape, MAX_MAGNITUDE};
use crate::support::{Relative, SupportMap, SupportPoint};
use crate::tolerance;

/// How a local cast ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CastEnd {
    /// The cores come within the margin at `toi` (> 0 unless the ray jumped by a
    /// rounding-small step).
    Hit,
    /// The cores never come within the margin for `λ ≤ max_toi`.
    Miss,
    /// The cores are within the margin (plus the tolerance) at `λ = 0`.
    Within,
}

/// The answer of [`cast_local`], in A's frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalCast {
    pub end: CastEnd,
    /// The time of impact (a certified lower bound; meaningful for `Hit`).
    pub toi: Real,
    /// Unit normal from A towards B at the hit (A's frame); zero for `Within`/`Miss`.
    pub normal: Vector,
    /// The closest point of A's core at the hit (A's frame).
    pub point_a: Point,
    /// The closest point of B's core at the hit, B moved to `toi` (A's frame).
    pub point_b: Point,
    pub status: GjkStatus,
    pub iterations: u32,
}

/// Goes on with GJK at the time of impact, B moved by `offset`, until the closest points
/// of the cores are found within GJK's tolerance: the stop at `‖v‖ ≤ R + tol` bounds the
/// distance there, but not the direction of `v`, which a simplex still far from the
/// closest features can carry `√(2 tol / R)` off the normal (6e-3 rad, seen on two
/// capsules in f32). Segment and polytope cores end on their exact closest features in a
/// step or two; at most 16 steps are taken.
fn polish<A: SupportMap, B: SupportMap>(
    pair: &Relative<A, B>,
    hints: &mut [u32; 2],
    offset: Vector,
    simplex: &mut Simplex,
    v: &mut Vector,
    iterations: &mut u32,
) {
    let mut vv = v.length_squared();
    for _ in 0..16 {
        if !(vv > 0.0) {
            return;
        }
        *iterations += 1;
        let sp = pair.support_point_hinted(-*v, hints);
        let w = sp.a - (sp.b + offset);
        // Stop only where no support point lies below `v`'s plane: any stop on the gap
        // `‖v‖ − v·w/‖v‖` (however small) would leave the direction up to the square
        // root of it off, since the gap grows with the angle's square (in f32, 4 ε
        // allows 1e-3 rad). A repeated vertex, or no strict progress, ends it as well.
        if v.dot(w) >= vv || !w.is_finite() {
            return;
        }
        if simplex.contains(w, 0.0) {
            return;
        }
        let before = *simplex;
        simplex.push_hinted(
            SupportPoint {
                w,
                a: sp.a,
                b: sp.b,
            },
            -*v,
            *hints,
        );
        let (nv, nvv) = simplex.reduce();
        // The new simplex turns `v` towards the closest features even where `‖v‖`
        // shrinks by less than its rounding (a tilt of 1e-4 rad changes it by 1e-8
        // relative): keep it unless it is worse beyond rounding.
        if simplex.len() == 4 || !(nvv <= vv * (1.0 + 8.0 * crate::math::EPSILON)) || nv == *v {
            *simplex = before;
            return;
        }
        *v = nv;
        vv = nvv;
    }
}

/// Casts B along `motion` (B's translation relative to A per unit time, in A's frame)
/// against A, the pair given as `A ⊖ B` in A's frame, until the cores come within
/// `margin` (≥ 0, length) of each other, for times in `[0, max_toi]` (see the module
/// notes).
pub(crate) fn cast_local<A: SupportMap, B: SupportMap>(
    pair: &Relative<A, B>,
    hints: &mut [u32; 2],
    motion: Vector,
    margin: Real,
    max_toi: Real,
    opts: &GjkOptions,
) -> LocalCast {
    let tau = opts.touch_tolerance();
    let mut sigma = pair.translation_magnitude().max(margin);
    let mut lambda: Real = 0.0;
    let mut advanced = false;
    let mut simplex = Simplex::new();
    let mut v = pair.a.local_center() - pair.b.local_center();
    if !(v.length_squared() > 0.0) {
        v = if motion != Vector::ZERO {
            -motion
        } else {
            Vector::X
        };
    }
    // The last support plane the ray jumped to (in `v`'s orientation, A − B).
    let mut plane = Vector::ZERO;
    let mut prev_vv = Real::INFINITY;
    let mut iterations = 0;
    let miss = |iterations| LocalCast {
        end: CastEnd::Miss,
        toi: 0.0,
        normal: Vector::ZERO,
        point_a: Point::ZERO,
        point_b: Point::ZERO,
        status: GjkStatus::Converged,
        iterations,
    };
    let status = loop {
        if iterations >= opts.iteration_bound() {
            break GjkStatus::MaxIterations;
        }
        iterations += 1;
        let sp = pair.support_point_hinted(-v, hints);
        let mut b_now = sp.b + motion * lambda;
        let mut w = sp.a - b_now;
        if !w.is_finite() {
            break GjkStatus::NumericalLimit;
        }
        sigma = sigma
            .max(sp.a.abs().max_element())
            .max(b_now.abs().max_element());
        let floor = tau * sigma;
        let vn = v.length();
        let vw = v.dot(w);
        let jumped = vw > margin * vn;
        if jumped {
            let vr = v.dot(motion);
            if !(vr > 0.0) {
                return miss(iterations);
            }
            let step = (vw - margin * vn) / vr;
            lambda += step;
            if !(lambda <= max_toi) {
                return miss(iterations);
            }
            advanced = true;
            plane = v;
            prev_vv = Real::INFINITY;
            // Every vertex moves with B; its sources stay (B's at time 0).
            for p in &mut simplex.verts[..simplex.len] {
                p.w = p.a - (p.b + motion * lambda);
            }
            b_now = sp.b + motion * lambda;
            w = sp.a - b_now;
            sigma = sigma.max(b_now.abs().max_element());
        }
        let tol = opts.rel() * margin.max(sigma) + floor;
        if simplex.contains(w, floor * floor) {
            if !jumped {
                // No new point at this λ: `‖v‖` is the distance there within rounding,
                // and no plane certified it beyond the margin.
                if vn <= margin + tol {
                    break GjkStatus::Converged;
                }
                break GjkStatus::NumericalLimit;
            }
            // The same point after a jump: the simplex moved; find its new closest point.
        } else {
            simplex.push_hinted(
                SupportPoint {
                    w,
                    a: sp.a,
                    b: sp.b,
                },
                -v,
                *hints,
            );
        }
        let (nv, nvv) = simplex.reduce();
        if simplex.len() == 4 || nvv <= (margin + tol) * (margin + tol) {
            v = nv;
            break GjkStatus::Converged;
        }
        if !jumped && !(nvv < prev_vv) {
            // Rounding stopped progress at this λ.
            break GjkStatus::NumericalLimit;
        }
        v = nv;
        prev_vv = nvv;
    };
    if advanced && status == GjkStatus::Converged && margin > 0.0 && simplex.len() < 4 {
        polish(
            pair,
            hints,
            motion * lambda,
            &mut simplex,
            &mut v,
            &mut iterations,
        );
    }
    let (a, b0) = if simplex.is_empty() {
        (Point::ZERO, Point::ZERO)
    } else {
        simplex.witnesses()
    };
    let point_b = b0 + motion * lambda;
    if !advanced && status == GjkStatus::Converged {
        return LocalCast {
            end: CastEnd::Within,
            toi: 0.0,
            normal: Vector::ZERO,
            point_a: a,
            point_b,
            status,
            iterations,
        };
    }
    // The normal: the cores' closest-point direction when it is the margin's (well above
    // rounding), else the last support plane's (with no margin, `v` at the end is the
    // residue of the simplex's approach to the surface, not a normal).
    let vv = v.length_squared();
    let noisy = crate::tolerance::NOISY_SEPARATION * sigma;
    let normal =
        if margin > 0.0 && simplex.len() < 4 && vv > noisy * noisy && vv > 0.25 * margin * margin {
            -v / vv.sqrt()
        } else if plane != Vector::ZERO {
            -plane.normalize()
        } else {
            // Stopped at λ = 0 short of convergence: no plane was ever crossed.
            Vector::ZERO
        };
    LocalCast {
        end: if advanced {
            CastEnd::Hit
        } else {
            CastEnd::Within
        },
        toi: lambda,
        normal,
        point_a: a,
        point_b,
        status,
        iterations,
    }
}

/// How a shape moves during a cast: constant velocities over the whole interval.
///
/// At time `t` a shape placed at `pose` (time 0) is at translation
/// `pose.translation + t · linear` and rotation `exp(t · angular / 2) · pose.rotation`:
/// it turns about its own local origin, about world axes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Motion {
    /// Velocity of the shape's local origin (length per unit time, world frame).
    pub linear: Vector,
    /// Angular velocity about the shape's local origin (radians per unit time, world
    /// axes; its length is the turning rate).
    pub angular: Vector,
}

impl Motion {
    /// No motion.
    pub const ZERO: Motion = Motion {
        linear: Vector::ZERO,
        angular: Vector::ZERO,
    };

    /// A translation at `velocity` (length per unit time, world frame), no rotation.
    pub fn linear(velocity: Vector) -> Self {
        Self {
            linear: velocity,
            angular: Vector::ZERO,
        }
    }

    /// Translation at `linear` and rotation at `angular` (see the type's notes).
    pub fn new(linear: Vector, angular: Vector) -> Self {
        Self { linear, angular }
    }

    /// Whether the motion has no rotation.
    pub fn is_translation(&self) -> bool {
        self.angular == Vector::ZERO
    }

    /// Where a shape placed at `pose` at time 0 is at time `t`. The caller keeps
    /// `pose.translation() + t · linear` within [`MAX_MAGNITUDE`] (beyond it the pose is
    /// not a valid one); conservative advancement evaluates it only up to that horizon.
    pub fn pose_at(&self, pose: &Pose, t: Real) -> Pose {
        let translation = pose.translation() + self.linear * t;
        if self.is_translation() {
            return pose.with_translation(translation);
        }
        let turn = Rotation::from_scaled_axis(self.angular * t);
        Pose::from_parts(turn * pose.rotation(), translation)
    }

    /// The velocity (length per unit time, world frame) of the point of the shape that
    /// is at `point` (world frame) when the shape is at `pose`.
    pub fn point_velocity(&self, pose: &Pose, point: Point) -> Vector {
        self.linear + self.angular.cross(point - pose.translation())
    }

    /// `Ok` when both velocities are finite and within [`MAX_MAGNITUDE`]: two passes of
    /// comparisons, the typed error worked out only on failure.
    #[inline]
    pub(crate) fn check(&self, which: &'static str) -> Result<(), CastError> {
        let fine = |v: Vector| v.is_finite() && v.abs().max_element() <= MAX_MAGNITUDE;
        if fine(self.linear) && fine(self.angular) {
            return Ok(());
        }
        self.refusal(which)
    }

    /// The error [`check`](Self::check) found.
    #[cold]
    fn refusal(&self, which: &'static str) -> Result<(), CastError> {
        for (field, v) in [("linear", self.linear), ("angular", self.angular)] {
            // The name is only written out for an error: no allocation per query.
            if !(v.is_finite() && v.abs().max_element() <= MAX_MAGNITUDE) {
                super::ray::check_vector(&format!("{which} {field} velocity"), v)?;
            }
        }
        Ok(())
    }
}

/// Why a cast or a ray query was refused: its input, never its geometry.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CastError {
    /// A vector (velocity, ray origin or direction) has a NaN or infinite component.
    #[error("{field} must be finite, got {value:?}")]
    NonFiniteVector {
        /// Which input.
        field: String,
        /// The components given.
        value: [Real; 3],
    },
    /// A component's magnitude is above [`MAX_MAGNITUDE`].
    #[error("{field} magnitude must be <= {max:?}, got {value:?}", max = MAX_MAGNITUDE)]
    TooLarge {
        /// Which input.
        field: String,
        /// The largest magnitude given.
        value: Real,
    },
    /// A number that must be a finite length `>= 0` (`target_distance`), or a time
    /// `>= 0` (`max_toi`, which may be infinite), is not.
    #[error("{field} must be {expected}, got {value:?}")]
    InvalidNumber {
        /// Which input.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
        /// The value given.
        value: Real,
    },
    /// A ray's direction is the zero vector.
    #[error("ray direction must not be zero")]
    ZeroDirection,
    /// The routine does not take this input (seed 004's bisection: rotation, or an
    /// infinite `max_toi`).
    #[error("{0}")]
    Unsupported(&'static str),
}

/// Checks a time bound: `>= 0`, possibly infinite.
pub(crate) fn check_max_toi(max_toi: Real) -> Result<(), CastError> {
    if max_toi >= 0.0 {
        Ok(())
    } else {
        Err(CastError::InvalidNumber {
            field: "max_toi",
            expected: "a time >= 0 (or infinite)",
            value: max_toi,
        })
    }
}

/// The input of a shape cast ([`cast_shapes`]): the pair at time 0, how each shape
/// moves, the interval and the distance to stop at.
#[derive(Debug, Clone, Copy)]
pub struct CastInput<'s> {
    /// The shapes and their poses at time 0 (world frame).
    pub pair: ShapePair<'s>,
    /// How A moves.
    pub motion_a: Motion,
    /// How B moves.
    pub motion_b: Motion,
    /// The end of the interval searched (time units, `>= 0`, inclusive; may be
    /// infinite). Every cast also ends when either shape's origin would leave the
    /// coordinate range [`MAX_MAGNITUDE`] (a miss: no pose exists beyond it).
    pub max_toi: Real,
    /// The distance to stop at (length, `>= 0`): the cast reports the first time the
    /// shapes' distance comes down to it ("skin"). 0 stops at contact.
    pub target_distance: Real,
}

impl<'s> CastInput<'s> {
    /// A cast of `pair` with the two motions, over `[0, ∞)`, to contact.
    pub fn new(pair: ShapePair<'s>, motion_a: Motion, motion_b: Motion) -> Self {
        Self {
            pair,
            motion_a,
            motion_b,
            max_toi: Real::INFINITY,
            target_distance: 0.0,
        }
    }

    /// Checks the numbers the cast itself adds to the (already valid) shapes and poses:
    /// one pass of comparisons that NaN fails, the typed error worked out only on
    /// failure ([`refusal`](Self::refusal)).
    #[inline]
    pub(crate) fn check(&self) -> Result<(), CastError> {
        let limit = Vector::splat(MAX_MAGNITUDE);
        let fine = |v: Vector| v.abs().cmple(limit).all();
        let s = self.target_distance;
        if fine(self.motion_a.linear)
            & fine(self.motion_a.angular)
            & fine(self.motion_b.linear)
            & fine(self.motion_b.angular)
            & (self.max_toi >= 0.0)
            & (0.0..=MAX_MAGNITUDE).contains(&s)
        {
            return Ok(());
        }
        self.refusal()
    }

    /// The error [`check`](Self::check) found, in the documented order of the checks.
    #[cold]
    #[inline(never)]
    fn refusal(&self) -> Result<(), CastError> {
        self.motion_a.check("A")?;
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
        Ok(())
    }
}

/// How the shapes stood at time 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum CastStart {
    /// Farther apart than the target distance.
    Separated,
    /// Overlapping or touching within the target distance (but not penetrating).
    WithinTarget,
    /// Penetrating.
    Overlapping,
}

impl CastStart {
    /// The protocol name: `"separated"`, `"within_target"`, `"overlapping"`.
    pub fn as_str(&self) -> &'static str {
        match self {
            CastStart::Separated => "separated",
            CastStart::WithinTarget => "within_target",
            CastStart::Overlapping => "overlapping",
        }
    }
}

/// The answer of a shape cast ([`cast_shapes`]).
///
/// When `hit` is false the shapes do not come within the target distance for any time
/// in `[0, max_toi]` — or they start within it and do not approach (a box resting on the
/// ground and sliding along it: the cast slides), see `start`; or they would first come
/// within it past the time a shape's origin leaves the coordinate range
/// [`MAX_MAGNITUDE`], or at a time beyond the precision's range (a tiny velocity) — and
/// the other fields are zero.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ShapeCast {
    /// Whether the shapes come within the target distance in the interval.
    pub hit: bool,
    /// The time of impact (time units, in `[0, max_toi]`): the first time the distance
    /// comes down to the target, within the tolerance (the distance there lies in
    /// `[target, target + ε_rel (target + margins) + τ σ]`). Always a lower bound: the
    /// shapes do not come within the target before it, whatever the status. 0 when they
    /// start within the target and approach, or start overlapping.
    pub toi: Real,
    /// Unit normal from A towards B at the time of impact (world frame): the direction
    /// along which the shapes are `target_distance` apart. At a hit at time 0 from
    /// overlapping, the contact normal (translating B by `−initial_distance · normal`
    /// separates them).
    pub normal: Vector,
    /// The point of A at the time of impact (world frame, A moved to `toi`) closest to
    /// B; `point_b − point_a = distance · normal`, where the distance is the target's
    /// within the tolerance (the signed initial distance for a hit at time 0).
    pub point_a: Point,
    /// The point of B at the time of impact (world frame, B moved to `toi`).
    pub point_b: Point,
    /// How the shapes stood at time 0.
    pub start: CastStart,
    /// The signed distance at time 0 (length; negative = penetration depth) when the
    /// shapes start within the target distance; `None` when they start apart.
    pub initial_distance: Option<Real>,
    /// How the answer was obtained. `Converged`: within the tolerances. `MaxIterations`
    /// or `NumericalLimit` with `hit`: the search stopped at `toi`, a certified lower
    /// bound on the time of impact, without proving contact there (conservative: a
    /// caller advancing to `toi` never passes through the other shape).
    pub status: QueryStatus,
    /// Support-map iterations in all (the GJK ray cast's, or every distance query's of
    /// conservative advancement).
    pub iterations: u32,
}

impl ShapeCast {
    /// No hit, with how the shapes stood at time 0.
    pub(crate) fn miss(start: CastStart, status: QueryStatus, iterations: u32) -> Self {
        Self {
            hit: false,
            toi: 0.0,
            normal: Vector::ZERO,
            point_a: Point::ZERO,
            point_b: Point::ZERO,
            start,
            initial_distance: None,
            status,
            iterations,
        }
    }
}

/// The first time two moving shapes come within `target_distance` of each other: a
/// linear shape cast when neither rotates (GJK ray casting on the cores, as the notes
/// of `query/cast.rs` derive; two spheres, and two boxes cast to contact, in closed
/// form: `query/ball_ball_cast.rs`, `query/box_box_cast.rs`), else conservative advancement
/// ([`crate::query::advancement`]).
///
/// Frames: poses, velocities and every output in the world frame; times in the
/// velocities' time unit. See [`ShapeCast`] for the outcomes, including the shapes that
/// start overlapping (`start: Overlapping`, `hit` at 0 with the depth) or within the
/// target (a hit at 0 only when they approach).
///
/// ```
/// use minkowski::query::{cast_shapes, CastInput, Motion, ShapePair, QueryOptions};
/// use minkowski::shape::{Cuboid, Shape, Sphere};
/// use minkowski::{Pose, Vector};
///
/// let wall = Shape::from(Cuboid::new(Vector::new(0.05, 2.0, 2.0)).unwrap());
/// let ball = Shape::from(Sphere::new(0.5).unwrap());
/// let start = Pose::from_translation(Vector::new(-10.0, 0.0, 0.0)).unwrap();
/// let pair = ShapePair::new(&wall, Pose::IDENTITY, &ball, start);
/// let input = CastInput::new(pair, Motion::ZERO, Motion::linear(Vector::new(20.0, 0.0, 0.0)));
/// let hit = cast_shapes(&input, &QueryOptions::default()).unwrap();
/// assert!(hit.hit);
/// assert!((hit.toi - 9.45 / 20.0).abs() < 1e-5); // the ball's front meets the wall at x = -0.05
/// assert!(hit.normal.x < -0.999); // from the wall towards the ball
/// ```
///
/// # Errors
/// [`CastError`] for a non-finite or too large velocity, a negative or NaN `max_toi`,
/// or a negative or non-finite `target_distance`.
pub fn cast_shapes(input: &CastInput<'_>, options: &QueryOptions) -> Result<ShapeCast, CastError> {
    input.check()?;
    if !(input.motion_a.is_translation() && input.motion_b.is_translation()) {
        // Conservative advancement stops where a shape leaves the coordinate range.
        return Ok(match cast_in_time_unit(input, options) {
            Some(answer) => answer,
            None => super::advancement::advance(input, options),
        });
    }
    // Two balls: in closed form, in the world frame (query/ball_ball_cast.rs), inlined
    // here. Each path returns on its own: the ball answer is written in place, and the
    // calls write theirs straight into the caller's slot (merged into one return, all
    // went through a temporary: +20% time on a ball cast, measured again when the range
    // rule below was first added after the merge). The ball path leaves tiny relative
    // velocities and contacts past the coordinate limit to the general path.
    match super::ball_ball_cast::cast_balls_world(input) {
        Some(Ok(answer)) => return Ok(answer),
        Some(Err(())) => return Ok(within(input, options, 0)),
        None => {}
    }
    Ok(linear_cast_general(input, options))
}

/// The time unit ([`tolerance::time_rescale`]'s factors) to solve motions in when every
/// component of both is below [`tolerance::RESCALE_VELOCITY_BELOW`] and one is not
/// zero; `None` otherwise (checked, finite motions).
#[inline]
pub(crate) fn tiny_time_unit([a, b]: [&Motion; 2]) -> Option<[Real; 2]> {
    let m = a
        .linear
        .abs()
        .max(a.angular.abs())
        .max(b.linear.abs())
        .max(b.angular.abs());
    let tiny = m
        .cmplt(Vector::splat(tolerance::RESCALE_VELOCITY_BELOW))
        .all();
    (tiny && m.cmpne(Vector::ZERO).any()).then(|| tolerance::time_rescale(m.max_element()))
}

/// `motion` in a time unit `f1 · f2` times longer (both velocities scaled by it).
pub(crate) fn motion_in_time_unit(motion: Motion, [f1, f2]: [Real; 2]) -> Motion {
    Motion::new(motion.linear * f1 * f2, motion.angular * f1 * f2)
}

/// A cast answered in the time unit `[f1, f2]` ([`tiny_time_unit`]) brought back to the
/// caller's: its time scaled by `f1 · f2`; a time beyond `max_toi` (by rounding) or
/// beyond the precision's range is no hit (the shapes start apart then: a hit at 0 is
/// kept).
pub(crate) fn cast_from_time_unit(
    mut answer: ShapeCast,
    unit: [Real; 2],
    max_toi: Real,
) -> ShapeCast {
    if answer.hit && answer.toi > 0.0 {
        match tolerance::time_from_rescaled(answer.toi, unit, max_toi) {
            Some(toi) => answer.toi = toi,
            None => return beyond_range(&answer),
        }
    }
    answer
}

/// [`cast_shapes`] for tiny motions ([`tiny_time_unit`], checked input), called by the
/// paths that the velocity's square would fail (the turning and general paths, on
/// entry; the ball path sends a tiny relative velocity to the general path): the cast
/// (through [`cast_shapes`], so that its body is inlined in one place) with both
/// motions and `max_toi` in the longer unit, the answer brought back
/// ([`cast_from_time_unit`]) and held to the range rule. `None` when the motions are
/// not tiny.
#[cold]
#[inline(never)]
fn cast_in_time_unit(input: &CastInput<'_>, options: &QueryOptions) -> Option<ShapeCast> {
    let unit = tiny_time_unit([&input.motion_a, &input.motion_b])?;
    let scaled = CastInput {
        motion_a: motion_in_time_unit(input.motion_a, unit),
        motion_b: motion_in_time_unit(input.motion_b, unit),
        max_toi: input.max_toi / unit[0] / unit[1],
        ..*input
    };
    // The scaled input is valid (velocities below 2 in every component); an error
    // cannot occur, and would leave the cast to the caller's path.
    let answer = cast_from_time_unit(cast_shapes(&scaled, options).ok()?, unit, input.max_toi);
    // (Conservative advancement, on the scaled cast, stopped at the range itself.)
    Some(if answer.hit {
        range_rule(input, answer)
    } else {
        answer
    })
}

/// Whether both shapes' origins are within [`MAX_MAGNITUDE`] in every coordinate at
/// time `t` (the common case: then the range rule holds).
#[inline]
pub(crate) fn within_limit_at(input: &CastInput<'_>, t: Real) -> bool {
    let limit = Vector::splat(MAX_MAGNITUDE);
    let at = |pose: &Pose, m: &Motion| (pose.translation() + m.linear * t).abs();
    at(&input.pair.pose_a, &input.motion_a).cmple(limit).all()
        & at(&input.pair.pose_b, &input.motion_b).cmple(limit).all()
}

/// The range rule on a hit: a miss when the contact lies past the time a shape leaves
/// the coordinate range ([`left_range_at`]; a hit at 0 is kept).
#[cold]
#[inline(never)]
fn range_rule(input: &CastInput<'_>, answer: ShapeCast) -> ShapeCast {
    if answer.toi > 0.0 && left_range_at(input, answer.toi) {
        beyond_range(&answer)
    } else {
        answer
    }
}

/// Whether a shape of `input` has left the coordinate range by time `t`: an origin
/// coordinate beyond [`MAX_MAGNITUDE`], or beyond its own start for a shape that starts
/// beyond it (a compound's part near the limit). Origins move linearly in time (a turning
/// shape turns about its origin), so then no pose exists from some earlier time on, and
/// the contact found at `t` lies past the end of the interval: a miss (module rule:
/// every cast ends where a pose would leave the range).
#[inline]
fn left_range_at(input: &CastInput<'_>, t: Real) -> bool {
    let left = |pose: &Pose, m: &Motion| {
        let p = pose.translation();
        let limit = p.abs().max(Vector::splat(MAX_MAGNITUDE));
        (p + m.linear * t).abs().cmpgt(limit).any()
    };
    left(&input.pair.pose_a, &input.motion_a) || left(&input.pair.pose_b, &input.motion_b)
}

/// The miss reported for a contact found past the end of the interval (the shapes
/// started apart: a hit at 0 is never converted).
#[cold]
fn beyond_range(answer: &ShapeCast) -> ShapeCast {
    ShapeCast::miss(
        CastStart::Separated,
        QueryStatus::Converged,
        answer.iterations,
    )
}

/// The first time (≥ 0, possibly infinite) at which a shape at `pose` moving by `motion`
/// leaves the coordinate range (as [`left_range_at`] defines it): per axis, the room
/// left in the direction the coordinate moves over its speed.
pub(crate) fn range_horizon(pose: &Pose, motion: &Motion) -> Real {
    let (p, v) = (pose.translation(), motion.linear);
    let mut horizon = Real::INFINITY;
    for i in 0..3 {
        if v[i] != 0.0 {
            let room = MAX_MAGNITUDE.max(p[i].abs()) - p[i] * v[i].signum();
            horizon = horizon.min((room / v[i].abs()).max(0.0));
        }
    }
    horizon
}

/// The cores' cast in A's frame: A at the origin, B at `rel`, B moving by `motion` (A's
/// frame) per unit time, until within `margin` (the margins and the target).
fn cast_cores(
    a: &Shape,
    b: &Shape,
    rel: &Pose,
    motion: Vector,
    margin_extra: Real,
    max_toi: Real,
    options: &QueryOptions,
) -> (LocalCast, Real, Real) {
    let (ca, ma) = a.core();
    let (cb, mb) = b.core();
    let margin = ma + mb + margin_extra;
    if let (CoreShape::Point(pa), CoreShape::Point(pb)) = (&ca, &cb) {
        // Two balls: a ray against a ball of the summed radius, in closed form.
        let c = super::ball_ball_cast::balls(
            pa.point(),
            rel.transform_point(pb.point()),
            motion,
            margin,
            max_toi,
        );
        return (c, ma, mb);
    }
    if let (CoreShape::Cuboid(ba), CoreShape::Cuboid(bb)) = (&ca, &cb) {
        // Two boxes to contact: the separating-axis theorem in closed form
        // (query/box_box_cast.rs), unless it hands the cast back (a start within the
        // floor, nearly parallel edges).
        if margin == 0.0 {
            let rot = Matrix3::from_quat(rel.rotation());
            let c = super::box_box_cast::cast_boxes(
                ba.half_extents(),
                bb.half_extents(),
                &rot,
                rel.translation(),
                motion,
                max_toi,
                &options.gjk,
            );
            if let Some(c) = c {
                return (c, ma, mb);
            }
        }
    }
    (
        gjk_cast(&ca, &cb, rel, motion, margin, max_toi, options),
        ma,
        mb,
    )
}

/// The GJK ray cast of two cores (kept out of line: the closed forms above it stay a
/// short function).
#[inline(never)]
fn gjk_cast(
    ca: &CoreShape<'_>,
    cb: &CoreShape<'_>,
    rel: &Pose,
    motion: Vector,
    margin: Real,
    max_toi: Real,
    options: &QueryOptions,
) -> LocalCast {
    let (ca, cb) = (*ca, *cb);
    on_cores!(ca, cb, &Pose::IDENTITY, rel, |pair, hints| {
        cast_local(&pair, hints, motion, margin, max_toi, &options.gjk)
    })
}

/// The linear cast of every pair but two balls: in A's frame, on the cores (kept out of
/// line, so that the ball path above stays short).
#[inline(never)]
fn linear_cast_general(input: &CastInput<'_>, options: &QueryOptions) -> ShapeCast {
    // A tiny relative velocity (as the ball path tests it) may be a tiny motion: the
    // cold path decides on all four velocities.
    let dv = input.motion_b.linear - input.motion_a.linear;
    let tiny = tolerance::RESCALE_VELOCITY_BELOW * tolerance::RESCALE_VELOCITY_BELOW;
    if dv.length_squared() < tiny && dv != Vector::ZERO {
        if let Some(answer) = cast_in_time_unit(input, options) {
            return answer;
        }
    }
    let answer = linear_cast_in_range(input, options);
    if answer.hit && !within_limit_at(input, answer.toi) {
        return range_rule(input, answer);
    }
    answer
}

/// [`linear_cast_general`] for motions that are not tiny, before the range rule.
#[inline(always)]
fn linear_cast_in_range(input: &CastInput<'_>, options: &QueryOptions) -> ShapeCast {
    let ShapePair {
        a,
        pose_a,
        b,
        pose_b,
    } = input.pair;
    let rel = pose_a.inv_mul(&pose_b);
    let motion = pose_a.inverse_transform_vector(input.motion_b.linear - input.motion_a.linear);
    let s = input.target_distance;
    // Tiny problems are solved scaled up by a power of two `f`, the motion kept: times
    // are `f` times longer there, and divided back exactly. (Scaling the motion by `f`
    // instead kept the times, but a motion already brought to unit size by the time
    // unit, `cast_in_time_unit`, became one of 2⁸⁰: two balls of 2⁻⁸⁰ closing at 2⁻⁸⁰
    // per time unit never met, in f32.)
    let (c, ma, mb, unscale) = match Rescaled::of(a, b, &rel) {
        Some(r) => {
            let f = r.factor;
            let (mut c, ma, mb) = cast_cores(
                &r.a,
                &r.b,
                &r.rel,
                motion,
                s * f,
                input.max_toi * f,
                options,
            );
            c.toi /= f;
            (c, ma, mb, 1.0 / f)
        }
        None => {
            let (c, ma, mb) = cast_cores(a, b, &rel, motion, s, input.max_toi, options);
            (c, ma, mb, 1.0)
        }
    };
    match c.end {
        CastEnd::Miss => ShapeCast::miss(CastStart::Separated, c.status.into(), c.iterations),
        CastEnd::Hit => {
            let at = input.motion_a.pose_at(&pose_a, c.toi);
            let pa = (c.point_a + c.normal * ma) * unscale;
            let pb = (c.point_b - c.normal * mb) * unscale;
            ShapeCast {
                hit: true,
                toi: c.toi,
                normal: pose_a.transform_vector(c.normal),
                point_a: at.transform_point(pa),
                point_b: at.transform_point(pb),
                start: CastStart::Separated,
                initial_distance: None,
                status: c.status.into(),
                iterations: c.iterations,
            }
        }
        CastEnd::Within => within(input, options, c.iterations),
    }
}

/// The answer for cores found within the margin at time 0 (after `iterations`): the
/// start rules of [`start_within`].
#[inline(never)]
fn within(input: &CastInput<'_>, options: &QueryOptions, iterations: u32) -> ShapeCast {
    match start_within(input, options, iterations) {
        Some(answer) => answer,
        // The contact query finds them apart after all (a cast stopped short at
        // time 0): conservative advancement decides, certified.
        None => super::advancement::advance(input, options),
    }
}

/// Below this cosine between the relative velocity of the contact points and the
/// contact normal, shapes that touch at the start slide along each other instead of
/// approaching (1024 ε: a normal computed at contact is accurate to a few hundred ε).
pub(crate) const SLIDING_COSINE: Real = 1024.0 * EPSILON;

/// The answer for shapes within the target distance at time 0, from a contact query
/// there: a hit at 0 when they overlap or approach, no hit when they slide along or
/// separate. `None` when the contact query finds them farther apart than the target
/// after all.
pub(crate) fn start_within(
    input: &CastInput<'_>,
    options: &QueryOptions,
    iterations: u32,
) -> Option<ShapeCast> {
    let ShapePair {
        a,
        pose_a,
        b,
        pose_b,
    } = input.pair;
    let s = input.target_distance;
    let c = contact_with(a, &pose_a, b, &pose_b, options, None);
    let iterations = iterations + c.iterations;
    let sigma = pose_a.translation().abs().max_element()
        + pose_b.translation().abs().max_element()
        + a.bounding_radius()
        + b.bounding_radius();
    let floor = tolerance::touch_floor(options.gjk.touch_tolerance(), sigma) * tolerance::SLACK;
    let (ma, mb) = (a.core().1, b.core().1);
    let band = options.gjk.rel() * (s + ma + mb) * 2.0 + floor;
    if c.distance > s + band {
        return None;
    }
    let mut out = ShapeCast {
        hit: true,
        toi: 0.0,
        normal: c.normal,
        point_a: c.point_a,
        point_b: c.point_b,
        start: CastStart::WithinTarget,
        initial_distance: Some(c.distance),
        status: c.status,
        iterations,
    };
    if c.distance < 0.0 {
        out.start = CastStart::Overlapping;
        return Some(out);
    }
    let u = input.motion_b.point_velocity(&pose_b, c.point_b)
        - input.motion_a.point_velocity(&pose_a, c.point_a);
    let approach = u.dot(c.normal);
    if !(approach < -SLIDING_COSINE * u.length()) {
        // Sliding along, separating, or not moving: no impact from here.
        return Some(ShapeCast {
            initial_distance: Some(c.distance),
            ..ShapeCast::miss(CastStart::WithinTarget, c.status, iterations)
        });
    }
    Some(out)
}
