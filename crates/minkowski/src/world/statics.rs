//! Static level geometry in the world: [`StaticShape`]s (half-spaces, heightfields,
//! and whatever variants the enum gains) placed once, never moved, in contact with the
//! objects.
//!
//! # What a static is
//!
//! A static is a shape, a pose (local to world), [`CollisionGroups`] and a `u64` of user
//! data ([`StaticOptions`]), named by a [`StaticHandle`] (index and generation, as
//! objects are). It never moves: to move a piece of level geometry, remove it and insert
//! it again. Statics do not collide with each other.
//!
//! # Contacts
//!
//! Statics are kept out of the broad phase: their boxes can be huge (a terrain under the
//! whole scene) or unbounded ([`StaticShape::local_aabb`] is `None` for a half-space:
//! such a static meets every box; an empty one, [`StaticShape::is_empty`], meets none). Each [`World::update`], after the object pairs, every object's box (at
//! its current pose, grown by the contact margin as in the broad phase) is checked
//! against the box of every static it interacts with (groups as for object pairs). An
//! object whose box meets one or more statics is queried against *all of them at once*
//! with [`static_dispatch::manifolds_with_all`], within the contact margin: the
//! triangles of adjacent heightfields are then one surface, and a box straddling their
//! seam gets the surface's normal, not the seam's (the ghost-collision rules of
//! [`crate::query::static_geometry`]). Each touching region becomes one
//! [`StaticContact`] (normal from the static towards the object, world frame), an
//! object's contacts deepest first; an object and a static are *in contact* when one of
//! its regions is tagged with that static (the static of the region's deepest point), and
//! [`StaticContactEvent`]s report the (object, static) pairs that started, went on and
//! stopped. The queries run on rayon's pool when [`WorldOptions::parallel`] is on.
//!
//! # What scales and what does not
//!
//! The box check costs one box per object and one comparison per (object, static) pair
//! every update: fine for a few dozen statics and any number of objects (a world without
//! statics skips it entirely), linear in the number of statics. Thousands of small
//! statics are better merged into a few large ones (one heightfield or mesh, whose own
//! hierarchy culls its triangles). The manifold query costs what the geometry under the
//! object's box costs, independent of the size of the static.
//!
//! # Limits
//!
//! * Statics are tested at the objects' current poses: a fast object
//!   ([`World::set_continuous`]) is not swept against them.
//! * A heightfield's solid reaches below its bounding box (everything under its
//!   surface), and [`StaticShape`] does not say how far a static's solid reaches, so the
//!   box a static is checked with is its bounding box swept down its local −y to beyond
//!   the magnitude limit: an object that fell under the terrain is found and pushed up
//!   as [`static_dispatch::manifolds_with_all`] says. For a static whose solid does not
//!   reach down, objects under it are needless candidates (each a cheap query that
//!   finds nothing).
//! * A compound object's static contacts do not say which part touches.
//! * [`WorldOptions::contact_details`] does not apply: static contacts always carry their
//!   manifolds.
//!
//! [`WorldOptions::parallel`]: super::WorldOptions::parallel
//! [`WorldOptions::contact_details`]: super::WorldOptions::contact_details

use super::slots::Slots;
use super::{object_box, CollisionGroups, ObjectHandle, World, WorldError};
use crate::bounding::Aabb;
use crate::math::{Pose, Real, Vector};
use crate::query::static_dispatch;
use crate::query::Manifold;
use crate::shape::{StaticShape, MAX_MAGNITUDE};

/// A handle to a static of a [`World`]: an index and a generation, so that a handle to a
/// removed static never names its successor in the same slot. Static handles and
/// [`ObjectHandle`]s are numbered apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StaticHandle {
    index: u32,
    generation: u32,
}

impl StaticHandle {
    /// The slot index among the world's statics.
    pub fn index(self) -> u32 {
        self.index
    }
}

/// What a static is inserted with besides its shape and pose
/// ([`World::insert_static_with`]); each can be changed later.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StaticOptions {
    /// Its collision groups (default [`CollisionGroups::ALL`]): an object and a static
    /// interact iff their groups do ([`CollisionGroups::interacts_with`]); scene queries
    /// apply their filter's groups to it.
    pub groups: CollisionGroups,
    /// The caller's data, handed back by [`World::static_user_data`] and to query
    /// predicates ([`QueryFilter::static_predicate`](super::QueryFilter::static_predicate)).
    /// Default 0.
    pub user_data: u64,
}

/// An object in contact with a static: one touching region of it (see the [module
/// notes](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StaticContact {
    /// The object.
    pub object: ObjectHandle,
    /// The static the region's deepest point lies on (a region across the seam of two
    /// statics is reported once, with one of them).
    pub fixed: StaticHandle,
    /// The region's manifold, A the static and B the object (world frame): unit normal
    /// from the static towards the object, up to four point pairs with their signed
    /// distances along it (negative: penetrating), each at most the world's contact
    /// margin.
    pub manifold: Manifold,
}

/// How an (object, static) pair's contact changed in the last [`World::update`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StaticContactEvent {
    /// The object touches the static now and did not before.
    Started(ObjectHandle, StaticHandle),
    /// The object touched the static and still does.
    Ongoing(ObjectHandle, StaticHandle),
    /// The object touched the static and no longer does (or one of them was removed).
    Stopped(ObjectHandle, StaticHandle),
}

/// Where a static can touch objects (world frame).
#[derive(Debug, Clone, Copy)]
enum Reach {
    /// Nowhere: it has no surface ([`StaticShape::is_empty`]).
    Nowhere,
    /// Within this box (see [`static_box`]).
    Within(Aabb),
    /// Anywhere: unbounded (a half-space).
    Everywhere,
}

impl Reach {
    /// Whether an object whose box is `b` may touch the static.
    fn meets(&self, b: &Aabb) -> bool {
        match self {
            Reach::Nowhere => false,
            Reach::Within(r) => r.intersects(b),
            Reach::Everywhere => true,
        }
    }
}

/// A live static.
struct Entry {
    shape: StaticShape,
    pose: Pose,
    /// Where it can touch objects.
    reach: Reach,
    groups: CollisionGroups,
    user_data: u64,
}

/// The world's statics and their contacts.
#[derive(Default)]
pub(super) struct Statics {
    /// The live statics, named by their handles' index and generation.
    slots: Slots<Entry>,
    /// The contacts of the last update, by object index, each object's deepest first.
    contacts: Vec<StaticContact>,
    /// The (object, static) pairs in contact after the last update, sorted by indices.
    pairs: Vec<(ObjectHandle, StaticHandle)>,
    events: Vec<StaticContactEvent>,
}

/// Where a static can touch objects: nowhere for an empty one, everywhere for one
/// without a box (unbounded), else the world box of its solid: its bounding box, loosened by
/// a relative 1e-5 of its size so that rounding never hides a contact (as
/// [`object_box`] does), then swept down its local −y to beyond the magnitude limit —
/// a heightfield is solid under its surface, so an object below its lowest sample still
/// touches it (see the module notes). The sweep is a translation of the precise box, so
/// its top and sides keep their precision.
///
/// # Errors
/// [`WorldError::InvalidPose`] when the placed box is not finite.
fn static_box(shape: &StaticShape, pose: &Pose) -> Result<Reach, WorldError> {
    if shape.is_empty() {
        return Ok(Reach::Nowhere);
    }
    let Some(local) = shape.local_aabb() else {
        return Ok(Reach::Everywhere);
    };
    let surface = object_box(&local, pose, 0.0)?;
    let down = pose.transform_vector(-Vector::Y) * (4.0 * MAX_MAGNITUDE);
    let solid = surface.swept(down);
    if solid.mins.is_finite() && solid.maxs.is_finite() {
        Ok(Reach::Within(solid))
    } else {
        Err(WorldError::InvalidPose)
    }
}

/// The least signed distance of a manifold's points (+∞ for an empty one).
fn deepest(m: &Manifold) -> Real {
    m.points()
        .iter()
        .map(|p| p.distance)
        .fold(Real::INFINITY, Real::min)
}

/// One object's static query: its slot, generation, and the range of its statics in
/// the flat candidate list.
#[derive(Clone, Copy)]
struct Job {
    object: u32,
    generation: u32,
    start: usize,
    end: usize,
}

impl Statics {
    fn entry(&self, h: StaticHandle) -> Result<&Entry, WorldError> {
        self.slots.get(h.index, h.generation)
    }

    fn entry_mut(&mut self, h: StaticHandle) -> Result<&mut Entry, WorldError> {
        self.slots.get_mut(h.index, h.generation)
    }

    /// The handle of the live static in slot `k`.
    fn handle(&self, k: u32) -> StaticHandle {
        StaticHandle {
            index: k,
            generation: self.slots.generation(k),
        }
    }

    /// The live statics: slot index, handle and entry, by index.
    fn live(&self) -> impl Iterator<Item = (u32, StaticHandle, &Entry)> + '_ {
        self.slots
            .iter()
            .map(|(index, generation, e)| (index, StaticHandle { index, generation }, e))
    }

    /// The live static in slot `k`, if any.
    fn at(&self, k: u32) -> Option<&Entry> {
        self.slots.at(k).map(|(_, e)| e)
    }
}

/// A static the query filter accepts: its handle, shape and pose.
pub(super) type Considered<'a> = (StaticHandle, &'a StaticShape, &'a Pose);

impl World {
    /// Adds a static — a [`StaticShape`] or anything that converts into one, such as a
    /// [`HeightField`](crate::shape::HeightField) — at `pose` (local to world), with the
    /// default [`StaticOptions`] (all groups, user data 0), and returns its handle. Its
    /// contacts appear at the next [`update`](Self::update); scene queries see it at
    /// once. See [`insert_static_with`](Self::insert_static_with).
    ///
    /// # Errors
    /// [`WorldError::InvalidPose`] (its box there is not finite), [`WorldError::Full`]
    /// (nothing is added).
    pub fn insert_static(
        &mut self,
        shape: impl Into<StaticShape>,
        pose: Pose,
    ) -> Result<StaticHandle, WorldError> {
        self.insert_static_with(shape, pose, StaticOptions::default())
    }

    /// Adds a static at `pose` (local to world) with its groups and user data, and
    /// returns its handle.
    ///
    /// # Errors
    /// [`WorldError::InvalidPose`] when the static's box at `pose` is not finite,
    /// [`WorldError::Full`] beyond 2^32 − 1 statics (nothing is added).
    pub fn insert_static_with(
        &mut self,
        shape: impl Into<StaticShape>,
        pose: Pose,
        options: StaticOptions,
    ) -> Result<StaticHandle, WorldError> {
        let shape = shape.into();
        let reach = static_box(&shape, &pose)?;
        let (index, generation) = self.statics.slots.insert(Entry {
            shape,
            pose,
            reach,
            groups: options.groups,
            user_data: options.user_data,
        })?;
        Ok(StaticHandle { index, generation })
    }

    /// Removes a static and hands its shape back; its contacts are reported stopped by
    /// the next [`update`](Self::update).
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`] (removed already, or from another world).
    pub fn remove_static(&mut self, h: StaticHandle) -> Result<StaticShape, WorldError> {
        let entry = self.statics.slots.remove(h.index, h.generation)?;
        Ok(entry.shape)
    }

    /// The static's shape and pose (local to world).
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn get_static(&self, h: StaticHandle) -> Result<(&StaticShape, &Pose), WorldError> {
        let e = self.statics.entry(h)?;
        Ok((&e.shape, &e.pose))
    }

    /// Every live static: its handle, shape and pose, by index.
    pub fn statics(&self) -> impl Iterator<Item = (StaticHandle, &StaticShape, &Pose)> + '_ {
        let st = &self.statics;
        st.live().map(|(_, h, e)| (h, &e.shape, &e.pose))
    }

    /// Number of statics.
    pub fn static_count(&self) -> usize {
        self.statics.slots.len()
    }

    /// The static's collision groups.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn static_groups(&self, h: StaticHandle) -> Result<CollisionGroups, WorldError> {
        Ok(self.statics.entry(h)?.groups)
    }

    /// Sets the static's collision groups: its contacts follow from the next
    /// [`update`](Self::update) (an object that stops interacting with it is reported
    /// stopped then); scene queries see them at once.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn set_static_groups(
        &mut self,
        h: StaticHandle,
        groups: CollisionGroups,
    ) -> Result<(), WorldError> {
        self.statics.entry_mut(h)?.groups = groups;
        Ok(())
    }

    /// The static's user data.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn static_user_data(&self, h: StaticHandle) -> Result<u64, WorldError> {
        Ok(self.statics.entry(h)?.user_data)
    }

    /// Sets the static's user data (any value: the world only hands it back, and to
    /// query predicates).
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn set_static_user_data(&mut self, h: StaticHandle, data: u64) -> Result<(), WorldError> {
        self.statics.entry_mut(h)?.user_data = data;
        Ok(())
    }

    /// The object–static contacts found by the last [`update`](Self::update): one per
    /// touching region, ordered by object index, each object's deepest first (least
    /// signed distance of its points). Empty in a world without statics.
    pub fn static_contacts(&self) -> &[StaticContact] {
        &self.statics.contacts
    }

    /// The (object, static) contact events of the last [`update`](Self::update), ordered
    /// by object index, then static index.
    pub fn static_events(&self) -> &[StaticContactEvent] {
        &self.statics.events
    }

    /// The statics the filter considers, with their handles (for the scene queries).
    pub(super) fn considered_statics<'a>(
        &'a self,
        filter: &'a super::QueryFilter<'_>,
    ) -> impl Iterator<Item = Considered<'a>> + 'a {
        let st = &self.statics;
        st.live().filter_map(move |(_, h, e)| {
            filter
                .accepts_static(h, e.groups, e.user_data)
                .then_some((h, &e.shape, &e.pose))
        })
    }

    /// The static part of [`update`](Self::update): the candidates (objects whose box
    /// meets interacting statics), their manifolds, the contacts and events. Returns how
    /// many objects were queried.
    pub(super) fn update_statics(&mut self) -> usize {
        let st = &self.statics;
        if st.slots.is_empty() && st.pairs.is_empty() {
            self.statics.contacts.clear();
            self.statics.events.clear();
            return 0;
        }
        let margin = self.options.contact_margin;
        // Candidates: for each object, the statics (in index order) whose boxes meet its
        // box and whose groups interact with its own.
        let live: Vec<(u32, &Entry)> = st.live().map(|(k, _, e)| (k, e)).collect();
        let mut flat: Vec<u32> = Vec::new();
        let mut jobs: Vec<Job> = Vec::new();
        if !live.is_empty() {
            for (i, (slot, p)) in self.slots.iter().zip(&self.places).enumerate() {
                if slot.shape.is_none() {
                    continue;
                }
                // A live object's box is finite (checked at its every move).
                let Ok(b) = object_box(&p.local, &p.pose, margin) else {
                    continue;
                };
                let g = self.groups[i];
                let start = flat.len();
                for &(k, e) in &live {
                    if g.interacts_with(&e.groups) && e.reach.meets(&b) {
                        flat.push(k);
                    }
                }
                if flat.len() > start {
                    jobs.push(Job {
                        object: i as u32,
                        generation: p.generation,
                        start,
                        end: flat.len(),
                    });
                }
            }
        }
        let run = |job: &Job| -> Vec<(u32, Manifold)> {
            let i = job.object as usize;
            let Some(shape) = self.slots[i].shape.as_ref() else {
                return Vec::new();
            };
            let list: Vec<(&StaticShape, Pose)> = flat[job.start..job.end]
                .iter()
                .filter_map(|&k| st.at(k).map(|e| (&e.shape, e.pose)))
                .collect();
            let pose = self.places[i].pose;
            let mut out: Vec<(u32, Manifold)> = static_dispatch::manifolds_with_all(
                &list,
                shape,
                &pose,
                margin,
                &self.options.query,
            )
            .into_iter()
            .filter(|(_, m)| !m.is_empty())
            .map(|(s, m)| (flat[job.start + s], m))
            .collect();
            out.sort_by(|x, y| deepest(&x.1).total_cmp(&deepest(&y.1)));
            out
        };
        let results = map_jobs(&jobs, self.options.parallel, &run);
        let queried = jobs.len();

        let st = &mut self.statics;
        st.contacts.clear();
        let before = std::mem::take(&mut st.pairs);
        let mut now: Vec<(ObjectHandle, StaticHandle)> = Vec::with_capacity(before.len());
        let mut touched: Vec<u32> = Vec::new();
        for (job, out) in jobs.iter().zip(results) {
            let object = ObjectHandle {
                index: job.object,
                generation: job.generation,
            };
            touched.clear();
            for (k, manifold) in out {
                let fixed = st.handle(k);
                st.contacts.push(StaticContact {
                    object,
                    fixed,
                    manifold,
                });
                touched.push(k);
            }
            touched.sort_unstable();
            touched.dedup();
            now.extend(touched.iter().map(|&k| (object, st.handle(k))));
        }
        // Events: merge the pair lists (both sorted by object index, then static index);
        // a pair whose object or static was replaced in its slot is a different pair.
        st.events.clear();
        let key = |p: &(ObjectHandle, StaticHandle)| (p.0.index, p.1.index);
        let (mut i, mut j) = (0, 0);
        while i < before.len() || j < now.len() {
            let take_before =
                j >= now.len() || (i < before.len() && key(&before[i]) < key(&now[j]));
            let take_now = i >= before.len() || (j < now.len() && key(&now[j]) < key(&before[i]));
            if take_before {
                let (o, s) = before[i];
                st.events.push(StaticContactEvent::Stopped(o, s));
                i += 1;
            } else if take_now {
                let (o, s) = now[j];
                st.events.push(StaticContactEvent::Started(o, s));
                j += 1;
            } else {
                let (x, y) = (before[i], now[j]);
                if x == y {
                    st.events.push(StaticContactEvent::Ongoing(y.0, y.1));
                } else {
                    st.events.push(StaticContactEvent::Stopped(x.0, x.1));
                    st.events.push(StaticContactEvent::Started(y.0, y.1));
                }
                i += 1;
                j += 1;
            }
        }
        st.pairs = now;
        queried
    }

    /// Every object–static contact now, by brute force: each object against *all* the
    /// statics it interacts with (no box check), in one
    /// [`static_dispatch::manifolds_with_all`] query, the reference
    /// [`static_contacts`](Self::static_contacts) is checked against. Same order and
    /// meaning as [`static_contacts`](Self::static_contacts); the manifolds' feature ids
    /// may differ from the world's (they depend on the position of each static in the
    /// query's list), their normals and points do not.
    pub fn brute_force_static_contacts(&self) -> Vec<StaticContact> {
        let st = &self.statics;
        let margin = self.options.contact_margin;
        let mut out = Vec::new();
        for (object, shape, pose) in self.iter() {
            let g = self.groups[object.index as usize];
            let (ks, list): (Vec<u32>, Vec<(&StaticShape, Pose)>) = st
                .live()
                .filter(|(_, _, e)| g.interacts_with(&e.groups))
                .map(|(k, _, e)| (k, (&e.shape, e.pose)))
                .unzip();
            if list.is_empty() {
                continue;
            }
            let mut found: Vec<(u32, Manifold)> = static_dispatch::manifolds_with_all(
                &list,
                shape,
                pose,
                margin,
                &self.options.query,
            )
            .into_iter()
            .filter(|(_, m)| !m.is_empty())
            .map(|(s, m)| (ks[s], m))
            .collect();
            found.sort_by(|x, y| deepest(&x.1).total_cmp(&deepest(&y.1)));
            out.extend(found.into_iter().map(|(k, manifold)| StaticContact {
                object,
                fixed: st.handle(k),
                manifold,
            }));
        }
        out
    }

    /// The part of [`verify`](Self::verify) for statics: the last update's static
    /// contacts against [`brute_force_static_contacts`](Self::brute_force_static_contacts)
    /// (same objects, statics, normals and points; feature ids aside).
    pub(super) fn verify_statics(&self) -> Result<(), String> {
        if self.statics.slots.is_empty() && self.statics.contacts.is_empty() {
            return Ok(());
        }
        let want = self.brute_force_static_contacts();
        let got = &self.statics.contacts;
        let same = |a: &StaticContact, b: &StaticContact| {
            a.object == b.object
                && a.fixed == b.fixed
                && a.manifold.normal == b.manifold.normal
                && a.manifold.len() == b.manifold.len()
                && a.manifold
                    .points()
                    .iter()
                    .zip(b.manifold.points())
                    .all(|(p, q)| {
                        p.point_a == q.point_a && p.point_b == q.point_b && p.distance == q.distance
                    })
        };
        if got.len() != want.len() {
            return Err(format!(
                "static contacts: {} regions, brute force {}",
                got.len(),
                want.len()
            ));
        }
        match got.iter().zip(&want).position(|(a, b)| !same(a, b)) {
            Some(i) => Err(format!(
                "static contact {i} differs: {:?} vs brute force {:?}",
                got[i], want[i]
            )),
            None => Ok(()),
        }
    }
}

/// `jobs.map(f)`, on rayon's pool when `parallel` (and the feature) is on. A static
/// query costs microseconds, so small batches are worth spreading.
fn map_jobs<U: Send>(jobs: &[Job], parallel: bool, f: &(impl Fn(&Job) -> U + Sync)) -> Vec<U> {
    #[cfg(feature = "parallel")]
    if parallel && jobs.len() > 1 {
        use rayon::prelude::*;
        return jobs.par_iter().with_min_len(4).map(f).collect();
    }
    let _ = parallel;
    jobs.iter().map(f).collect()
}
