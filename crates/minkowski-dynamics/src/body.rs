//! Rigid bodies: dynamic, kinematic and static, with their mass properties, pose and
//! velocities.
//!
//! A body's state is its centre of mass `position` (world, length) and `rotation`
//! (unit quaternion, local to world), its `linear_velocity` (length/s, of the centre of
//! mass) and `angular_velocity` (rad/s, world axes). The collider is placed at
//! [`Body::collider_pose`]: the rotation and the translation that puts the collider's
//! local centre of mass at `position`.

use crate::mass_properties::{self, MassError, MassProperties};
use minkowski::math::Matrix3;
use minkowski::query::compound::Collider;
use minkowski::{Pose, PoseError, Real, Rotation, Vector};

/// How a body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BodyKind {
    /// Moved by gravity and contacts; has finite mass.
    Dynamic,
    /// Moved by its velocity only (set by the caller); pushes dynamic bodies as if of
    /// infinite mass, and is not pushed.
    Kinematic,
    /// Never moves (infinite mass, zero velocity).
    Static,
}

/// What a body is made from; see [`Body::new`].
#[derive(Debug, Clone)]
pub struct BodyDesc {
    /// How the body moves.
    pub kind: BodyKind,
    /// Its collision shape (local frame).
    pub collider: Collider,
    /// The collider's world pose at the start.
    pub pose: Pose,
    /// The centre of mass's velocity (length/s, world).
    pub linear_velocity: Vector,
    /// The angular velocity (rad/s, world axes).
    pub angular_velocity: Vector,
    /// Uniform density (mass per cubic length) for a dynamic body; ignored otherwise.
    pub density: Real,
    /// Coulomb friction coefficient (≥ 0); a pair uses the geometric mean.
    pub friction: Real,
    /// Coefficient of restitution in `[0, 1]`; a pair uses the larger.
    pub restitution: Real,
}

impl BodyDesc {
    /// A dynamic body of density 1 at `pose`, at rest, friction 0.6, restitution 0.
    pub fn dynamic(collider: impl Into<Collider>, pose: Pose) -> Self {
        BodyDesc {
            kind: BodyKind::Dynamic,
            collider: collider.into(),
            pose,
            linear_velocity: Vector::ZERO,
            angular_velocity: Vector::ZERO,
            density: 1.0,
            friction: 0.6,
            restitution: 0.0,
        }
    }

    /// A static body at `pose`.
    pub fn fixed(collider: impl Into<Collider>, pose: Pose) -> Self {
        BodyDesc {
            kind: BodyKind::Static,
            ..BodyDesc::dynamic(collider, pose)
        }
    }

    /// A kinematic body at `pose` moving at the given velocities.
    pub fn kinematic(
        collider: impl Into<Collider>,
        pose: Pose,
        linear: Vector,
        angular: Vector,
    ) -> Self {
        BodyDesc {
            kind: BodyKind::Kinematic,
            linear_velocity: linear,
            angular_velocity: angular,
            ..BodyDesc::dynamic(collider, pose)
        }
    }
}

/// Why a body could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BodyError {
    /// The dynamic body's mass properties (density or shape).
    #[error("mass properties: {0}")]
    Mass(#[from] MassError),
    /// A velocity, friction or restitution that is not finite or out of range.
    #[error("{field} must be finite and in range, got {value}")]
    InvalidValue {
        /// The field's name.
        field: &'static str,
        /// Its value (the first non-finite component for vectors).
        value: Real,
    },
}

/// A rigid body (see the module notes for the state's frames and units).
#[derive(Debug, Clone)]
pub struct Body {
    pub(crate) kind: BodyKind,
    pub(crate) collider: Collider,
    /// Centre of mass, world.
    pub(crate) position: Vector,
    pub(crate) rotation: Rotation,
    /// Centre of mass in the collider's frame.
    pub(crate) local_center: Vector,
    pub(crate) linear_velocity: Vector,
    pub(crate) angular_velocity: Vector,
    pub(crate) mass: Real,
    pub(crate) inv_mass: Real,
    /// Inertia about the centre of mass, collider axes.
    pub(crate) inertia_local: Matrix3,
    pub(crate) inv_inertia_local: Matrix3,
    pub(crate) friction: Real,
    pub(crate) restitution: Real,
    /// Seconds spent below the sleep velocities.
    pub(crate) sleep_time: Real,
    pub(crate) asleep: bool,
}

impl Body {
    /// A body from its description: a dynamic body gets its mass properties from its
    /// collider and density ([`mass_properties::of_collider`]).
    ///
    /// # Errors
    /// [`BodyError::Mass`] for a bad density or a dynamic shape without volume;
    /// [`BodyError::InvalidValue`] for non-finite velocities, a negative or non-finite
    /// friction, or a restitution outside `[0, 1]`.
    pub fn new(desc: BodyDesc) -> Result<Body, BodyError> {
        check_vec("linear_velocity", desc.linear_velocity)?;
        check_vec("angular_velocity", desc.angular_velocity)?;
        if !(desc.friction.is_finite() && desc.friction >= 0.0) {
            return Err(BodyError::InvalidValue {
                field: "friction",
                value: desc.friction,
            });
        }
        if !(0.0..=1.0).contains(&desc.restitution) {
            return Err(BodyError::InvalidValue {
                field: "restitution",
                value: desc.restitution,
            });
        }
        let mp = match desc.kind {
            BodyKind::Dynamic => mass_properties::of_collider(&desc.collider, desc.density)?,
            _ => MassProperties {
                mass: 0.0,
                center: Vector::ZERO,
                inertia: Matrix3::ZERO,
            },
        };
        let (inv_mass, inv_inertia) = if desc.kind == BodyKind::Dynamic {
            (1.0 / mp.mass, mp.inertia.inverse())
        } else {
            (0.0, Matrix3::ZERO)
        };
        let (lin, ang) = if desc.kind == BodyKind::Static {
            (Vector::ZERO, Vector::ZERO)
        } else {
            (desc.linear_velocity, desc.angular_velocity)
        };
        Ok(Body {
            kind: desc.kind,
            collider: desc.collider,
            position: desc.pose.transform_point(mp.center),
            rotation: desc.pose.rotation(),
            local_center: mp.center,
            linear_velocity: lin,
            angular_velocity: ang,
            mass: mp.mass,
            inv_mass,
            inertia_local: mp.inertia,
            inv_inertia_local: inv_inertia,
            friction: desc.friction,
            restitution: desc.restitution,
            sleep_time: 0.0,
            asleep: false,
        })
    }

    /// How the body moves.
    pub fn kind(&self) -> BodyKind {
        self.kind
    }
    /// The collider (local frame).
    pub fn collider(&self) -> &Collider {
        &self.collider
    }
    /// The centre of mass (world, length).
    pub fn position(&self) -> Vector {
        self.position
    }
    /// The rotation (unit quaternion, local to world).
    pub fn rotation(&self) -> Rotation {
        self.rotation
    }
    /// The collider's world pose.
    ///
    /// # Errors
    /// [`PoseError`] when the body has left the range of valid poses (translation too
    /// large or not finite).
    pub fn collider_pose(&self) -> Result<Pose, PoseError> {
        Pose::new(
            self.rotation,
            self.position - self.rotation * self.local_center,
        )
    }
    /// The centre of mass's velocity (length/s, world).
    pub fn linear_velocity(&self) -> Vector {
        self.linear_velocity
    }
    /// The angular velocity (rad/s, world axes).
    pub fn angular_velocity(&self) -> Vector {
        self.angular_velocity
    }
    /// The mass (0 for kinematic and static bodies).
    pub fn mass(&self) -> Real {
        self.mass
    }
    /// The inverse mass (0 for kinematic and static bodies).
    pub fn inv_mass(&self) -> Real {
        self.inv_mass
    }
    /// The centre of mass in the collider's frame.
    pub fn local_center(&self) -> Vector {
        self.local_center
    }
    /// The inertia tensor about the centre of mass, world axes (mass·length²).
    pub fn world_inertia(&self) -> Matrix3 {
        let r = Matrix3::from_quat(self.rotation);
        r * self.inertia_local * r.transpose()
    }
    /// The inverse inertia tensor, world axes (zero for kinematic and static bodies).
    pub fn world_inv_inertia(&self) -> Matrix3 {
        let r = Matrix3::from_quat(self.rotation);
        r * self.inv_inertia_local * r.transpose()
    }
    /// The angular momentum about the centre of mass (world).
    pub fn angular_momentum(&self) -> Vector {
        self.world_inertia() * self.angular_velocity
    }
    /// The kinetic energy, translational plus rotational.
    pub fn kinetic_energy(&self) -> Real {
        0.5 * self.mass * self.linear_velocity.length_squared()
            + 0.5
                * self
                    .angular_velocity
                    .dot(self.world_inertia() * self.angular_velocity)
    }
    /// Whether the body sleeps (its island has been still for the sleep time).
    pub fn is_asleep(&self) -> bool {
        self.asleep
    }
    /// Friction coefficient.
    pub fn friction(&self) -> Real {
        self.friction
    }
    /// Restitution coefficient.
    pub fn restitution(&self) -> Real {
        self.restitution
    }
    /// The velocity of the body's material point at world point `p`.
    pub fn velocity_at(&self, p: Vector) -> Vector {
        self.linear_velocity + self.angular_velocity.cross(p - self.position)
    }

    /// Sets the velocities (ignored for a static body) and wakes the body.
    ///
    /// # Errors
    /// [`BodyError::InvalidValue`] for a non-finite component.
    pub fn set_velocity(&mut self, linear: Vector, angular: Vector) -> Result<(), BodyError> {
        check_vec("linear_velocity", linear)?;
        check_vec("angular_velocity", angular)?;
        if self.kind != BodyKind::Static {
            self.linear_velocity = linear;
            self.angular_velocity = angular;
            self.wake();
        }
        Ok(())
    }

    /// Moves the body so that its collider is at `pose`, and wakes it.
    pub fn set_pose(&mut self, pose: Pose) {
        self.rotation = pose.rotation();
        self.position = pose.transform_point(self.local_center);
        self.wake();
    }

    /// Wakes the body (resets its sleep timer).
    pub fn wake(&mut self) {
        self.asleep = false;
        self.sleep_time = 0.0;
    }

    /// Whether the body moves under the solver (dynamic).
    pub fn is_dynamic(&self) -> bool {
        self.kind == BodyKind::Dynamic
    }
}

fn check_vec(field: &'static str, v: Vector) -> Result<(), BodyError> {
    match v.to_array().into_iter().find(|c| !c.is_finite()) {
        Some(value) => Err(BodyError::InvalidValue { field, value }),
        None => Ok(()),
    }
}
