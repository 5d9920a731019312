//! A kinematic character controller: seed 004's capsule player, which stops at the time
//! of impact and glides along what it hits (`v' = v − (v·n) n`), grown into what users
//! expect of rapier's `KinematicCharacterController`, Jolt's `CharacterVirtual` and
//! Box2D's mover.
//!
//! # One update
//!
//! [`Character::update`] moves a convex shape (a capsule, or any convex [`Shape`]) with
//! a fixed orientation by `velocity · dt` through a [`CharacterWorld`]:
//!
//! 1. **Recovery** ([`recovery`]): the contacts of the shape where it stands; when
//!    something is closer than half the skin (penetrating included: spawned inside a
//!    box, a platform rose into it), the displacement nearest zero that puts every
//!    contact a skin away is solved for all contacts at once ([`plane_solver`]) and
//!    applied, at most [`CharacterConfig::max_recovery_iterations`] times.
//! 2. **Platform**: standing on a moving target ([`CharacterWorld::body`]), the
//!    displacement its rigid motion gives the character's position over the step (the
//!    turn about its centre exactly, then its translation) is added to the motion, its
//!    part along the ground plane only (the part along the normal is left to the
//!    contacts: a rising platform pushes the character up through recovery, a sinking
//!    one is followed by the snap). The character's orientation is fixed: a turning
//!    platform carries it round, but does not turn it.
//! 3. **Cast and slide** ([`slide`]): cast the shape along the motion left; stop a skin
//!    short of the first hit (the cast's target distance, so that the next cast starts
//!    outside the obstacle); add the hit's plane to the set touched in this update and
//!    clip the velocity against all of them at once — one plane: the seed's glide; two:
//!    along their crease; three: stop ([`plane_solver::clip_velocity`]). A slope steeper
//!    than [`CharacterConfig::max_slope`] also acts as a vertical wall, so that walking
//!    into it never climbs it (gravity still slides the character down it). A wall hit
//!    while supported triggers a **step up** (cast up by the step height, forward, and
//!    down onto walkable ground). At most [`CharacterConfig::max_iterations`] casts.
//! 4. **Snap to ground**: a character that stood on walkable ground and is not moving up
//!    casts down by [`CharacterConfig::snap_distance`] and lands on walkable ground it
//!    finds (walking down slopes and stairs without flying off).
//! 5. **Ground state** ([`ground`]): the contacts within the skin (and a band) of the
//!    final pose, classified by slope: [`GroundState::OnGround`] (walkable),
//!    [`GroundState::OnSteepGround`], [`GroundState::InAir`], with the ground's normal,
//!    point, target and velocity.
//!
//! The answer ([`CharacterOutput`]) gives the translation applied, the velocity clipped
//! against every plane touched at the end (the caller's velocity for the next frame:
//! falling speed is gone on landing), the ground state, and the collisions with their
//! pushes on dynamic bodies.
//!
//! # Skin
//!
//! The character is kept [`CharacterConfig::skin`] (a length `> 0`) away from
//! everything: casts stop at that distance, recovery pushes out to it. A character
//! resting on a floor therefore hovers a skin above it; the skin makes the next cast
//! start outside the obstacle, where a cast along the surface slides instead of hitting
//! at time 0.
//!
//! # Pushing dynamic bodies
//!
//! The controller moves nothing but the character, and every obstacle blocks it, moving
//! or not. Each hit on a target whose [`BodyState`] is dynamic is reported as a
//! [`CharacterCollision`] with the impulse that gives the body's contact point the
//! character's speed into it (`m_eff · max(0, (v_char − v_body) · (−n))` along `−n`);
//! the caller (the dynamics) applies it. The body moves away in the next step and the
//! character follows: rapier's model.
//!
//! # Bounds and errors
//!
//! Every loop is bounded by the configuration; bad parameters (negative or NaN skin,
//! slope limit outside `[0, 90°)`, non-unit up, ...) are refused by
//! [`CharacterConfig::validate`] with a [`CharacterError`], bad inputs to
//! [`Character::update`] (non-finite velocity, `dt ≤ 0`) likewise; nothing panics.

mod controller;
pub mod ground;
pub mod plane_solver;
pub mod recovery;
pub mod scene;
pub mod slide;
pub mod tolerance;
mod world_scene;

pub use controller::{Character, CharacterCollision, CharacterOutput, MoveStatus};
pub use ground::{GroundContact, GroundState};
pub use plane_solver::{
    clip_velocity, solve_planes, CollisionPlane, PlaneError, PlaneSolution, PlaneStatus,
};
pub use scene::{BodyState, CharacterContact, CharacterHit, CharacterWorld, HitStart};
pub use world_scene::{BodyLookup, WorldScene};

use minkowski::query::CastError;
use minkowski::world::WorldError;
use minkowski::{Real, Vector};
use tolerance::UNIT_LENGTH_TOLERANCE;

#[doc(no_inline)]
pub use minkowski::shape::Shape;

/// How the character moves and what it stands on. All lengths in the world's length
/// unit, angles in radians.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CharacterConfig {
    /// The up direction (unit vector, world frame): slopes are measured from it, steps
    /// go along it, snapping goes against it. Default `+Y`.
    pub up: Vector,
    /// The distance kept from every obstacle (length, `> 0`). Default 0.02.
    pub skin: Real,
    /// The steepest walkable slope (radians, in `[0, π/2)`): a surface whose normal is
    /// within this angle of `up` is ground; a steeper one facing up is a steep slope
    /// (a wall for walking, slid down by gravity). Default 45°.
    pub max_slope: Real,
    /// The highest step climbed (length, `≥ 0`; 0 turns stepping off). Default 0.3.
    pub step_height: Real,
    /// When the landing spot of a step up is not walkable (the shape's rounded bottom on
    /// the step's edge), the ground this far beyond it along the motion is tested instead
    /// (length, `≥ 0`). Default 0.1.
    pub step_probe: Real,
    /// How far down a character that stood on the ground looks for ground to stay on
    /// (length, `≥ 0`; 0 turns snapping off). Default 0.3.
    pub snap_distance: Real,
    /// Casts per update, at most (`1..=64`). Default 8.
    pub max_iterations: u32,
    /// Recovery solves per update, at most (`0..=16`; 0 turns recovery off). Default 4.
    pub max_recovery_iterations: u32,
    /// Whether the downward part of the motion slides the character down walkable
    /// slopes (Jolt's plain projection). Default false: on walkable ground the motion's
    /// downward part is dropped before clipping, so gravity never makes the character
    /// creep down a slope it can stand on.
    pub slide_on_walkable: bool,
    /// Whether a moving ground carries the character (its velocity along the ground
    /// plane is added to the motion). Default true.
    pub carry_with_ground: bool,
}

impl Default for CharacterConfig {
    fn default() -> Self {
        Self {
            up: Vector::Y,
            skin: 0.02,
            max_slope: 45.0_f32.to_radians() as Real,
            step_height: 0.3,
            step_probe: 0.1,
            snap_distance: 0.3,
            max_iterations: 8,
            max_recovery_iterations: 4,
            slide_on_walkable: false,
            carry_with_ground: true,
        }
    }
}

/// Why the controller refused its input, or a query under it failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CharacterError {
    /// A configuration value outside its range (or NaN).
    #[error("{field} must be {expected}, got {value:?}")]
    InvalidConfig {
        /// Which field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
        /// The value given.
        value: Real,
    },
    /// An input of an update (velocity, time step, position) that is not finite or out
    /// of range.
    #[error("{field} must be {expected}")]
    InvalidInput {
        /// Which input.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// A cast or contact query refused its input (see [`CastError`]).
    #[error("query: {0}")]
    Query(#[from] CastError),
    /// The world refused a handle or pose (see [`WorldError`]).
    #[error("world: {0}")]
    World(#[from] WorldError),
}

impl CharacterConfig {
    /// Checks every field's range (see each field).
    ///
    /// # Errors
    /// [`CharacterError::InvalidConfig`] naming the first bad field.
    pub fn validate(&self) -> Result<(), CharacterError> {
        let bad = |field, expected, value| {
            Err(CharacterError::InvalidConfig {
                field,
                expected,
                value,
            })
        };
        if !(self.up.is_finite() && (self.up.length() - 1.0).abs() <= UNIT_LENGTH_TOLERANCE) {
            return bad("up", "a finite unit vector", self.up.length());
        }
        let max = minkowski::shape::MAX_MAGNITUDE;
        if !(self.skin > 0.0 && self.skin <= max) {
            return bad("skin", "a finite length > 0", self.skin);
        }
        let right = core::f64::consts::FRAC_PI_2 as Real;
        if !(self.max_slope >= 0.0 && self.max_slope < right) {
            return bad("max_slope", "an angle in [0, pi/2) radians", self.max_slope);
        }
        for (field, v) in [
            ("step_height", self.step_height),
            ("step_probe", self.step_probe),
            ("snap_distance", self.snap_distance),
        ] {
            if !(v >= 0.0 && v <= max) {
                return bad(field, "a finite length >= 0", v);
            }
        }
        if !(1..=64).contains(&self.max_iterations) {
            return bad("max_iterations", "in 1..=64", self.max_iterations as Real);
        }
        if self.max_recovery_iterations > 16 {
            return bad(
                "max_recovery_iterations",
                "in 0..=16",
                self.max_recovery_iterations as Real,
            );
        }
        Ok(())
    }

    /// The cosine of [`max_slope`](Self::max_slope): a normal `n` is walkable when
    /// `n · up ≥` it.
    pub fn walkable_cosine(&self) -> Real {
        self.max_slope.cos()
    }
}
