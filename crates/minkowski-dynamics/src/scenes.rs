//! Named benchmark scenes of issue 22, for `minkowski sim` and the stability tests.
//!
//! Every scene is built on a ground half-space `y ≤ 0` (the terrain scene on a
//! heightfield), gravity 9.81 down, steps of 1/60 s. Boxes are unit cubes of density 1
//! unless said otherwise. A *stacking* scene's figures include the drift: the largest
//! horizontal displacement of any dynamic body from where it started.

use crate::body::BodyDesc;
use crate::world::{World, WorldError, WorldSettings};
use minkowski::query::compound::Collider;
use minkowski::shape::{
    Capsule, Compound, Cuboid, HalfSpace, HeightField, Shape, Sphere, StaticShape,
};
use minkowski::{Pose, Real, Rotation, Vector};
use std::sync::Arc;

/// The scene names [`build`] knows, in the order `minkowski sim --help` lists them.
pub const SCENE_NAMES: &[&str] = &[
    "free_fall",
    "stack",
    "pyramid",
    "large_pyramid",
    "card_house",
    "mass_ratio",
    "friction_ramp",
    "tumbler",
    "terrain_character",
];

/// A scene ready to step.
#[derive(Debug)]
pub struct Scene {
    /// Its name.
    pub name: &'static str,
    /// The world.
    pub world: World,
    /// The time step (s).
    pub dt: Real,
    /// Whether the drift figure applies (stacks, pyramids, card house, mass ratio).
    pub stacking: bool,
    /// The start positions of the bodies (centres of mass).
    pub start: Vec<Vector>,
    /// A kinematic body driven along a scripted path by [`Scene::before_step`], if any.
    pub scripted: Option<crate::world::BodyId>,
}

/// Why a scene could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SceneError {
    /// No scene of that name (see [`SCENE_NAMES`]).
    #[error("unknown scene '{0}' (known: {known})", known = SCENE_NAMES.join(", "))]
    Unknown(String),
    /// A shape or pose of the scene was refused (a bug of the scene's constants).
    #[error("scene geometry: {0}")]
    Geometry(String),
    /// Building the world failed.
    #[error("world: {0}")]
    World(#[from] WorldError),
}

fn bad(e: impl std::fmt::Display) -> SceneError {
    SceneError::Geometry(e.to_string())
}

fn at(x: Real, y: Real, z: Real) -> Result<Pose, SceneError> {
    Pose::from_translation(Vector::new(x, y, z)).map_err(bad)
}

fn cube(h: Real) -> Result<Shape, SceneError> {
    Cuboid::new(Vector::splat(h)).map(Shape::from).map_err(bad)
}

fn ground(world: &mut World) -> Result<(), SceneError> {
    let plane = HalfSpace::new(Vector::Y, 0.0).map_err(bad)?;
    world.add_static(StaticShape::HalfSpace(plane), Pose::IDENTITY, 0.6, 0.0)?;
    Ok(())
}

/// A vertical stack of `n` unit cubes.
pub fn stack(world: &mut World, n: usize) -> Result<(), SceneError> {
    ground(world)?;
    for i in 0..n {
        world.add_body(BodyDesc::dynamic(
            cube(0.5)?,
            at(0.0, 0.5 + i as Real, 0.0)?,
        ))?;
    }
    Ok(())
}

/// A pyramid of `rows` rows of unit cubes (row `k` from the bottom has `rows − k`),
/// `rows (rows + 1) / 2` boxes in all, in the XY plane.
pub fn pyramid(world: &mut World, rows: usize) -> Result<(), SceneError> {
    ground(world)?;
    for row in 0..rows {
        let count = rows - row;
        for k in 0..count {
            let x = (k as Real - 0.5 * (count as Real - 1.0)) * 1.0;
            world.add_body(BodyDesc::dynamic(
                cube(0.5)?,
                at(x, 0.5 + row as Real, 0.0)?,
            ))?;
        }
    }
    Ok(())
}

/// Builds scene `name` with `threads` narrow-phase threads (0: rayon's pool).
///
/// # Errors
/// [`SceneError::Unknown`] for an unknown name.
pub fn build(name: &str, threads: usize) -> Result<Scene, SceneError> {
    let Some(&name) = SCENE_NAMES.iter().find(|n| **n == name) else {
        return Err(SceneError::Unknown(name.to_string()));
    };
    let mut world = World::new(WorldSettings {
        threads,
        ..WorldSettings::default()
    });
    let mut stacking = true;
    let mut scripted = None;
    match name {
        "free_fall" => {
            stacking = false;
            ground(&mut world)?;
            for i in 0..10 {
                let s = Shape::from(Sphere::new(0.25).map_err(bad)?);
                world.add_body(BodyDesc::dynamic(s, at(i as Real, 5.0 + i as Real, 0.0)?))?;
            }
        }
        "stack" => stack(&mut world, 20)?,
        "pyramid" => pyramid(&mut world, 20)?,
        "large_pyramid" => pyramid(&mut world, 100)?,
        "card_house" => {
            // Three storeys of leaning card pairs (thin boxes at ±20° from vertical, the
            // tops of each pair leaning together until their inner top edges meet over
            // the pair's centre) with flat cards across the pairs' apexes. A card of
            // half-extents (t, hl, w) turned by θ about z has its top inner edge
            // hl·sinθ + t·cosθ across from its centre, its lowest edge hl·cosθ + t·sinθ
            // below it, and its top outer edge 2t·sinθ above the inner one: the flats
            // rest on the outer edges.
            ground(&mut world)?;
            let (t, hl, w) = (0.02, 0.5, 0.35);
            let card = Shape::from(Cuboid::new(Vector::new(t, hl, w)).map_err(bad)?);
            let flat_half = 0.5;
            let flat = Shape::from(Cuboid::new(Vector::new(flat_half, t, w)).map_err(bad)?);
            // Apexes 1 cm more than a flat apart: each flat rests on the facing outer top
            // edges of two neighbouring pairs, and neighbouring flats do not touch (a
            // pair's footprint, ±(2·hl·sinθ + 2t·cosθ) ≈ ±0.38, leaves 0.25 between pairs).
            let spacing = 2.0 * flat_half + 0.01;
            let tilt: Real = (20.0 as Real).to_radians();
            let height = 2.0 * hl * tilt.cos();
            let foot = hl * tilt.sin();
            let mut y0 = 0.0;
            for storey in 0..3 {
                let pairs = 3 - storey;
                for p in 0..pairs {
                    let cx = (p as Real - 0.5 * (pairs as Real - 1.0)) * spacing;
                    for side in [-1.0 as Real, 1.0] {
                        // side = 1: the left card, its top leaning to +x.
                        let rot = Rotation::from_rotation_z(-side * tilt);
                        let pose = Pose::new(
                            rot,
                            Vector::new(
                                cx - side * (foot + t * tilt.cos()),
                                y0 + 0.5 * height + t * tilt.sin(),
                                0.0,
                            ),
                        )
                        .map_err(bad)?;
                        let mut d = BodyDesc::dynamic(card.clone(), pose);
                        d.friction = 0.9;
                        world.add_body(d)?;
                    }
                }
                y0 += height + 2.0 * t * tilt.sin() + 2.0 * t;
                if storey < 2 {
                    for p in 0..pairs - 1 {
                        let cx = (p as Real + 0.5 - 0.5 * (pairs as Real - 1.0)) * spacing;
                        let mut d = BodyDesc::dynamic(flat.clone(), at(cx, y0 - t, 0.0)?);
                        d.friction = 0.9;
                        world.add_body(d)?;
                    }
                }
            }
        }
        "mass_ratio" => {
            // Three unit boxes whose density grows tenfold per level: 1 at the bottom,
            // 100 on top (the heavy box on the light ones).
            ground(&mut world)?;
            let mut y = 0.0;
            for (i, h) in [0.5 as Real, 0.5, 0.5].iter().enumerate() {
                let mut d = BodyDesc::dynamic(cube(*h)?, at(0.0, y + h, 0.0)?);
                d.density = (10.0 as Real).powi(i as i32);
                world.add_body(d)?;
                y += 2.0 * h;
            }
        }
        "friction_ramp" => {
            stacking = false;
            let theta: Real = (30.0 as Real).to_radians();
            let n = Vector::new(-theta.sin(), theta.cos(), 0.0);
            let plane = HalfSpace::new(n, 0.0).map_err(bad)?;
            world.add_static(StaticShape::HalfSpace(plane), Pose::IDENTITY, 1.0, 0.0)?;
            let rot = Rotation::from_rotation_z(theta);
            let along = Vector::new(theta.cos(), theta.sin(), 0.0);
            for (k, mu) in [0.0 as Real, 0.1, 0.2, 0.3, 0.5, 0.7].iter().enumerate() {
                let c = n * 0.25 + along * 4.0 + Vector::new(0.0, 0.0, 1.5 * k as Real);
                let shape = Shape::from(Cuboid::new(Vector::new(0.5, 0.25, 0.5)).map_err(bad)?);
                let mut d = BodyDesc::dynamic(shape, Pose::new(rot, c).map_err(bad)?);
                d.friction = mu * mu; // the pair's friction is √(μ² · 1) = μ
                world.add_body(d)?;
            }
        }
        "tumbler" => {
            // A hollow kinematic box (six walls as a compound) turning at 0.5 rad/s about
            // Z, with 200 small boxes and balls inside.
            stacking = false;
            let (l, t) = (2.5 as Real, 0.1 as Real);
            let mut parts = Vec::new();
            for axis in 0..3 {
                for side in [-1.0 as Real, 1.0] {
                    let mut he = Vector::splat(l);
                    he[axis] = t;
                    let mut c = Vector::ZERO;
                    c[axis] = side * (l + t);
                    parts.push((
                        Pose::from_translation(c).map_err(bad)?,
                        Shape::from(Cuboid::new(he).map_err(bad)?),
                    ));
                }
            }
            let drum = Collider::Compound(Arc::new(Compound::new(parts).map_err(bad)?));
            world.add_body(BodyDesc::kinematic(
                drum,
                at(0.0, 4.0, 0.0)?,
                Vector::ZERO,
                Vector::new(0.0, 0.0, 0.5),
            ))?;
            for i in 0..200 {
                let (x, y, z) = (
                    (i % 6) as Real * 0.7 - 1.75,
                    2.2 + (i / 36) as Real * 0.7,
                    ((i / 6) % 6) as Real * 0.7 - 1.75,
                );
                let s = if i % 2 == 0 {
                    cube(0.2)?
                } else {
                    Shape::from(Sphere::new(0.2).map_err(bad)?)
                };
                world.add_body(BodyDesc::dynamic(s, at(x, y, z)?))?;
            }
        }
        "terrain_character" => {
            // A 64 × 64 heightfield of gentle hills, boxes scattered on it, and a
            // kinematic capsule walking a scripted circle over it (the character
            // controller proper is `crate::character`'s; here it is a moving body).
            stacking = false;
            let n = 64usize;
            let cell = 0.5 as Real;
            let heights: Vec<Option<Real>> = (0..n * n)
                .map(|k| {
                    let (r, c) = ((k / n) as Real, (k % n) as Real);
                    Some(0.6 * (0.2 * r).sin() * (0.15 * c).cos())
                })
                .collect();
            let hf = HeightField::new(n, n, &heights, [cell, cell], Vector::new(-16.0, 0.0, -16.0))
                .map_err(bad)?;
            world.add_static(
                StaticShape::HeightField(Arc::new(hf)),
                Pose::IDENTITY,
                0.7,
                0.0,
            )?;
            for i in 0..40 {
                let (x, z) = ((i % 8) as Real * 3.0 - 10.5, (i / 8) as Real * 3.0 - 6.0);
                world.add_body(BodyDesc::dynamic(cube(0.3)?, at(x, 2.5, z)?))?;
            }
            let cap = Shape::from(Capsule::new(0.5, 0.3).map_err(bad)?);
            let id = world.add_body(BodyDesc::kinematic(
                cap,
                at(6.0, 1.6, 0.0)?,
                Vector::ZERO,
                Vector::ZERO,
            ))?;
            scripted = Some(id);
        }
        _ => return Err(SceneError::Unknown(name.to_string())),
    }
    let start = world.bodies().iter().map(|b| b.position()).collect();
    Ok(Scene {
        name,
        world,
        dt: 1.0 / 60.0,
        stacking,
        start,
        scripted,
    })
}

impl Scene {
    /// Sets the scripted body's velocity for the coming step (a walk around a circle of
    /// radius 6 at 1.5 length/s, at a constant height that clears the hills' tops, pushing
    /// the boxes in its way).
    pub fn before_step(&mut self) {
        let Some(id) = self.scripted else { return };
        let t = self.world.steps() as Real * self.dt;
        let omega = 1.5 / 6.0;
        let target = |t: Real| Vector::new(6.0 * (omega * t).cos(), 0.0, 6.0 * (omega * t).sin());
        let next = target(t + self.dt);
        let Some(b) = self.world.body_mut(id) else {
            return;
        };
        let p = b.position();
        let mut v = (next - Vector::new(p.x, 0.0, p.z)) / self.dt;
        v.y = 0.0;
        let _ = b.set_velocity(v, Vector::ZERO);
    }

    /// The largest horizontal displacement (XZ) of any dynamic body from its start.
    pub fn max_drift(&self) -> Real {
        self.world
            .bodies()
            .iter()
            .zip(&self.start)
            .filter(|(b, _)| b.is_dynamic())
            .map(|(b, s)| {
                let d = b.position() - *s;
                (d.x * d.x + d.z * d.z).sqrt()
            })
            .fold(0.0, Real::max)
    }
}
