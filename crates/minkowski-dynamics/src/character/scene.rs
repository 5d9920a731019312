//! What the character needs from the world it moves in: a shape cast, the contacts of
//! its shape at a pose, and (optionally) the motion and mass of what it touches — the
//! [`CharacterWorld`] trait — with the answers' types.
//!
//! Keeping the controller behind this trait keeps it independent of any body store:
//! [`super::WorldScene`] answers over the collision library's
//! [`minkowski::world::World`] (objects and statics), and a dynamics engine answers with
//! its own bodies. Every normal points from the obstacle towards the character (the
//! direction that pushes the character out), every point and vector is in the world
//! frame.

use minkowski::query::compound::Collider;
use minkowski::{Point, Pose, Real, Vector};

use super::CharacterError;

/// How a cast's shape stood at the start of its motion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitStart {
    /// Farther from the obstacle than the skin.
    Separated,
    /// Within the skin of the obstacle (not penetrating), and moving towards it.
    WithinSkin,
    /// Penetrating the obstacle.
    Overlapping,
}

/// The first obstacle a cast meets ([`CharacterWorld::cast`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CharacterHit<T> {
    /// What was hit.
    pub target: T,
    /// The fraction of the translation travelled before coming within the skin of the
    /// obstacle (in `[0, 1]`; 0 when starting within the skin and approaching, or
    /// overlapping). A lower bound: moving by it never passes into the obstacle.
    pub toi: Real,
    /// Unit normal from the obstacle towards the character at the time of impact
    /// (world frame).
    pub normal: Vector,
    /// The point of the obstacle nearest the character at the time of impact (world
    /// frame).
    pub point: Point,
    /// How the shapes stood at the start.
    pub start: HitStart,
}

/// One contact point of the character's shape at a pose ([`CharacterWorld::contacts`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CharacterContact<T> {
    /// What is touched.
    pub target: T,
    /// The point on the obstacle (world frame).
    pub point: Point,
    /// Unit normal from the obstacle towards the character (world frame).
    pub normal: Vector,
    /// Signed distance along the normal (length; negative: penetration depth).
    pub distance: Real,
}

/// The motion and mass of a touched object, for moving platforms and pushing
/// ([`CharacterWorld::body`]): a rigid motion (the velocity of a reference point and an
/// angular velocity about it) and an inverse mass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyState {
    /// A point of the body (world frame), usually its centre of mass: the reference of
    /// `linear_velocity` and the centre of `angular_velocity`.
    pub center: Point,
    /// The velocity of `center` (length per time, world frame).
    pub linear_velocity: Vector,
    /// The angular velocity (radians per time, world frame, right-handed about its
    /// direction).
    pub angular_velocity: Vector,
    /// The object's inverse effective mass for a push at the contact (1/mass units;
    /// `1/m + ((r × n) · I⁻¹ (r × n))` for a rigid body, or `1/m` for a point-mass
    /// view). 0: the object is not moved by the character (static or kinematic: a
    /// platform).
    pub inverse_mass: Real,
}

impl BodyState {
    /// A body that does not move and cannot be pushed.
    pub const FIXED: BodyState = BodyState {
        center: Vector::ZERO,
        linear_velocity: Vector::ZERO,
        angular_velocity: Vector::ZERO,
        inverse_mass: 0.0,
    };

    /// A body translating at `velocity` (no rotation) with the given inverse mass.
    pub fn translating(velocity: Vector, inverse_mass: Real) -> Self {
        Self {
            linear_velocity: velocity,
            inverse_mass,
            ..Self::FIXED
        }
    }

    /// Whether the character's pushes move it (`inverse_mass > 0`).
    pub fn is_dynamic(&self) -> bool {
        self.inverse_mass > 0.0
    }

    /// The velocity of the body's material point at `p` (world frame):
    /// `v + ω × (p − center)`.
    pub fn velocity_at(&self, p: Point) -> Vector {
        self.linear_velocity + self.angular_velocity.cross(p - self.center)
    }

    /// Where the body's rigid motion over `dt` carries the material point at `p`, as a
    /// displacement (world frame): the rotation by `ω dt` about the centre, exactly
    /// (not `velocity_at(p) · dt`, which drifts outwards on a turning platform), then
    /// the centre's translation.
    pub fn displacement_at(&self, p: Point, dt: Real) -> Vector {
        let turn = self.angular_velocity * dt;
        let arm = p - self.center;
        let turned = match turn.try_normalize() {
            Some(axis) => minkowski::Rotation::from_axis_angle(axis, turn.length()) * arm,
            None => arm,
        };
        turned - arm + self.linear_velocity * dt
    }
}

/// The geometry a [`super::Character`] moves through.
///
/// Implementations answer in the world frame with normals from the obstacle towards the
/// character. They must not report the character itself (exclude it when it is in the
/// same world).
pub trait CharacterWorld {
    /// What an answer names as hit or touched (an object or static handle, a body id).
    type Target: Copy + PartialEq + core::fmt::Debug;

    /// The first obstacle `shape`, at `pose` and translating by `translation` (length,
    /// world frame) over the unit interval, comes within `skin` (length, `> 0`) of; `None`
    /// when it meets none, or starts within the skin of one and does not approach it
    /// (sliding along it or leaving it). An obstacle the shape starts within the skin of
    /// and approaches, or overlaps, is hit at `toi = 0`.
    ///
    /// # Errors
    /// [`CharacterError::Query`] when the underlying query refuses its input.
    fn cast(
        &self,
        shape: &Collider,
        pose: &Pose,
        translation: Vector,
        skin: Real,
    ) -> Result<Option<CharacterHit<Self::Target>>, CharacterError>;

    /// Appends to `out` the contact points of `shape` at `pose` with every obstacle
    /// within `margin` (length, `≥ 0`), penetrating ones included (a manifold's points,
    /// one to four per touching region).
    ///
    /// # Errors
    /// [`CharacterError::Query`] when the underlying query refuses its input.
    fn contacts(
        &self,
        shape: &Collider,
        pose: &Pose,
        margin: Real,
        out: &mut Vec<CharacterContact<Self::Target>>,
    ) -> Result<(), CharacterError>;

    /// The motion and mass of `target`; `None` (the default) for geometry that neither
    /// moves nor can be pushed.
    fn body(&self, target: Self::Target) -> Option<BodyState> {
        let _ = target;
        None
    }
}
