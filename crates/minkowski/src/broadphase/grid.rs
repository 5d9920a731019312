//! A hierarchical uniform grid in 3D: seed 000's demo grid, done right.
//!
//! Space is cut into cubes of side `cell_size` (level 0), and into cubes twice as large
//! at each level above (level k has cells of side `cell_size · 2^k`; level-k cell
//! indices are level-0 indices shifted right by k bits, so every level agrees with level
//! 0 exactly). Each object is filed once, at the lowest level where its box spans
//! at most two cells per axis, under the cell of its box's lowest corner. Two such boxes
//! at one level can overlap only if their corner cells are equal or neighbours (differ by
//! at most one along each axis). The pair pass therefore tests each occupied cell's
//! objects against each other and against those of its 13 "forward" neighbours (the
//! half of the 26 that follows it in lexicographic order), which meets every candidate
//! pair of the level exactly once: no pair is reported twice and none needs
//! deduplication.
//!
//! Pairs across two levels are found from whichever side costs fewer cell lookups: each
//! object of the finer level looks up the 27 cells around its corner cell at the coarser
//! level, or each object of the coarser level looks up the finer cells its box could
//! share with an object there (its own range, widened by one cell below), clipped to the
//! occupied range. Objects far larger than a cell just sit higher up, where they are few
//! to a cell, instead of being tested against each other one by one.
//!
//! The filing is rebuilt at every pair pass by a counting sort over each level's
//! occupied cell range (or, when that range is much larger than the number of objects,
//! by sorting and a hash map from cells to their objects), with each object's box copied
//! next to its cell mates, so the tests read memory in order. Updates are O(1): an
//! object's entry is only replaced.
//!
//! Cell size is the caller's choice: about the size of the larger common objects, so
//! that most share level 0 with a few neighbours per cell (`minkowski scene` uses twice
//! the mean box side). Too small a cell moves objects up a level; too large a one puts
//! many objects in each cell, whose pairs are all tested.
//!
//! Hierarchical grids are described in Ericson, *Real-Time Collision Detection* (2005),
//! section 7.2; the neighbour half-stencil and the choice of side across levels are this
//! file's own.

use std::collections::HashMap;

use super::{check_aabb, BroadPhase, BroadPhaseError};
use crate::bounding::Aabb;
use crate::math::{Real, Vector};
use glam::Vec4;

/// Levels: shifts 0 to 63; at the last every axis has two cells.
const LEVELS: usize = 64;

/// The right shift from level-0 cell indices to level `k`'s.
fn shift(k: usize) -> u32 {
    k as u32
}

fn shifted(cell: [i64; 3], by: u32) -> [i64; 3] {
    cell.map(|c| c >> by)
}

/// The lowest level at which the box with level-0 corner cells `lo` and `hi` spans at
/// most two cells per axis.
#[inline]
fn level_of(lo: [i64; 3], hi: [i64; 3]) -> u8 {
    let fits = |k: usize| {
        let s = shift(k);
        (0..3).all(|a| (hi[a] >> s).saturating_sub(lo[a] >> s) <= 1)
    };
    if fits(0) {
        return 0;
    }
    // The last level always fits (every index becomes 0 or -1).
    (1..LEVELS).find(|&k| fits(k)).unwrap_or(LEVELS - 1) as u8
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    aabb: Aabb,
    /// Level-0 cell of the lowest corner.
    lo: [i64; 3],
    /// The level the object is filed at.
    level: u8,
    /// Where it sits within its corner cell's run: see [`slot_code`].
    code: u8,
    /// Whether the entry changed since the last filing (then the filing's copy, if
    /// any, is out of date and queries test it from [`Grid::moved`]).
    stale: bool,
}

/// Sub-slots of a cell's run, by which of the cell's upper faces the box crosses along
/// x and y: y only, both, x only, neither. Those crossing x, those crossing y and those
/// crossing both are then each one contiguous stretch of the run.
const SLOTS: usize = 4;

/// The sub-slot of a box that crosses its corner cell's upper face along x (`cx`)
/// and along y (`cy`).
fn slot_code(cx: bool, cy: bool) -> u8 {
    match (cx, cy) {
        (false, true) => 0,
        (true, true) => 1,
        (true, false) => 2,
        (false, false) => 3,
    }
}

/// An object filed under its corner cell, for the pair pass: its box in single
/// precision, rounded outwards (so the test never misses an overlap), as two SIMD
/// vectors whose fourth lanes carry the id and the rounding slack (32 bytes, two to a
/// cache line). In the f64 build a hit that might be an artefact of the rounding (the
/// boxes overlap by less than their slacks) is confirmed on the exact boxes.
#[derive(Debug, Clone, Copy)]
struct Filed {
    /// Lowest corner; lane w holds the id's bits.
    lo: Vec4,
    /// Highest corner; lane w holds the slack: how far (at least twice over) any
    /// coordinate may be from the exact box's, 0 in the f32 build.
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
            hi: Vec4::new(up(b.maxs.x), up(b.maxs.y), up(b.maxs.z), slack(b)),
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

    /// Whether the exact boxes certainly meet: these overlap by at least both slacks
    /// along every axis. (A sum that overflows, or an infinite slack, says no.)
    #[inline]
    fn surely_overlaps(&self, other: &Filed) -> bool {
        let s = Vec4::splat(self.hi.w + other.hi.w);
        ((self.lo + s).cmple(other.hi) & (other.lo + s).cmple(self.hi)).bitmask() & 0b111 == 0b111
    }
}

/// The slack of a box's single-precision bounds (see [`down`]): each is within
/// `|c| · 2⁻²¹ + 2⁻¹²⁵` of its coordinate `c`; twice that, from the largest coordinate,
/// so that the rounding of [`Filed::surely_overlaps`]' sums is covered too. Infinite
/// beyond the f32 range (bounds there are clamped). 0 in the f32 build, where the
/// bounds are exact.
#[inline]
fn slack(b: &Aabb) -> f32 {
    if cfg!(minkowski_f64) {
        let m = b.mins.abs().max(b.maxs.abs()).max_element();
        if m < (f32::MAX / 4.0) as Real {
            (m * (1.0 / 1_048_576.0)) as f32 * (1.0 + f32::EPSILON) + 2.0 * 1e-37
        } else {
            f32::INFINITY
        }
    } else {
        0.0
    }
}

/// An f32 not above `x`: `x` itself in the f32 build. In the f64 build, `x` rounded to
/// the nearest f32 (clamped to the finite range) is within half a unit in the last place
/// of it; lowering that by `|f| · 2⁻²²` (at least two units, and the subtraction rounds
/// to at most one unit below `f`) and by the smallest normal f32 (for zero and
/// subnormals) lands at or below `x`, looser by a unit or two than the largest such
/// f32 but without a branch on the data: picking the tight one branched on whether
/// rounding went up, a coin flip that mispredicted half the time.
#[inline]
fn down(x: Real) -> f32 {
    if cfg!(minkowski_f64) {
        let limit = f32::MAX as Real;
        let f = x.clamp(-limit, limit) as f32;
        f - f.abs() * (1.0 / 4_194_304.0) - f32::MIN_POSITIVE
    } else {
        x as f32
    }
}

/// An f32 not below `x` (see [`down`]).
#[inline]
fn up(x: Real) -> f32 {
    -down(-x)
}

/// Whether the exact boxes of two objects meet, after their single-precision boxes did:
/// nothing more to check in the f32 build, where those are exact.
#[inline]
fn confirm(objects: &[Option<Entry>], a: u32, b: u32) -> bool {
    if cfg!(minkowski_f64) {
        match (&objects[a as usize], &objects[b as usize]) {
            (Some(x), Some(y)) => x.aabb.intersects(&y.aabb),
            _ => false,
        }
    } else {
        true
    }
}

/// Hierarchical uniform grid broad phase. See the module notes.
#[derive(Debug, Clone)]
pub struct Grid {
    inv_cell: Real,
    cell_size: Real,
    objects: Vec<Option<Entry>>,
    len: usize,
    /// Level k's filing, for k below the highest level any object has reached.
    levels: Vec<Level>,
    // Scratch for the pair pass, kept to avoid allocating every frame.
    pair_scratch: Vec<(u32, u32)>,
    counts: Vec<u32>,
    parallel: bool,
    /// Objects inserted or moved since the last filing (each once), for queries.
    moved: Vec<u32>,
    /// Per id: whether it is in `moved`.
    listed: Vec<bool>,
    /// A box containing every object's box (grown as objects arrive, recomputed at
    /// each pair pass), `None` before the first.
    bounds: Option<Aabb>,
}

/// One level's objects filed by corner cell.
#[derive(Debug, Clone, Default)]
struct Level {
    /// The level's objects: (corner cell at this level, id), in id order, or sorted by
    /// cell with the sparse index (then `filed[i]` is `order[i]`'s).
    order: Vec<([i64; 3], u32, u8)>,
    /// The objects' boxes, each cell's contiguous.
    filed: Vec<Filed>,
    cell_of_filed: Vec<u32>,
    starts: Vec<u32>,
    cursor: Vec<u32>,
    sparse: HashMap<CellKey, (u32, u32), super::IntBuildHasher>,
    index: Index,
}

/// A cell as a hash key: its three indices mixed into one word, hashed with the
/// integer hasher of the module (the derived hash would feed 24 bytes one by one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CellKey([i64; 3]);

impl std::hash::Hash for CellKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let [x, y, z] = self.0.map(|c| c as u64);
        state.write_u64(
            x.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ y.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
                ^ z.wrapping_mul(0x1656_67B1_9E37_79F9),
        );
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

/// Where a level's filed objects of each cell are: a dense table of run starts over the
/// occupied range, or the sparse map.
#[derive(Debug, Clone, Copy)]
enum Index {
    Dense { origin: [i64; 3], dims: [i64; 3] },
    Sparse,
}

impl Default for Index {
    fn default() -> Self {
        Index::Dense {
            origin: [0; 3],
            dims: [0; 3],
        }
    }
}

impl Grid {
    /// Below this many objects at a level the pair search of the level stays on the
    /// calling thread.
    pub const PARALLEL_MIN_OBJECTS: usize = 4096;

    /// An empty grid with cubic level-0 cells of side `cell_size` (length units; finite,
    /// > 0, else 1 is used).
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
            levels: Vec::new(),
            pair_scratch: Vec::new(),
            counts: Vec::new(),
            parallel: true,
            moved: Vec::new(),
            listed: Vec::new(),
            bounds: None,
        }
    }

    /// Whether the pair search may split over the threads of the rayon pool it is called
    /// in (with the `parallel` feature, for a level of
    /// [`PARALLEL_MIN_OBJECTS`](Self::PARALLEL_MIN_OBJECTS) objects or more). On by
    /// default; off, the grid never leaves the calling thread.
    pub fn set_parallel(&mut self, on: bool) {
        self.parallel = on;
    }

    /// The side of a level-0 cell.
    pub fn cell_size(&self) -> Real {
        self.cell_size
    }

    /// Files `aabb` as object `id`'s entry (the caller has checked both), making room
    /// for its level.
    #[inline]
    fn put(&mut self, id: u32, aabb: Aabb) {
        let lo = cell_of(self.inv_cell, aabb.mins);
        let hi = cell_of(self.inv_cell, aabb.maxs);
        let level = level_of(lo, hi);
        if self.levels.len() <= level as usize {
            self.add_levels(level as usize);
        }
        let s = shift(level as usize);
        let crosses = |k: usize| hi[k] >> s != lo[k] >> s;
        let code = slot_code(crosses(0), crosses(1));
        self.objects[id as usize] = Some(Entry {
            aabb,
            lo,
            level,
            code,
            stale: true,
        });
        let i = id as usize;
        if self.listed.len() <= i {
            self.listed.resize(i + 1, false);
        }
        if !self.listed[i] {
            self.listed[i] = true;
            self.moved.push(id);
        }
        self.bounds = Some(self.bounds.map_or(aabb, |b| b.merged(&aabb)));
    }

    #[cold]
    fn add_levels(&mut self, up_to: usize) {
        self.levels.resize_with(up_to + 1, Level::default);
    }

    fn get(&self, id: u32) -> Option<&Entry> {
        self.objects.get(id as usize).and_then(|e| e.as_ref())
    }

    /// The level-`i` cells that object `id` (filed at a coarser level) could share with
    /// an object of level `i`: its own range widened by one cell below (an object filed
    /// at a level exists).
    fn coarse_range(&self, id: u32, i: usize) -> ([i64; 3], [i64; 3]) {
        let Some(e) = self.objects[id as usize].as_ref() else {
            return ([0; 3], [-1; 3]);
        };
        let hi = cell_of(self.inv_cell, e.aabb.maxs);
        (
            shifted(e.lo, shift(i)).map(|c| c.saturating_sub(1)),
            shifted(hi, shift(i)),
        )
    }

    /// Whether the pairs of levels `i` and `j` (coarser) are best found from the coarse
    /// side (each coarse object looks up the fine cells it could share) rather than the
    /// fine side (each fine object looks up 27 coarse cells): whichever makes fewer
    /// lookups.
    fn search_from_coarse(&self, i: usize, j: usize) -> bool {
        let (fine, coarse) = (&self.levels[i], &self.levels[j]);
        let per_object = match coarse.index {
            Index::Dense { .. } => 9, // columns of three cells
            Index::Sparse => 27,
        };
        let fine_side = (fine.order.len() as u64).saturating_mul(per_object);
        let mut coarse_side = 0u64;
        for &(_, id, _) in &coarse.order {
            let (lo, hi) = self.coarse_range(id, i);
            coarse_side = coarse_side.saturating_add(fine.lookups(lo, hi));
            if coarse_side > fine_side {
                return false;
            }
        }
        true
    }

    /// Pairs between the objects of level `i` and those of the coarser level `j`.
    fn cross_pairs(&self, i: usize, j: usize, out: &mut Vec<(u32, u32)>) {
        let (fine, coarse) = (&self.levels[i], &self.levels[j]);
        let objects = &self.objects;
        if self.search_from_coarse(i, j) {
            for &(_, b, _) in &coarse.order {
                let Some(e) = objects[b as usize].as_ref() else {
                    continue;
                };
                let fb = Filed::new(b, &e.aabb);
                let (lo, hi) = self.coarse_range(b, i);
                fine.visit(lo, hi, &mut |k| {
                    let a = &fine.filed[k];
                    if fb.overlaps(a) && confirm(objects, a.id(), b) {
                        push_pair(out, a.id(), b);
                    }
                });
            }
        } else {
            let by = shift(j) - shift(i);
            for &(cell, a, _) in &fine.order {
                let Some(e) = objects[a as usize].as_ref() else {
                    continue;
                };
                let fa = Filed::new(a, &e.aabb);
                let c = shifted(cell, by);
                let lo = c.map(|x| x.saturating_sub(1));
                let hi = c.map(|x| x.saturating_add(1));
                coarse.visit(lo, hi, &mut |k| {
                    let b = &coarse.filed[k];
                    if fa.overlaps(b) && confirm(objects, a, b.id()) {
                        push_pair(out, a, b.id());
                    }
                });
            }
        }
    }
}

/// The level-0 cell holding `p`. Saturating float-to-int casts keep far-away boxes
/// finite; they only make cells coarser out there, never wrong (boxes are always tested
/// exactly, and the cell of a point never decreases as the point moves up an axis).
fn cell_of(inv_cell: Real, p: Vector) -> [i64; 3] {
    [
        floor_i64(p.x * inv_cell),
        floor_i64(p.y * inv_cell),
        floor_i64(p.z * inv_cell),
    ]
}

/// `x.floor() as i64` without the library call that `floor` is on baseline x86-64
/// (no SSE4.1): truncate, then step down if that rounded up. Saturates like the cast.
/// Branch-free: whether truncation rounded up depends on the sign of `x`, which a
/// branch predictor cannot guess for boxes on both sides of the origin.
#[inline]
fn floor_i64(x: Real) -> i64 {
    let t = x as i64;
    t.saturating_sub(i64::from((t as Real) > x))
}

impl Level {
    /// Files the level's objects (`order`, filled by the caller) by corner cell,
    /// contiguous per cell, and builds the index.
    fn file(&mut self, objects: &[Option<Entry>]) {
        self.filed.clear();
        let n_objects = self.order.len();
        let (mut lo, mut hi) = ([i64::MAX; 3], [i64::MIN; 3]);
        for (cell, _, _) in &self.order {
            for k in 0..3 {
                lo[k] = lo[k].min(cell[k]);
                hi[k] = hi[k].max(cell[k]);
            }
        }
        if n_objects == 0 {
            self.starts.clear();
            self.starts.push(0);
            self.index = Index::default();
            return;
        }
        let dims = [0, 1, 2].map(|k| (hi[k] as i128 - lo[k] as i128 + 1) as u128);
        let cells = dims[0].saturating_mul(dims[1]).saturating_mul(dims[2]);
        if cells <= (16 * n_objects + 4096) as u128 {
            // Counting sort over the dense range, each cell's run in its sub-slots.
            let dims = dims.map(|d| d as i64);
            let n = cells as usize * SLOTS;
            self.starts.clear();
            self.starts.resize(n + 1, 0);
            self.cell_of_filed.clear();
            for &(cell, _, code) in &self.order {
                let c = dense_index(cell, lo, dims) * SLOTS + code as usize;
                self.cell_of_filed.push(c as u32);
                self.starts[c + 1] += 1;
            }
            for i in 0..n {
                self.starts[i + 1] += self.starts[i];
            }
            self.filed.resize(n_objects, Filed::PLACEHOLDER);
            // Scatter, each cell's cursor starting at its run's start.
            self.cursor.clear();
            self.cursor.extend_from_slice(&self.starts[..n]);
            for (&(_, id, _), &c) in self.order.iter().zip(&self.cell_of_filed) {
                let Some(e) = objects[id as usize].as_ref() else {
                    continue;
                };
                let at = self.cursor[c as usize] as usize;
                self.cursor[c as usize] += 1;
                self.filed[at] = Filed::new(id, &e.aabb);
            }
            self.index = Index::Dense { origin: lo, dims };
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
                self.sparse
                    .insert(CellKey(cell), (start as u32, end as u32));
                start = end;
            }
            for &(_, id, _) in &self.order {
                if let Some(e) = objects[id as usize].as_ref() {
                    self.filed.push(Filed::new(id, &e.aabb));
                }
            }
            self.index = Index::Sparse;
        }
    }

    /// Pairs within the level: on rayon's pool, slab by slab of cells along x, when
    /// allowed, the `parallel` feature is on, the pool has more than one thread, the
    /// index is dense and there are enough objects to share.
    fn pairs(&self, objects: &[Option<Entry>], parallel: bool, out: &mut Vec<(u32, u32)>) {
        let dims = match self.index {
            Index::Dense { dims, .. } => dims,
            Index::Sparse => {
                self.sparse_pairs(&mut PairSink::new(out, objects));
                return;
            }
        };
        #[cfg(feature = "parallel")]
        if parallel
            && self.order.len() >= Grid::PARALLEL_MIN_OBJECTS
            && rayon::current_num_threads() > 1
        {
            use rayon::prelude::*;
            // A few runs of slabs per thread, for balance; each run's pairs in a vector
            // of its own.
            let runs = (4 * rayon::current_num_threads() as i64).min(dims[0]);
            let parts: Vec<Vec<(u32, u32)>> = (0..runs)
                .into_par_iter()
                .map(|r| {
                    let mut part = Vec::new();
                    let xs = r * dims[0] / runs..(r + 1) * dims[0] / runs;
                    self.dense_slabs(xs, dims, &mut PairSink::new(&mut part, objects));
                    part
                })
                .collect();
            for part in parts {
                out.extend_from_slice(&part);
            }
            return;
        }
        let _ = parallel;
        self.dense_slabs(0..dims[0], dims, &mut PairSink::new(out, objects));
    }

    /// Pairs of the objects whose corner cells have table x in `xs`, with each other
    /// and with the forward neighbours of their cells.
    fn dense_slabs(&self, xs: std::ops::Range<i64>, dims: [i64; 3], out: &mut PairSink<'_>) {
        let dy = dims[1];
        for x in xs {
            for y in 0..dy {
                // Cells along z are adjacent in the table, so the forward neighbours are
                // five contiguous ranges of filed objects: (x, y, z+1); (x, y+1,
                // z-1..=z+1); and (x+1, y+d, z-1..=z+1) for d = -1, 0, 1. A box meets
                // one in a cell above its own along x (or y) only if it crosses its
                // cell's upper face along x (or y): the sub-slots give those directly.
                for z in 0..dims[2] {
                    let c = ((x * dy + y) * dims[2] + z) as usize * SLOTS;
                    let at = |k: usize| self.starts[c + k] as usize;
                    let all = (at(0), at(SLOTS));
                    if all.0 == all.1 {
                        continue;
                    }
                    let (cross_y, cross_x, cross_xy) =
                        ((at(0), at(2)), (at(1), at(3)), (at(1), at(2)));
                    // The cell's own objects and those of (x, y, z+1), which follow
                    // them in `filed`: one loop.
                    let above = if z + 1 < dims[2] {
                        self.starts[c + 2 * SLOTS] as usize
                    } else {
                        all.1
                    };
                    self.within_then(all, above, out);
                    self.between(cross_y, self.column(dims, x, y + 1, z - 1, z + 1), out);
                    self.between(cross_x, self.column(dims, x + 1, y - 1, z - 1, z + 1), out);
                    self.between(cross_x, self.column(dims, x + 1, y, z - 1, z + 1), out);
                    self.between(cross_xy, self.column(dims, x + 1, y + 1, z - 1, z + 1), out);
                }
            }
        }
    }

    /// The filed objects of table cells (x, y, z0..=z1), clipped to the table.
    #[inline]
    fn column(&self, dims: [i64; 3], x: i64, y: i64, z0: i64, z1: i64) -> (usize, usize) {
        let [dx, dy, dz] = dims;
        if x < 0 || x >= dx || y < 0 || y >= dy {
            return (0, 0);
        }
        let (z0, z1) = (z0.max(0), z1.min(dz - 1));
        if z0 > z1 {
            return (0, 0);
        }
        let base = (x * dy + y) * dz;
        (
            self.starts[(base + z0) as usize * SLOTS] as usize,
            self.starts[(base + z1 + 1) as usize * SLOTS] as usize,
        )
    }

    /// Pairs within the level under the sparse index.
    fn sparse_pairs(&self, out: &mut PairSink<'_>) {
        let mut start = 0;
        while start < self.order.len() {
            let cell = self.order[start].0;
            let here = self.sparse.get(&CellKey(cell)).copied().unwrap_or((0, 0));
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
                if let Some(&(s, e)) = self.sparse.get(&CellKey([x, y, z])) {
                    self.between(here, (s as usize, e as usize), out);
                }
            }
            start = here.1.max(start + 1);
        }
    }

    /// Pairs among the filed objects `r.0..r.1`.
    #[inline]
    fn within(&self, r: (usize, usize), out: &mut PairSink<'_>) {
        self.within_then(r, r.1, out);
    }

    /// Pairs among the filed objects `r.0..r.1` and between those and the objects
    /// `r.1..end` that follow them.
    #[inline]
    fn within_then(&self, r: (usize, usize), end: usize, out: &mut PairSink<'_>) {
        for i in r.0..r.1 {
            self.scan(i, i + 1, end, out);
        }
    }

    /// Pairs between the filed objects of `r` and those of `t`.
    #[inline]
    fn between(&self, r: (usize, usize), t: (usize, usize), out: &mut PairSink<'_>) {
        // An empty column (common) costs one well-predicted branch, not a loop per
        // object of `r`.
        if t.0 == t.1 {
            return;
        }
        for i in r.0..r.1 {
            self.scan(i, t.0, t.1, out);
        }
    }

    /// Pairs of filed object `i` with the filed objects `from..to`. Every candidate
    /// pair is written to the sink, the test deciding only whether it is kept: with
    /// about one hit in ten candidates at no predictable place, a branch on each test
    /// would mispredict on most hits.
    #[inline]
    fn scan(&self, i: usize, from: usize, to: usize, out: &mut PairSink<'_>) {
        let a = self.filed[i];
        out.reserve(to.saturating_sub(from));
        for b in &self.filed[from.min(to)..to] {
            out.offer(&a, b);
        }
    }

    /// The cell range `lo..=hi` clipped to the occupied range: table coordinates
    /// `(lo, hi)` for a dense index, `None` if they do not meet.
    fn clip(&self, lo: [i64; 3], hi: [i64; 3]) -> Option<([i64; 3], [i64; 3])> {
        let Index::Dense { origin, dims } = self.index else {
            return Some((lo, hi));
        };
        let mut out = ([0; 3], [0; 3]);
        for k in 0..3 {
            let a = (lo[k] as i128 - origin[k] as i128).max(0);
            let b = (hi[k] as i128 - origin[k] as i128).min(dims[k] as i128 - 1);
            if a > b {
                return None;
            }
            (out.0[k], out.1[k]) = (a as i64, b as i64);
        }
        Some(out)
    }

    /// How many lookups [`Level::visit`] makes for the range `lo..=hi`.
    fn lookups(&self, lo: [i64; 3], hi: [i64; 3]) -> u64 {
        let Some((a, b)) = self.clip(lo, hi) else {
            return 0;
        };
        let n = |k: usize| (b[k] as i128 - a[k] as i128 + 1).max(0) as u64;
        match self.index {
            Index::Dense { .. } => n(0).saturating_mul(n(1)),
            Index::Sparse => n(0)
                .saturating_mul(n(1))
                .saturating_mul(n(2))
                .min(self.order.len() as u64),
        }
    }

    /// Calls `f` with the position in `filed` of every object whose corner cell lies in
    /// `lo..=hi` (level cells, inclusive).
    fn visit(&self, lo: [i64; 3], hi: [i64; 3], f: &mut impl FnMut(usize)) {
        let Some((a, b)) = self.clip(lo, hi) else {
            return;
        };
        match self.index {
            Index::Dense { dims, .. } => {
                for x in a[0]..=b[0] {
                    for y in a[1]..=b[1] {
                        let (s, e) = self.column(dims, x, y, a[2], b[2]);
                        (s..e).for_each(&mut *f);
                    }
                }
            }
            Index::Sparse => {
                let cells = (0..3).fold(1u128, |acc, k| {
                    acc.saturating_mul((b[k] as i128 - a[k] as i128 + 1) as u128)
                });
                if cells <= self.order.len() as u128 {
                    for x in a[0]..=b[0] {
                        for y in a[1]..=b[1] {
                            for z in a[2]..=b[2] {
                                if let Some(&(s, e)) = self.sparse.get(&CellKey([x, y, z])) {
                                    (s as usize..e as usize).for_each(&mut *f);
                                }
                            }
                        }
                    }
                } else {
                    for (k, (cell, _, _)) in self.order.iter().enumerate() {
                        if (0..3).all(|i| (a[i]..=b[i]).contains(&cell[i])) {
                            f(k);
                        }
                    }
                }
            }
        }
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

/// Appends pairs to a vector without a branch per pair: the vector is kept longer than
/// the pairs written, every candidate pair is stored at the end, and only those kept
/// move the end past it. Dropping the sink cuts the vector back to the kept pairs.
struct PairSink<'a> {
    buf: &'a mut Vec<(u32, u32)>,
    len: usize,
    /// The grid's entries, for the exact boxes of near-touching candidates (f64).
    objects: &'a [Option<Entry>],
}

impl<'a> PairSink<'a> {
    fn new(buf: &'a mut Vec<(u32, u32)>, objects: &'a [Option<Entry>]) -> Self {
        let len = buf.len();
        PairSink { buf, len, objects }
    }

    /// Offers the candidate pair of two filed objects: kept if their boxes meet. In
    /// the f64 build a pair whose single-precision boxes meet but not surely (see
    /// [`Filed::surely_overlaps`]) is decided on the exact boxes: a rare branch, taken
    /// only by boxes within rounding of touching. Needs a prior
    /// [`reserve`](Self::reserve).
    #[inline]
    fn offer(&mut self, a: &Filed, b: &Filed) {
        let hit = a.overlaps(b);
        let keep = if cfg!(minkowski_f64) && hit != a.surely_overlaps(b) {
            confirm(self.objects, a.id(), b.id())
        } else {
            hit
        };
        self.put(a.id(), b.id(), keep);
    }

    /// Room for `k` more candidate pairs.
    #[inline]
    fn reserve(&mut self, k: usize) {
        if self.buf.len() < self.len + k {
            self.grow(k);
        }
    }

    #[cold]
    fn grow(&mut self, k: usize) {
        let n = (2 * self.buf.len()).max(self.len + k + 64);
        self.buf.resize(n, (0, 0));
    }

    /// Stores the pair `(a, b)` (ordered), kept if `keep`. Needs a prior
    /// [`reserve`](Self::reserve).
    #[inline]
    fn put(&mut self, a: u32, b: u32, keep: bool) {
        self.buf[self.len] = (a.min(b), a.max(b));
        self.len += usize::from(keep);
    }
}

impl Drop for PairSink<'_> {
    fn drop(&mut self) {
        self.buf.truncate(self.len);
    }
}

impl BroadPhase for Grid {
    fn insert(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError> {
        check_aabb(id, &aabb)?;
        if self.get(id).is_some() {
            return Err(BroadPhaseError::Duplicate(id));
        }
        super::grow_to(&mut self.objects, id, None)?;
        self.put(id, aabb);
        self.len += 1;
        Ok(())
    }

    fn update(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError> {
        self.get(id).ok_or(BroadPhaseError::Missing(id))?;
        check_aabb(id, &aabb)?;
        self.put(id, aabb);
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
        for level in &mut self.levels {
            level.order.clear();
        }
        let mut bounds: Option<Aabb> = None;
        for (id, e) in self.objects.iter_mut().enumerate() {
            let Some(e) = e else { continue };
            e.stale = false;
            bounds = Some(bounds.map_or(e.aabb, |b| b.merged(&e.aabb)));
            let k = e.level as usize;
            self.levels[k]
                .order
                .push((shifted(e.lo, shift(k)), id as u32, e.code));
        }
        for level in &mut self.levels {
            level.file(&self.objects);
        }
        // Every entry is filed now.
        for id in self.moved.drain(..) {
            self.listed[id as usize] = false;
        }
        self.bounds = bounds;
        for (i, level) in self.levels.iter().enumerate() {
            if level.order.is_empty() {
                continue;
            }
            level.pairs(&self.objects, self.parallel, out);
            for j in i + 1..self.levels.len() {
                if !self.levels[j].order.is_empty() {
                    self.cross_pairs(i, j, out);
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

    /// At each level, the filed objects whose corner cell lies in the cells the box
    /// covers or one below (a filed box spans at most two cells per axis), then the
    /// objects inserted or moved since the filing.
    fn query_aabb(&self, aabb: &Aabb, f: &mut dyn FnMut(u32)) {
        let lo0 = cell_of(self.inv_cell, aabb.mins);
        let hi0 = cell_of(self.inv_cell, aabb.maxs);
        let objects = &self.objects;
        for (k, level) in self.levels.iter().enumerate() {
            if level.filed.is_empty() {
                continue;
            }
            let lo = shifted(lo0, shift(k)).map(|c| c.saturating_sub(1));
            let hi = shifted(hi0, shift(k));
            level.visit(lo, hi, &mut |p| {
                let id = level.filed[p].id();
                if let Some(Some(e)) = objects.get(id as usize) {
                    if !e.stale && e.aabb.intersects(aabb) {
                        f(id);
                    }
                }
            });
        }
        for &id in &self.moved {
            if let Some(e) = self.get(id) {
                if e.stale && e.aabb.intersects(aabb) {
                    f(id);
                }
            }
        }
    }

    /// Box queries along the sweep, a level-0 cell at a time.
    fn query_ray(&self, sweep: &super::BoxSweep, f: &mut dyn FnMut(u32, Real) -> Real) {
        super::sweep_by_boxes(self, self.cell_size, sweep, f);
    }

    fn bounds(&self) -> Option<Aabb> {
        self.bounds
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadphase::brute_force_pairs;
    use crate::testing::uniform;

    /// A box centred at `offset` plus a uniform point of `[0, spread)³`, with half
    /// extents `floor` plus uniform in `[0, half)` per axis.
    fn random_box(
        next: &mut impl FnMut() -> f64,
        spread: f64,
        offset: f64,
        half: f64,
        floor: f64,
    ) -> Aabb {
        let mut v = || Vector::new(next() as Real, next() as Real, next() as Real);
        let c = v() * spread as Real + Vector::splat(offset as Real);
        let h = v() * half as Real + Vector::splat(floor as Real);
        Aabb::new(c - h, c + h)
    }

    /// Inserts `boxes` as objects 0, 1, …, and returns the grid's pairs after checking
    /// them against brute force.
    fn checked_pairs(grid: &mut Grid, boxes: &[Aabb], label: &str) -> Vec<(u32, u32)> {
        let listed: Vec<(u32, Aabb)> = (0..).zip(boxes.iter().copied()).collect();
        for &(id, b) in &listed {
            grid.insert(id, b).expect("valid box");
        }
        let mut out = Vec::new();
        grid.overlapping_pairs(&mut out);
        assert_eq!(out, brute_force_pairs(&listed), "{label}");
        out
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
            let b = random_box(&mut next, 40.0, 0.0, 1.5, 0.0);
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
        let mut boxes = Vec::new();
        for centre in [0.0, 1.0e6, -1.0e6, 1.0e6 + 0.5, -1.0e6 - 0.5] {
            for k in 0..3 {
                let c = Vector::new(centre, centre + k as Real * 0.3, -centre);
                boxes.push(Aabb::new(c - Vector::splat(0.4), c + Vector::splat(0.4)));
            }
        }
        checked_pairs(&mut Grid::new(1e-30), &boxes, "saturated");
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

    /// Boxes from 1e-2 to 1e2 over a 1e-2 grid: a dozen levels, pairs across them found
    /// from the fine side (a few small boxes among many large ones) and from the coarse
    /// side (a few large among many small), with dense and sparse levels, equal brute
    /// force.
    #[test]
    fn levels_and_both_cross_level_searches_equal_brute_force() {
        let mut next = uniform(0xfeed_beef);
        // (small boxes, large boxes, spread of centres): spreads 5 and 300 give dense
        // and sparse levels.
        for (small, large, spread) in [(600, 8, 5.0), (8, 600, 5.0), (500, 500, 300.0)] {
            let boxes: Vec<Aabb> = (0..small + large)
                .map(|i| {
                    // Sizes log-uniform over 1e-2..1e-1 (small) or 1e0..1e2 (large).
                    let size = if i < small {
                        (10.0f64).powf(-2.0 + next())
                    } else {
                        (10.0f64).powf(2.0 * next())
                    };
                    random_box(&mut next, spread, 0.0, size * 0.5, 0.0)
                })
                .collect();
            let mut grid = Grid::new(0.01);
            checked_pairs(&mut grid, &boxes, &format!("{small} small, {large} large"));
            let levels: Vec<usize> = (0..grid.levels.len())
                .filter(|&k| !grid.levels[k].order.is_empty())
                .collect();
            assert!(levels.len() >= 8, "{levels:?}");
            // Which way the first and the last level meet the others.
            let (first, last) = (levels[0], levels[levels.len() - 1]);
            let sides: Vec<bool> = levels[1..]
                .iter()
                .map(|&j| grid.search_from_coarse(first, j))
                .chain(
                    levels[..levels.len() - 1]
                        .iter()
                        .map(|&i| grid.search_from_coarse(i, last)),
                )
                .collect();
            match (small, large) {
                (600, 8) => assert!(sides.contains(&true), "{sides:?}"),
                (8, 600) => assert!(sides.contains(&false), "{sides:?}"),
                _ => {}
            }
        }
    }

    /// Boxes a thousand cells across, all of them: they move up ten levels and the
    /// search stays linear (before levels, every such pair was tested directly).
    #[test]
    fn boxes_far_larger_than_a_cell_equal_brute_force() {
        let mut next = uniform(0x5eed);
        let boxes: Vec<Aabb> = (0..3000)
            .map(|_| random_box(&mut next, 30.0, 0.0, 1.0, 0.5))
            .collect();
        let mut grid = Grid::new(1e-3);
        let out = checked_pairs(&mut grid, &boxes, "large boxes");
        assert!(out.len() > 1000, "{}", out.len());
        assert!(grid.levels.iter().take(10).all(|l| l.order.is_empty()));
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
            let boxes: Vec<Aabb> = (0..400)
                .map(|_| random_box(&mut next, spread, offset, size * 0.5, 1e-3))
                .collect();
            let label = format!("spread {spread}, size {size}");
            checked_pairs(&mut Grid::new(2.0), &boxes, &label);
        }
    }

    /// Boxes touching, overlapping or apart by far less than a single-precision unit
    /// in the last place, at several scales and in both filings (the f64 build decides
    /// those on the exact boxes; in the f32 build the gaps are whole units): pairs equal
    /// brute force, touching ones included.
    #[test]
    fn near_touching_boxes_equal_brute_force() {
        let mut next = uniform(0x7e57_0ad5);
        let tiny = if cfg!(minkowski_f64) { 1e-12 } else { 1e-6 };
        for (scale, offset, cell) in [(1.0, 0.0, 2.0), (1e3, 1e6, 2e3), (1e-3, -5.0, 2e-3)] {
            let mut boxes = Vec::new();
            for _ in 0..300 {
                let a = random_box(&mut next, 20.0 * scale, offset, 0.5 * scale, 0.1 * scale);
                // A second box whose lower x face sits on, just inside or just outside
                // the first's upper x face.
                let gap = match (next() * 3.0) as u32 {
                    0 => 0.0,
                    1 => -tiny,
                    _ => tiny,
                } * (offset.abs() + scale) as f64;
                let w = (next() * scale) as Real + 0.01 * scale as Real;
                let lo_x = a.maxs.x + gap as Real;
                let b = Aabb::new(
                    Vector::new(lo_x, a.mins.y, a.mins.z),
                    Vector::new(lo_x + w, a.maxs.y, a.maxs.z),
                );
                boxes.push(a);
                boxes.push(b);
            }
            let label = format!("scale {scale}, offset {offset}");
            let pairs = checked_pairs(&mut Grid::new(cell as Real), &boxes, &label);
            // The touching pairs are there (each a box and its partner).
            assert!(
                pairs
                    .iter()
                    .filter(|p| p.1 == p.0 + 1 && p.0 % 2 == 0)
                    .count()
                    > 150
            );
            // And a sparse filing (cells far smaller than the boxes' spread).
            checked_pairs(&mut Grid::new((cell * 1e-3) as Real), &boxes, &label);
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
        let check = |x: Real| {
            assert!((down(x) as Real) <= x && (up(x) as Real) >= x, "{x}");
            // Loose by a few units in the last place at most (in range).
            if x.abs() <= 1e30 && x.abs() >= 1e-30 {
                let slack = 8.0 * x.abs() * f32::EPSILON as Real;
                assert!(
                    (x - down(x) as Real) <= slack && (up(x) as Real - x) <= slack,
                    "{x}"
                );
            }
        };
        for x in [
            0.1, -0.1, 1.0e-30, -1.0e-30, 3.0, 1.0e20, -7.25, 0.0, 0.5, -0.5,
        ] {
            check(x as Real);
        }
        #[cfg(minkowski_f64)]
        for x in [
            1e300,
            -1e300,
            4e38,
            -4e38,
            1e-300,
            -1e-300,
            f64::MIN_POSITIVE,
        ] {
            check(x);
        }
        // Powers of two, their neighbours and random values across the whole range,
        // both signs.
        let mut next = uniform(0x5eed_f0d0_b100);
        for _ in 0..20_000 {
            let e = (next() * 120.0 - 60.0) as i32;
            let m = 1.0 + next();
            for x in [m, 1.0, 1.0 + 1e-9, 1.0 - 1e-9] {
                let v = (x * (2.0f64).powi(e)) as Real;
                check(v);
                check(-v);
            }
        }
    }
}
