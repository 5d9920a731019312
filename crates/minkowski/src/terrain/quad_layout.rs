//! The quad layout of a displacement map (seed 002 §3.5.1, Fig 3.7–3.9).
//!
//! A terrain patch of the thesis is tiled by non-uniform square *quads* of `16²`, `8²`,
//! `4²` or `2²` cells; no base triangle crosses a quad's boundary, and the triangles'
//! vertices lie on sample nodes. Here each quad is split along its diagonal from its
//! lower corner `(s0, t0)` to its upper corner `(s0 + n, t0 + n)` into two base
//! triangles (see [`Quad::triangles`]).
//!
//! Quads are aligned to their size (`s0` and `t0` multiples of `n`), as the quadtree of
//! Fig 3.7: a layout is what recursive splitting of 16-cell blocks gives. The map area is
//! `cells_s × cells_t` cells (`(cells_s + 1) × (cells_t + 1)` sample nodes), both
//! multiples of 2 (the smallest quad).

use crate::math::Real;

/// The quad sizes the thesis uses, in cells per side, largest first.
pub const QUAD_SIZES: [u32; 4] = [16, 8, 4, 2];

/// One square quad of the layout, in map cells: lower corner node `(s, t)` and `size`
/// cells per side (one of [`QUAD_SIZES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Quad {
    /// The lower corner's column (node index along `s`).
    pub s: u32,
    /// The lower corner's row (node index along `t`).
    pub t: u32,
    /// Cells per side.
    pub size: u32,
}

impl Quad {
    /// The four corner nodes in the order `(s0, t0)`, `(s1, t0)`, `(s0, t1)`, `(s1, t1)`
    /// (`s1 = s0 + size`, `t1 = t0 + size`): the order of [`crate::terrain::QuadFrame`].
    pub fn corners(&self) -> [[u32; 2]; 4] {
        let (s0, t0, s1, t1) = (self.s, self.t, self.s + self.size, self.t + self.size);
        [[s0, t0], [s1, t0], [s0, t1], [s1, t1]]
    }

    /// The two base triangles, as corner indices into [`Quad::corners`]: triangle 0 is
    /// `(s0, t0), (s1, t0), (s1, t1)` (below the diagonal, `t − t0 ≤ s − s0`), triangle 1
    /// is `(s0, t0), (s1, t1), (s0, t1)`. Both are counter-clockwise in `(s, t)` and start
    /// at the lower corner.
    pub const TRIANGLE_CORNERS: [[usize; 3]; 2] = [[0, 1, 3], [0, 3, 2]];

    /// The nodes of the two base triangles (see [`Quad::TRIANGLE_CORNERS`]).
    pub fn triangles(&self) -> [[[u32; 2]; 3]; 2] {
        let c = self.corners();
        Self::TRIANGLE_CORNERS.map(|t| t.map(|k| c[k]))
    }

    /// Whether cell `(i, j)` is one of the quad's.
    pub fn contains_cell(&self, i: u32, j: u32) -> bool {
        i >= self.s && j >= self.t && i < self.s + self.size && j < self.t + self.size
    }

    /// Whether node `(i, j)` is in the quad (its boundary included).
    pub fn contains_node(&self, i: u32, j: u32) -> bool {
        i >= self.s && j >= self.t && i <= self.s + self.size && j <= self.t + self.size
    }

    /// Which of the quad's two triangles map point `(s, t)` (in the quad) lies in: 0 on
    /// or below the diagonal (`t − t0 ≤ s − s0`), 1 above.
    pub fn triangle_at(&self, s: Real, t: Real) -> usize {
        if t - self.t as Real <= s - self.s as Real {
            0
        } else {
            1
        }
    }
}

/// Why a [`QuadLayout`] is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuadLayoutError {
    /// The area is empty, has an odd side, a side above the map limit, or more cells
    /// than [`crate::terrain::MAX_MAP_SAMPLES`].
    #[error(
        "quad layout area must be positive even numbers of cells <= {max} (and at most \
         2^26 cells), got {cells_s} x {cells_t}"
    )]
    BadArea {
        /// Cells along `s`.
        cells_s: u32,
        /// Cells along `t`.
        cells_t: u32,
        /// The limit ([`crate::terrain::MAX_MAP_SIDE`] − 1).
        max: u32,
    },
    /// A quad's size is not one of [`QUAD_SIZES`].
    #[error("quad {index} has size {size}; allowed sizes are 16, 8, 4, 2")]
    BadSize {
        /// The quad's index.
        index: usize,
        /// Its size.
        size: u32,
    },
    /// A quad's corner is not a multiple of its size.
    #[error("quad {index} at ({s}, {t}) is not aligned to its size {size}")]
    Misaligned {
        /// The quad's index.
        index: usize,
        /// Its corner.
        s: u32,
        /// Its corner.
        t: u32,
        /// Its size.
        size: u32,
    },
    /// A quad reaches outside the area.
    #[error("quad {index} reaches outside the area")]
    OutsideArea {
        /// The quad's index.
        index: usize,
    },
    /// Two quads share a cell.
    #[error("quads {first} and {second} overlap at cell ({i}, {j})")]
    Overlap {
        /// The earlier quad.
        first: usize,
        /// The later quad.
        second: usize,
        /// The shared cell.
        i: u32,
        /// The shared cell.
        j: u32,
    },
    /// A cell of the area is in no quad.
    #[error("cell ({i}, {j}) is in no quad")]
    Gap {
        /// The cell.
        i: u32,
        /// The cell.
        j: u32,
    },
}

/// A validated tiling of a `cells_s × cells_t` map area by aligned quads of
/// [`QUAD_SIZES`] (see the module notes). Keeps, per cell, the quad it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuadLayout {
    cells_s: u32,
    cells_t: u32,
    quads: Vec<Quad>,
    owner: Vec<u32>,
}

fn check_area(cells_s: u32, cells_t: u32) -> Result<(), QuadLayoutError> {
    let max = (super::displacement_map::MAX_MAP_SIDE - 1) as u32;
    if cells_s == 0
        || cells_t == 0
        || cells_s % 2 == 1
        || cells_t % 2 == 1
        || cells_s > max
        || cells_t > max
        || cells_s as u64 * cells_t as u64 > super::displacement_map::MAX_MAP_SAMPLES as u64
    {
        return Err(QuadLayoutError::BadArea {
            cells_s,
            cells_t,
            max,
        });
    }
    Ok(())
}

impl QuadLayout {
    /// The layout of `quads` over a `cells_s × cells_t` area.
    ///
    /// # Errors
    /// [`QuadLayoutError`]: a bad area, then the first quad of a bad size, misaligned or
    /// outside the area, then the first overlap, then the first uncovered cell (row by
    /// row).
    pub fn new(cells_s: u32, cells_t: u32, quads: Vec<Quad>) -> Result<Self, QuadLayoutError> {
        check_area(cells_s, cells_t)?;
        for (index, q) in quads.iter().enumerate() {
            if !QUAD_SIZES.contains(&q.size) {
                return Err(QuadLayoutError::BadSize {
                    index,
                    size: q.size,
                });
            }
            if q.s % q.size != 0 || q.t % q.size != 0 {
                return Err(QuadLayoutError::Misaligned {
                    index,
                    s: q.s,
                    t: q.t,
                    size: q.size,
                });
            }
            if q.s as u64 + q.size as u64 > cells_s as u64
                || q.t as u64 + q.size as u64 > cells_t as u64
            {
                return Err(QuadLayoutError::OutsideArea { index });
            }
        }
        let mut owner = vec![u32::MAX; cells_s as usize * cells_t as usize];
        for (index, q) in quads.iter().enumerate() {
            for j in q.t..q.t + q.size {
                for i in q.s..q.s + q.size {
                    let o = &mut owner[j as usize * cells_s as usize + i as usize];
                    if *o != u32::MAX {
                        return Err(QuadLayoutError::Overlap {
                            first: *o as usize,
                            second: index,
                            i,
                            j,
                        });
                    }
                    *o = index as u32;
                }
            }
        }
        if let Some(k) = owner.iter().position(|&o| o == u32::MAX) {
            return Err(QuadLayoutError::Gap {
                i: (k % cells_s as usize) as u32,
                j: (k / cells_s as usize) as u32,
            });
        }
        Ok(Self {
            cells_s,
            cells_t,
            quads,
            owner,
        })
    }

    /// The quadtree layout: the area is cut into aligned blocks of 16 cells (blocks that
    /// reach past the area are split until they fit), and each quad is split into its
    /// four aligned children while it is larger than 2 cells and `split(quad)` says so
    /// (a roughness criterion, for instance). Quads come out in depth-first order.
    ///
    /// # Errors
    /// [`QuadLayoutError::BadArea`].
    pub fn adaptive(
        cells_s: u32,
        cells_t: u32,
        mut split: impl FnMut(Quad) -> bool,
    ) -> Result<Self, QuadLayoutError> {
        check_area(cells_s, cells_t)?;
        let mut quads = Vec::new();
        let mut stack = Vec::new();
        let top = QUAD_SIZES[0];
        for t in (0..cells_t).step_by(top as usize) {
            for s in (0..cells_s).step_by(top as usize) {
                stack.push(Quad { s, t, size: top });
                while let Some(q) = stack.pop() {
                    let fits = q.s + q.size <= cells_s && q.t + q.size <= cells_t;
                    if fits && (q.size == 2 || !split(q)) {
                        quads.push(q);
                        continue;
                    }
                    if q.s >= cells_s || q.t >= cells_t {
                        continue; // wholly outside the area
                    }
                    let h = q.size / 2;
                    // Pushed in reverse so that they pop in row order.
                    for (ds, dt) in [(h, h), (0, h), (h, 0), (0, 0)] {
                        stack.push(Quad {
                            s: q.s + ds,
                            t: q.t + dt,
                            size: h,
                        });
                    }
                }
            }
        }
        Self::new(cells_s, cells_t, quads)
    }

    /// Every quad of `size` cells ([`QUAD_SIZES`]; areas not a multiple of it get
    /// smaller quads at their far edges).
    ///
    /// # Errors
    /// [`QuadLayoutError::BadArea`], or [`QuadLayoutError::BadSize`] for a size not in
    /// [`QUAD_SIZES`].
    pub fn uniform(cells_s: u32, cells_t: u32, size: u32) -> Result<Self, QuadLayoutError> {
        if !QUAD_SIZES.contains(&size) {
            return Err(QuadLayoutError::BadSize { index: 0, size });
        }
        Self::adaptive(cells_s, cells_t, |q| q.size > size)
    }

    /// Cells along `s`.
    pub fn cells_s(&self) -> u32 {
        self.cells_s
    }

    /// Cells along `t`.
    pub fn cells_t(&self) -> u32 {
        self.cells_t
    }

    /// The quads.
    pub fn quads(&self) -> &[Quad] {
        &self.quads
    }

    /// The index of the quad holding cell `(i, j)`, or `None` outside the area.
    pub fn quad_of_cell(&self, i: u32, j: u32) -> Option<usize> {
        (i < self.cells_s && j < self.cells_t)
            .then(|| self.owner[j as usize * self.cells_s as usize + i as usize] as usize)
    }
}
