//! A uniform grid in 3D: seed 000's demo grid, done right.
//!
//! Space is cut into cubes of side `cell_size`. Each object is filed once, under the
//! cell of its box's lowest corner. An object no larger than a cell along every axis is
//! *small*: its box spans at most two cells per axis, so two small boxes can overlap only
//! if their corner cells are equal or neighbours (differ by at most one along each
//! axis). The pair pass therefore tests each occupied cell's objects against each other
//! and against those of its 13 "forward" neighbours (the half of the 26 that follows it
//! in lexicographic order), which meets every candidate pair exactly once: no pair is
//! reported twice and none needs deduplication.
//!
//! The filing is rebuilt at every pair pass by a counting sort over the occupied cell
//! range (or, when that range is much larger than the number of objects, by sorting and
//! a hash map from cells to their objects), with each object's box copied next to its
//! cell mates, so the tests read memory in order. Updates are O(1): an object's entry is
//! only replaced.
//!
//! Objects larger than a cell along some axis are *large*: each looks up the cells its
//! box could share with a small object (its own range widened by one cell below), or,
//! when those are more than [`Grid::MAX_CELLS_PER_OBJECT`], is tested against every small
//! object; large objects are tested against each other directly. Cell size is the
//! caller's choice: about the size of the larger objects, so that nearly every object is
//! small (`minkowski scene` uses twice the mean box side).

use std::collections::HashMap;

use super::{check_aabb, BroadPhase, BroadPhaseError};
use crate::bounding::Aabb;
use crate::math::{Real, Vector};
use glam::Vec4;

#[derive(Debug, Clone, Copy)]
struct Entry {
    aabb: Aabb,
    /// Cell of the lowest corner.
    lo: [i64; 3],
    /// Cell of the highest corner.
    hi: [i64; 3],
}

impl Entry {
    fn large(&self) -> bool {
        (0..3).any(|k| self.hi[k].saturating_sub(self.lo[k]) > 1)
    }
}

/// A small object filed under its corner cell, for the pair pass: its box in single
/// precision, rounded outwards (so the test never misses an overlap; in the f64 build a
/// hit is confirmed on the exact boxes), as two SIMD vectors whose fourth lanes carry
/// the id (32 bytes, two to a cache line).
#[derive(Debug, Clone, Copy)]
struct Filed {
    /// Lowest corner; lane w holds the id's bits.
    lo: Vec4,
    /// Highest corner; lane w is unused.
    hi: Vec4,
}

impl Filed {
    const PLACEHOLDER: Filed = Filed {
        lo: Vec4::ZERO,
        hi: Vec4::ZERO,
    };

    fn new(id: u32, b: &Aabb) -> Filed {
        Filed {
            lo: Vec4::new(
                down(b.mins.x),
                down(b.mins.y),
                down(b.mins.z),
                f32::from_bits(id),
            ),
            hi: Vec4::new(up(b.maxs.x), up(b.maxs.y), up(b.maxs.z), 0.0),
        }
    }

    #[inline]
    fn id(&self) -> u32 {
        self.lo.w.to_bits()
    }

    /// Whether the boxes meet (closed boxes): the x, y and z lanes only.
    #[inline]
    fn overlaps(&self, other: &Filed) -> bool {
        (self.lo.cmple(other.hi) & other.lo.cmple(self.hi)).bitmask() & 0b111 == 0b111
    }
}

/// The largest f32 not above `x` (exact in the f32 build).
fn down(x: Real) -> f32 {
    let f = x as f32;
    if (f as Real) <= x {
        f
    } else {
        next_toward_neg_inf(f)
    }
}

/// The smallest f32 not below `x`.
fn up(x: Real) -> f32 {
    -down(-x)
}

fn next_toward_neg_inf(f: f32) -> f32 {
    if f.is_nan() || f == f32::NEG_INFINITY {
        return f;
    }
    if f == 0.0 {
        return -f32::from_bits(1);
    }
    let b = f.to_bits();
    f32::from_bits(if f > 0.0 { b - 1 } else { b + 1 })
}

/// Uniform grid broad phase. See the module notes.
#[derive(Debug, Clone)]
pub struct Grid {
    inv_cell: Real,
    cell_size: Real,
    objects: Vec<Option<Entry>>,
    len: usize,
    // Scratch for the pair pass, kept to avoid allocating every frame.
    filed: Vec<Filed>,
    /// The exact boxes of `filed`, same order (f64 build only; empty otherwise).
    filed_exact: Vec<Aabb>,
    cell_of_filed: Vec<u32>,
    starts: Vec<u32>,
    cursor: Vec<u32>,
    pair_scratch: Vec<(u32, u32)>,
    counts: Vec<u32>,
    large: Vec<u32>,
    sparse: HashMap<[i64; 3], (u32, u32), CellHash>,
    order: Vec<([i64; 3], u32)>,
    parallel: bool,
}

type CellHash = std::hash::BuildHasherDefault<CellHasher>;

/// Hashes a cell's three coordinates with the integer hasher of the module.
#[derive(Default, Clone, Copy)]
struct CellHasher(super::IntHasher);

impl std::hash::Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0.finish()
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.write(bytes)
    }
    fn write_i64(&mut self, x: i64) {
        self.0.write_u64(x as u64)
    }
    fn write_usize(&mut self, x: usize) {
        self.0.write_u64(x as u64)
    }
}

/// The 13 neighbour offsets that follow (0, 0, 0) in lexicographic order.
const FORWARD: [[i64; 3]; 13] = [
    [0, 0, 1],
    [0, 1, -1],
    [0, 1, 0],
    [0, 1, 1],
    [1, -1, -1],
    [1, -1, 0],
    [1, -1, 1],
    [1, 0, -1],
    [1, 0, 0],
    [1, 0, 1],
    [1, 1, -1],
    [1, 1, 0],
    [1, 1, 1],
];

impl Grid {
    /// Large objects whose box could share more cells than this with small objects are
    /// tested against every object instead of looking the cells up.
    pub const MAX_CELLS_PER_OBJECT: i64 = 512;

    /// Below this many small objects the pair search stays on the calling thread.
    pub const PARALLEL_MIN_OBJECTS: usize = 4096;

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
            len: 0,
            filed: Vec::new(),
            filed_exact: Vec::new(),
            cell_of_filed: Vec::new(),
            starts: Vec::new(),
            cursor: Vec::new(),
            pair_scratch: Vec::new(),
            counts: Vec::new(),
            large: Vec::new(),
            sparse: HashMap::default(),
            order: Vec::new(),
            parallel: true,
        }
    }

    /// Whether the pair search may split over the threads of the rayon pool it is called
    /// in (with the `parallel` feature, from
    /// [`PARALLEL_MIN_OBJECTS`](Self::PARALLEL_MIN_OBJECTS) small objects up). On by
    /// default; off, the grid never leaves the calling thread.
    pub fn set_parallel(&mut self, on: bool) {
        self.parallel = on;
    }

    /// The side of a cell.
    pub fn cell_size(&self) -> Real {
        self.cell_size
    }

    fn entry(&self, aabb: Aabb) -> Entry {
        Entry {
            aabb,
            lo: cell_of(self.inv_cell, aabb.mins),
            hi: cell_of(self.inv_cell, aabb.maxs),
        }
    }

    /// The exact test of two listed objects.
    fn exact(&self, a: u32, b: u32) -> bool {
        match (&self.objects[a as usize], &self.objects[b as usize]) {
            (Some(x), Some(y)) => x.aabb.intersects(&y.aabb),
            _ => false,
        }
    }

    /// Pairs among the small objects of a dense filing with `dims` cells: on rayon's pool,
    /// slab by slab of cells along x, when the `parallel` feature is on, the pool has
    /// more than one thread and there are enough objects to share.
    fn dense_pairs(&self, dims: [i64; 3], out: &mut Vec<(u32, u32)>) {
        #[cfg(feature = "parallel")]
        if self.parallel
            && self.filed.len() >= Self::PARALLEL_MIN_OBJECTS
            && rayon::current_num_threads() > 1
        {
            use rayon::prelude::*;
            let parts: Vec<Vec<(u32, u32)>> = (0..dims[0])
                .into_par_iter()
                .fold(Vec::new, |mut part, x| {
                    self.dense_slabs(x..x + 1, dims, &mut part);
                    part
                })
                .collect();
            for part in parts {
                out.extend_from_slice(&part);
            }
            return;
        }
        self.dense_slabs(0..dims[0], dims, out);
    }

    /// Pairs of the small objects whose corner cells have x in `xs`, with each other and
    /// with the forward neighbours of their cells.
    fn dense_slabs(&self, xs: std::ops::Range<i64>, dims: [i64; 3], out: &mut Vec<(u32, u32)>) {
        let [dx, dy, dz] = dims;
        // Cells along z are adjacent in the table, so the forward neighbours are five
        // contiguous ranges of filed objects: (x, y, z+1); (x, y+1, z-1..=z+1); and
        // (x+1, y+d, z-1..=z+1) for d = -1, 0, 1.
        let starts = &self.starts;
        let column = |x: i64, y: i64, z0: i64, z1: i64| -> (usize, usize) {
            if x >= dx || y < 0 || y >= dy {
                return (0, 0);
            }
            let (z0, z1) = (z0.max(0), z1.min(dz - 1));
            if z0 > z1 {
                return (0, 0);
            }
            let base = (x * dy + y) * dz;
            (
                starts[(base + z0) as usize] as usize,
                starts[(base + z1 + 1) as usize] as usize,
            )
        };
        for x in xs {
            for y in 0..dy {
                for z in 0..dz {
                    let c = ((x * dy + y) * dz + z) as usize;
                    let here = (starts[c] as usize, starts[c + 1] as usize);
                    if here.0 == here.1 {
                        continue;
                    }
                    self.within(here, out);
                    for there in [
                        column(x, y, z + 1, z + 1),
                        column(x, y + 1, z - 1, z + 1),
                        column(x + 1, y - 1, z - 1, z + 1),
                        column(x + 1, y, z - 1, z + 1),
                        column(x + 1, y + 1, z - 1, z + 1),
                    ] {
                        self.between(here, there, out);
                    }
                }
            }
        }
    }

    /// Pairs among the filed objects `r.0..r.1`.
    #[inline]
    fn within(&self, r: (usize, usize), out: &mut Vec<(u32, u32)>) {
        for i in r.0..r.1 {
            let a = &self.filed[i];
            for j in i + 1..r.1 {
                if a.overlaps(&self.filed[j]) && self.exact_filed(i, j) {
                    push_pair(out, a.id(), self.filed[j].id());
                }
            }
        }
    }

    /// Pairs between the filed objects of `r` and those of `t`.
    #[inline]
    fn between(&self, r: (usize, usize), t: (usize, usize), out: &mut Vec<(u32, u32)>) {
        for i in r.0..r.1 {
            let a = &self.filed[i];
            for j in t.0..t.1 {
                if a.overlaps(&self.filed[j]) && self.exact_filed(i, j) {
                    push_pair(out, a.id(), self.filed[j].id());
                }
            }
        }
    }

    /// The exact test of filed objects `i` and `j` after the single-precision one passed:
    /// nothing more in the f32 build, where that one is exact.
    #[inline]
    fn exact_filed(&self, i: usize, j: usize) -> bool {
        if cfg!(feature = "f64") {
            self.filed_exact[i].intersects(&self.filed_exact[j])
        } else {
            let _ = (i, j);
            true
        }
    }

    fn get(&self, id: u32) -> Option<&Entry> {
        self.objects.get(id as usize).and_then(|e| e.as_ref())
    }
}

/// The cell holding `p`. Saturating float-to-int casts keep far-away boxes finite; they
/// only make cells coarser out there, never wrong (boxes are always tested exactly, and
/// an object whose cells saturate counts as large).
fn cell_of(inv_cell: Real, p: Vector) -> [i64; 3] {
    [
        floor_i64(p.x * inv_cell),
        floor_i64(p.y * inv_cell),
        floor_i64(p.z * inv_cell),
    ]
}

/// `x.floor() as i64` without the library call that `floor` is on baseline x86-64
/// (no SSE4.1): truncate, then step down if that rounded up. Saturates like the cast.
#[inline]
fn floor_i64(x: Real) -> i64 {
    let t = x as i64;
    if (t as Real) > x {
        t.saturating_sub(1)
    } else {
        t
    }
}

/// Where the filed objects of each cell are: a dense table of run starts over the
/// occupied range, or the sparse map.
enum Index {
    Dense { origin: [i64; 3], dims: [i64; 3] },
    Sparse,
}

impl Grid {
    /// Files the small objects by corner cell (contiguous per cell) and lists the large
    /// ones; returns how to find a cell's run.
    fn file(&mut self) -> Index {
        self.filed.clear();
        self.filed_exact.clear();
        self.large.clear();
        // One pass over the entries: the small ones' corner cells, in id order, and the
        // occupied range.
        self.order.clear();
        let (mut lo, mut hi) = ([i64::MAX; 3], [i64::MIN; 3]);
        for (id, e) in self.objects.iter().enumerate() {
            let Some(e) = e else { continue };
            if e.large() {
                self.large.push(id as u32);
                continue;
            }
            self.order.push((e.lo, id as u32));
            for k in 0..3 {
                lo[k] = lo[k].min(e.lo[k]);
                hi[k] = hi[k].max(e.lo[k]);
            }
        }
        let small = self.order.len();
        if small == 0 {
            self.starts.clear();
            self.starts.push(0);
            return Index::Dense {
                origin: [0; 3],
                dims: [0; 3],
            };
        }
        let dims = [0, 1, 2].map(|k| (hi[k] as i128 - lo[k] as i128 + 1) as u128);
        let cells = dims[0].saturating_mul(dims[1]).saturating_mul(dims[2]);
        let objects = &self.objects;
        let exact_too = cfg!(feature = "f64");
        if cells <= (4 * small + 4096) as u128 {
            // Counting sort over the dense range.
            let dims = dims.map(|d| d as i64);
            let n = cells as usize;
            self.starts.clear();
            self.starts.resize(n + 1, 0);
            self.cell_of_filed.clear();
            for &(cell, _) in &self.order {
                let c = dense_index(cell, lo, dims);
                self.cell_of_filed.push(c as u32);
                self.starts[c + 1] += 1;
            }
            for i in 0..n {
                self.starts[i + 1] += self.starts[i];
            }
            self.filed.resize(small, Filed::PLACEHOLDER);
            if exact_too {
                self.filed_exact
                    .resize(small, Aabb::new(Vector::ZERO, Vector::ZERO));
            }
            // Scatter, each cell's cursor starting at its run's start.
            self.cursor.clear();
            self.cursor.extend_from_slice(&self.starts[..n]);
            for (&(_, id), &c) in self.order.iter().zip(&self.cell_of_filed) {
                let Some(e) = objects[id as usize].as_ref() else {
                    continue;
                };
                let at = self.cursor[c as usize] as usize;
                self.cursor[c as usize] += 1;
                self.filed[at] = Filed::new(id, &e.aabb);
                if exact_too {
                    self.filed_exact[at] = e.aabb;
                }
            }
            Index::Dense { origin: lo, dims }
        } else {
            // Sparse: sort by cell, map each occupied cell to its run.
            self.order.sort_unstable();
            self.sparse.clear();
            let mut start = 0;
            while start < self.order.len() {
                let cell = self.order[start].0;
                let mut end = start + 1;
                while end < self.order.len() && self.order[end].0 == cell {
                    end += 1;
                }
                self.sparse.insert(cell, (start as u32, end as u32));
                start = end;
            }
            for &(_, id) in &self.order {
                if let Some(e) = objects[id as usize].as_ref() {
                    self.filed.push(Filed::new(id, &e.aabb));
                    if exact_too {
                        self.filed_exact.push(e.aabb);
                    }
                }
            }
            Index::Sparse
        }
    }

    /// The filed objects of `cell` (empty if none).
    fn run(&self, index: &Index, cell: [i64; 3]) -> &[Filed] {
        let (s, e) = match index {
            Index::Dense { origin, dims } => {
                let inside = (0..3).all(|k| {
                    cell[k]
                        .checked_sub(origin[k])
                        .is_some_and(|d| (0..dims[k]).contains(&d))
                });
                if !inside {
                    return &[];
                }
                let c = dense_index(cell, *origin, *dims);
                (self.starts[c], self.starts[c + 1])
            }
            Index::Sparse => match self.sparse.get(&cell) {
                Some(&r) => r,
                None => return &[],
            },
        };
        &self.filed[s as usize..e as usize]
    }
}

fn dense_index(cell: [i64; 3], origin: [i64; 3], dims: [i64; 3]) -> usize {
    (((cell[0] - origin[0]) * dims[1] + (cell[1] - origin[1])) * dims[2] + (cell[2] - origin[2]))
        as usize
}

/// Sorts pairs `(a, b)`, `a < b`, lexicographically: a counting sort on `a` (one
/// counter per id up to the largest `a`), then each run of equal `a` on `b` (a few
/// pairs each, as each object meets a few others). When the ids are far more than the
/// pairs, or the list is short, the standard sort.
fn sort_pairs(out: &mut Vec<(u32, u32)>, scratch: &mut Vec<(u32, u32)>, counts: &mut Vec<u32>) {
    let max_a = out.iter().map(|p| p.0).max().unwrap_or(0) as usize;
    if out.len() < 256 || max_a > 4 * out.len() {
        out.sort_unstable();
        return;
    }
    counts.clear();
    counts.resize(max_a + 2, 0);
    for p in out.iter() {
        counts[p.0 as usize + 1] += 1;
    }
    for i in 0..=max_a {
        counts[i + 1] += counts[i];
    }
    scratch.clear();
    scratch.resize(out.len(), (0, 0));
    for p in out.iter() {
        let at = &mut counts[p.0 as usize];
        scratch[*at as usize] = *p;
        *at += 1;
    }
    // `counts[a]` is now the end of `a`'s run: sort each run on `b` (short runs by
    // insertion inside the standard sort; a long one, an object meeting thousands, in
    // O(k log k)).
    let mut start = 0;
    for &end in &counts[..=max_a] {
        let end = end as usize;
        if end - start > 1 {
            scratch[start..end].sort_unstable_by_key(|p| p.1);
        }
        start = end;
    }
    core::mem::swap(out, scratch);
}

fn push_pair(out: &mut Vec<(u32, u32)>, a: u32, b: u32) {
    out.push((a.min(b), a.max(b)));
}

impl BroadPhase for Grid {
    fn insert(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError> {
        check_aabb(id, &aabb)?;
        if self.get(id).is_some() {
            return Err(BroadPhaseError::Duplicate(id));
        }
        super::grow_to(&mut self.objects, id, None)?;
        self.objects[id as usize] = Some(self.entry(aabb));
        self.len += 1;
        Ok(())
    }

    fn update(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError> {
        self.get(id).ok_or(BroadPhaseError::Missing(id))?;
        check_aabb(id, &aabb)?;
        self.objects[id as usize] = Some(self.entry(aabb));
        Ok(())
    }

    fn remove(&mut self, id: u32) -> Result<(), BroadPhaseError> {
        self.get(id).ok_or(BroadPhaseError::Missing(id))?;
        self.objects[id as usize] = None;
        self.len -= 1;
        Ok(())
    }

    fn overlapping_pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let index = self.file();
        // Small against small: each occupied cell with itself and its forward neighbours.
        match &index {
            Index::Dense { origin: _, dims } => self.dense_pairs(*dims, out),
            Index::Sparse => {
                let mut start = 0;
                while start < self.order.len() {
                    let cell = self.order[start].0;
                    let here = self.sparse.get(&cell).copied().unwrap_or((0, 0));
                    let here = (here.0 as usize, here.1 as usize);
                    self.within(here, out);
                    for d in FORWARD {
                        // No cell lies beyond a saturated coordinate: skip those.
                        let (Some(x), Some(y), Some(z)) = (
                            cell[0].checked_add(d[0]),
                            cell[1].checked_add(d[1]),
                            cell[2].checked_add(d[2]),
                        ) else {
                            continue;
                        };
                        if let Some(&(s, e)) = self.sparse.get(&[x, y, z]) {
                            self.between(here, (s as usize, e as usize), out);
                        }
                    }
                    start = here.1.max(start + 1);
                }
            }
        }
        // Large against small (through the cells they could share) and against large.
        for (i, &l) in self.large.iter().enumerate() {
            let Some(e) = self.objects[l as usize].as_ref() else {
                continue;
            };
            let lo = e.lo.map(|c| c.saturating_sub(1));
            let span = (0..3).fold(1i64, |acc, k| {
                acc.saturating_mul(e.hi[k].saturating_sub(lo[k]).saturating_add(1))
            });
            if span <= Self::MAX_CELLS_PER_OBJECT {
                for x in lo[0]..=e.hi[0] {
                    for y in lo[1]..=e.hi[1] {
                        for z in lo[2]..=e.hi[2] {
                            for b in self.run(&index, [x, y, z]) {
                                if self.exact(l, b.id()) {
                                    push_pair(out, l, b.id());
                                }
                            }
                        }
                    }
                }
            } else {
                for b in &self.filed {
                    if self.exact(l, b.id()) {
                        push_pair(out, l, b.id());
                    }
                }
            }
            for &m in &self.large[i + 1..] {
                if let Some(f) = self.objects[m as usize].as_ref() {
                    if e.aabb.intersects(&f.aabb) {
                        push_pair(out, l, m);
                    }
                }
            }
        }
        sort_pairs(out, &mut self.pair_scratch, &mut self.counts);
    }

    fn len(&self) -> usize {
        self.len
    }

    fn aabb(&self, id: u32) -> Option<Aabb> {
        self.get(id).map(|e| e.aabb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadphase::brute_force_pairs;

    /// A seeded xorshift source of uniform numbers in [0, 1).
    fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Enough objects for the pair search to split over a two-thread pool: the same
    /// pairs as brute force and as the one-thread search.
    #[cfg(feature = "parallel")]
    #[test]
    fn parallel_pair_search_equals_brute_force() {
        let mut next = uniform(0x9e37_79b9);
        let mut grid = Grid::new(2.0);
        let mut boxes = Vec::new();
        for id in 0..(2 * Grid::PARALLEL_MIN_OBJECTS) as u32 {
            let c = Vector::new(next() as Real, next() as Real, next() as Real) * 40.0;
            let h = Vector::new(next() as Real, next() as Real, next() as Real) * 1.5;
            let b = Aabb::new(c - h, c + h);
            grid.insert(id, b).expect("valid box");
            boxes.push((id, b));
        }
        let run = |threads: usize, grid: &mut Grid| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            let mut out = Vec::new();
            pool.install(|| grid.overlapping_pairs(&mut out));
            out
        };
        let two = run(2, &mut grid);
        assert!(two.len() > 1000, "{}", two.len());
        assert_eq!(two, brute_force_pairs(&boxes));
        assert_eq!(two, run(1, &mut grid));
        grid.set_parallel(false);
        assert_eq!(two, run(2, &mut grid));
    }

    /// Cells that saturate at the ends of the integer range (a tiny cell far from the
    /// origin) next to ordinary ones: no overflow, and the pairs equal brute force.
    #[test]
    fn saturated_cells_equal_brute_force() {
        let mut grid = Grid::new(1e-30);
        let mut boxes = Vec::new();
        let mut id = 0u32;
        for centre in [0.0, 1.0e6, -1.0e6, 1.0e6 + 0.5, -1.0e6 - 0.5] {
            for k in 0..3 {
                let c = Vector::new(centre, centre + k as Real * 0.3, -centre);
                let b = Aabb::new(c - Vector::splat(0.4), c + Vector::splat(0.4));
                grid.insert(id, b).expect("valid box");
                boxes.push((id, b));
                id += 1;
            }
        }
        let mut out = Vec::new();
        grid.overlapping_pairs(&mut out);
        assert_eq!(out, brute_force_pairs(&boxes));
    }

    /// The fast floor equals `floor` as a saturating cast, integers and halves, both
    /// signs, and far out.
    #[test]
    fn fast_floor_equals_floor() {
        let mut x: Real = 1e-3;
        while x < 1e20 {
            for v in [x, -x, x.round(), -x.round(), x + 0.5, -x - 0.5, 0.0, -0.0] {
                assert_eq!(floor_i64(v), v.floor() as i64, "{v}");
            }
            x *= 1.37;
        }
        for v in [
            Real::MAX,
            Real::MIN,
            9.3e18,
            -9.3e18,
            Real::EPSILON,
            -Real::EPSILON,
        ] {
            assert_eq!(floor_i64(v), v.floor() as i64, "{v}");
        }
    }

    /// Both filings (dense table, sparse map), small and large objects, far-away
    /// coordinates: pairs equal brute force.
    #[test]
    fn dense_and_sparse_filings_equal_brute_force() {
        let mut next = uniform(0x1234_5678);
        // (spread of centres, largest size): dense, sparse, mixed sizes, far away.
        for (spread, size, offset) in [
            (20.0, 1.0, 0.0),
            (1.0e5, 1.0, 0.0),
            (30.0, 40.0, 0.0),
            (50.0, 3.0, 1.0e6),
        ] {
            let mut grid = Grid::new(2.0);
            let mut boxes = Vec::new();
            for id in 0..400u32 {
                let c = Vector::new(next() as Real, next() as Real, next() as Real)
                    * spread as Real
                    + Vector::splat(offset as Real);
                let h = Vector::new(next() as Real, next() as Real, next() as Real)
                    * (size as Real * 0.5)
                    + Vector::splat(1e-3);
                let b = Aabb::new(c - h, c + h);
                grid.insert(id, b).expect("valid box");
                boxes.push((id, b));
            }
            let mut out = Vec::new();
            grid.overlapping_pairs(&mut out);
            assert_eq!(
                out,
                brute_force_pairs(&boxes),
                "spread {spread}, size {size}"
            );
        }
    }

    /// Both paths of the pair sort (counting sort on dense ids, the standard sort on
    /// sparse ones or short lists), with repeated pairs and runs of equal first ids.
    #[test]
    fn sorted_pairs_equal_the_standard_sort() {
        let mut seed = 99u64;
        let (mut scratch, mut counts) = (Vec::new(), Vec::new());
        for n in [0usize, 3, 255, 256, 257, 5000, 40_000] {
            // 1: every pair is (0, 0), one run as long as the list.
            for ids in [1, n as u32 / 3 + 2, 7, 70_000, u32::MAX] {
                let mut v: Vec<(u32, u32)> = (0..n)
                    .map(|_| {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let a = ((seed >> 32) % ids as u64) as u32;
                        let b = ((seed & 0xffff_ffff) % ids as u64) as u32;
                        (a.min(b), a.max(b))
                    })
                    .collect();
                let mut expected = v.clone();
                expected.sort_unstable();
                sort_pairs(&mut v, &mut scratch, &mut counts);
                assert_eq!(v, expected, "{n} pairs, ids below {ids}");
            }
        }
    }

    #[test]
    fn outward_rounding_never_shrinks() {
        for x in [0.1, -0.1, 1.0e-30, -1.0e-30, 3.0, 1.0e20, -7.25, 0.0] {
            let x = x as Real;
            assert!((down(x) as Real) <= x && (up(x) as Real) >= x, "{x}");
        }
    }
}
