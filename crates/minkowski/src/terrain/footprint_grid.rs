//! A static uniform grid over the terrain's plane: the spatial index of the terrain
//! detectors (seed 002 §2.5: "uniform grid", one of the broad phases the thesis lists).
//!
//! The terrain's world frame has `y` up ([`crate::terrain::synthetic`]); the grid cuts
//! the `(x, z)` plane into square bins of one side and files each of a fixed list of
//! world boxes under every bin its `(x, z)` extent covers. A query box is mapped to its
//! bin range the same way; every box filed in those bins is tested against the query
//! (all three axes), so the answer is exactly the boxes that meet the query, each once.
//! Boxes are filed once, when the grid is built; the grid is not updated.
//!
//! Both terrain detectors use it: the per-vertex baseline files each triangle's prism
//! bound ([`crate::terrain::PerVertexBaseline`]), the multiresolution detection each
//! quad's bounded volume ([`crate::terrain::TerrainVolumes`]).

use crate::bounding::Aabb;
use crate::math::Real;

/// The most bins (the bin side grows to keep within it).
pub const MAX_FOOTPRINT_BINS: usize = 1 << 20;

/// A uniform grid over `(x, z)` of a fixed list of world boxes (see the module notes).
#[derive(Debug, Clone, PartialEq)]
pub struct FootprintGrid {
    origin: [Real; 2],
    cell: Real,
    dims: [usize; 2],
    bins: Vec<Vec<u32>>,
    boxes: Vec<Aabb>,
}

impl FootprintGrid {
    /// Files `boxes` (world frame; index `i` answers for `boxes[i]`) in bins of side
    /// `cell` over the `(x, z)` extent of the boxes, the side doubled until there are at
    /// most [`MAX_FOOTPRINT_BINS`] bins. A box with a non-finite or inverted coordinate is
    /// kept but filed nowhere: no query finds it. A `cell` that is not finite and
    /// positive is taken as the extent (one bin per axis).
    pub fn new(boxes: Vec<Aabb>, cell: Real) -> Self {
        let filed = |b: &Aabb| {
            b.mins.is_finite()
                && b.maxs.is_finite()
                && b.mins.x <= b.maxs.x
                && b.mins.y <= b.maxs.y
                && b.mins.z <= b.maxs.z
        };
        let mut lo = [Real::INFINITY; 2];
        let mut hi = [Real::NEG_INFINITY; 2];
        for b in boxes.iter().filter(|b| filed(b)) {
            lo = [lo[0].min(b.mins.x), lo[1].min(b.mins.z)];
            hi = [hi[0].max(b.maxs.x), hi[1].max(b.maxs.z)];
        }
        if lo[0] > hi[0] {
            return Self {
                origin: [0.0; 2],
                cell: 1.0,
                dims: [1, 1],
                bins: vec![Vec::new()],
                boxes,
            };
        }
        let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]);
        let mut cell = if cell.is_finite() && cell > 0.0 {
            cell
        } else {
            extent.max(Real::MIN_POSITIVE)
        };
        let dims = loop {
            let n = |e: Real| ((e / cell).ceil() as usize).max(1);
            let dims = [n(hi[0] - lo[0]), n(hi[1] - lo[1])];
            if dims[0].saturating_mul(dims[1]) <= MAX_FOOTPRINT_BINS {
                break dims;
            }
            cell *= 2.0;
        };
        let mut grid = Self {
            origin: lo,
            cell,
            dims,
            bins: vec![Vec::new(); dims[0] * dims[1]],
            boxes,
        };
        for k in 0..grid.boxes.len() {
            if !filed(&grid.boxes[k]) {
                continue;
            }
            if let Some([i0, i1, j0, j1]) = grid.range(&grid.boxes[k]) {
                for j in j0..=j1 {
                    for i in i0..=i1 {
                        grid.bins[j * dims[0] + i].push(k as u32);
                    }
                }
            }
        }
        grid
    }

    /// The boxes, in the order given.
    pub fn boxes(&self) -> &[Aabb] {
        &self.boxes
    }

    /// The bin side (length units, after any doubling).
    pub fn cell(&self) -> Real {
        self.cell
    }

    /// The bins per axis, `[x, z]`.
    pub fn dims(&self) -> [usize; 2] {
        self.dims
    }

    /// The bin range `[i0, i1, j0, j1]` an AABB covers, clamped to the grid; `None` when
    /// it misses the grid or is not finite.
    fn range(&self, aabb: &Aabb) -> Option<[usize; 4]> {
        let bin = |v: Real, o: Real, n: usize| -> Real {
            ((v - o) / self.cell).floor().clamp(-1.0, n as Real)
        };
        let (i0, i1) = (
            bin(aabb.mins.x, self.origin[0], self.dims[0]),
            bin(aabb.maxs.x, self.origin[0], self.dims[0]),
        );
        let (j0, j1) = (
            bin(aabb.mins.z, self.origin[1], self.dims[1]),
            bin(aabb.maxs.z, self.origin[1], self.dims[1]),
        );
        // NaN fails every comparison: written so that it returns `None`.
        let inside = i1 >= 0.0
            && j1 >= 0.0
            && i0 < self.dims[0] as Real
            && j0 < self.dims[1] as Real
            && i0 <= i1
            && j0 <= j1;
        if !inside {
            return None;
        }
        let clamp = |v: Real, n: usize| (v.max(0.0) as usize).min(n - 1);
        Some([
            clamp(i0, self.dims[0]),
            clamp(i1, self.dims[0]),
            clamp(j0, self.dims[1]),
            clamp(j1, self.dims[1]),
        ])
    }

    /// The indices of the filed boxes that meet `aabb` (closed boxes, all three axes),
    /// sorted, each once, into `out` (cleared first).
    pub fn query(&self, aabb: &Aabb, out: &mut Vec<usize>) {
        out.clear();
        let Some([i0, i1, j0, j1]) = self.range(aabb) else {
            return;
        };
        for j in j0..=j1 {
            for i in i0..=i1 {
                for &k in &self.bins[j * self.dims[0] + i] {
                    if self.boxes[k as usize].intersects(aabb) {
                        out.push(k as usize);
                    }
                }
            }
        }
        if i0 != i1 || j0 != j1 {
            out.sort_unstable();
            out.dedup();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vector;

    /// A small seeded generator (xorshift) for the test's boxes.
    struct Rng(u64);

    impl Rng {
        fn unit(&mut self) -> Real {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as Real / (1u64 << 53) as Real
        }

        fn boxed(&mut self, span: Real, size: Real) -> Aabb {
            let c = Vector::new(self.unit(), self.unit(), self.unit()) * span;
            let h = Vector::new(self.unit(), self.unit(), self.unit()) * size;
            Aabb::new(c - h, c + h)
        }
    }

    #[test]
    fn queries_equal_a_scan_of_every_box() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let boxes: Vec<Aabb> = (0..300).map(|_| rng.boxed(100.0, 6.0)).collect();
        let mut hits = 0;
        for cell in [0.5, 4.0, 50.0, 1e4] {
            let grid = FootprintGrid::new(boxes.clone(), cell);
            let mut out = Vec::new();
            for _ in 0..300 {
                let q = rng.boxed(120.0, 10.0);
                grid.query(&q, &mut out);
                let want: Vec<usize> = (0..boxes.len())
                    .filter(|&k| boxes[k].intersects(&q))
                    .collect();
                assert_eq!(out, want, "cell {cell}");
                hits += want.len();
            }
        }
        assert!(hits > 500, "{hits}");
    }

    #[test]
    fn bad_boxes_are_filed_nowhere_and_bad_queries_find_nothing() {
        let good = Aabb::new(Vector::ZERO, Vector::ONE);
        let nan = Aabb::new(Vector::splat(Real::NAN), Vector::ONE);
        let inverted = Aabb::new(Vector::ONE, Vector::ZERO);
        let grid = FootprintGrid::new(vec![nan, good, inverted], Real::NAN);
        let mut out = Vec::new();
        grid.query(
            &Aabb::new(Vector::splat(-1.0), Vector::splat(2.0)),
            &mut out,
        );
        assert_eq!(out, vec![1]);
        grid.query(&nan, &mut out);
        assert!(out.is_empty());
        grid.query(&Aabb::new(Vector::splat(5.0), Vector::splat(6.0)), &mut out);
        assert!(out.is_empty());
        let empty = FootprintGrid::new(Vec::new(), 1.0);
        empty.query(&good, &mut out);
        assert!(out.is_empty());
    }
}
