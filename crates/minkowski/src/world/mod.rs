//! A collision world: objects by handle, a broad phase, a (parallel) narrow phase, and
//! contact events.
//!
//! ```text
//! insert / set_pose / remove ──► world boxes ──► broad phase (grid | sweep and prune | tree)
//!                                                   │ pairs whose boxes overlap
//!                                                   ▼
//!   per-pair GjkCache + separation ◄──► narrow phase: skip (still apart), else
//!                                        intersects (warm-started GJK), then contact
//!                                                   │
//!                                                   ▼
//!                         contacts + started / ongoing / stopped events
//! ```
//!
//! Boxes are the shapes' world AABBs grown by the contact margin and by a tiny relative
//! amount (1e-5 of the object's size) so that rounding in the box computation can never
//! hide a contact from the broad phase: the world's contacts equal an all-pairs narrow
//! phase ([`World::brute_force_contacts`]). Each overlapping pair keeps a [`GjkCache`]
//! for as long as its boxes overlap, so coherent motion warm-starts GJK frame after
//! frame: a pair that was apart is usually confirmed apart by one support call per shape
//! along its cached separating axis. A pair with a compound keeps a
//! [`PartCaches`] instead: a cache per part pair it met lately (at
//! most [`PartCaches::CAPACITY`](compound::PartCaches::CAPACITY)), made at its first
//! test and reused while the pair lasts.
//!
//! A pair proved apart also keeps the separation its test certified, and every move
//! lowers it by a bound on how far any point of the object can have gone (`|Δt| +
//! 2 min(|q₁ − q₀|, |q₁ + q₀|) r`, `r` the distance from the local origin to the far
//! corner of the local box). While it stays above the contact margin the pair is not
//! tested at all (the idea of Bullet's `btConvexSeparatingDistanceUtil`);
//! [`UpdateTimings::skipped`] counts those. An object inserted or removed voids the
//! separations of its slot. With the default `parallel` feature the narrow
//! phase, the batch moves of [`World::set_poses`] and the grid's pair search run on
//! rayon's thread pool (the one the call is made in); [`WorldOptions::parallel`] turns
//! that off.
//!
//! Speed at 10^5 objects comes from memory more than arithmetic: shapes made from one
//! hull share it (cloning a [`ConvexPolyhedron`](crate::shape::ConvexPolyhedron) does not
//! copy its vertices), an object's pose, local box and radius sit apart from its shape
//! (one 64-byte line in f32, all that a move reads and writes), and the narrow phase
//! reads the objects of 64 pairs before querying any, so that the cache misses of
//! scattered objects overlap (`docs/scene.md`).
//!
//! # Groups, user data, scene queries
//!
//! Each object carries [`CollisionGroups`] (two objects interact iff each one's
//! memberships meet the other's filter; pairs that do not interact are never tested nor
//! reported) and a `u64` of user data, set at insertion ([`World::insert_with`]) or later.
//! The world answers scene queries through its broad phase ([`World::cast_ray`],
//! [`World::cast_ray_all`], [`World::cast_shape`], [`World::intersect_point`],
//! [`World::intersect_aabb`]), each with a [`QueryFilter`]: see [`queries`].
//!
//! # Static geometry
//!
//! Level geometry that never moves — heightfields, and the other
//! [`StaticShape`](crate::shape::StaticShape)s — goes in as *statics*
//! ([`World::insert_static`]), kept apart from the objects and their broad phase. Each
//! update reports the objects touching them as [`StaticContact`]s (one per touching
//! region, the statics an object's box meets queried together so that the seams between
//! adjacent fields are no edges) with [`StaticContactEvent`]s, and the scene queries see
//! them (a [`Target`] says whether an object or a static was hit): see [`statics`]. A
//! world without statics does none of this work.
//!
//! Displacement-mapped terrains (seed 002, [`TerrainStatic`](crate::terrain::TerrainStatic))
//! go in apart ([`World::insert_terrain`]): each update tests every object against them
//! by the multiresolution detection and reports the parts under their surface as
//! [`TerrainContact`]s: see [`terrains`].
//!
//! # Continuous collision
//!
//! An object flagged fast ([`World::set_continuous`]) is swept between updates: its
//! moves since the last update are taken as one motion from the pose it had then (its
//! *start*) to its pose now, at constant linear and angular velocity over `t ∈ [0, 1]`
//! (the shortest rotation between the two). Its broad-phase box covers the whole motion:
//! the union of its boxes at the start and now, or, when it turns, the union of the
//! boxes of its bounding ball at both ends (a turning shape can leave both end boxes; it
//! never leaves the ball about its moving origin). A pair with a fast object that is not
//! in contact at the new poses is then cast from the start poses
//! ([`compound::cast_colliders`], conservative advancement when a convex object turns);
//! a compound is swept by its translation only, at its start rotation. A cast that
//! comes within the contact margin at some `t` (having started apart) reports the pair
//! as in contact, with [`WorldContact::toi`] `= Some(t)` and the contact computed at the
//! poses of that time, through the usual started / ongoing / stopped events. So a thin
//! wall is never tunnelled by a fast object, whatever its speed; objects not flagged
//! fast are tested at their new poses only.

use crate::bounding::Aabb;
use crate::broadphase::{pair_key, BroadPhase, DynamicTree, Grid, SweepAndPrune};
use crate::math::{Pose, Real, Vector, EPSILON};
use crate::query::compound::{self, Collider, PartCaches};
use crate::query::gjk::GjkCache;
use crate::query::{self, CastStart, Contact, Motion, QueryOptions};
use crate::tolerance::SLACK;

pub mod queries;
mod slots;
pub mod statics;
pub mod terrains;

pub use queries::{QueryFilter, SceneRayHit, SceneShapeHit, ShapeCastOptions, Target};
pub use statics::{StaticContact, StaticContactEvent, StaticHandle, StaticOptions};
pub use terrains::{TerrainContact, TerrainHandle};

/// Which objects interact (rapier's convention): object X is a member of the groups
/// whose bits are set in `memberships`, and interacts with the members of the groups
/// set in `filter`. Two objects interact iff each one's memberships intersect the other's
/// filter ([`interacts_with`](Self::interacts_with)). The default, [`ALL`](Self::ALL),
/// is a member of every group and interacts with every group.
///
/// Used for the world's contact pairs (pairs that do not interact are never tested nor
/// reported) and for scene queries (a [`QueryFilter`]'s groups against each object's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CollisionGroups {
    /// The groups this object is a member of (one bit per group).
    pub memberships: u32,
    /// The groups this object interacts with.
    pub filter: u32,
}

impl CollisionGroups {
    /// Member of every group, interacts with every group (the default).
    pub const ALL: CollisionGroups = CollisionGroups {
        memberships: u32::MAX,
        filter: u32::MAX,
    };

    /// Member of no group, interacts with none: never in a pair, never found by a query.
    pub const NONE: CollisionGroups = CollisionGroups {
        memberships: 0,
        filter: 0,
    };

    /// Groups with these memberships and this filter.
    pub const fn new(memberships: u32, filter: u32) -> Self {
        Self {
            memberships,
            filter,
        }
    }

    /// Whether the two interact: `self.memberships & other.filter != 0` and
    /// `other.memberships & self.filter != 0` (symmetric).
    pub const fn interacts_with(&self, other: &CollisionGroups) -> bool {
        self.memberships & other.filter != 0 && other.memberships & self.filter != 0
    }
}

impl Default for CollisionGroups {
    fn default() -> Self {
        Self::ALL
    }
}

/// What an object is inserted with besides its shape and pose
/// ([`World::insert_with`]); each can be changed later.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ObjectOptions {
    /// Its collision groups (default [`CollisionGroups::ALL`]); see
    /// [`World::set_groups`].
    pub groups: CollisionGroups,
    /// The caller's data, handed back by [`World::user_data`] and to query predicates
    /// (default 0); see [`World::set_user_data`].
    pub user_data: u64,
    /// Whether its moves are swept (continuous collision, default false); see
    /// [`World::set_continuous`].
    pub continuous: bool,
}

/// A fast object's sweep state.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Sweep {
    /// Where the object's motion starts: its pose at the last update (once it has moved
    /// since; before, the start of the last update's sweep).
    from: Pose,
    /// No move since the last update: the next move starts from the pose it has now.
    settled: bool,
}

/// An object's data beside its shape and place.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Extra {
    user_data: u64,
    sweep: Option<Sweep>,
}

impl Extra {
    const NONE: Extra = Extra {
        user_data: 0,
        sweep: None,
    };
}

/// A handle to an object of a [`World`]: an index and a generation, so that a handle to a
/// removed object never names its successor in the same slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectHandle {
    index: u32,
    generation: u32,
}

impl ObjectHandle {
    /// The slot index (dense: what the broad phase uses as the object id).
    pub fn index(self) -> u32 {
        self.index
    }
}

/// Which broad phase a [`World`] uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BroadPhaseKind {
    /// [`Grid`] with level-0 cubic cells of this side (length units; objects larger than
    /// a cell go to levels of doubling cells).
    Grid {
        /// Level-0 cell side: about the size of the larger common objects.
        cell_size: Real,
    },
    /// [`SweepAndPrune`].
    SweepAndPrune,
    /// [`DynamicTree`] with this fat margin (fraction of each box's half extent).
    Tree {
        /// Fat margin factor.
        fat_factor: Real,
    },
}

/// What went wrong in a world call.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorldError {
    /// The handle names no live object (or, for a [`StaticHandle`], no live static):
    /// removed, or from another world.
    #[error("no such object (stale or foreign handle)")]
    StaleHandle,
    /// The pose is not finite, its translation is beyond
    /// [`MAX_MAGNITUDE`](crate::shape::MAX_MAGNITUDE), or the shape's (or static's) box
    /// there is not finite.
    #[error("invalid pose: non-finite, or beyond the magnitude limit")]
    InvalidPose,
    /// The world is full (2^31 − 2 objects, or 2^32 − 1 statics).
    #[error("too many objects")]
    Full,
}

/// Two objects in contact (their shapes overlap or touch, within the contact margin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldContact {
    /// The object with the smaller index.
    pub a: ObjectHandle,
    /// The other object.
    pub b: ObjectHandle,
    /// The contact from A to B (world frame): signed distance, normal, points, status;
    /// `None` when [`WorldOptions::contact_details`] is off (then only the fact that the
    /// pair touches is known).
    pub contact: Option<Contact>,
    /// For a compound A, the part in contact (the deepest pair's).
    pub part_a: Option<u32>,
    /// For a compound B, the part in contact.
    pub part_b: Option<u32>,
    /// For a pair with a fast object ([`World::set_continuous`]) found by its sweep: the
    /// time of impact `t ∈ [0, 1]` (fraction of the motion since the last update) at which
    /// the two came within the contact margin, and then `contact` is computed at the
    /// poses of that time (`start + t · motion`), not the current ones. `None` for a
    /// contact at the current poses.
    pub toi: Option<Real>,
}

/// How a pair's contact changed in the last [`World::update`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContactEvent {
    /// The pair is in contact now and was not before.
    Started(ObjectHandle, ObjectHandle),
    /// The pair was and still is in contact.
    Ongoing(ObjectHandle, ObjectHandle),
    /// The pair was in contact and no longer is (or one object was removed).
    Stopped(ObjectHandle, ObjectHandle),
}

/// Options of a [`World`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorldOptions {
    /// Pairs closer than this (length units, ≥ 0) count as in contact. Default 0.
    pub contact_margin: Real,
    /// Narrow-phase query options.
    pub query: QueryOptions,
    /// Run the narrow phase, the batch moves of [`World::set_poses`] and the grid's pair
    /// search on rayon's pool (needs the `parallel` feature; default true).
    pub parallel: bool,
    /// Compute the full contact (signed distance, normal, witness points — EPA for
    /// penetrating pairs) of every pair in contact (default true). When false the narrow
    /// phase only decides *whether* pairs touch (GJK intersection, or distance when there
    /// is a contact margin), which is several times cheaper for deeply interpenetrating
    /// scenes.
    pub contact_details: bool,
}

impl Default for WorldOptions {
    fn default() -> Self {
        Self {
            contact_margin: 0.0,
            query: QueryOptions::default(),
            parallel: true,
            contact_details: true,
        }
    }
}

/// Where an object is, and what moving it needs, kept apart from its shape: one 64-byte
/// line per object in the f32 build, so that moving 10^5 objects reads and writes these
/// lines and not the slots' shapes.
#[derive(Clone, Copy)]
struct Place {
    pose: Pose,
    /// The shape's local box ([`Collider::local_aabb`]).
    local: Aabb,
    /// Radius of a ball about the local origin holding the shape
    /// ([`Collider::bounding_radius`], length units): no point of the shape is farther.
    radius: Real,
    /// The slot's generation (see [`Slot`]).
    generation: u32,
}

// The line the doc promises (f32: a 32-byte pose, a 24-byte box, two 4-byte fields).
#[cfg(not(minkowski_f64))]
const _: () = assert!(std::mem::size_of::<Place>() == 64);

impl Place {
    /// An emptied slot's place: generation `generation`, which no live handle holds.
    fn vacant(generation: u32) -> Place {
        Place {
            pose: Pose::IDENTITY,
            local: Aabb::new(Vector::ZERO, Vector::ZERO),
            radius: 0.0,
            generation,
        }
    }
}

/// The live object `h` names: its place.
fn place_of(places: &[Place], h: ObjectHandle) -> Result<&Place, WorldError> {
    places
        .get(h.index as usize)
        .filter(|p| p.generation == h.generation)
        .ok_or(WorldError::StaleHandle)
}

/// An object's shape and a copy of its pose, as the narrow phase reads them.
#[derive(Clone, Copy)]
struct Placed<'a> {
    shape: &'a Collider,
    pose: Pose,
    radius: Real,
    /// For a fast object, where its sweep starts.
    from: Option<Pose>,
}

/// The object in slot `i`, placed; `None` for an empty slot. `extras` only when some
/// object is fast (to read its sweep start).
fn placed<'a>(
    slots: &'a [Slot],
    places: &[Place],
    extras: Option<&[Extra]>,
    i: usize,
) -> Option<Placed<'a>> {
    let p = &places[i];
    let from = extras.and_then(|e| e[i].sweep).map(|s| s.from);
    slots[i].shape.as_ref().map(|shape| Placed {
        shape,
        pose: p.pose,
        radius: p.radius,
        from,
    })
}

/// What a broad-phase pair keeps from update to update: its GJK warm start (one per
/// part pair for a pair with a compound), and a lower bound on the distance between its
/// shapes (length units; −∞ when unknown or in contact), lowered each update by how far
/// the two objects may have moved.
#[derive(Debug, Clone)]
struct PairState {
    /// The warm start of a convex pair.
    cache: GjkCache,
    separation: Real,
    /// The warm starts of a pair with a compound, made at its first test (boxed: one
    /// pointer in the states of convex pairs).
    parts: Option<Box<PartCaches>>,
}

impl PairState {
    const NEW: PairState = PairState {
        cache: GjkCache::new(),
        separation: Real::NEG_INFINITY,
        parts: None,
    };
}

/// How far any point within `radius` of a shape's local origin can move when its pose
/// goes from `from` to `to` (length units): `|Δt| + 2 min(|q₁ − q₀|, |q₁ + q₀|) radius`,
/// since `q p q* − r p r* = (q − r) p q* + r p (q − r)*` for unit quaternions and `±q`
/// are one rotation. Rounding is covered by a relative 16 ε; rotations further than
/// 1e-3 from unit give +∞ (no bound is claimed).
fn motion_bound(from: &Pose, to: &Pose, radius: Real) -> Real {
    let (q0, q1) = (from.rotation(), to.rotation());
    let (n0, n1) = (q0.length_squared() - 1.0, q1.length_squared() - 1.0);
    if !(n0.abs() <= 1e-3 && n1.abs() <= 1e-3) {
        return Real::INFINITY;
    }
    let turn = (q1 - q0).length().min((q1 + q0).length());
    // A quaternion of norm² 1 + n maps p to (−n) p + (1 + n) R p (R its unit rotation),
    // off R p by at most 2 |n| |p| at each end: allowed for twice over.
    let d = (to.translation() - from.translation()).length()
        + (2.0 * turn + 4.0 * (n0.abs() + n1.abs())) * radius;
    let eps = 16.0 * crate::math::EPSILON;
    let d = d * (1.0 + eps) + eps * (to.translation().abs().max_element() + radius);
    if d.is_nan() {
        Real::INFINITY
    } else {
        d
    }
}

/// An object slot: the shape, `None` while the slot is free. Its generation is in the
/// slot's [`Place`]: a handle names the live object when the generations agree. Removing
/// an object bumps the generation, so no handle names a free slot (the generation it has
/// then is handed out by the next insertion into it).
struct Slot {
    shape: Option<Collider>,
}

/// Timings of the last [`World::update`] (wall clock, milliseconds).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UpdateTimings {
    /// Broad phase.
    pub broad_ms: f64,
    /// Narrow phase.
    pub narrow_ms: f64,
    /// Pairs the broad phase reported.
    pub pairs: usize,
    /// Of those, pairs not tested: still apart by more than the contact margin whatever
    /// their objects' motion since the test that last proved them apart.
    pub skipped: usize,
    /// Object–static contacts ([`statics`]): box checks and manifold queries (0 in a
    /// world without statics).
    pub statics_ms: f64,
    /// Objects queried against statics (their boxes met some static's).
    pub static_objects: usize,
    /// Object–terrain contacts ([`terrains`]; 0 in a world without terrains).
    pub terrains_ms: f64,
    /// Objects tested against terrains.
    pub terrain_objects: usize,
}

/// A collision world. See the module notes.
pub struct World {
    slots: Vec<Slot>,
    /// Per slot: the object's place (a vacant place for a free slot).
    places: Vec<Place>,
    free: Vec<u32>,
    /// Per slot: the object's collision groups (apart from the rest: the pair filter
    /// reads them for every broad-phase pair).
    groups: Vec<CollisionGroups>,
    /// Per slot: user data and sweep state.
    extras: Vec<Extra>,
    /// The fast objects' slots, in no order.
    fast: Vec<u32>,
    /// Whether some object has had groups other than [`CollisionGroups::ALL`] (until
    /// then the pair filter is skipped).
    any_groups: bool,
    broad: Box<dyn BroadPhase + Send>,
    options: WorldOptions,
    /// Broad-phase pairs of the last update with their states, sorted by key.
    pair_caches: Vec<(u64, PairState)>,
    /// Per object slot: how far the object may have moved since the last update
    /// ([`motion_bound`], summed over its moves; +∞ for a slot emptied or filled since).
    motion: Vec<Real>,
    /// The pairs in contact after the last update, sorted by object indices.
    contacts: Vec<WorldContact>,
    events: Vec<ContactEvent>,
    timings: UpdateTimings,
    // Buffers kept from update to update (a fresh 10^5-pair allocation each frame costs
    // page faults).
    pairs_buf: Vec<(u32, u32)>,
    spare_caches: Vec<(u64, PairState)>,
    results: Vec<Option<Hit>>,
    boxes_buf: Vec<Result<(Aabb, Real), WorldError>>,
    spare_contacts: Vec<WorldContact>,
    /// The static geometry and its contacts with the objects.
    statics: statics::Statics,
    /// The displacement-mapped terrains and their contacts with the objects.
    terrains: terrains::Terrains,
}

impl World {
    /// An empty world with the given broad phase and options.
    pub fn new(kind: BroadPhaseKind, options: WorldOptions) -> Self {
        let broad: Box<dyn BroadPhase + Send> = match kind {
            BroadPhaseKind::Grid { cell_size } => {
                let mut grid = Grid::new(cell_size);
                grid.set_parallel(options.parallel);
                Box::new(grid)
            }
            BroadPhaseKind::SweepAndPrune => Box::new(SweepAndPrune::new()),
            BroadPhaseKind::Tree { fat_factor } => Box::new(DynamicTree::new(fat_factor, 0.0)),
        };
        Self {
            slots: Vec::new(),
            places: Vec::new(),
            free: Vec::new(),
            groups: Vec::new(),
            extras: Vec::new(),
            fast: Vec::new(),
            any_groups: false,
            broad,
            options: WorldOptions {
                contact_margin: if options.contact_margin.is_finite() {
                    options.contact_margin.max(0.0)
                } else {
                    0.0
                },
                ..options
            },
            pair_caches: Vec::new(),
            motion: Vec::new(),
            contacts: Vec::new(),
            events: Vec::new(),
            timings: UpdateTimings::default(),
            pairs_buf: Vec::new(),
            spare_caches: Vec::new(),
            results: Vec::new(),
            boxes_buf: Vec::new(),
            spare_contacts: Vec::new(),
            statics: statics::Statics::default(),
            terrains: terrains::Terrains::default(),
        }
    }

    fn world_box(&self, local: &Aabb, pose: &Pose) -> Result<Aabb, WorldError> {
        object_box(local, pose, self.options.contact_margin)
    }

    /// Adds an object — a convex [`Shape`](crate::shape::Shape) or a
    /// [`Compound`](crate::shape::Compound) — at `pose` (local to world), with the
    /// default [`ObjectOptions`] (all groups, user data 0, not fast), and returns its
    /// handle. See [`insert_with`](Self::insert_with).
    ///
    /// # Errors
    /// [`WorldError::InvalidPose`], [`WorldError::Full`].
    pub fn insert(
        &mut self,
        shape: impl Into<Collider>,
        pose: Pose,
    ) -> Result<ObjectHandle, WorldError> {
        self.insert_with(shape, pose, ObjectOptions::default())
    }

    /// Adds an object at `pose` (local to world) with its groups, user data and fast
    /// flag, and returns its handle. A fast object's first sweep starts at `pose`.
    ///
    /// # Errors
    /// [`WorldError::InvalidPose`], [`WorldError::Full`] (nothing is added).
    pub fn insert_with(
        &mut self,
        shape: impl Into<Collider>,
        pose: Pose,
        options: ObjectOptions,
    ) -> Result<ObjectHandle, WorldError> {
        let shape = shape.into();
        let local = shape.local_aabb();
        let aabb = self.world_box(&local, &pose)?;
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                if self.slots.len() >= SweepAndPrune::MAX_ID as usize {
                    return Err(WorldError::Full);
                }
                self.slots.push(Slot { shape: None });
                self.places.push(Place::vacant(0));
                self.motion.push(Real::INFINITY);
                self.groups.push(CollisionGroups::ALL);
                self.extras.push(Extra::NONE);
                (self.slots.len() - 1) as u32
            }
        };
        if self.broad.insert(index, aabb).is_err() {
            self.free.push(index);
            return Err(WorldError::InvalidPose);
        }
        let place = &mut self.places[index as usize];
        *place = Place {
            pose,
            local,
            radius: shape.bounding_radius(),
            generation: place.generation,
        };
        self.slots[index as usize].shape = Some(shape);
        // A new object: no pair of this slot has a separation to carry.
        self.motion[index as usize] = Real::INFINITY;
        self.groups[index as usize] = options.groups;
        self.any_groups |= options.groups != CollisionGroups::ALL;
        self.extras[index as usize] = Extra {
            user_data: options.user_data,
            sweep: None,
        };
        let h = ObjectHandle {
            index,
            generation: place.generation,
        };
        if options.continuous {
            self.start_sweeps(index);
        }
        Ok(h)
    }

    /// Makes slot `i` fast, its sweep starting where it is.
    fn start_sweeps(&mut self, i: u32) {
        let from = self.places[i as usize].pose;
        self.extras[i as usize].sweep = Some(Sweep {
            from,
            settled: true,
        });
        self.fast.push(i);
    }

    /// The broad-phase box of slot `i` at `pose` (its current pose, or the one it is
    /// being moved to): a fast object's covers its motion from its sweep's start.
    fn box_at(&self, i: usize, pose: &Pose) -> Result<Aabb, WorldError> {
        let p = &self.places[i];
        let from = self.extras[i]
            .sweep
            .map(|s| if s.settled { p.pose } else { s.from });
        motion_box(
            &p.local,
            p.radius,
            from.as_ref(),
            pose,
            self.options.contact_margin,
        )
    }

    /// The object's collision groups.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn groups(&self, h: ObjectHandle) -> Result<CollisionGroups, WorldError> {
        self.place(h)?;
        Ok(self.groups[h.index as usize])
    }

    /// Sets the object's collision groups. Its pairs follow from the next
    /// [`update`](Self::update) (a pair in contact that stops interacting is reported
    /// stopped then); scene queries see them at once.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn set_groups(
        &mut self,
        h: ObjectHandle,
        groups: CollisionGroups,
    ) -> Result<(), WorldError> {
        self.place(h)?;
        self.groups[h.index as usize] = groups;
        self.any_groups |= groups != CollisionGroups::ALL;
        Ok(())
    }

    /// The object's user data.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn user_data(&self, h: ObjectHandle) -> Result<u64, WorldError> {
        self.place(h)?;
        Ok(self.extras[h.index as usize].user_data)
    }

    /// Sets the object's user data (any value: the world only hands it back, and to
    /// query predicates).
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn set_user_data(&mut self, h: ObjectHandle, data: u64) -> Result<(), WorldError> {
        self.place(h)?;
        self.extras[h.index as usize].user_data = data;
        Ok(())
    }

    /// Whether the object is fast (its moves are swept).
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn is_continuous(&self, h: ObjectHandle) -> Result<bool, WorldError> {
        self.place(h)?;
        Ok(self.extras[h.index as usize].sweep.is_some())
    }

    /// Flags the object fast (continuous collision, see the module notes) or not. Turned
    /// on, its next sweep starts at the pose it has now; turned off, its box shrinks to
    /// its current pose's and its moves are no longer swept. Setting the flag it already
    /// has changes nothing.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`]; [`WorldError::InvalidPose`] if its box at the current
    /// pose overflows (not reached for a valid object).
    pub fn set_continuous(&mut self, h: ObjectHandle, on: bool) -> Result<(), WorldError> {
        self.place(h)?;
        let i = h.index as usize;
        match (self.extras[i].sweep.is_some(), on) {
            (false, true) => self.start_sweeps(h.index),
            (true, false) => {
                self.extras[i].sweep = None;
                self.fast.retain(|&k| k != h.index);
                let p = &self.places[i];
                let b = self.world_box(&p.local, &p.pose)?;
                self.broad
                    .update(h.index, b)
                    .map_err(|_| WorldError::InvalidPose)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Every live object: its handle, shape and pose, by slot index.
    pub fn iter(&self) -> impl Iterator<Item = (ObjectHandle, &Collider, &Pose)> + '_ {
        self.slots
            .iter()
            .zip(&self.places)
            .enumerate()
            .filter_map(|(i, (s, p))| {
                let h = ObjectHandle {
                    index: i as u32,
                    generation: p.generation,
                };
                s.shape.as_ref().map(|shape| (h, shape, &p.pose))
            })
    }

    fn place(&self, h: ObjectHandle) -> Result<&Place, WorldError> {
        place_of(&self.places, h)
    }

    /// Moves an object.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`], [`WorldError::InvalidPose`] (the object stays put).
    pub fn set_pose(&mut self, h: ObjectHandle, pose: Pose) -> Result<(), WorldError> {
        let p = self.place(h)?;
        let aabb = self.box_at(h.index as usize, &pose)?;
        let moved = motion_bound(&p.pose, &pose, p.radius);
        let old = p.pose;
        self.broad
            .update(h.index, aabb)
            .map_err(|_| WorldError::InvalidPose)?;
        self.places[h.index as usize].pose = pose;
        self.motion[h.index as usize] += moved;
        unsettle(&mut self.extras[h.index as usize], &old);
        Ok(())
    }

    /// Moves many objects at once: `moves[i] = (handle, new pose)`. All or nothing: every
    /// move is checked (and its broad-phase box computed, on rayon's pool when the world
    /// is parallel) before any object moves; if one is rejected, no object moves. A handle
    /// given twice ends at its last pose.
    ///
    /// # Errors
    /// The index in `moves` of the first rejected move and why:
    /// [`WorldError::StaleHandle`] or [`WorldError::InvalidPose`].
    pub fn set_poses(&mut self, moves: &[(ObjectHandle, Pose)]) -> Result<(), (usize, WorldError)> {
        let mut boxes = std::mem::take(&mut self.boxes_buf);
        let (places, margin) = (&self.places, self.options.contact_margin);
        let extras = &self.extras;
        let placed = |&(h, pose): &(ObjectHandle, Pose)| -> Result<(Aabb, Real), WorldError> {
            let p = place_of(places, h)?;
            let aabb = match extras[h.index as usize].sweep {
                // A fast object's box covers its motion from the start of its sweep (its
                // pose now if it has not moved since the last update). Moved twice in
                // the batch, the last move's box counts, from the same start.
                Some(s) => {
                    let from = if s.settled { p.pose } else { s.from };
                    motion_box(&p.local, p.radius, Some(&from), &pose, margin)?
                }
                None => object_box(&p.local, &pose, margin)?,
            };
            Ok((aabb, motion_bound(&p.pose, &pose, p.radius)))
        };
        map_maybe_parallel(moves, self.options.parallel, &placed, &mut boxes);
        let refused = boxes
            .iter()
            .enumerate()
            .find_map(|(i, b)| b.as_ref().err().map(|e| (i, e.clone())));
        if let Some(refused) = refused {
            self.boxes_buf = boxes;
            return Err(refused);
        }
        // The broad phase and the objects are apart: on two threads, when the world is
        // parallel, each takes one.
        if !self.fast.is_empty() {
            for &(h, _) in moves {
                let old = self.places[h.index as usize].pose;
                unsettle(&mut self.extras[h.index as usize], &old);
            }
        }
        let (broad, places, motion) = (&mut self.broad, &mut self.places, &mut self.motion);
        let to_broad = || {
            for (&(h, _), b) in moves.iter().zip(&boxes) {
                if let Ok((b, _)) = b {
                    // Cannot fail: the handle is live and the box finite (checked above).
                    let _ = broad.update(h.index, *b);
                }
            }
        };
        let to_objects = || {
            for (&(h, pose), b) in moves.iter().zip(&boxes) {
                if let Ok((_, moved)) = b {
                    // A handle moved twice counts both moves: their sum bounds the whole.
                    motion[h.index as usize] += moved;
                }
                places[h.index as usize].pose = pose;
            }
        };
        join_maybe_parallel(self.options.parallel, to_broad, to_objects);
        self.boxes_buf = boxes;
        Ok(())
    }

    /// Removes an object; its contacts are reported as stopped by the next update.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn remove(&mut self, h: ObjectHandle) -> Result<Collider, WorldError> {
        self.place(h)?;
        let i = h.index as usize;
        let shape = self.slots[i].shape.take().ok_or(WorldError::StaleHandle)?;
        let _ = self.broad.remove(h.index);
        self.places[i] = Place::vacant(h.generation.wrapping_add(1));
        self.free.push(h.index);
        self.motion[i] = Real::INFINITY;
        self.groups[i] = CollisionGroups::ALL;
        if self.extras[i].sweep.is_some() {
            self.fast.retain(|&k| k != h.index);
        }
        self.extras[i] = Extra::NONE;
        Ok(shape)
    }

    /// The object's shape and pose.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn get(&self, h: ObjectHandle) -> Result<(&Collider, &Pose), WorldError> {
        let p = self.place(h)?;
        let shape = self.slots[h.index as usize].shape.as_ref();
        shape.map(|s| (s, &p.pose)).ok_or(WorldError::StaleHandle)
    }

    /// Number of objects.
    pub fn len(&self) -> usize {
        self.broad.len()
    }

    /// Whether the world is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Runs the broad phase, then the narrow phase on its pairs, and updates the contacts
    /// and events.
    pub fn update(&mut self) {
        let t0 = std::time::Instant::now();
        // A fast object that has not moved since the last update sweeps nothing.
        for &i in &self.fast {
            let pose = self.places[i as usize].pose;
            if let Some(s) = self.extras[i as usize].sweep.as_mut() {
                if s.settled {
                    s.from = pose;
                }
            }
        }
        let mut pairs = std::mem::take(&mut self.pairs_buf);
        self.broad.overlapping_pairs(&mut pairs);
        if self.any_groups {
            let groups = &self.groups;
            pairs.retain(|&(a, b)| groups[a as usize].interacts_with(&groups[b as usize]));
        }
        let t1 = std::time::Instant::now();
        // Carry the states of pairs that persist (both lists sorted by key); the narrow
        // phase lowers their separations by how far their objects may have moved.
        let mut old = std::mem::take(&mut self.pair_caches);
        let mut work = std::mem::take(&mut self.spare_caches);
        work.clear();
        let mut j = 0;
        for &(a, b) in &pairs {
            let k = pair_key(a, b);
            while j < old.len() && old[j].0 < k {
                j += 1;
            }
            let state = if j < old.len() && old[j].0 == k {
                std::mem::replace(&mut old[j].1, PairState::NEW)
            } else {
                PairState::NEW
            };
            work.push((k, state));
        }
        let mut results = std::mem::take(&mut self.results);
        // Every entry is written by the narrow phase: no need to clear the old ones.
        results.resize(work.len(), None);
        let extras = (!self.fast.is_empty()).then_some(&self.extras[..]);
        let skipped = run_narrow(
            &self.slots,
            &self.places,
            extras,
            &self.motion,
            &self.options,
            &mut work,
            &mut results,
        );
        self.motion.fill(0.0);
        let t2 = std::time::Instant::now();
        let mut before =
            std::mem::replace(&mut self.contacts, std::mem::take(&mut self.spare_contacts));
        self.contacts.clear();
        for ((k, _), r) in work.iter().zip(&results) {
            if let Some(((c, part_a, part_b, toi), [ga, gb])) = *r {
                let a = ObjectHandle {
                    index: (*k >> 32) as u32,
                    generation: ga,
                };
                let b = ObjectHandle {
                    index: *k as u32,
                    generation: gb,
                };
                self.contacts.push(WorldContact {
                    a,
                    b,
                    contact: c,
                    part_a,
                    part_b,
                    toi,
                });
            }
        }
        // Events: merge the before/after contact lists (both sorted by object indices).
        // A pair whose object was replaced in its slot (a different generation) is a
        // different pair.
        self.events.clear();
        let now = &self.contacts;
        let key = |c: &WorldContact| pair_key(c.a.index, c.b.index);
        let (mut i, mut j) = (0, 0);
        while i < before.len() || j < now.len() {
            let take_before =
                j >= now.len() || (i < before.len() && key(&before[i]) < key(&now[j]));
            let take_now = i >= before.len() || (j < now.len() && key(&now[j]) < key(&before[i]));
            if take_before {
                self.events
                    .push(ContactEvent::Stopped(before[i].a, before[i].b));
                i += 1;
            } else if take_now {
                self.events.push(ContactEvent::Started(now[j].a, now[j].b));
                j += 1;
            } else {
                let (x, y) = (&before[i], &now[j]);
                if (x.a, x.b) == (y.a, y.b) {
                    self.events.push(ContactEvent::Ongoing(y.a, y.b));
                } else {
                    self.events.push(ContactEvent::Stopped(x.a, x.b));
                    self.events.push(ContactEvent::Started(y.a, y.b));
                }
                i += 1;
                j += 1;
            }
        }
        // Fast objects: the next sweep starts where they are now, and their boxes shrink
        // back to their poses' (the sweeps of this update stay readable for `verify`).
        for k in 0..self.fast.len() {
            let i = self.fast[k] as usize;
            let Some(s) = self.extras[i].sweep.as_mut() else {
                continue;
            };
            s.settled = true;
            if s.from != self.places[i].pose {
                let p = &self.places[i];
                if let Ok(b) = object_box(&p.local, &p.pose, self.options.contact_margin) {
                    let _ = self.broad.update(i as u32, b);
                }
            }
        }
        self.pair_caches = work;
        self.spare_caches = old;
        self.results = results;
        before.clear();
        self.spare_contacts = before;
        let t3 = std::time::Instant::now();
        let static_objects = self.update_statics();
        let statics_ms = t3.elapsed().as_secs_f64() * 1e3;
        let t4 = std::time::Instant::now();
        let terrain_objects = self.update_terrains();
        self.timings = UpdateTimings {
            broad_ms: (t1 - t0).as_secs_f64() * 1e3,
            narrow_ms: (t2 - t1).as_secs_f64() * 1e3,
            pairs: pairs.len(),
            skipped,
            statics_ms,
            static_objects,
            terrains_ms: t4.elapsed().as_secs_f64() * 1e3,
            terrain_objects,
        };
        self.pairs_buf = pairs;
    }

    /// The contacts found by the last [`update`](Self::update), ordered by object indices.
    pub fn contacts(&self) -> &[WorldContact] {
        &self.contacts
    }

    /// The contact events of the last [`update`](Self::update).
    pub fn events(&self) -> &[ContactEvent] {
        &self.events
    }

    /// Timings and pair count of the last [`update`](Self::update).
    pub fn timings(&self) -> UpdateTimings {
        self.timings
    }

    /// The broad-phase pairs of the last update whose objects interact (their
    /// [`CollisionGroups`]), as object index pairs `(a, b)`, `a < b`.
    pub fn broad_pairs(&self) -> Vec<(u32, u32)> {
        self.pair_caches
            .iter()
            .map(|(k, _)| ((k >> 32) as u32, *k as u32))
            .collect()
    }

    /// Every pair in contact now, by an all-pairs narrow phase (O(n²), cold GJK): the
    /// reference [`update`](Self::update)'s contacts are checked against. Only pairs
    /// that interact ([`CollisionGroups`]); a pair with a fast object is swept as the
    /// last update swept it. Pairs as object index pairs `(a, b)`, `a < b`, sorted, with
    /// their contacts (`None` without contact details).
    pub fn brute_force_contacts(&self) -> Vec<((u32, u32), Option<Contact>)> {
        let extras = Some(&self.extras[..]);
        let live: Vec<(u32, Placed<'_>)> = (0..self.slots.len())
            .filter_map(|i| placed(&self.slots, &self.places, extras, i).map(|o| (i as u32, o)))
            .collect();
        let mut out = Vec::new();
        for (i, (a, oa)) in live.iter().enumerate() {
            for (b, ob) in &live[i + 1..] {
                if !self.groups[*a as usize].interacts_with(&self.groups[*b as usize]) {
                    continue;
                }
                let mut fresh = PairState::NEW;
                if let Some((c, _, _, _)) = narrow_full(oa, ob, &self.options, &mut fresh) {
                    out.push(((*a, *b), c));
                }
            }
        }
        out
    }
}

impl World {
    /// Checks the last [`update`](Self::update) against brute force: the broad-phase pairs
    /// must equal an O(n²) test of every pair of world boxes, and the contacts must equal
    /// a cold narrow phase over those pairs (boxes are conservative, so no contact can
    /// hide outside them), except for pairs that touch within `touch_tolerance` (length
    /// units), which warm- and cold-started GJK may round either way. Only pairs that
    /// interact ([`CollisionGroups`]) count; fast objects' boxes and sweeps are those of
    /// the last update (call it before moving objects again). The object–static contacts
    /// must equal [`brute_force_static_contacts`](Self::brute_force_static_contacts)
    /// (normals and points exactly, feature ids aside), and the object–terrain contacts
    /// name the same parts as
    /// [`brute_force_terrain_contacts`](Self::brute_force_terrain_contacts).
    ///
    /// # Errors
    /// A description of the first difference.
    pub fn verify(&self, touch_tolerance: Real) -> Result<(), String> {
        let mut boxes = Vec::new();
        for (i, (s, p)) in self.slots.iter().zip(&self.places).enumerate() {
            if let Some(shape) = &s.shape {
                // A fast object's box covers the last update's sweep.
                let from = self.extras[i].sweep.map(|s| s.from);
                let b = motion_box(
                    &shape.local_aabb(),
                    p.radius,
                    from.as_ref(),
                    &p.pose,
                    self.options.contact_margin,
                )
                .map_err(|e| e.to_string())?;
                boxes.push((i as u32, b));
            }
        }
        let mut want_pairs = crate::broadphase::brute_force_pairs(&boxes);
        want_pairs
            .retain(|&(a, b)| self.groups[a as usize].interacts_with(&self.groups[b as usize]));
        let got_pairs = self.broad_pairs();
        if want_pairs != got_pairs {
            let missing = want_pairs.iter().find(|p| !got_pairs.contains(p));
            let extra = got_pairs.iter().find(|p| !want_pairs.contains(p));
            return Err(format!(
                "broad phase: {} pairs, brute force {} (first missing {missing:?}, first extra {extra:?})",
                got_pairs.len(),
                want_pairs.len()
            ));
        }
        let got: Vec<(u32, u32)> = self
            .contacts
            .iter()
            .map(|c| (c.a.index, c.b.index))
            .collect();
        let mut want = Vec::new();
        let extras = Some(&self.extras[..]);
        for &(a, b) in &want_pairs {
            let (oa, ob) = (
                placed(&self.slots, &self.places, extras, a as usize),
                placed(&self.slots, &self.places, extras, b as usize),
            );
            if let (Some(oa), Some(ob)) = (oa, ob) {
                let mut fresh = PairState::NEW;
                if narrow_full(&oa, &ob, &self.options, &mut fresh).is_some() {
                    want.push((a, b));
                }
            }
        }
        // Both lists are sorted.
        let missing = want.iter().filter(|p| got.binary_search(p).is_err());
        let extra = got.iter().filter(|p| want.binary_search(p).is_err());
        for p in missing.chain(extra) {
            let (oa, ob) = (
                placed(&self.slots, &self.places, extras, p.0 as usize).ok_or("stale pair")?,
                placed(&self.slots, &self.places, extras, p.1 as usize).ok_or("stale pair")?,
            );
            let c = compound::contact(oa.shape, &oa.pose, ob.shape, &ob.pose, &self.options.query)
                .answer;
            if (c.distance - self.options.contact_margin).abs() > touch_tolerance {
                return Err(format!(
                    "contacts differ on pair {p:?} (signed distance {})",
                    c.distance
                ));
            }
        }
        self.verify_statics()?;
        self.verify_terrains()
    }
}

/// A pair's narrow-phase answer: the contact (if details are on), the compound parts
/// involved, and the time of impact of a swept contact.
type Found = (Option<Contact>, Option<u32>, Option<u32>, Option<Real>);

/// A pair found in contact, with the generations of its two objects: read with the
/// objects in the narrow phase, so that naming the pair's handles afterwards does not
/// read two scattered slots again (a cache miss each at 10^5 objects).
type Hit = (Found, [u32; 2]);

/// The narrow phase of one pair: the contact when the shapes are within the contact
/// margin. Convex pairs warm-start GJK from the pair's cache and leave in `state` the
/// separation the test proved (less its rounding slack; −∞ if none); pairs with a
/// compound go part by part, warm-started from the pair's part caches.
fn narrow_pair(
    a: &Placed<'_>,
    b: &Placed<'_>,
    opts: &WorldOptions,
    state: &mut PairState,
) -> Option<Found> {
    state.separation = Real::NEG_INFINITY;
    let margin = opts.contact_margin;
    // Bounding balls apart by more than the margin: so are the shapes, and no support
    // point is needed (two in five of the pairs the grid reports in `minkowski scene`).
    // The gap is carried like a GJK bound (below), less its rounding slack and that of
    // the translations.
    let tol = opts.query.gjk.touch_tolerance();
    let centers = (b.pose.translation() - a.pose.translation()).length();
    let scale = centers + a.radius + b.radius;
    let far = a.pose.translation().abs().max_element() + b.pose.translation().abs().max_element();
    let balls = centers - a.radius - b.radius - SLACK * tol * scale - 8.0 * EPSILON * far;
    if balls > margin {
        state.separation = balls;
        return None;
    }
    let (Collider::Convex(sa), Collider::Convex(sb)) = (a.shape, b.shape) else {
        let parts: &mut PartCaches = state.parts.get_or_insert_with(Default::default);
        let (sa, qa, sb, qb, q) = (a.shape, &a.pose, b.shape, &b.pose, &opts.query);
        if !opts.contact_details {
            let (pa, pb) = if margin > 0.0 {
                let d = compound::distance_with(sa, qa, sb, qb, q, Some(parts));
                (d.answer <= margin).then_some((d.part_a, d.part_b))?
            } else {
                let h = compound::intersects_with(sa, qa, sb, qb, q, Some(parts))?;
                (h.part_a, h.part_b)
            };
            return Some((None, pa, pb, None));
        }
        if margin <= 0.0 {
            compound::intersects_with(sa, qa, sb, qb, q, Some(&mut *parts))?;
        }
        let c = compound::contact_with(sa, qa, sb, qb, q, Some(parts));
        return (c.answer.distance <= margin).then_some((Some(c.answer), c.part_a, c.part_b, None));
    };
    let cache = &mut state.cache;
    let apart =
        query::separation_bound_with(sa, &a.pose, sb, &b.pose, &opts.query, Some(&mut *cache));
    if let Some(d) = apart {
        // Carried to later updates less what rounding and GJK's touching tolerance could
        // hide at these coordinates.
        state.separation = d - SLACK * tol * scale;
        if d > margin || margin <= 0.0 {
            return None;
        }
    }
    if !opts.contact_details {
        let hit = apart.is_none()
            || query::distance_with(sa, &a.pose, sb, &b.pose, &opts.query, Some(cache)).distance
                <= margin;
        return hit.then_some((None, None, None, None));
    }
    let c = query::contact_with(sa, &a.pose, sb, &b.pose, &opts.query, Some(cache));
    (c.distance <= margin).then_some((Some(c), None, None, None))
}

/// The narrow phase of one pair, swept when one of them is fast: [`narrow_pair`] at the
/// current poses, then, if that finds no contact, [`sweep_pair`].
fn narrow_full(
    a: &Placed<'_>,
    b: &Placed<'_>,
    opts: &WorldOptions,
    state: &mut PairState,
) -> Option<Found> {
    let now = narrow_pair(a, b, opts, state);
    if now.is_some() || (a.from.is_none() && b.from.is_none()) {
        return now;
    }
    sweep_pair(a, b, opts)
}

/// The motion from `from` to `to` over `t ∈ [0, 1]`: the translation, and for a convex
/// shape the shortest rotation (a compound translates only).
fn motion_between(from: &Pose, to: &Pose, convex: bool) -> Motion {
    let linear = to.translation() - from.translation();
    if !convex || from.rotation() == to.rotation() {
        return Motion::linear(linear);
    }
    let mut turn = to.rotation() * from.rotation().inverse();
    if turn.w < 0.0 {
        turn = -turn;
    }
    let angular = turn.normalize().to_scaled_axis();
    if angular.is_finite() {
        Motion::new(linear, angular)
    } else {
        Motion::linear(linear)
    }
}

/// The sweep of a pair with a fast object (see the module notes): the two cast from
/// their sweep starts (a slow object stays at its current pose) to their current poses;
/// a hit within the contact margin, having started apart, is a contact at the time of
/// impact, computed at the poses of that time.
fn sweep_pair(a: &Placed<'_>, b: &Placed<'_>, opts: &WorldOptions) -> Option<Found> {
    let (fa, fb) = (a.from.unwrap_or(a.pose), b.from.unwrap_or(b.pose));
    if fa == a.pose && fb == b.pose {
        return None;
    }
    let convex = |c: &Collider| matches!(c, Collider::Convex(_));
    let (ma, mb) = (
        motion_between(&fa, &a.pose, convex(a.shape)),
        motion_between(&fb, &b.pose, convex(b.shape)),
    );
    let q = &opts.query;
    let cast = compound::cast_colliders(
        a.shape,
        &fa,
        ma,
        b.shape,
        &fb,
        mb,
        1.0,
        opts.contact_margin,
        q,
    )
    .ok()?;
    let c = cast.answer;
    if !(c.hit && c.start == CastStart::Separated && c.toi <= 1.0) {
        return None;
    }
    if !opts.contact_details {
        return Some((None, cast.part_a, cast.part_b, Some(c.toi)));
    }
    let (pa, pb) = (ma.pose_at(&fa, c.toi), mb.pose_at(&fb, c.toi));
    let at = compound::contact(a.shape, &pa, b.shape, &pb, q);
    Some((Some(at.answer), at.part_a, at.part_b, Some(c.toi)))
}

/// Where a fast object's sweep should start once it moves from `old`: `old` itself if
/// it had not moved since the last update.
fn unsettle(extra: &mut Extra, old: &Pose) {
    if let Some(s) = extra.sweep.as_mut() {
        if s.settled {
            s.from = *old;
            s.settled = false;
        }
    }
}

/// The broad-phase box of an object (local box `local`, bounding radius `radius`) at
/// `to`, covering its motion from `from` for a fast object: the union of the boxes at
/// both poses when it does not turn, else of its bounding ball's boxes at both (the
/// turning shape stays in the ball about its moving origin). Length units, world frame.
fn motion_box(
    local: &Aabb,
    radius: Real,
    from: Option<&Pose>,
    to: &Pose,
    margin: Real,
) -> Result<Aabb, WorldError> {
    let end = object_box(local, to, margin)?;
    let Some(from) = from.filter(|f| *f != to) else {
        return Ok(end);
    };
    let start = object_box(local, from, margin)?;
    if from.rotation() == to.rotation() {
        return Ok(start.merged(&end));
    }
    let ball = Aabb::new(Vector::splat(-radius), Vector::splat(radius));
    let at = |p: &Pose| {
        object_box(
            &ball,
            &Pose::from_parts(crate::math::Rotation::IDENTITY, p.translation()),
            margin,
        )
    };
    Ok(start.merged(&end).merged(&at(from)?).merged(&at(to)?))
}

/// `out = items.map(f)`, on rayon's pool when `parallel` (and the feature) is on.
fn map_maybe_parallel<T: Sync, U: Send>(
    items: &[T],
    parallel: bool,
    f: &(impl Fn(&T) -> U + Sync),
    out: &mut Vec<U>,
) {
    out.clear();
    #[cfg(feature = "parallel")]
    if parallel {
        use rayon::prelude::*;
        items
            .par_iter()
            .with_min_len(1024)
            .map(f)
            .collect_into_vec(out);
        return;
    }
    let _ = parallel;
    out.extend(items.iter().map(f));
}

/// Runs `a` and `b`, on two of rayon's threads when `parallel` (and the feature) is on.
fn join_maybe_parallel(parallel: bool, a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
    #[cfg(feature = "parallel")]
    if parallel {
        rayon::join(a, b);
        return;
    }
    let _ = parallel;
    a();
    b();
}

/// Pairs per narrow-phase batch (see [`narrow_batch`]).
const BATCH: usize = 64;

/// The narrow phase of every pair of `work` into `results` (same length), on rayon's
/// pool when the options ask for it and the `parallel` feature is on.
///
/// Returns how many pairs were skipped: still apart by more than the margin once their
/// separation is lowered by their objects' `motion`.
fn run_narrow(
    slots: &[Slot],
    places: &[Place],
    extras: Option<&[Extra]>,
    motion: &[Real],
    opts: &WorldOptions,
    work: &mut [(u64, PairState)],
    results: &mut [Option<Hit>],
) -> usize {
    #[cfg(feature = "parallel")]
    if opts.parallel {
        use rayon::prelude::*;
        return work
            .par_chunks_mut(BATCH)
            .zip(results.par_chunks_mut(BATCH))
            .map(|(w, r)| narrow_batch(slots, places, extras, motion, opts, w, r))
            .sum();
    }
    work.chunks_mut(BATCH)
        .zip(results.chunks_mut(BATCH))
        .map(|(w, r)| narrow_batch(slots, places, extras, motion, opts, w, r))
        .sum()
}

/// The narrow phase of up to [`BATCH`] pairs. The objects of all the pairs are read
/// first (shape reference and a copy of the pose): object indices of a pair list are
/// scattered over memory, and loads that do not wait on each other overlap their cache
/// misses, where reading each object inside its query would stall every time (a quarter
/// of the narrow phase at 10^5 objects).
fn narrow_batch(
    slots: &[Slot],
    places: &[Place],
    extras: Option<&[Extra]>,
    motion: &[Real],
    opts: &WorldOptions,
    work: &mut [(u64, PairState)],
    results: &mut [Option<Hit>],
) -> usize {
    let mut objects: [Option<(Placed<'_>, Placed<'_>, [u32; 2])>; BATCH] = [None; BATCH];
    let mut skipped = 0;
    for ((k, state), o) in work.iter_mut().zip(objects.iter_mut()) {
        let (a, b) = ((*k >> 32) as usize, *k as u32 as usize);
        // Still apart by more than the margin whatever the motion since: no test, and
        // the objects are not even read.
        state.separation -= motion[a] + motion[b];
        if state.separation > opts.contact_margin {
            skipped += 1;
            continue;
        }
        if let (Some(oa), Some(ob)) = (
            placed(slots, places, extras, a),
            placed(slots, places, extras, b),
        ) {
            // Reading the shapes' boxes pulls their cache lines in with the poses'.
            std::hint::black_box((oa.shape.local_aabb(), ob.shape.local_aabb()));
            let generations = [places[a].generation, places[b].generation];
            *o = Some((oa, ob, generations));
        }
    }
    for (((_, state), o), r) in work.iter_mut().zip(&objects).zip(results) {
        *r = o
            .as_ref()
            .and_then(|(pa, pb, g)| Some((narrow_full(pa, pb, opts, state)?, *g)));
    }
    skipped
}

/// The broad-phase box the world keeps for an object with local box `local` at `pose`:
/// the placed box grown by `margin` plus a relative 1e-5 of its size (so that touching
/// shapes, whose boxes may round apart, still meet). Length units, world frame.
///
/// # Errors
/// [`WorldError::InvalidPose`] for a box that overflows (a [`Pose`] is always finite and
/// within [`crate::shape::MAX_MAGNITUDE`], so only the box can).
pub fn object_box(local: &Aabb, pose: &Pose, margin: Real) -> Result<Aabb, WorldError> {
    let b = local.transformed(pose);
    let size = (b.maxs - b.mins).max_element();
    let b = b.loosened(margin + 1e-5 * size + Real::MIN_POSITIVE);
    if b.mins.is_finite() && b.maxs.is_finite() {
        Ok(b)
    } else {
        Err(WorldError::InvalidPose)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Rotation, Vector};

    /// The motion bound against the moves of actual points: random poses (big and tiny
    /// turns, quaternions of either sign, norms off unit by up to 5e-4) and points up to
    /// the radius away from the local origin, as the narrow phase places them (through
    /// the rotation matrix).
    #[test]
    fn motion_bound_covers_every_point() {
        // Uniform in [-1, 1).
        let mut unit = crate::testing::uniform(0x2545_f491_4f6c_dd1d);
        let mut next = move || (unit() * 2.0 - 1.0) as Real;
        let mut worst: Real = 0.0;
        for i in 0..20_000 {
            let axis = Vector::new(next(), next(), next()).normalize_or(Vector::X);
            let q0 = Rotation::from_axis_angle(axis, 3.2 * next());
            let turn = if i % 2 == 0 { 1e-3 } else { 3.2 } * next();
            let mut q1 = Rotation::from_axis_angle(
                Vector::new(next(), next(), next()).normalize_or(Vector::Y),
                turn,
            ) * q0;
            if i % 3 == 0 {
                q1 = -q1;
            }
            let off = |q: Rotation, x: Real| Rotation::from_vec4(q.into()) * (1.0 + 2.5e-4 * x);
            let (q0, q1) = if i % 5 == 0 {
                (off(q0, next()), off(q1, next()))
            } else {
                (q0, q1)
            };
            let scale = if i % 7 == 0 { 1e4 } else { 1.0 };
            let t0 = Vector::new(next(), next(), next()) * scale;
            let t1 = t0 + Vector::new(next(), next(), next()) * (0.1 * scale);
            let (from, to) = (
                Pose::new(q0, t0).expect("valid pose"),
                Pose::new(q1, t1).expect("valid pose"),
            );
            let radius = (next().abs() + 0.01) * scale;
            let bound = motion_bound(&from, &to, radius);
            for _ in 0..8 {
                let p = Vector::new(next(), next(), next()).normalize_or(Vector::Z)
                    * (radius * next().abs());
                let place = |pose: &Pose| {
                    crate::math::Matrix3::from_quat(pose.rotation()) * p + pose.translation()
                };
                let moved = (place(&to) - place(&from)).length();
                assert!(
                    moved <= bound,
                    "case {i}: a point moved {moved}, bound {bound}"
                );
                worst = worst.max(moved / bound);
            }
        }
        // Tight enough to be worth carrying: some point gets close to the bound.
        assert!(worst > 0.9, "{worst}");
    }
}
