//! Shared scenery and a Jolt-style driver for the character tests.
#![allow(dead_code)]

use minkowski::shape::{Capsule, Cuboid, HalfSpace, Shape};
use minkowski::world::{BroadPhaseKind, ObjectHandle, Target, World, WorldOptions};
use minkowski::{Pose, Real, Rotation, Vector};
use minkowski_dynamics::character::{
    BodyState, Character, CharacterConfig, CharacterOutput, GroundState, WorldScene,
};

pub const DT: Real = 1.0 / 60.0;
pub const GRAVITY: Real = -9.81;

/// splitmix64, seeded.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
    /// Uniform on the unit sphere.
    pub fn dir(&mut self) -> [f64; 3] {
        loop {
            let v = [
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            ];
            let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            if l > 0.1 && l <= 1.0 {
                return [v[0] / l, v[1] / l, v[2] / l];
            }
        }
    }
}

pub fn v(x: Real, y: Real, z: Real) -> Vector {
    Vector::new(x, y, z)
}

pub fn at(p: Vector) -> Pose {
    Pose::from_translation(p).expect("valid pose")
}

pub fn capsule(half: Real, r: Real) -> Shape {
    Shape::from(Capsule::new(half, r).expect("capsule"))
}

pub fn cuboid(h: Vector) -> Shape {
    Shape::from(Cuboid::new(h).expect("cuboid"))
}

pub fn world() -> World {
    World::new(BroadPhaseKind::SweepAndPrune, WorldOptions::default())
}

/// A floor: the half-space y ≤ 0.
pub fn floor(w: &mut World) {
    w.insert_static(
        HalfSpace::new(Vector::Y, 0.0).expect("plane"),
        Pose::IDENTITY,
    )
    .expect("static");
}

/// A box object (centre, half extents, rotation).
pub fn block(w: &mut World, centre: Vector, half: Vector, rotation: Rotation) -> ObjectHandle {
    let pose = Pose::new(rotation, centre).expect("pose");
    w.insert(cuboid(half), pose).expect("insert")
}

/// The standard player: a capsule of half height 0.5, radius 0.3.
pub const HALF: Real = 0.5;
pub const RADIUS: Real = 0.3;

pub fn player(centre: Vector, config: CharacterConfig) -> Character<Target> {
    Character::new(capsule(HALF, RADIUS), at(centre), config).expect("character")
}

/// The height of the standard player's centre resting on a floor at `y` (a skin above).
pub fn rest_height(y: Real, config: &CharacterConfig) -> Real {
    y + HALF + RADIUS + config.skin
}

/// A Jolt-style driver: on the ground the velocity is the walking speed and a jump
/// (the controller adds the ground's motion); in the air the vertical velocity is kept (from
/// the controller's clipped answer) and the walking speed added; gravity each step.
pub struct Driver {
    pub walk: Vector,
    pub velocity: Vector,
    pub jump: Real,
}

impl Driver {
    pub fn new(walk: Vector) -> Self {
        Self {
            walk,
            velocity: Vector::ZERO,
            jump: 0.0,
        }
    }

    pub fn step(
        &mut self,
        ch: &mut Character<Target>,
        scene: &WorldScene<'_>,
    ) -> CharacterOutput<Target> {
        let up = ch.config().up;
        let mut vel = match ch.ground() {
            // The controller carries the character with its ground.
            GroundState::OnGround(_) => up * self.jump,
            _ => up * self.velocity.dot(up),
        };
        self.jump = 0.0;
        vel += self.walk + up * (GRAVITY * DT);
        let out = ch.update(scene, vel, DT).expect("update");
        self.velocity = out.velocity;
        out
    }
}

/// A body lookup for one moving or pushable object.
pub fn one_body(handle: ObjectHandle, state: BodyState) -> impl Fn(Target) -> Option<BodyState> {
    move |t| (t == Target::Object(handle)).then_some(state)
}
