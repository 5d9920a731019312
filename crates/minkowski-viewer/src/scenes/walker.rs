//! The character of the terrain scenes: the dynamics crate's character controller
//! (`minkowski_dynamics::character`: a capsule moved by shape casts, gliding along what
//! it meets, stepping up, snapping to the ground) over a collision [`World`] through
//! its [`WorldScene`], walking a scripted circle — or driven with the arrow keys while
//! they are held (Up −z, Down +z, Left −x, Right +x, as the demo's player), back to the
//! circle when they are released.
//!
//! Gravity is the caller's (the controller moves a kinematic shape): the vertical speed
//! grows by `g dt` each frame in the air and is the controller's clipped answer (zero
//! on landing) otherwise. A character that falls off the terrain is put back at its
//! start.

use std::time::Instant;

use minkowski::shape::{Capsule, Shape};
use minkowski::world::{Target, World};
use minkowski::{Pose, Real, Vector};
use minkowski_dynamics::character::{Character, CharacterConfig, WorldScene};

use crate::script::{FrameInput, Key};
use crate::ViewerError;

/// Gravity (length per time², down).
pub const GRAVITY: Real = 9.81;
/// Walking speed along the path and with the arrows (length per time).
pub const WALK_SPEED: Real = 2.5;
/// The capsule: half the length of its segment and its radius (length): 1.6 tall.
pub const CAPSULE: (Real, Real) = (0.5, 0.3);
/// How fast the walk turns back towards the circle (per time).
pub const PATH_GAIN: Real = 1.2;

/// A circle in the horizontal plane, walked counter-clockwise seen from above.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CirclePath {
    /// The centre (its `y` is ignored).
    pub centre: Vector,
    /// The radius (length, > 0).
    pub radius: Real,
}

impl CirclePath {
    /// The horizontal walking velocity at `p`: along the circle, turned towards it by
    /// [`PATH_GAIN`] per unit of radial error, at [`WALK_SPEED`].
    pub fn velocity(&self, p: Vector) -> Vector {
        let r = Vector::new(p.x - self.centre.x, 0.0, p.z - self.centre.z);
        let dist = r.length();
        let Some(out) = r.try_normalize() else {
            return Vector::X * WALK_SPEED;
        };
        let along = Vector::new(out.z, 0.0, -out.x);
        let v = along * WALK_SPEED + out * (PATH_GAIN * (self.radius - dist));
        v.normalize_or_zero() * WALK_SPEED
    }

    /// The angle of `p` about the centre (radians, `atan2(−z, x)` relative to it: grows
    /// along the walk).
    pub fn angle(&self, p: Vector) -> Real {
        (-(p.z - self.centre.z)).atan2(p.x - self.centre.x)
    }
}

/// The walking character (see the module notes).
pub struct Walker {
    character: Character<Target>,
    shape: Shape,
    vertical: Real,
    path: CirclePath,
    start: Vector,
    floor: Real,
    driven: bool,
    grounded: bool,
    touched: Vec<Target>,
    ground_normal: Option<(Vector, Vector)>,
    update_ms: f64,
    respawns: usize,
    error: Option<String>,
}

impl Walker {
    /// A capsule character at `start` walking `path`; put back at `start` if it falls
    /// below `floor` (height).
    ///
    /// # Errors
    /// [`ViewerError::Shape`] / [`ViewerError::Pose`] for a refused capsule or pose, and
    /// [`ViewerError::World`] if the controller refuses its configuration (none is).
    pub fn new(start: Vector, path: CirclePath, floor: Real) -> Result<Walker, ViewerError> {
        let shape = Shape::from(Capsule::new(CAPSULE.0, CAPSULE.1)?);
        let character = Character::new(
            shape.clone(),
            Pose::from_translation(start)?,
            CharacterConfig::default(),
        )
        .map_err(|e| ViewerError::World(format!("character: {e}")))?;
        Ok(Walker {
            character,
            shape,
            vertical: 0.0,
            path,
            start,
            floor,
            driven: false,
            grounded: false,
            touched: Vec::new(),
            ground_normal: None,
            update_ms: 0.0,
            respawns: 0,
            error: None,
        })
    }

    /// One frame: the velocity from the arrows or the path, gravity, the controller's
    /// update through `world`.
    pub fn update(&mut self, world: &World, input: &FrameInput, dt: Real) {
        let axis = |plus: Key, minus: Key| {
            (input.is_held(plus) as i32 - input.is_held(minus) as i32) as Real
        };
        let arrows = Vector::new(axis(Key::Right, Key::Left), 0.0, axis(Key::Down, Key::Up));
        self.driven = arrows != Vector::ZERO;
        let p = self.character.position();
        let horizontal = if self.driven {
            arrows.normalize_or_zero() * WALK_SPEED
        } else {
            self.path.velocity(p)
        };
        self.vertical -= GRAVITY * dt;
        let velocity = horizontal + Vector::Y * self.vertical;
        let scene = WorldScene::new(world);
        let t = Instant::now();
        let result = self.character.update(&scene, velocity, dt);
        self.update_ms = t.elapsed().as_secs_f64() * 1e3;
        match result {
            Ok(out) => {
                self.grounded = out.ground.is_on_ground();
                self.vertical = if self.grounded { 0.0 } else { out.velocity.y };
                self.touched = out.collisions.iter().map(|c| c.target).collect();
                self.ground_normal = out.ground.contact().map(|g| (g.point, g.normal));
                self.error = None;
            }
            Err(e) => self.error = Some(e.to_string()),
        }
        if self.character.position().y < self.floor {
            if self.character.set_position(self.start).is_ok() {
                self.respawns += 1;
            }
            self.vertical = 0.0;
        }
    }

    /// The character's pose.
    pub fn pose(&self) -> Pose {
        self.character.pose()
    }

    /// The character's shape.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Whether the last update ended on walkable ground.
    pub fn grounded(&self) -> bool {
        self.grounded
    }

    /// What the last update's casts hit.
    pub fn touched(&self) -> &[Target] {
        &self.touched
    }

    /// The ground point and normal under the character, if it stands on something.
    pub fn ground_normal(&self) -> Option<(Vector, Vector)> {
        self.ground_normal
    }

    /// The path walked.
    pub fn path(&self) -> &CirclePath {
        &self.path
    }

    /// The last update's time (ms).
    pub fn update_ms(&self) -> f64 {
        self.update_ms
    }

    /// The HUD line of the character.
    pub fn hud(&self) -> String {
        let p = self.character.position();
        let mut line = format!(
            "character: {} at ({:.2}, {:.2}, {:.2}), {}",
            if self.driven {
                "driven by the arrows"
            } else {
                "circle walk (arrows drive)"
            },
            p.x,
            p.y,
            p.z,
            if self.grounded {
                "on ground"
            } else {
                "in the air"
            },
        );
        if !self.touched.is_empty() {
            line.push_str(&format!(", gliding ({} hits)", self.touched.len()));
        }
        if self.respawns > 0 {
            line.push_str(&format!(", fell off {}x", self.respawns));
        }
        if let Some(e) = &self.error {
            line.push_str(&format!(", error: {e}"));
        }
        line
    }
}
