//! Broad phase: which pairs of objects have overlapping bounding boxes.
//!
//! One trait, [`BroadPhase`], three implementations, each in its own file:
//!
//! * [`Grid`]: a hierarchical uniform grid (seed 000's demo grid, in 3D, with levels of
//!   doubling cells, so that objects far larger than a cell do not make it quadratic);
//! * [`SweepAndPrune`]: incremental sweep and prune on three axes with temporal coherence
//!   (insertion sort of nearly sorted endpoints, pair added/removed events);
//! * [`DynamicTree`]: a dynamic AABB tree with fat boxes, incremental insert/remove,
//!   rotations for balance, and AABB, point and ray queries.
//!
//! Objects are named by caller-chosen `u32` ids (dense ids keep memory small: storage is
//! indexed by id, and an id the memory cannot reach is refused with
//! [`BroadPhaseError::OutOfMemory`] rather than aborting). Boxes are closed: touching
//! boxes overlap. All three report exactly the same pair set, which the shared test
//! suite checks against brute force after every step of long random insert/move/remove
//! sequences.

mod bvh;
mod grid;
mod sap;

pub use bvh::DynamicTree;
pub use grid::Grid;
pub use sap::{PairEvent, SweepAndPrune};

use crate::bounding::Aabb;

/// Why a broad-phase call was refused (the structure is unchanged).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BroadPhaseError {
    /// `insert` with an id that is already present.
    #[error("object {0} is already in the broad phase")]
    Duplicate(u32),
    /// `update` or `remove` with an id that is not present.
    #[error("object {0} is not in the broad phase")]
    Missing(u32),
    /// A box with a NaN or infinite corner, or `mins > maxs`.
    #[error("object {0} has an invalid box (non-finite, or mins > maxs)")]
    InvalidAabb(u32),
    /// An id of `u32::MAX` (reserved).
    #[error("object id u32::MAX is reserved")]
    ReservedId,
    /// Storage is indexed by id and could not grow to hold this one (ids far beyond the
    /// number of objects need that much memory; use dense ids).
    #[error("no memory for object id {0} (storage is indexed by id: use dense ids)")]
    OutOfMemory(u32),
}

/// Grows an id-indexed table so that `id` is a valid index, new entries `fill`; a typed
/// error instead of an allocation failure when it cannot.
pub(crate) fn grow_to<T: Clone>(
    table: &mut Vec<T>,
    id: u32,
    fill: T,
) -> Result<(), BroadPhaseError> {
    let want = id as usize + 1;
    if table.len() < want {
        table
            .try_reserve_exact(want - table.len())
            .map_err(|_| BroadPhaseError::OutOfMemory(id))?;
        table.resize(want, fill);
    }
    Ok(())
}

/// The broad-phase interface shared by [`Grid`], [`SweepAndPrune`] and [`DynamicTree`].
pub trait BroadPhase {
    /// Adds object `id` with world box `aabb`.
    ///
    /// # Errors
    /// [`BroadPhaseError::Duplicate`], [`BroadPhaseError::InvalidAabb`],
    /// [`BroadPhaseError::ReservedId`], [`BroadPhaseError::OutOfMemory`].
    fn insert(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError>;

    /// Moves object `id` to world box `aabb`.
    ///
    /// # Errors
    /// [`BroadPhaseError::Missing`], [`BroadPhaseError::InvalidAabb`].
    fn update(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError>;

    /// Removes object `id`.
    ///
    /// # Errors
    /// [`BroadPhaseError::Missing`].
    fn remove(&mut self, id: u32) -> Result<(), BroadPhaseError>;

    /// Replaces `out` with every pair `(a, b)`, `a < b`, of objects whose current boxes
    /// overlap (closed boxes: touching counts), sorted.
    fn overlapping_pairs(&mut self, out: &mut Vec<(u32, u32)>);

    /// Number of objects.
    fn len(&self) -> usize;

    /// Whether there are no objects.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The current box of object `id`, if present.
    fn aabb(&self, id: u32) -> Option<Aabb>;
}

/// Every overlapping pair by brute force, O(n²): the reference the implementations are
/// tested against. Pairs `(a, b)` with `a < b`, sorted.
pub fn brute_force_pairs(objects: &[(u32, Aabb)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (i, (a, ba)) in objects.iter().enumerate() {
        for (b, bb) in &objects[i + 1..] {
            if ba.intersects(bb) {
                out.push(((*a).min(*b), (*a).max(*b)));
            }
        }
    }
    out.sort_unstable();
    out
}

pub(crate) fn check_aabb(id: u32, aabb: &Aabb) -> Result<(), BroadPhaseError> {
    if id == u32::MAX {
        return Err(BroadPhaseError::ReservedId);
    }
    if !(aabb.mins.is_finite() && aabb.maxs.is_finite() && aabb.mins.cmple(aabb.maxs).all()) {
        return Err(BroadPhaseError::InvalidAabb(id));
    }
    Ok(())
}

/// A small, fast hasher for integer keys (pair keys, cell keys): one multiply and a
/// rotation (the keys are not attacker-chosen hash-flooding input in a physics step, and
/// SipHash would dominate the broad phase's time).
#[derive(Default, Clone, Copy)]
pub(crate) struct IntHasher(u64);

impl std::hash::Hasher for IntHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0 ^ x)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }
}

pub(crate) type IntBuildHasher = std::hash::BuildHasherDefault<IntHasher>;

/// Packs an ordered pair into one key.
#[inline]
pub(crate) fn pair_key(a: u32, b: u32) -> u64 {
    let (a, b) = if a < b { (a, b) } else { (b, a) };
    ((a as u64) << 32) | b as u64
}
