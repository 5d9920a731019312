//! Scene queries: rays, shape casts, point and box queries against every object and
//! every static of a [`World`], objects answered through its broad phase.
//!
//! Each query asks the broad phase for the objects whose box the query can reach
//! ([`BroadPhase::query_aabb`](crate::broadphase::BroadPhase::query_aabb), or
//! [`query_ray`](crate::broadphase::BroadPhase::query_ray) for rays and casts, which
//! skips boxes beyond the best hit so far), drops those its [`QueryFilter`] refuses, and
//! runs the shape-level query on each of the others: [`compound::cast_ray`],
//! [`compound::cast_colliders`], [`compound::intersects`]. The answer is the one a scan
//! of every object with the same shape-level query would give (the world's boxes hold
//! its shapes, so no object that could answer is skipped): for the closest hit, the
//! least time, ties to the smallest object index.
//!
//! Statics ([`World::insert_static`]) are not in the broad phase: each query runs the
//! static-level query ([`static_dispatch::cast_ray`], [`static_dispatch::cast`],
//! [`static_dispatch::intersects`]) on every static the filter considers (each culls its
//! own geometry: a heightfield visits only the blocks the query can reach), before the
//! objects, so that a hit on the ground bounds the broad-phase search. Answers say what
//! was hit with a [`Target`]: at equal times objects come before statics, each by index.
//!
//! Frames and units: everything in the world frame; times in units of the ray's
//! direction or of the cast's velocity. Objects are seen at their current poses (moves
//! made since the last [`World::update`] included); a fast object's sweep plays no part.
//! Queries take `&self` and allocate only their answers (and the tree's small
//! traversal stack).

use super::{CollisionGroups, ObjectHandle, StaticHandle, World};
use crate::bounding::Aabb;
use crate::broadphase::BoxSweep;
use crate::math::{Point, Pose, Real, Rotation, Vector};
use crate::query::compound::{self, Collider};
use crate::query::static_dispatch;
use crate::query::{
    check_max_toi, check_vector, CastError, Motion, QueryStatus, Ray, RayHit, RayOptions, ShapeCast,
};
use crate::shape::{Cuboid, PointShape, Shape, MAX_MAGNITUDE};

/// Which objects and statics a scene query considers: the objects whose
/// [`CollisionGroups`] interact with the query's `groups`, other than `exclude`, and for
/// which `predicate` (given the object's handle and user data) returns true; the statics
/// whose groups interact with the query's and for which `static_predicate` (given the
/// static's handle and user data) returns true. The default considers everything.
///
/// ```
/// use minkowski::world::{CollisionGroups, QueryFilter};
///
/// let is_even = |_h, data: u64| data % 2 == 0;
/// let filter = QueryFilter::new()
///     .groups(CollisionGroups::new(0b01, 0b10)) // a member of group 0, sees group 1
///     .predicate(&is_even);
/// assert_eq!(filter.groups.filter, 0b10);
/// ```
#[derive(Clone, Copy)]
pub struct QueryFilter<'a> {
    /// The query's groups: an object is considered only if they interact with its own
    /// ([`CollisionGroups::interacts_with`]). Default [`CollisionGroups::ALL`].
    pub groups: CollisionGroups,
    /// An object never considered (typically the one asking). Default none.
    pub exclude: Option<ObjectHandle>,
    /// Called last, for objects that pass the other tests, with the object's handle and
    /// user data: the object is considered iff it returns true. Default none (all).
    pub predicate: Option<&'a dyn Fn(ObjectHandle, u64) -> bool>,
    /// Called for statics whose groups pass, with the static's handle and user data:
    /// the static is considered iff it returns true. Default none (all).
    pub static_predicate: Option<&'a dyn Fn(StaticHandle, u64) -> bool>,
}

impl std::fmt::Debug for QueryFilter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryFilter")
            .field("groups", &self.groups)
            .field("exclude", &self.exclude)
            .field("predicate", &self.predicate.map(|_| "Fn"))
            .field("static_predicate", &self.static_predicate.map(|_| "Fn"))
            .finish()
    }
}

impl Default for QueryFilter<'_> {
    fn default() -> Self {
        Self {
            groups: CollisionGroups::ALL,
            exclude: None,
            predicate: None,
            static_predicate: None,
        }
    }
}

impl<'a> QueryFilter<'a> {
    /// Every object and every static.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same filter with the query's groups set.
    pub fn groups(mut self, groups: CollisionGroups) -> Self {
        self.groups = groups;
        self
    }

    /// The same filter, never considering `h`.
    pub fn exclude(mut self, h: ObjectHandle) -> Self {
        self.exclude = Some(h);
        self
    }

    /// The same filter with a predicate on (handle, user data).
    pub fn predicate(mut self, p: &'a dyn Fn(ObjectHandle, u64) -> bool) -> Self {
        self.predicate = Some(p);
        self
    }

    /// The same filter with a predicate on statics' (handle, user data).
    pub fn static_predicate(mut self, p: &'a dyn Fn(StaticHandle, u64) -> bool) -> Self {
        self.static_predicate = Some(p);
        self
    }

    /// Whether the filter considers the object `h` with these groups and user data.
    pub fn accepts(&self, h: ObjectHandle, groups: CollisionGroups, user_data: u64) -> bool {
        self.groups.interacts_with(&groups)
            && self.exclude != Some(h)
            && self.predicate.is_none_or(|p| p(h, user_data))
    }

    /// Whether the filter considers the static `h` with these groups and user data.
    pub fn accepts_static(&self, h: StaticHandle, groups: CollisionGroups, user_data: u64) -> bool {
        self.groups.interacts_with(&groups) && self.static_predicate.is_none_or(|p| p(h, user_data))
    }
}

/// What a scene query found: an object or a static. Ordered objects first, then
/// statics, each by index (then generation): the tie order of the queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// An object ([`World::insert`]).
    Object(ObjectHandle),
    /// A static ([`World::insert_static`]).
    Static(StaticHandle),
}

impl Target {
    /// The object, if it is one.
    pub fn object(self) -> Option<ObjectHandle> {
        match self {
            Target::Object(h) => Some(h),
            Target::Static(_) => None,
        }
    }

    /// The static, if it is one.
    pub fn fixed(self) -> Option<StaticHandle> {
        match self {
            Target::Static(h) => Some(h),
            Target::Object(_) => None,
        }
    }
}

impl From<ObjectHandle> for Target {
    fn from(h: ObjectHandle) -> Self {
        Target::Object(h)
    }
}

impl From<StaticHandle> for Target {
    fn from(h: StaticHandle) -> Self {
        Target::Static(h)
    }
}

/// A ray's hit on an object or static of the world ([`World::cast_ray`],
/// [`World::cast_ray_all`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SceneRayHit {
    /// The object or static hit.
    pub target: Target,
    /// For a compound, the part hit (`None` for a convex object or a static).
    pub part: Option<u32>,
    /// Where and when: time in units of the ray's direction, point and outward normal
    /// in the world frame ([`RayHit`]).
    pub hit: RayHit,
    /// How the target's ray cast was obtained (short of `Converged`, the time is still a
    /// lower bound; see [`crate::query::RayCast`]).
    pub status: QueryStatus,
}

/// The first object or static a moving shape meets ([`World::cast_shape`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SceneShapeHit {
    /// The object or static met.
    pub target: Target,
    /// For a compound object, its part met (`None` for a convex object or a static).
    pub part: Option<u32>,
    /// For a compound moving shape, its part that meets an object (`None` against a
    /// static: [`static_dispatch::cast`] does not say).
    pub shape_part: Option<u32>,
    /// The cast with A the moving shape and B the target ([`ShapeCast`]): time of impact
    /// (units of the velocity's time), normal from the moving shape towards the target
    /// and witness points at the time of impact (world frame), how they stood at time 0
    /// (a shape starting within the target distance or overlapping hits at time 0 when
    /// it approaches or overlaps), status.
    pub cast: ShapeCast,
}

/// The interval and skin of [`World::cast_shape`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShapeCastOptions {
    /// The last time searched (units of the velocity's time, `>= 0`, inclusive; may be
    /// infinite). Default infinite.
    pub max_toi: Real,
    /// The distance to stop at (length, `>= 0`): the cast reports when the moving shape
    /// first comes this close to an object. Default 0 (contact).
    pub target_distance: Real,
}

impl Default for ShapeCastOptions {
    fn default() -> Self {
        Self {
            max_toi: Real::INFINITY,
            target_distance: 0.0,
        }
    }
}

/// A time bound for the broad phase from the best hit so far at `t`, loosened by what
/// rounding in a box's entry time could add (a box entered just after the hit is
/// visited; the shape-level answer decides).
fn prune_bound(t: Real, origin: Vector, dir: Vector) -> Real {
    // Robust: the plain length's square underflows for a tiny direction (a bound of
    // +∞, which stops the pruning).
    let speed = crate::math::length_robust(dir);
    t + 1e-4 * (t + origin.abs().max_element() / speed) + Real::MIN_POSITIVE
}

/// Orders hits by time, then target (objects before statics, each by index).
fn earlier(t: Real, h: Target, than: Option<(Real, Target)>) -> bool {
    match than {
        None => true,
        Some((u, g)) => t < u || (t == u && h < g),
    }
}

/// The cast of [`static_dispatch::cast`] (A the static, B the moving shape) seen from
/// the moving shape: A and B swapped, the normal turned round.
fn from_moving_side(c: ShapeCast) -> ShapeCast {
    ShapeCast {
        normal: -c.normal,
        point_a: c.point_b,
        point_b: c.point_a,
        ..c
    }
}

impl World {
    /// The live object in slot `id`, if the filter considers it: its handle, shape and
    /// pose.
    fn considered(
        &self,
        id: u32,
        filter: &QueryFilter<'_>,
    ) -> Option<(ObjectHandle, &Collider, &Pose)> {
        let i = id as usize;
        let shape = self.slots.get(i)?.shape.as_ref()?;
        let p = &self.places[i];
        let h = ObjectHandle {
            index: id,
            generation: p.generation,
        };
        filter
            .accepts(h, self.groups[i], self.extras[i].user_data)
            .then_some((h, shape, &p.pose))
    }

    /// The first object or static the ray hits: the least time of
    /// [`compound::cast_ray`] over the objects and [`static_dispatch::cast_ray`] over the
    /// statics the filter considers (ties to objects, then the smallest index), `None` if
    /// it hits none within `options.max_toi`. `options.solid` as for a shape: a ray
    /// starting inside a solid object (or under a heightfield) hits it at 0. See the
    /// [module notes](self) for frames.
    ///
    /// # Errors
    /// [`CastError`] for a non-finite or too large origin or direction, a zero direction,
    /// or a negative or NaN `max_toi`.
    pub fn cast_ray(
        &self,
        ray: &Ray,
        options: &RayOptions,
        filter: &QueryFilter<'_>,
    ) -> Result<Option<SceneRayHit>, CastError> {
        check_ray(ray, options)?;
        let mut best: Option<SceneRayHit> = None;
        for hit in self.static_ray_hits(ray, options, filter) {
            let hit = hit?;
            if earlier(hit.hit.toi, hit.target, best.map(|b| (b.hit.toi, b.target))) {
                best = Some(hit);
            }
        }
        let mut error = None;
        let sweep = BoxSweep::ray(ray.origin, ray.dir, options.max_toi);
        self.broad.query_ray(&sweep, &mut |id, _| {
            if let Some((h, shape, pose)) = self.considered(id, filter) {
                match compound::cast_ray(shape, pose, ray, options) {
                    Ok(r) => {
                        if let Some(hit) = r.answer.hit {
                            let h = Target::Object(h);
                            if earlier(hit.toi, h, best.map(|b| (b.hit.toi, b.target))) {
                                best = Some(SceneRayHit {
                                    target: h,
                                    part: r.part_a,
                                    hit,
                                    status: r.answer.status,
                                });
                            }
                        }
                    }
                    Err(e) => error = Some(e),
                }
            }
            best.map_or(Real::INFINITY, |b| {
                prune_bound(b.hit.toi, ray.origin, ray.dir)
            })
        });
        match error {
            Some(e) => Err(e),
            None => Ok(best),
        }
    }

    /// Every object and static the ray hits within `options.max_toi` (each once, at its
    /// first hit, [`compound::cast_ray`] / [`static_dispatch::cast_ray`]), among those
    /// the filter considers, sorted by time, then target (objects before statics, each
    /// by index).
    ///
    /// # Errors
    /// As [`cast_ray`](Self::cast_ray).
    pub fn cast_ray_all(
        &self,
        ray: &Ray,
        options: &RayOptions,
        filter: &QueryFilter<'_>,
    ) -> Result<Vec<SceneRayHit>, CastError> {
        check_ray(ray, options)?;
        let mut hits = self
            .static_ray_hits(ray, options, filter)
            .collect::<Result<Vec<_>, _>>()?;
        let mut error = None;
        let sweep = BoxSweep::ray(ray.origin, ray.dir, options.max_toi);
        self.broad.query_ray(&sweep, &mut |id, _| {
            if let Some((h, shape, pose)) = self.considered(id, filter) {
                match compound::cast_ray(shape, pose, ray, options) {
                    Ok(r) => {
                        if let Some(hit) = r.answer.hit {
                            hits.push(SceneRayHit {
                                target: Target::Object(h),
                                part: r.part_a,
                                hit,
                                status: r.answer.status,
                            });
                        }
                    }
                    Err(e) => error = Some(e),
                }
            }
            Real::INFINITY
        });
        if let Some(e) = error {
            return Err(e);
        }
        hits.sort_by(|a, b| {
            a.hit
                .toi
                .total_cmp(&b.hit.toi)
                .then(a.target.cmp(&b.target))
        });
        Ok(hits)
    }

    /// The hits of the ray on the statics the filter considers, by static index.
    fn static_ray_hits<'a>(
        &'a self,
        ray: &'a Ray,
        options: &'a RayOptions,
        filter: &'a QueryFilter<'_>,
    ) -> impl Iterator<Item = Result<SceneRayHit, CastError>> + 'a {
        self.considered_statics(filter)
            .filter_map(move |(h, shape, pose)| {
                match static_dispatch::cast_ray(shape, pose, ray, options) {
                    Ok(r) => r.hit.map(|hit| {
                        Ok(SceneRayHit {
                            target: Target::Static(h),
                            part: None,
                            hit,
                            status: r.status,
                        })
                    }),
                    Err(e) => Some(Err(e)),
                }
            })
    }

    /// The first object or static that `shape`, placed at `pose` at time 0 and
    /// translating at `velocity` (length per unit time, world frame), comes within
    /// `options.target_distance` of for a time in `[0, options.max_toi]`: the earliest
    /// hit of [`compound::cast_colliders`] (A the moving shape, B the object, which
    /// stays) over the objects and of [`static_dispatch::cast`] over the statics (its
    /// answer turned round: A the moving shape, B the static) the filter considers, ties
    /// to objects, then the smallest index. A target the shape starts overlapping (or
    /// within the target of, approaching) is hit at 0; one it starts within the target
    /// of and slides along is not hit. `None` if nothing is hit. The shape is not in the world: to cast one of its objects,
    /// pass its collider and pose and exclude it with the filter.
    ///
    /// # Errors
    /// [`CastError`] for a non-finite or too large velocity, a negative or NaN `max_toi`,
    /// or a negative or non-finite `target_distance`.
    pub fn cast_shape(
        &self,
        shape: &Collider,
        pose: &Pose,
        velocity: Vector,
        options: &ShapeCastOptions,
        filter: &QueryFilter<'_>,
    ) -> Result<Option<SceneShapeHit>, CastError> {
        check_vector("velocity", velocity)?;
        check_max_toi(options.max_toi)?;
        let skin = options.target_distance;
        if !(0.0..=MAX_MAGNITUDE).contains(&skin) {
            return Err(CastError::InvalidNumber {
                field: "target_distance",
                expected: "a finite length >= 0 within the magnitude limit",
                value: skin,
            });
        }
        // The moving shape's box at time 0, grown by the skin (and loosened as the
        // world's boxes are), swept along the velocity.
        let start = super::object_box(&shape.local_aabb(), pose, skin)
            .map_err(|_| CastError::Unsupported("the shape's box overflows at this pose"))?;
        let sweep = BoxSweep {
            origin: start.center(),
            dir: velocity,
            half_extents: start.half_extents(),
            max_t: options.max_toi,
        };
        let motion = Motion::linear(velocity);
        let mut best: Option<SceneShapeHit> = None;
        for (h, fixed, at) in self.considered_statics(filter) {
            let c = static_dispatch::cast(
                fixed,
                at,
                Motion::ZERO,
                shape,
                pose,
                motion,
                options.max_toi,
                skin,
                &self.options.query,
            )?;
            let h = Target::Static(h);
            if c.hit && earlier(c.toi, h, best.map(|b| (b.cast.toi, b.target))) {
                best = Some(SceneShapeHit {
                    target: h,
                    part: None,
                    shape_part: None,
                    cast: from_moving_side(c),
                });
            }
        }
        let mut error = None;
        self.broad.query_ray(&sweep, &mut |id, _| {
            if let Some((h, other, at)) = self.considered(id, filter) {
                let c = compound::cast_colliders(
                    shape,
                    pose,
                    motion,
                    other,
                    at,
                    Motion::ZERO,
                    options.max_toi,
                    skin,
                    &self.options.query,
                );
                match c {
                    Ok(c) if c.answer.hit => {
                        let h = Target::Object(h);
                        if earlier(c.answer.toi, h, best.map(|b| (b.cast.toi, b.target))) {
                            best = Some(SceneShapeHit {
                                target: h,
                                part: c.part_b,
                                shape_part: c.part_a,
                                cast: c.answer,
                            });
                        }
                    }
                    Ok(_) => {}
                    Err(e) => error = Some(e),
                }
            }
            if velocity == Vector::ZERO {
                return Real::INFINITY;
            }
            best.map_or(Real::INFINITY, |b| {
                prune_bound(b.cast.toi, sweep.origin, velocity)
            })
        });
        match error {
            Some(e) => Err(e),
            None => Ok(best),
        }
    }

    /// The objects and statics that contain `point` (world frame), surface included,
    /// among those the filter considers, objects by index then statics by index:
    /// [`compound::intersects`] (or [`static_dispatch::intersects`]) of each with a point
    /// (as [`crate::query::contains_point`] decides it for a convex shape; a shape
    /// without an interior contains only the points of its surface; a heightfield
    /// contains the points under its surface).
    ///
    /// # Errors
    /// [`CastError`] for a non-finite or too large point.
    pub fn intersect_point(
        &self,
        point: Point,
        filter: &QueryFilter<'_>,
    ) -> Result<Vec<Target>, CastError> {
        check_vector("point", point)?;
        let probe = Collider::Convex(Shape::Point(PointShape::ORIGIN));
        let at = Pose::from_parts(Rotation::IDENTITY, point);
        Ok(self.intersecting(&Aabb::new(point, point), &probe, &at, filter))
    }

    /// The objects and statics whose shape meets the closed box `aabb` (world frame;
    /// touching counts), not merely whose bounding box does, among those the filter
    /// considers, objects by index then statics by index: [`compound::intersects`] (or
    /// [`static_dispatch::intersects`]) of each with a [`Cuboid`] of the box's half
    /// extents at its centre (flat and point boxes included).
    ///
    /// # Errors
    /// [`CastError`] for a box with a non-finite or too large corner, or `mins > maxs`
    /// on some axis.
    pub fn intersect_aabb(
        &self,
        aabb: &Aabb,
        filter: &QueryFilter<'_>,
    ) -> Result<Vec<Target>, CastError> {
        check_vector("box mins", aabb.mins)?;
        check_vector("box maxs", aabb.maxs)?;
        let half = aabb.half_extents();
        let cuboid = Cuboid::new(half).map_err(|_| CastError::InvalidNumber {
            field: "box extent",
            expected: "maxs >= mins on every axis",
            value: half.min_element(),
        })?;
        let probe = Collider::Convex(Shape::Cuboid(cuboid));
        let at = Pose::from_parts(Rotation::IDENTITY, aabb.center());
        Ok(self.intersecting(aabb, &probe, &at, filter))
    }

    /// The considered objects whose box meets `region` and whose shape meets `probe` at
    /// `at`, by index, then the considered statics that meet `probe`, by index.
    fn intersecting(
        &self,
        region: &Aabb,
        probe: &Collider,
        at: &Pose,
        filter: &QueryFilter<'_>,
    ) -> Vec<Target> {
        let mut out = Vec::new();
        self.broad.query_aabb(region, &mut |id| {
            if let Some((h, shape, pose)) = self.considered(id, filter) {
                if compound::intersects(shape, pose, probe, at, &self.options.query).is_some() {
                    out.push(Target::Object(h));
                }
            }
        });
        out.sort_unstable();
        let q = &self.options.query;
        out.extend(
            self.considered_statics(filter)
                .filter(|(_, fixed, pose)| static_dispatch::intersects(fixed, pose, probe, at, q))
                .map(|(h, _, _)| Target::Static(h)),
        );
        out
    }
}

/// Checks a ray and its options as [`crate::query::cast_ray`] does.
fn check_ray(ray: &Ray, options: &RayOptions) -> Result<(), CastError> {
    check_vector("ray origin", ray.origin)?;
    check_vector("ray direction", ray.dir)?;
    if ray.dir == Vector::ZERO {
        return Err(CastError::ZeroDirection);
    }
    check_max_toi(options.max_toi)
}
