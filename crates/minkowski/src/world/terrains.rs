//! Displacement-mapped terrains in the world ([`TerrainStatic`], seed 002): fixed
//! geometry like the [`statics`](super::statics), kept apart from them because a terrain
//! is queried by its own detection (vertices under the surface, §3.6) and answers only
//! contacts.
//!
//! # What the world does with a terrain
//!
//! Each [`World::update`], after the statics, every object whose groups interact with a
//! terrain's is tested against it with [`TerrainStatic::manifolds`]: the terrain's
//! index (its quads' boxes) culls far objects at the cost of one lookup each, so no box
//! check is made here. Each part of an object with a point under the surface gives one
//! [`TerrainContact`] (normal out of the terrain, towards the object; distances
//! negative; world frame, length units), ordered by object index, then terrain index,
//! then part. The queries run on rayon's pool when
//! [`WorldOptions::parallel`](super::WorldOptions::parallel) is on.
//!
//! # Limits
//!
//! * Contacts are penetrations only: the world's contact margin does not apply (see
//!   [`terrain_static`](crate::terrain::terrain_static)); curved shapes are tested by an
//!   inscribed polytope ([`contact_vertices`](mod@crate::terrain::contact_vertices)).
//! * No contact events and no scene queries (rays, shape casts, point and box queries
//!   do not see terrains).
//! * An object whose test fails (a point beyond the magnitude limit) gets no terrain
//!   contacts that update; it is listed in [`World::terrain_failures`] with the reason.

use std::sync::Arc;

use super::slots::Slots;
use super::{CollisionGroups, ObjectHandle, Place, StaticOptions, World, WorldError};
use crate::query::compound::Collider;
use crate::query::Manifold;
use crate::terrain::multires_detection::MultiresDetectionError;
use crate::terrain::TerrainStatic;

/// A handle to a terrain of a [`World`]: an index and a generation (a handle to a
/// removed terrain never names its successor in the slot). Numbered apart from objects
/// and statics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TerrainHandle {
    index: u32,
    generation: u32,
}

impl TerrainHandle {
    /// The slot index among the world's terrains.
    pub fn index(self) -> u32 {
        self.index
    }
}

/// A part of an object under a terrain's surface (see the [module notes](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TerrainContact {
    /// The object.
    pub object: ObjectHandle,
    /// The terrain.
    pub terrain: TerrainHandle,
    /// The part of the object (0 for a convex shape; the index among a compound's parts).
    pub part: usize,
    /// The base triangle under the part's deepest point.
    pub triangle: usize,
    /// The manifold, A the terrain and B the object (world frame): the unit surface
    /// normal at the deepest point, out of the terrain; up to four points, the deepest
    /// first, with negative distances.
    pub manifold: Manifold,
}

/// A live terrain.
struct Entry {
    terrain: Arc<TerrainStatic>,
    groups: CollisionGroups,
    user_data: u64,
}

/// The world's terrains and their contacts.
#[derive(Default)]
pub(super) struct Terrains {
    /// The live terrains, named by their handles' index and generation.
    slots: Slots<Entry>,
    contacts: Vec<TerrainContact>,
    failures: Vec<(ObjectHandle, TerrainHandle, MultiresDetectionError)>,
}

impl Terrains {
    fn entry(&self, h: TerrainHandle) -> Result<&Entry, WorldError> {
        self.slots.get(h.index, h.generation)
    }

    fn entry_mut(&mut self, h: TerrainHandle) -> Result<&mut Entry, WorldError> {
        self.slots.get_mut(h.index, h.generation)
    }

    /// The live terrains: handle and entry, by index.
    fn live(&self) -> impl Iterator<Item = (TerrainHandle, &Entry)> + '_ {
        self.slots
            .iter()
            .map(|(index, generation, e)| (TerrainHandle { index, generation }, e))
    }
}

/// One object's answers against every terrain it interacts with.
type ObjectAnswer = (
    Vec<TerrainContact>,
    Vec<(ObjectHandle, TerrainHandle, MultiresDetectionError)>,
);

impl World {
    /// Adds a terrain (shared: the world keeps the `Arc`) with its groups and user data,
    /// and returns its handle. Its contacts appear at the next [`update`](Self::update).
    ///
    /// # Errors
    /// [`WorldError::Full`] beyond 2^32 − 1 terrains (nothing is added).
    pub fn insert_terrain(
        &mut self,
        terrain: Arc<TerrainStatic>,
        options: StaticOptions,
    ) -> Result<TerrainHandle, WorldError> {
        let (index, generation) = self.terrains.slots.insert(Entry {
            terrain,
            groups: options.groups,
            user_data: options.user_data,
        })?;
        Ok(TerrainHandle { index, generation })
    }

    /// Removes a terrain and hands it back; its contacts are gone from the next
    /// [`update`](Self::update).
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`] (removed already, or from another world).
    pub fn remove_terrain(&mut self, h: TerrainHandle) -> Result<Arc<TerrainStatic>, WorldError> {
        let entry = self.terrains.slots.remove(h.index, h.generation)?;
        Ok(entry.terrain)
    }

    /// The terrain behind a handle.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn get_terrain(&self, h: TerrainHandle) -> Result<&Arc<TerrainStatic>, WorldError> {
        Ok(&self.terrains.entry(h)?.terrain)
    }

    /// Number of terrains.
    pub fn terrain_count(&self) -> usize {
        self.terrains.slots.len()
    }

    /// The terrain's user data.
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn terrain_user_data(&self, h: TerrainHandle) -> Result<u64, WorldError> {
        Ok(self.terrains.entry(h)?.user_data)
    }

    /// Sets the terrain's collision groups (in effect from the next
    /// [`update`](Self::update)).
    ///
    /// # Errors
    /// [`WorldError::StaleHandle`].
    pub fn set_terrain_groups(
        &mut self,
        h: TerrainHandle,
        groups: CollisionGroups,
    ) -> Result<(), WorldError> {
        self.terrains.entry_mut(h)?.groups = groups;
        Ok(())
    }

    /// The object–terrain contacts of the last [`update`](Self::update) (see the
    /// [module notes](self)): one per part under a terrain's surface, ordered by object
    /// index, terrain index, then part. Empty in a world without terrains.
    pub fn terrain_contacts(&self) -> &[TerrainContact] {
        &self.terrains.contacts
    }

    /// The (object, terrain) tests of the last [`update`](Self::update) that failed,
    /// with the reason (the object got no contacts with that terrain then).
    pub fn terrain_failures(&self) -> &[(ObjectHandle, TerrainHandle, MultiresDetectionError)] {
        &self.terrains.failures
    }

    /// One object's contacts (and failures) against the terrains, by the detection
    /// (`brute: false`) or its brute-force oracle.
    fn object_terrain_contacts(&self, i: usize, brute: bool) -> ObjectAnswer {
        object_answer(
            self.slots[i].shape.as_ref(),
            &self.places[i],
            self.groups[i],
            &self.terrains,
            i,
            brute,
        )
    }

    /// The terrain part of [`update`](Self::update). Returns how many objects were
    /// tested.
    pub(super) fn update_terrains(&mut self) -> usize {
        if self.terrains.slots.is_empty() {
            self.terrains.contacts.clear();
            self.terrains.failures.clear();
            return 0;
        }
        let objects: Vec<usize> = (0..self.slots.len())
            .filter(|&i| self.slots[i].shape.is_some())
            .collect();
        let (slots, places, groups, terrains) =
            (&self.slots, &self.places, &self.groups, &self.terrains);
        let run = |&i: &usize| {
            object_answer(
                slots[i].shape.as_ref(),
                &places[i],
                groups[i],
                terrains,
                i,
                false,
            )
        };
        #[cfg(feature = "parallel")]
        let answers: Vec<ObjectAnswer> = if self.options.parallel && objects.len() > 1 {
            use rayon::prelude::*;
            objects.par_iter().with_min_len(4).map(run).collect()
        } else {
            objects.iter().map(run).collect()
        };
        #[cfg(not(feature = "parallel"))]
        let answers: Vec<ObjectAnswer> = objects.iter().map(run).collect();
        let t = &mut self.terrains;
        t.contacts.clear();
        t.failures.clear();
        for (c, f) in answers {
            t.contacts.extend(c);
            t.failures.extend(f);
        }
        objects.len()
    }

    /// Every object–terrain contact now, by brute force
    /// ([`TerrainStatic::brute_force_manifolds`]), the oracle
    /// [`terrain_contacts`](Self::terrain_contacts) is checked against: the same
    /// objects, terrains and parts; the points can be reported on another triangle where
    /// two triangles' solids overlap.
    pub fn brute_force_terrain_contacts(&self) -> Vec<TerrainContact> {
        (0..self.slots.len())
            .flat_map(|i| self.object_terrain_contacts(i, true).0)
            .collect()
    }

    /// The part of [`verify`](Self::verify) for terrains: the same (object, terrain,
    /// part) triples as the brute force, with the same number of points.
    pub(super) fn verify_terrains(&self) -> Result<(), String> {
        if self.terrains.slots.is_empty() && self.terrains.contacts.is_empty() {
            return Ok(());
        }
        let key = |c: &TerrainContact| (c.object, c.terrain, c.part, c.manifold.len());
        let want: Vec<_> = self
            .brute_force_terrain_contacts()
            .iter()
            .map(key)
            .collect();
        let got: Vec<_> = self.terrains.contacts.iter().map(key).collect();
        if want == got {
            Ok(())
        } else {
            let first = got
                .iter()
                .zip(&want)
                .position(|(a, b)| a != b)
                .unwrap_or(got.len().min(want.len()));
            Err(format!(
                "terrain contacts: {} parts, brute force {} (first difference at {first}: {:?} vs {:?})",
                got.len(),
                want.len(),
                got.get(first),
                want.get(first)
            ))
        }
    }
}

/// Object `index`'s contacts (and failures) against the terrains it interacts with, by
/// the detection (`brute: false`) or its brute-force oracle.
fn object_answer(
    shape: Option<&Collider>,
    place: &Place,
    g: CollisionGroups,
    terrains: &Terrains,
    index: usize,
    brute: bool,
) -> ObjectAnswer {
    let mut contacts = Vec::new();
    let mut failures = Vec::new();
    let Some(shape) = shape else {
        return (contacts, failures);
    };
    let object = ObjectHandle {
        index: index as u32,
        generation: place.generation,
    };
    for (h, e) in terrains.live() {
        if !g.interacts_with(&e.groups) {
            continue;
        }
        // The oracle's own failures (the same points refused) are not reported.
        let found = if brute {
            e.terrain
                .brute_force_manifolds(shape, &place.pose)
                .map_err(|_| None)
        } else {
            e.terrain.manifolds(shape, &place.pose).map_err(Some)
        };
        match found {
            Ok(ms) => contacts.extend(ms.into_iter().map(|m| TerrainContact {
                object,
                terrain: h,
                part: m.part,
                triangle: m.triangle,
                manifold: m.manifold,
            })),
            Err(None) => {}
            Err(Some(err)) => failures.push((object, h, err)),
        }
    }
    (contacts, failures)
}
