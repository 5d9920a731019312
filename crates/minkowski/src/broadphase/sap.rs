//! Incremental sweep and prune (Baraff 1992; Cohen, Lin, Manocha and Ponamgi, "I-COLLIDE",
//! 1995), with temporal coherence.
//!
//! Each axis keeps the sorted list of every box's two end points. Two boxes overlap iff
//! their intervals overlap on all three axes. When a box moves, each of its end points is
//! moved to its new place by insertion sort — a few swaps under coherent motion — and
//! only a swap can change an overlap:
//!
//! * a *min* passing a *max* towards it (the intervals start to overlap on this axis):
//!   if the boxes now overlap on all axes, the pair is **added**;
//! * a *max* passing a *min* away from it (they stop overlapping on this axis): the pair,
//!   if present, is **removed**.
//!
//! Ties sort a min before a max, so closed boxes that touch overlap, as elsewhere. Each
//! change is also recorded as a [`PairEvent`] (drain them with
//! [`SweepAndPrune::drain_events`]). Inserting many objects at once (more than a quarter
//! of the set, e.g. the first fill) rebuilds the lists by sorting and one sweep instead of
//! inserting one by one, which would be quadratic.

use std::collections::HashSet;

use super::{check_aabb, pair_key, BroadPhase, BroadPhaseError, IntBuildHasher};
use crate::bounding::Aabb;
use crate::math::Real;

/// A change in the overlapping-pair set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PairEvent {
    /// The pair's boxes started to overlap.
    Added(u32, u32),
    /// The pair's boxes stopped overlapping (or one of them was removed).
    Removed(u32, u32),
}

#[derive(Clone, Copy, Debug)]
struct End {
    value: Real,
    /// Object id in the high bits, `1` in bit 0 for a max end point.
    tag: u32,
}

impl End {
    #[inline]
    fn id(self) -> u32 {
        self.tag >> 1
    }
    #[inline]
    fn is_max(self) -> bool {
        self.tag & 1 == 1
    }
    /// Sort order: by value, a min before a max on ties.
    #[inline]
    fn before(self, other: End) -> bool {
        self.value < other.value || (self.value == other.value && !self.is_max() && other.is_max())
    }
}

/// Incremental sweep and prune on three axes. See the module notes.
#[derive(Debug, Clone, Default)]
pub struct SweepAndPrune {
    axes: [Vec<End>; 3],
    /// For each id: the box and, per axis, the positions of its min and max end points.
    objects: Vec<Option<(Aabb, [[u32; 2]; 3])>>,
    pending: Vec<u32>,
    pairs: HashSet<u64, IntBuildHasher>,
    events: Vec<PairEvent>,
    /// While an object is being moved: its id and its box before the move. A pair with it
    /// can only be in the set if that old box overlapped the other object's box, which
    /// spares the hash lookup on the many separating swaps of far-apart boxes.
    moving: Option<(u32, Aabb)>,
    len: usize,
    /// Per axis, at least the largest extent `max − min` of any box (raised as boxes
    /// arrive or grow, recomputed at each pair pass): a box meeting a query starts at
    /// most this far before it.
    reach: [Real; 3],
}

impl SweepAndPrune {
    /// Ids up to 2^31 − 2 (one bit of the end-point tag is the min/max flag).
    pub const MAX_ID: u32 = (u32::MAX >> 1) - 1;

    /// An empty structure.
    pub fn new() -> Self {
        Self::default()
    }

    /// The pair changes since the last call, in the order they happened (a pair can be
    /// added and removed within one batch of updates).
    pub fn drain_events(&mut self) -> std::vec::Drain<'_, PairEvent> {
        self.flush();
        self.events.drain(..)
    }

    /// Raises the per-axis reach to cover `b`.
    fn reach_over(&mut self, b: &Aabb) {
        for k in 0..3 {
            self.reach[k] = self.reach[k].max(extent(b, k));
        }
    }

    fn get(&self, id: u32) -> Option<&(Aabb, [[u32; 2]; 3])> {
        self.objects.get(id as usize).and_then(|e| e.as_ref())
    }

    fn boxes_overlap(&self, a: u32, b: u32) -> bool {
        match (self.get(a), self.get(b)) {
            (Some(x), Some(y)) => x.0.intersects(&y.0),
            _ => false,
        }
    }

    fn add_pair(&mut self, a: u32, b: u32) {
        if self.pairs.insert(pair_key(a, b)) {
            self.events.push(PairEvent::Added(a.min(b), a.max(b)));
        }
    }

    fn remove_pair(&mut self, a: u32, b: u32) {
        if let Some((m, old)) = self.moving {
            let other = if a == m {
                b
            } else if b == m {
                a
            } else {
                u32::MAX
            };
            if other != u32::MAX {
                match self.get(other) {
                    Some(o) if old.intersects(&o.0) => {}
                    _ => return,
                }
            }
        }
        if self.pairs.remove(&pair_key(a, b)) {
            self.events.push(PairEvent::Removed(a.min(b), a.max(b)));
        }
    }

    #[inline]
    fn set_pos(&mut self, axis: usize, at: usize) {
        let e = self.axes[axis][at];
        if let Some(Some(o)) = self.objects.get_mut(e.id() as usize) {
            o.1[axis][e.is_max() as usize] = at as u32;
        }
    }

    /// Moves the end point at `at` on `axis` to its sorted place, reporting pair changes.
    fn sift(&mut self, axis: usize, mut at: usize) {
        // Leftwards.
        while at > 0 {
            let (e, f) = (self.axes[axis][at], self.axes[axis][at - 1]);
            if !e.before(f) {
                break;
            }
            // e passes f going left.
            if e.id() == f.id() {
                // An object's own ends (only while it is being moved): no pair.
            } else if !e.is_max() && f.is_max() {
                if self.boxes_overlap(e.id(), f.id()) {
                    self.add_pair(e.id(), f.id());
                }
            } else if e.is_max() && !f.is_max() {
                self.remove_pair(e.id(), f.id());
            }
            self.axes[axis].swap(at, at - 1);
            self.set_pos(axis, at);
            self.set_pos(axis, at - 1);
            at -= 1;
        }
        // Rightwards.
        while at + 1 < self.axes[axis].len() {
            let (e, f) = (self.axes[axis][at], self.axes[axis][at + 1]);
            if !f.before(e) {
                break;
            }
            // e passes f going right.
            if e.id() == f.id() {
                // An object's own ends: no pair.
            } else if e.is_max() && !f.is_max() {
                if self.boxes_overlap(e.id(), f.id()) {
                    self.add_pair(e.id(), f.id());
                }
            } else if !e.is_max() && f.is_max() {
                self.remove_pair(e.id(), f.id());
            }
            self.axes[axis].swap(at, at + 1);
            self.set_pos(axis, at);
            self.set_pos(axis, at + 1);
            at += 1;
        }
    }

    /// Inserts the pending objects: one by one when few, by a rebuild when many.
    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        if pending.len() * 4 > self.len {
            self.rebuild();
            return;
        }
        for id in pending {
            let aabb = self.objects[id as usize].expect("pending objects exist").0;
            for axis in 0..3 {
                // Both ends enter at the right end (as if the box came from +∞) and are
                // sifted into place, max first, reporting the overlaps they cross into.
                let n = self.axes[axis].len();
                self.axes[axis].push(End {
                    value: aabb.maxs[axis],
                    tag: id << 1 | 1,
                });
                self.axes[axis].push(End {
                    value: aabb.mins[axis],
                    tag: id << 1,
                });
                self.set_pos(axis, n);
                self.set_pos(axis, n + 1);
                self.sift(axis, n);
                let min_at = self.objects[id as usize].expect("present").1[axis][0] as usize;
                self.sift(axis, min_at);
            }
        }
    }

    /// Sorts every axis from scratch and finds all pairs by one sweep along x.
    fn rebuild(&mut self) {
        for axis in 0..3 {
            let mut ends = Vec::with_capacity(2 * self.len);
            for (id, o) in self.objects.iter().enumerate() {
                if let Some((b, _)) = o {
                    ends.push(End {
                        value: b.mins[axis],
                        tag: (id as u32) << 1,
                    });
                    ends.push(End {
                        value: b.maxs[axis],
                        tag: (id as u32) << 1 | 1,
                    });
                }
            }
            ends.sort_unstable_by(|a, b| {
                a.value
                    .total_cmp(&b.value)
                    .then((a.tag & 1).cmp(&(b.tag & 1)))
            });
            self.axes[axis] = ends;
            for at in 0..self.axes[axis].len() {
                self.set_pos(axis, at);
            }
        }
        // Sweep x with an active list; test the other axes directly.
        let mut fresh: HashSet<u64, IntBuildHasher> = HashSet::default();
        let mut active: Vec<u32> = Vec::new();
        for i in 0..self.axes[0].len() {
            let e = self.axes[0][i];
            if e.is_max() {
                if let Some(k) = active.iter().position(|&x| x == e.id()) {
                    active.swap_remove(k);
                }
            } else {
                for &other in &active {
                    if self.boxes_overlap(e.id(), other) {
                        fresh.insert(pair_key(e.id(), other));
                    }
                }
                active.push(e.id());
            }
        }
        let mut gone: Vec<u64> = self.pairs.difference(&fresh).copied().collect();
        let mut new: Vec<u64> = fresh.difference(&self.pairs).copied().collect();
        gone.sort_unstable();
        new.sort_unstable();
        for k in gone {
            self.events
                .push(PairEvent::Removed((k >> 32) as u32, k as u32));
        }
        for k in new {
            self.events
                .push(PairEvent::Added((k >> 32) as u32, k as u32));
        }
        self.pairs = fresh;
    }
}

/// A box's extent along axis `k`, rounded up (so that `max − extent <= min` holds in
/// floating point too, with the slack the query adds).
fn extent(b: &Aabb, k: usize) -> Real {
    (b.maxs[k] - b.mins[k]) * (1.0 + 4.0 * crate::math::EPSILON)
}

impl BroadPhase for SweepAndPrune {
    fn insert(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError> {
        check_aabb(id, &aabb)?;
        if id > Self::MAX_ID {
            return Err(BroadPhaseError::ReservedId);
        }
        if self.get(id).is_some() {
            return Err(BroadPhaseError::Duplicate(id));
        }
        super::grow_to(&mut self.objects, id, None)?;
        self.objects[id as usize] = Some((aabb, [[u32::MAX; 2]; 3]));
        self.pending.push(id);
        self.reach_over(&aabb);
        self.len += 1;
        Ok(())
    }

    fn update(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError> {
        if self.get(id).is_none() {
            return Err(BroadPhaseError::Missing(id));
        }
        check_aabb(id, &aabb)?;
        self.flush();
        self.reach_over(&aabb);
        let pos = {
            let o = self.objects[id as usize].as_mut().expect("checked above");
            self.moving = Some((id, o.0));
            o.0 = aabb;
            o.1
        };
        for (axis, p) in pos.iter().enumerate() {
            self.axes[axis][p[0] as usize].value = aabb.mins[axis];
            self.axes[axis][p[1] as usize].value = aabb.maxs[axis];
            // Max, then min, then max again: moving left the max is blocked by its own min
            // until the min has moved, moving right the min is blocked by its own max,
            // which has then already moved. Three sifts settle both either way.
            for end in [1usize, 0, 1] {
                let at = self.objects[id as usize].expect("present").1[axis][end] as usize;
                self.sift(axis, at);
            }
        }
        self.moving = None;
        Ok(())
    }

    fn remove(&mut self, id: u32) -> Result<(), BroadPhaseError> {
        if self.get(id).is_none() {
            return Err(BroadPhaseError::Missing(id));
        }
        if let Some(k) = self.pending.iter().position(|&x| x == id) {
            self.pending.swap_remove(k);
        } else {
            for axis in 0..3 {
                self.axes[axis].retain(|e| e.id() != id);
                for at in 0..self.axes[axis].len() {
                    self.set_pos(axis, at);
                }
            }
        }
        let gone: Vec<u64> = self
            .pairs
            .iter()
            .copied()
            .filter(|k| (k >> 32) as u32 == id || *k as u32 == id)
            .collect();
        for k in gone {
            self.remove_pair((k >> 32) as u32, k as u32);
        }
        self.objects[id as usize] = None;
        self.len -= 1;
        Ok(())
    }

    fn overlapping_pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        self.flush();
        let mut reach = [0.0; 3];
        for (b, _) in self.objects.iter().flatten() {
            for (k, r) in reach.iter_mut().enumerate() {
                *r = extent(b, k).max(*r);
            }
        }
        self.reach = reach;
        out.clear();
        out.extend(self.pairs.iter().map(|k| ((k >> 32) as u32, *k as u32)));
        out.sort_unstable();
    }

    fn len(&self) -> usize {
        self.len
    }

    fn aabb(&self, id: u32) -> Option<Aabb> {
        self.get(id).map(|o| o.0)
    }

    /// On the axis where it is shortest, the run of end points from the query's start
    /// less the reach to its end: every box meeting the query starts in it. Objects
    /// inserted since the last pair pass (not yet in the lists) are tested one by one.
    fn query_aabb(&self, aabb: &Aabb, f: &mut dyn FnMut(u32)) {
        for &id in &self.pending {
            if let Some((b, _)) = self.get(id) {
                if b.intersects(aabb) {
                    f(id);
                }
            }
        }
        let run = |k: usize| {
            let ends = &self.axes[k];
            let lo = aabb.mins[k] - self.reach[k];
            let lo = lo - 4.0 * crate::math::EPSILON * lo.abs();
            let hi = aabb.maxs[k];
            let i0 = ends.partition_point(|e| e.value < lo);
            let i1 = ends.partition_point(|e| e.value <= hi);
            (i0, i1.max(i0))
        };
        let Some((k, (i0, i1))) = (0..3)
            .map(|k| (k, run(k)))
            .min_by_key(|(_, (i0, i1))| i1 - i0)
        else {
            return;
        };
        for e in &self.axes[k][i0..i1] {
            if e.is_max() {
                continue;
            }
            if let Some((b, _)) = self.get(e.id()) {
                if b.intersects(aabb) {
                    f(e.id());
                }
            }
        }
    }

    /// Box queries along the sweep, each about as long as the largest box extent.
    fn query_ray(&self, sweep: &super::BoxSweep, f: &mut dyn FnMut(u32, Real) -> Real) {
        let stretch = self.reach.iter().copied().fold(0.0, Real::max);
        super::sweep_by_boxes(self, stretch, sweep, f);
    }

    /// The first and last end points of each axis, and the boxes of pending objects.
    fn bounds(&self) -> Option<Aabb> {
        let mut out: Option<Aabb> = None;
        if let (Some(x0), Some(y0), Some(z0)) = (
            self.axes[0].first(),
            self.axes[1].first(),
            self.axes[2].first(),
        ) {
            let (x1, y1, z1) = (
                self.axes[0][self.axes[0].len() - 1],
                self.axes[1][self.axes[1].len() - 1],
                self.axes[2][self.axes[2].len() - 1],
            );
            out = Some(Aabb::new(
                crate::math::Vector::new(x0.value, y0.value, z0.value),
                crate::math::Vector::new(x1.value, y1.value, z1.value),
            ));
        }
        for &id in &self.pending {
            if let Some((b, _)) = self.get(id) {
                out = Some(out.map_or(*b, |o| o.merged(b)));
            }
        }
        out
    }
}
