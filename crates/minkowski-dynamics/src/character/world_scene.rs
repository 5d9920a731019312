//! [`CharacterWorld`] over the collision library's [`World`]: casts by
//! [`World::cast_shape`], contacts of every object and static whose shape meets the
//! character's box grown by the margin: for an object, the contact of each convex part
//! pair (its closest-point normal: a manifold would answer a face's normal for a
//! character resting on the face's edge, and turn the edge of a stair into a wall); for
//! the statics, queried together, the library's manifolds (one per touching region,
//! after its ghost-collision rules).

use minkowski::query::compound::Collider;
use minkowski::query::{contact_with, static_dispatch, QueryOptions};
use minkowski::shape::{Shape, StaticShape};
use minkowski::world::{QueryFilter, ShapeCastOptions, Target, World};
use minkowski::{Pose, Real, Vector};

use super::scene::{BodyState, CharacterContact, CharacterHit, CharacterWorld, HitStart};
use super::CharacterError;

/// The motion and mass of a world target, supplied by the caller (the collision world
/// has no velocities or masses): `None` for what neither moves nor can be pushed.
pub type BodyLookup<'a> = &'a dyn Fn(Target) -> Option<BodyState>;

/// A [`World`] seen by a character: its objects and statics that `filter` considers
/// (exclude the character's own object if it has one), queried with `options`, and,
/// through an optional [`BodyLookup`], the motion and mass of what it touches.
///
/// ```
/// use minkowski::shape::{Capsule, HalfSpace, Shape};
/// use minkowski::world::{BroadPhaseKind, World, WorldOptions};
/// use minkowski::{Pose, Vector};
/// use minkowski_dynamics::character::{Character, CharacterConfig, WorldScene};
///
/// let mut world = World::new(BroadPhaseKind::SweepAndPrune, WorldOptions::default());
/// world.insert_static(HalfSpace::new(Vector::Y, 0.0).unwrap(), Pose::IDENTITY).unwrap();
/// let capsule = Shape::from(Capsule::new(0.5, 0.3).unwrap());
/// let start = Pose::from_translation(Vector::new(0.0, 0.85, 0.0)).unwrap();
/// let mut player = Character::new(capsule, start, CharacterConfig::default()).unwrap();
/// let scene = WorldScene::new(&world);
/// // Walking at 2 m/s for a second, in 60 steps, with gravity pulling.
/// for _ in 0..60 {
///     player.update(&scene, Vector::new(2.0, -9.81 / 60.0, 0.0), 1.0 / 60.0).unwrap();
/// }
/// assert!((player.position().x - 2.0).abs() < 1e-3);
/// assert!(player.ground().is_on_ground());
/// ```
pub struct WorldScene<'a> {
    world: &'a World,
    filter: QueryFilter<'a>,
    options: QueryOptions,
    bodies: Option<BodyLookup<'a>>,
}

impl<'a> WorldScene<'a> {
    /// Every object and static of `world`, default query options, nothing moving.
    pub fn new(world: &'a World) -> Self {
        Self {
            world,
            filter: QueryFilter::new(),
            options: QueryOptions::default(),
            bodies: None,
        }
    }

    /// Only the objects and statics `filter` considers.
    pub fn with_filter(mut self, filter: QueryFilter<'a>) -> Self {
        self.filter = filter;
        self
    }

    /// The options of the pair queries (tolerances, iteration bounds).
    pub fn with_options(mut self, options: QueryOptions) -> Self {
        self.options = options;
        self
    }

    /// Velocities and masses of the targets, for platforms and pushing.
    pub fn with_bodies(mut self, bodies: BodyLookup<'a>) -> Self {
        self.bodies = Some(bodies);
        self
    }
}

/// The convex pieces of a collider at `pose` (world poses).
fn pieces<'c>(c: &'c Collider, pose: &Pose) -> Vec<(&'c Shape, Pose)> {
    match c {
        Collider::Convex(s) => vec![(s, *pose)],
        Collider::Compound(k) => k.parts().iter().map(|(p, s)| (s, pose.mul(p))).collect(),
    }
}

fn push_manifold<T: Copy>(
    out: &mut Vec<CharacterContact<T>>,
    target: T,
    m: &minkowski::query::Manifold,
) {
    for p in m.points() {
        out.push(CharacterContact {
            target,
            point: p.point_a,
            normal: m.normal,
            distance: p.distance,
        });
    }
}

impl CharacterWorld for WorldScene<'_> {
    type Target = Target;

    fn cast(
        &self,
        shape: &Collider,
        pose: &Pose,
        translation: Vector,
        skin: Real,
    ) -> Result<Option<CharacterHit<Target>>, CharacterError> {
        let options = ShapeCastOptions {
            max_toi: 1.0,
            target_distance: skin,
        };
        let hit = self
            .world
            .cast_shape(shape, pose, translation, &options, &self.filter)?;
        Ok(hit.map(|h| {
            let c = h.cast;
            let start = match c.start {
                minkowski::query::CastStart::Separated => HitStart::Separated,
                minkowski::query::CastStart::WithinTarget => HitStart::WithinSkin,
                minkowski::query::CastStart::Overlapping => HitStart::Overlapping,
            };
            CharacterHit {
                target: h.target,
                toi: c.toi.clamp(0.0, 1.0),
                // The world's cast answers from the moving shape towards the target.
                normal: -c.normal,
                point: c.point_b,
                start,
            }
        }))
    }

    fn contacts(
        &self,
        shape: &Collider,
        pose: &Pose,
        margin: Real,
        out: &mut Vec<CharacterContact<Target>>,
    ) -> Result<(), CharacterError> {
        let region = shape.local_aabb().transformed(pose).loosened(margin);
        let near = self.world.intersect_aabb(&region, &self.filter)?;
        let mut statics: Vec<(&StaticShape, Pose)> = Vec::new();
        let mut static_targets = Vec::new();
        let own = pieces(shape, pose);
        for t in near {
            match t {
                Target::Object(h) => {
                    let (other, at) = self.world.get(h)?;
                    for (part, part_pose) in pieces(other, at) {
                        let part_box = part.local_aabb().transformed(&part_pose);
                        if !part_box.intersects(&region) {
                            continue;
                        }
                        for (mine, my_pose) in &own {
                            // One contact per convex pair (they touch in one region),
                            // with the closest-point normal: a manifold would give a
                            // face's normal for the shape resting on its edge.
                            let c =
                                contact_with(part, &part_pose, mine, my_pose, &self.options, None);
                            if c.distance <= margin
                                && c.normal.is_finite()
                                && c.normal != Vector::ZERO
                            {
                                out.push(CharacterContact {
                                    target: t,
                                    point: c.point_a,
                                    normal: c.normal,
                                    distance: c.distance,
                                });
                            }
                        }
                    }
                }
                Target::Static(h) => {
                    let (s, at) = self.world.get_static(h)?;
                    statics.push((s, *at));
                    static_targets.push(t);
                }
            }
        }
        if !statics.is_empty() {
            // All statics together: seams between adjacent fields and meshes are no
            // edges (the library's ghost-collision rules).
            for (k, m) in
                static_dispatch::manifolds_with_all(&statics, shape, pose, margin, &self.options)
            {
                push_manifold(out, static_targets[k], &m);
            }
        }
        Ok(())
    }

    fn body(&self, target: Target) -> Option<BodyState> {
        self.bodies.and_then(|f| f(target))
    }
}
