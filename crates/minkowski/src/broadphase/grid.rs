//! A uniform grid (spatial hash) in 3D: seed 000's demo grid, done right.
//!
//! Space is cut into cubes of side `cell_size`; each object is registered in every cell
//! its box touches, in a hash map from cell coordinates to object lists. Two objects can
//! overlap only if they share a cell, so pairs are found cell by cell. A pair sharing
//! several cells is reported once: only by the cell that holds the lowest corner of the
//! two boxes' intersection (`max(mins_a, mins_b)`), which both boxes contain.
//!
//! Updates are incremental: an object whose cell range did not change (the common case
//! under coherent motion) only has its box replaced. Objects that would cover more than
//! [`Grid::MAX_CELLS_PER_OBJECT`] cells are kept aside as *oversize* and tested against
//! everything, so one huge object cannot flood the map. Cell size is the caller's choice:
//! about the size of a typical object (the collision world picks twice the median box
//! extent).

use std::collections::HashMap;

use super::{check_aabb, BroadPhase, BroadPhaseError, IntBuildHasher};
use crate::bounding::Aabb;
use crate::math::{Real, Vector};

#[derive(Debug, Clone, Copy)]
struct Entry {
    aabb: Aabb,
    lo: [i64; 3],
    hi: [i64; 3],
    oversize: bool,
}

/// Uniform grid broad phase. See the module notes.
#[derive(Debug, Clone)]
pub struct Grid {
    inv_cell: Real,
    cell_size: Real,
    objects: Vec<Option<Entry>>,
    cells: HashMap<u64, Vec<u32>, IntBuildHasher>,
    oversize: Vec<u32>,
    len: usize,
}

impl Grid {
    /// Objects covering more cells than this are tested against every object instead.
    pub const MAX_CELLS_PER_OBJECT: i64 = 512;

    /// An empty grid with cubic cells of side `cell_size` (length units; finite, > 0,
    /// else 1 is used).
    pub fn new(cell_size: Real) -> Self {
        let cell_size = if cell_size.is_finite() && cell_size > 0.0 {
            cell_size
        } else {
            1.0
        };
        Self {
            inv_cell: 1.0 / cell_size,
            cell_size,
            objects: Vec::new(),
            cells: HashMap::default(),
            oversize: Vec::new(),
            len: 0,
        }
    }

    /// The side of a cell.
    pub fn cell_size(&self) -> Real {
        self.cell_size
    }

    fn cell_of(&self, p: Vector) -> [i64; 3] {
        // Saturating float-to-int casts keep far-away boxes finite; they only make cells
        // coarser out there, never wrong (boxes are always tested exactly).
        [
            (p.x * self.inv_cell).floor() as i64,
            (p.y * self.inv_cell).floor() as i64,
            (p.z * self.inv_cell).floor() as i64,
        ]
    }

    fn key(c: [i64; 3]) -> u64 {
        // 21 bits per axis; cells 2^21 apart share a key, which costs a box test, never a
        // wrong answer (a pair is reported only by its owner cell, see `pairs_in`).
        let m = (1u64 << 21) - 1;
        ((c[0] as u64 & m) << 42) | ((c[1] as u64 & m) << 21) | (c[2] as u64 & m)
    }

    fn entry(&self, aabb: Aabb) -> Entry {
        let (lo, hi) = (self.cell_of(aabb.mins), self.cell_of(aabb.maxs));
        let count = (0..3).fold(1i64, |acc, k| {
            acc.saturating_mul(hi[k].saturating_sub(lo[k]).saturating_add(1))
        });
        Entry {
            aabb,
            lo,
            hi,
            oversize: count > Self::MAX_CELLS_PER_OBJECT,
        }
    }

    fn for_cells(e: &Entry, mut f: impl FnMut(u64)) {
        for i in e.lo[0]..=e.hi[0] {
            for j in e.lo[1]..=e.hi[1] {
                for k in e.lo[2]..=e.hi[2] {
                    f(Self::key([i, j, k]));
                }
            }
        }
    }

    fn attach(&mut self, id: u32, e: &Entry) {
        if e.oversize {
            self.oversize.push(id);
            return;
        }
        let cells = &mut self.cells;
        Self::for_cells(e, |key| cells.entry(key).or_default().push(id));
    }

    fn detach(&mut self, id: u32, e: &Entry) {
        if e.oversize {
            if let Some(i) = self.oversize.iter().position(|&x| x == id) {
                self.oversize.swap_remove(i);
            }
            return;
        }
        let cells = &mut self.cells;
        Self::for_cells(e, |key| {
            if let Some(list) = cells.get_mut(&key) {
                if let Some(i) = list.iter().position(|&x| x == id) {
                    list.swap_remove(i);
                }
                if list.is_empty() {
                    cells.remove(&key);
                }
            }
        });
    }

    fn get(&self, id: u32) -> Option<&Entry> {
        self.objects.get(id as usize).and_then(|e| e.as_ref())
    }
}

impl BroadPhase for Grid {
    fn insert(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError> {
        check_aabb(id, &aabb)?;
        if self.get(id).is_some() {
            return Err(BroadPhaseError::Duplicate(id));
        }
        if self.objects.len() <= id as usize {
            self.objects.resize(id as usize + 1, None);
        }
        let e = self.entry(aabb);
        self.attach(id, &e);
        self.objects[id as usize] = Some(e);
        self.len += 1;
        Ok(())
    }

    fn update(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError> {
        let old = *self.get(id).ok_or(BroadPhaseError::Missing(id))?;
        check_aabb(id, &aabb)?;
        let e = self.entry(aabb);
        if e.lo != old.lo || e.hi != old.hi || e.oversize != old.oversize {
            self.detach(id, &old);
            self.attach(id, &e);
        }
        self.objects[id as usize] = Some(e);
        Ok(())
    }

    fn remove(&mut self, id: u32) -> Result<(), BroadPhaseError> {
        let old = *self.get(id).ok_or(BroadPhaseError::Missing(id))?;
        self.detach(id, &old);
        self.objects[id as usize] = None;
        self.len -= 1;
        Ok(())
    }

    fn overlapping_pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let objects = &self.objects;
        let entry = |id: u32| objects[id as usize].as_ref().expect("listed objects exist");
        for (&key, list) in &self.cells {
            for (i, &a) in list.iter().enumerate() {
                let ba = &entry(a).aabb;
                for &b in &list[i + 1..] {
                    let bb = &entry(b).aabb;
                    if !ba.intersects(bb) {
                        continue;
                    }
                    // Report from the owner cell only.
                    let owner = self.cell_of(ba.mins.max(bb.mins));
                    if Self::key(owner) == key {
                        out.push((a.min(b), a.max(b)));
                    }
                }
            }
        }
        // Oversize objects against everything (each pair once).
        for &a in &self.oversize {
            let ea = entry(a);
            for (b, eb) in objects.iter().enumerate() {
                let b = b as u32;
                let Some(eb) = eb else { continue };
                if b == a || (eb.oversize && b < a) {
                    continue;
                }
                if ea.aabb.intersects(&eb.aabb) {
                    out.push((a.min(b), a.max(b)));
                }
            }
        }
        out.sort_unstable();
    }

    fn len(&self) -> usize {
        self.len
    }

    fn aabb(&self, id: u32) -> Option<Aabb> {
        self.get(id).map(|e| e.aabb)
    }
}
