//! Seeded moving scenes: seed 000's collision experiment as data, shared by
//! `minkowski scene` and the broad-phase comparison of the peer report, so both run the
//! same objects along the same motion.
//!
//! Objects are seed 000's cube (8 vertices), cone (33), cylinder (64) and sphere (482)
//! as convex hulls, and a capsule, each about 2 units across, cycling through the five
//! shapes. [`SceneLayout::Random`] puts N of them at uniform random positions in a cube
//! of side `L = 2 s̄ (N / 2)^(1/3)`, where `s̄` is the mean side of their boxes: a box
//! of side `s̄` meets another with probability `(2 s̄ / L)³`, so each meets about
//! `N (2 s̄ / L)³ = 2` others. Each moves a tenth of its size (0.2 units) per frame in a
//! random direction, bouncing off the walls, and turns by 0.05 rad per frame about a
//! random axis. [`SceneLayout::Seed000`] is the seed's forced-overlap layout: `array`
//! copies of each of the four seed shapes at one spot (random orientations, offsets of a
//! tenth of their size), jittering in place, so every pair overlaps.
//!
//! Everything follows from the seed (splitmix64); the same seed gives the same scene.

use crate::shape::{tessellation, Capsule, ConvexPolyhedron, Shape, ShapeError};
use crate::world::{ObjectHandle, World, WorldError};
use crate::{Pose, Real, Rotation, Vector};

/// Where the objects start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SceneLayout {
    /// `objects` objects at random positions, each box meeting about two others.
    Random {
        /// Number of objects.
        objects: usize,
    },
    /// Seed 000's Table 7.2.14 layout: `array` copies of each of its four shapes.
    Seed000 {
        /// Copies of each shape (the seed used 2 … 18).
        array: usize,
    },
}

/// One moving object.
#[derive(Debug, Clone, Copy)]
pub struct SceneObject {
    /// Index into [`Scene::shapes`].
    pub shape: usize,
    /// Current pose (world from local).
    pub pose: Pose,
    /// Translation per frame (length units).
    pub velocity: Vector,
    /// Rotation applied per frame.
    pub spin: Rotation,
}

/// A seeded scene and its motion.
#[derive(Debug, Clone)]
pub struct Scene {
    /// The shapes, by name: cube, cone, cylinder, sphere, capsule.
    pub shapes: Vec<(&'static str, Shape)>,
    /// The objects, in insertion order.
    pub objects: Vec<SceneObject>,
    /// Side of the world cube (0 for the seed-000 layout).
    pub side: Real,
    /// Mean side of the objects' boxes (the cube root of their volumes).
    pub mean_side: f64,
    layout: SceneLayout,
}

/// Speed of every object (length units per frame): a tenth of its size.
pub const SPEED: Real = 0.2;

/// The most objects of a [`SceneLayout::Random`] scene.
pub const MAX_SCENE_OBJECTS: usize = 2_000_000;

/// The largest array of a [`SceneLayout::Seed000`] scene (the seed used 2 … 18).
pub const MAX_SEED000_ARRAY: usize = 1000;

impl Scene {
    /// The scene for `layout` and `seed`.
    ///
    /// # Errors
    /// [`ShapeError::OutOfRange`] (shape `"scene"`) for more than [`MAX_SCENE_OBJECTS`]
    /// objects or an array above [`MAX_SEED000_ARRAY`] (nothing is allocated); otherwise
    /// only if a built-in shape is rejected, which would be a bug.
    pub fn new(layout: SceneLayout, seed: u64) -> Result<Scene, ShapeError> {
        let (field, value, max) = match layout {
            SceneLayout::Random { objects } => ("objects", objects, MAX_SCENE_OBJECTS),
            SceneLayout::Seed000 { array } => ("array", array, MAX_SEED000_ARRAY),
        };
        if value > max {
            return Err(ShapeError::OutOfRange {
                shape: "scene",
                field,
                value: value as Real,
                max: max as Real,
            });
        }
        let mut rng = SplitMix(seed);
        let mut shapes: Vec<(&'static str, Shape)> = Vec::new();
        for (name, pts) in tessellation::seed000_shapes() {
            shapes.push((name, ConvexPolyhedron::new(pts)?.into()));
        }
        let seed_shapes = shapes.len();
        shapes.push(("capsule", Capsule::new(0.6, 0.4)?.into()));
        let kinds: Vec<usize> = match layout {
            SceneLayout::Seed000 { array } => (0..4 * array).map(|i| i % seed_shapes).collect(),
            SceneLayout::Random { objects } => (0..objects).map(|i| i % shapes.len()).collect(),
        };
        let count = kinds.len();
        let rotations: Vec<Rotation> = (0..count).map(|_| rng.rotation()).collect();
        let mean_side = if count == 0 {
            0.0
        } else {
            kinds
                .iter()
                .zip(&rotations)
                .map(|(&k, r)| {
                    let b = shapes[k]
                        .1
                        .local_aabb()
                        .transformed(&Pose::from_parts(*r, Vector::ZERO));
                    let e = b.maxs - b.mins;
                    ((e.x * e.y * e.z) as f64).cbrt()
                })
                .sum::<f64>()
                / count as f64
        };
        let side = match layout {
            SceneLayout::Seed000 { .. } => 0.0,
            SceneLayout::Random { .. } => 2.0 * mean_side * (count.max(1) as f64 / 2.0).cbrt(),
        } as Real;
        let size: Real = 2.0;
        let objects = kinds
            .iter()
            .zip(&rotations)
            .map(|(&shape, &rotation)| {
                let position = match layout {
                    SceneLayout::Seed000 { .. } => rng.dir() * (0.1 * size),
                    SceneLayout::Random { .. } => {
                        Vector::new(rng.unit(), rng.unit(), rng.unit()) * side
                            - Vector::splat(side * 0.5)
                    }
                };
                SceneObject {
                    shape,
                    pose: Pose::from_parts(rotation, position),
                    velocity: rng.dir() * (0.1 * size),
                    spin: Rotation::from_axis_angle(rng.dir(), 0.05),
                }
            })
            .collect();
        Ok(Scene {
            shapes,
            objects,
            side,
            mean_side,
            layout,
        })
    }

    /// The layout the scene was made with.
    pub fn layout(&self) -> SceneLayout {
        self.layout
    }

    /// The shape of object `i`.
    ///
    /// # Panics
    /// When `i` is not an object's index, or the object's `shape` is not an index into
    /// [`Scene::shapes`] (both public fields, which a caller may change).
    pub fn shape(&self, i: usize) -> &Shape {
        &self.shapes[self.objects[i].shape].1
    }

    /// Inserts every object into `world` at its current pose and returns their handles,
    /// `handles[i]` naming object `i`.
    ///
    /// # Errors
    /// The first object the world refused and why (the scene's poses are finite and in
    /// range, so only [`WorldError::Full`] can happen); the objects before it stay in.
    pub fn insert_into(&self, world: &mut World) -> Result<Vec<ObjectHandle>, (usize, WorldError)> {
        (0..self.objects.len())
            .map(|i| {
                world
                    .insert(self.shape(i).clone(), self.objects[i].pose)
                    .map_err(|e| (i, e))
            })
            .collect()
    }

    /// Replaces `out` with `(handles[i], pose of object i)` for every object: the batch
    /// for [`World::set_poses`](crate::world::World::set_poses) that moves a world's
    /// copies of the objects (`handles[i]` naming object `i`) to where they are now.
    pub fn moves(&self, handles: &[ObjectHandle], out: &mut Vec<(ObjectHandle, Pose)>) {
        out.clear();
        out.extend(handles.iter().zip(&self.objects).map(|(h, o)| (*h, o.pose)));
    }

    /// Advances every object by one frame.
    pub fn step(&mut self) {
        let half = self.side * 0.5;
        let random = matches!(self.layout, SceneLayout::Random { .. });
        for b in self.objects.iter_mut() {
            let mut p = b.pose.translation() + b.velocity;
            if random {
                for k in 0..3 {
                    if p[k].abs() > half {
                        b.velocity[k] = -b.velocity[k];
                        p[k] = p[k].clamp(-half, half);
                    }
                }
            } else {
                // The forced-overlap layout jitters in place.
                p = b.pose.translation() + (b.velocity - b.pose.translation()) * 0.01;
            }
            b.pose = Pose::from_parts(b.spin * b.pose.rotation(), p);
        }
    }
}

/// splitmix64, the scene's generator.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> Real {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) as Real
    }
    fn signed(&mut self) -> Real {
        2.0 * self.unit() - 1.0
    }
    fn dir(&mut self) -> Vector {
        loop {
            let v = Vector::new(self.signed(), self.signed(), self.signed());
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return v / l;
            }
        }
    }
    fn rotation(&mut self) -> Rotation {
        Rotation::from_axis_angle(self.dir(), self.unit() * core::f32::consts::TAU as Real)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_motion_and_objects_stay_inside() {
        let layout = SceneLayout::Random { objects: 200 };
        let (mut a, mut b) = match (Scene::new(layout, 3), Scene::new(layout, 3)) {
            (Ok(a), Ok(b)) => (a, b),
            _ => panic!("built-in shapes"),
        };
        for _ in 0..50 {
            a.step();
            b.step();
        }
        let half = a.side * 0.5;
        for (x, y) in a.objects.iter().zip(&b.objects) {
            assert_eq!(x.pose.translation(), y.pose.translation());
            assert!(x.pose.translation().abs().max_element() <= half);
        }
        assert_eq!(a.objects.len(), 200);
        let seed = Scene::new(SceneLayout::Seed000 { array: 3 }, 1).map(|s| s.objects.len());
        assert_eq!(seed.ok(), Some(12));
    }

    /// A world filled by `insert_into` and moved each frame by `moves` stays where the
    /// scene is.
    #[test]
    fn moves_bring_a_world_to_the_scene() {
        use crate::world::{BroadPhaseKind, WorldOptions};
        let Ok(mut scene) = Scene::new(SceneLayout::Random { objects: 30 }, 5) else {
            panic!("built-in shapes");
        };
        let mut world = World::new(BroadPhaseKind::SweepAndPrune, WorldOptions::default());
        let Ok(handles) = scene.insert_into(&mut world) else {
            panic!("a world takes 30 objects");
        };
        assert_eq!(handles.len(), 30);
        let mut moves = vec![(handles[0], Pose::IDENTITY); 3];
        for _ in 0..4 {
            scene.step();
            scene.moves(&handles, &mut moves);
            assert_eq!(moves.len(), 30);
            assert!(world.set_poses(&moves).is_ok());
        }
        for (h, o) in handles.iter().zip(&scene.objects) {
            assert_eq!(world.get(*h).map(|(_, p)| *p), Ok(o.pose));
        }
    }
}
