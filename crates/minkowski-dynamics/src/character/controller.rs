//! The character: its shape, pose and ground, and [`Character::update`], which runs
//! the steps of the [module notes](super) in order.

// Negated comparisons (`!(x > y)`) are meant: NaN takes the safe branch.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use minkowski::query::compound::Collider;
use minkowski::shape::Shape;
use minkowski::{Point, Pose, Real, Rotation, Vector};

use super::ground::{classify, find_ground, GroundState, SlopeClass};
use super::plane_solver::clip_velocity;
use super::recovery::{pose_at, recover, Recovery};
use super::scene::{CharacterContact, CharacterWorld};
use super::slide::{add_normal, clip, slide, SlideStart};
use super::tolerance::{MIN_MOVE_FRACTION, TOUCH_BAND};
use super::{CharacterConfig, CharacterError};

/// A hit of the character on something during an update, with the push a dynamic body
/// should receive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CharacterCollision<T> {
    /// What was hit.
    pub target: T,
    /// The point of the target hit (world frame).
    pub point: Point,
    /// Unit normal from the target towards the character (world frame).
    pub normal: Vector,
    /// The character's velocity when it hit (length per time, world frame).
    pub velocity: Vector,
    /// The impulse (mass × length / time, world frame, along `−normal`) that gives the
    /// target's point the character's speed into it, `m_eff · max(0, (v − v_body)·(−n))`;
    /// zero for a target that is not dynamic ([`super::BodyState::is_dynamic`]). The
    /// caller applies it at `point`.
    pub impulse: Vector,
}

/// How the slide of an update ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveStatus {
    /// The whole motion was used up (moved, or clipped to nothing).
    Complete,
    /// [`CharacterConfig::max_iterations`] casts were run before the motion was used
    /// up; the rest was dropped.
    IterationLimit,
}

/// What an update did.
#[derive(Debug, Clone, PartialEq)]
pub struct CharacterOutput<T> {
    /// The character's displacement in this update (length, world frame), recovery,
    /// carrying, sliding, stepping and snapping included.
    pub translation: Vector,
    /// The velocity given, clipped against every plane the character touches at the
    /// end (length per time, world frame): the caller's velocity for the next update
    /// (falling speed is gone once it lands, speed into a wall is gone). With
    /// [`CharacterConfig::carry_with_ground`] the velocities given and answered are the
    /// character's own, the ground's motion added by the controller; without it the
    /// clip is of the velocity relative to the ground, the ground's velocity added back.
    pub velocity: Vector,
    /// What the character stands on at the end.
    pub ground: GroundState<T>,
    /// The hits of the slide's casts, in order, with pushes for dynamic bodies (the
    /// casts of a step up, of the snap and the contacts of recovery are not reported).
    pub collisions: Vec<CharacterCollision<T>>,
    /// What recovery from overlap did at the start.
    pub recovery: Recovery,
    /// Height gained by step ups (length).
    pub stepped: Real,
    /// Distance moved down by the snap to ground (length).
    pub snapped: Real,
    /// Casts run (slide, steps and snap).
    pub iterations: u32,
    /// How the slide ended.
    pub status: MoveStatus,
}

/// A kinematic character: a convex shape with a fixed orientation moved through a
/// [`CharacterWorld`] by [`update`](Self::update). See the [module notes](super).
#[derive(Debug, Clone)]
pub struct Character<T> {
    shape: Collider,
    rotation: Rotation,
    position: Vector,
    config: CharacterConfig,
    ground: GroundState<T>,
    contacts: Vec<CharacterContact<T>>,
}

impl<T: Copy + PartialEq + core::fmt::Debug> Character<T> {
    /// A character of `shape` at `pose` (its orientation is kept for good), in the air
    /// until its first update finds ground.
    ///
    /// # Errors
    /// [`CharacterError::InvalidConfig`] from [`CharacterConfig::validate`].
    pub fn new(shape: Shape, pose: Pose, config: CharacterConfig) -> Result<Self, CharacterError> {
        config.validate()?;
        Ok(Self {
            shape: Collider::Convex(shape),
            rotation: pose.rotation(),
            position: pose.translation(),
            config,
            ground: GroundState::InAir,
            contacts: Vec::new(),
        })
    }

    /// The character's shape.
    pub fn shape(&self) -> &Collider {
        &self.shape
    }

    /// The position of the shape's local origin (world frame).
    pub fn position(&self) -> Vector {
        self.position
    }

    /// The character's pose (world frame).
    pub fn pose(&self) -> Pose {
        // The position is checked at every change.
        Pose::new(self.rotation, self.position).unwrap_or(Pose::IDENTITY)
    }

    /// Moves the character to `position` without collision (a teleport); the ground
    /// is forgotten.
    ///
    /// # Errors
    /// [`CharacterError::InvalidInput`] for a non-finite or too large position.
    pub fn set_position(&mut self, position: Vector) -> Result<(), CharacterError> {
        pose_at(self.rotation, position)?;
        self.position = position;
        self.ground = GroundState::InAir;
        Ok(())
    }

    /// The configuration.
    pub fn config(&self) -> &CharacterConfig {
        &self.config
    }

    /// Replaces the configuration.
    ///
    /// # Errors
    /// [`CharacterError::InvalidConfig`] from [`CharacterConfig::validate`] (the old one
    /// is kept).
    pub fn set_config(&mut self, config: CharacterConfig) -> Result<(), CharacterError> {
        config.validate()?;
        self.config = config;
        Ok(())
    }

    /// What the character stood on at the end of the last update.
    pub fn ground(&self) -> &GroundState<T> {
        &self.ground
    }

    /// Moves the character with `velocity` (length per time, world frame; gravity and
    /// jumps included by the caller) for `dt` (time, `> 0`) through `world`: recovery,
    /// platform carrying, cast and slide with step up, snap to ground, ground state (see
    /// the [module notes](super)).
    ///
    /// # Errors
    /// [`CharacterError::InvalidInput`] for a non-finite velocity or a `dt` that is not
    /// finite and `> 0`, or a motion that leaves the magnitude limit;
    /// [`CharacterError::Query`] / [`CharacterError::World`] when the world's queries
    /// refuse their input. The character is left where it was on an error.
    pub fn update<W: CharacterWorld<Target = T>>(
        &mut self,
        world: &W,
        velocity: Vector,
        dt: Real,
    ) -> Result<CharacterOutput<T>, CharacterError> {
        if !velocity.is_finite() {
            return Err(CharacterError::InvalidInput {
                field: "velocity",
                expected: "finite",
            });
        }
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(CharacterError::InvalidInput {
                field: "dt",
                expected: "finite and > 0",
            });
        }
        let config = self.config;
        let (up, skin) = (config.up, config.skin);
        let reach = skin * (1.0 + TOUCH_BAND);
        let start = self.position;
        let mut position = self.position;
        let mut contacts = std::mem::take(&mut self.contacts);

        // 1. Recovery; `contacts` are then those of the pose it leaves.
        let recovery = recover(
            world,
            &self.shape,
            self.rotation,
            &mut position,
            &config,
            &mut contacts,
        )?;
        let body_velocity =
            |t: T, p: Point| world.body(t).map_or(Vector::ZERO, |b| b.velocity_at(p));
        let ground_now = find_ground(&contacts, reach, &config, body_velocity);
        // The support: the ground touched now, else the ground of the last update (the
        // character may have been left a little above a sinking platform).
        let support = match (&ground_now, &self.ground) {
            (GroundState::OnGround(g), _) => Some(*g),
            (_, GroundState::OnGround(g)) => Some(super::GroundContact {
                velocity: body_velocity(g.target, g.point),
                ..*g
            }),
            _ => None,
        };

        // 2. Platform: where the ground's rigid motion over the step carries the
        // character's position, along the ground plane.
        let mut motion_velocity = velocity;
        if config.carry_with_ground {
            if let Some(g) = &support {
                if let Some(body) = world.body(g.target) {
                    let carry = body.displacement_at(position, dt);
                    let along = carry - g.normal * carry.dot(g.normal);
                    if along.is_finite() {
                        motion_velocity += along / dt;
                    }
                }
            }
        }

        // 3. Cast and slide, from the walkable planes touched now (walls and steep
        // slopes are met again by the casts, where a step up can start).
        let mut normals = Vec::new();
        for c in contacts.iter().filter(|c| c.distance <= reach) {
            if classify(c.normal, &config) == SlopeClass::Walkable {
                add_normal(&mut normals, c.normal);
            }
        }
        let slide_start = SlideStart {
            shape: &self.shape,
            rotation: self.rotation,
            config: &config,
            supported: support.is_some(),
        };
        let moved = slide(
            world,
            &slide_start,
            &mut position,
            motion_velocity,
            dt,
            &mut normals,
        )?;
        let mut iterations = moved.iterations;

        // 4. Snap to ground: it stood on the ground and is not moving away from it.
        let mut snapped = 0.0;
        if config.snap_distance > 0.0 {
            if let Some(g) = &support {
                // Moving up faster than the ground does (a jump); a ground that sinks
                // faster than gravity pulls is followed.
                let rising =
                    velocity.dot(up) > g.velocity.dot(up).max(0.0) + skin * MIN_MOVE_FRACTION / dt;
                if !rising {
                    if let Some(p) = snap_down(
                        world,
                        &self.shape,
                        self.rotation,
                        position,
                        &config,
                        &mut iterations,
                    )? {
                        snapped = (position - p).dot(up);
                        position = p;
                    }
                }
            }
        }

        // 5. Ground at the final pose, and the velocity for the next update.
        contacts.clear();
        world.contacts(
            &self.shape,
            &pose_at(self.rotation, position)?,
            reach,
            &mut contacts,
        )?;
        let ground = find_ground(&contacts, reach, &config, body_velocity);
        let mut touching = Vec::new();
        for c in contacts.iter().filter(|c| c.distance <= reach) {
            add_normal(&mut touching, c.normal);
        }
        // The velocity relative to a moving ground is what the planes clip; carried,
        // the character's velocity is already that relative one.
        let ground_velocity = match &ground {
            GroundState::OnGround(g) | GroundState::OnSteepGround(g)
                if !config.carry_with_ground =>
            {
                g.velocity
            }
            _ => Vector::ZERO,
        };
        let out_velocity = clip(velocity - ground_velocity, &touching, &config) + ground_velocity;

        let collisions = moved
            .hits
            .iter()
            .map(|h| {
                let body = world.body(h.hit.target);
                let push = -h.hit.normal;
                let impulse = match body {
                    Some(b) if b.is_dynamic() => {
                        let speed = (h.velocity - b.velocity_at(h.hit.point)).dot(push);
                        if speed > 0.0 {
                            push * (speed / b.inverse_mass)
                        } else {
                            Vector::ZERO
                        }
                    }
                    _ => Vector::ZERO,
                };
                CharacterCollision {
                    target: h.hit.target,
                    point: h.hit.point,
                    normal: h.hit.normal,
                    velocity: h.velocity,
                    impulse,
                }
            })
            .collect();

        self.position = position;
        self.ground = ground;
        self.contacts = contacts;
        Ok(CharacterOutput {
            translation: position - start,
            velocity: out_velocity,
            ground,
            collisions,
            recovery,
            stepped: moved.stepped,
            snapped,
            iterations,
            status: if moved.complete {
                MoveStatus::Complete
            } else {
                MoveStatus::IterationLimit
            },
        })
    }
}

/// Casts per snap, at most.
const SNAP_CASTS: u32 = 3;

/// The snap to ground: a slide straight down by at most the snap distance that ends on
/// walkable ground, or `None`. A cast that meets something steeper first (the edge of
/// the step the character walked off, under its rounded bottom) glides along it and
/// goes on down; the drop never exceeds the snap distance (clipping only shortens the
/// motion).
fn snap_down<W: CharacterWorld>(
    world: &W,
    shape: &Collider,
    rotation: Rotation,
    position: Vector,
    config: &CharacterConfig,
    iterations: &mut u32,
) -> Result<Option<Vector>, CharacterError> {
    let mut p = position;
    let mut motion = -config.up * config.snap_distance;
    let mut normals: Vec<Vector> = Vec::new();
    for _ in 0..SNAP_CASTS {
        *iterations += 1;
        let Some(h) = world.cast(shape, &pose_at(rotation, p)?, motion, config.skin)? else {
            return Ok(None);
        };
        p += motion * h.toi;
        if classify(h.normal, config) == SlopeClass::Walkable {
            return Ok(Some(p));
        }
        normals.push(h.normal);
        motion = clip_velocity(motion * (1.0 - h.toi), &normals);
        if !(motion.dot(-config.up) > config.skin * MIN_MOVE_FRACTION) {
            return Ok(None);
        }
    }
    Ok(None)
}
