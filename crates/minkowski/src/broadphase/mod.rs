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
//!
//! Each also answers scene queries without visiting every object: the objects whose box
//! meets a box ([`BroadPhase::query_aabb`]), and those whose box a ray — or a moving box,
//! [`BoxSweep`] — enters ([`BroadPhase::query_ray`]), pruned by a time bound the caller
//! lowers as it finds hits. The grid looks up the cells a box covers at each level; sweep
//! and prune scans, on its most selective axis, the end points that can belong to a box
//! meeting the query (a box's start lies at most the largest box extent before the
//! query's); the tree descends its nodes. A ray is answered by the tree directly (nearer
//! child first), and by the grid and sweep and prune as box queries along consecutive
//! stretches of the ray, nearest first, so that a closest-hit search
//! stops at the first stretch past its best hit. Queries take `&self` and see every
//! insert, move and removal made so far (the grid's filing and sweep and prune's pending
//! insertions are caught up at the next pair pass; until then the objects they concern
//! are tested one by one).

mod bvh;
mod grid;
mod sap;

pub use bvh::DynamicTree;
pub use grid::Grid;
pub use sap::{PairEvent, SweepAndPrune};

#[cfg(test)]
mod tests;

use crate::bounding::Aabb;
use crate::math::{Real, Vector};

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

    /// Calls `f(id)` once for every object whose current box meets the closed box
    /// `aabb` (world frame; touching counts), in no particular order. Visits only the
    /// part of the structure near `aabb` (see the module notes).
    fn query_aabb(&self, aabb: &Aabb, f: &mut dyn FnMut(u32));

    /// Calls `f(id, t)` for the objects whose current box the sweep enters (see
    /// [`BoxSweep`]; `t` its entry time, in units of the sweep's `dir`, 0 if they meet at
    /// the start), each at most once, roughly nearest first. `f` returns a time bound:
    /// after each call, objects entered later than the smallest bound returned so far
    /// (and than `sweep.max_t`) may be skipped, and every object entered at or before it
    /// is visited. Return `sweep.max_t` (or more) to see every object the sweep enters.
    fn query_ray(&self, sweep: &BoxSweep, f: &mut dyn FnMut(u32, Real) -> Real);

    /// A box containing every object's current box, `None` when there is none.
    fn bounds(&self) -> Option<Aabb>;
}

/// A box moving along a line: the box of half extents `half_extents` centred at
/// `origin + t · dir`, for `t ∈ [0, max_t]` (world frame; `t` in units of `dir`). With
/// zero half extents, a ray. An object's box is *entered* at the first `t` at which
/// the two boxes meet: the ray's entry into the object's box grown by `half_extents`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxSweep {
    /// Centre of the moving box at `t = 0` (world frame).
    pub origin: Vector,
    /// Its displacement per unit `t` (world frame; may be zero: the box then stays).
    pub dir: Vector,
    /// Half extents of the moving box (lengths, `>= 0`).
    pub half_extents: Vector,
    /// The last time searched (`>= 0`, may be infinite).
    pub max_t: Real,
}

impl BoxSweep {
    /// A ray from `origin` along `dir`, over `[0, max_t]`.
    pub fn ray(origin: Vector, dir: Vector, max_t: Real) -> Self {
        Self {
            origin,
            dir,
            half_extents: Vector::ZERO,
            max_t,
        }
    }

    /// When the sweep enters the box `b`: the entry time in `[0, max_t]`, or `None`.
    pub fn entry(&self, b: &Aabb) -> Option<Real> {
        b.grown(self.half_extents)
            .ray_entry(self.origin, self.dir, self.max_t)
    }
}

/// [`BroadPhase::query_ray`] answered by box queries: the part of the sweep inside
/// `bp`'s [`bounds`](BroadPhase::bounds) is cut into stretches of about `stretch`
/// length units (at most 4096), and each stretch's box, nearest first, is queried with
/// [`BroadPhase::query_aabb`]; an object is reported by the stretch in which the sweep
/// enters it (so once), and the stretches after the time bound are not queried.
pub(crate) fn sweep_by_boxes<B: BroadPhase + ?Sized>(
    bp: &B,
    stretch: Real,
    sweep: &BoxSweep,
    f: &mut dyn FnMut(u32, Real) -> Real,
) {
    let Some(bounds) = bp.bounds() else { return };
    let Some((t0, t1)) = sweep.entry(&bounds).map(|t| {
        let exit = bounds
            .grown(sweep.half_extents)
            .ray_span(sweep.origin, sweep.dir, sweep.max_t)
            .map_or(t, |s| s.1);
        (t, exit)
    }) else {
        return;
    };
    // A sweep that does not move stays at its start.
    let t1 = if sweep.dir == Vector::ZERO { t0 } else { t1 };
    let length = (t1 - t0) * sweep.dir.length();
    let n = if length.is_finite() && stretch > 0.0 {
        (length / stretch).ceil().clamp(1.0, 4096.0) as usize
    } else {
        1
    };
    // The same edge for the end of a stretch and the start of the next, so that an
    // entry time belongs to exactly one stretch.
    let edge = |k: usize| {
        if k == n {
            t1
        } else {
            t0 + (t1 - t0) * (k as Real / n as Real)
        }
    };
    let mut limit = sweep.max_t;
    for k in 0..n {
        let (a, b) = (edge(k), edge(k + 1));
        if a > limit {
            break;
        }
        let (p, q) = (sweep.origin + sweep.dir * a, sweep.origin + sweep.dir * b);
        // Loosened against rounding: an extra candidate is filtered below, a missed
        // one would be lost.
        let reach = p.abs().max(q.abs()).max_element() + (q - p).abs().max_element();
        let slack = 1e-5 * reach + Real::MIN_POSITIVE;
        let probe = Aabb::new(p.min(q), p.max(q))
            .grown(sweep.half_extents)
            .loosened(slack);
        bp.query_aabb(&probe, &mut |id| {
            let Some(t) = bp.aabb(id).and_then(|b| sweep.entry(&b)) else {
                return;
            };
            let mine = (k == 0 || t >= a) && (k + 1 == n || t < b);
            if mine && t <= limit {
                limit = limit.min(f(id, t));
            }
        });
    }
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
