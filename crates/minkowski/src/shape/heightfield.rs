//! A depth-map heightfield (seed 004: terrain rendered top-down into a depth map, the
//! height anywhere "four texture reads"): a regular grid of height samples, bilinear
//! between them, with holes and a min/max block hierarchy.
//!
//! # Frame and surface
//!
//! Sample `[i][j]` (row `i` along local +z, column `j` along local +x) is the point
//! `origin + (j · sx, h[i][j], i · sz)`. Over the cell `[j, j+1] × [i, i+1]` the surface
//! is the bilinear patch of its four samples,
//!
//! ```text
//! h(u, v) = h00 (1−u)(1−v) + h10 u (1−v) + h01 (1−u) v + h11 u v,   u, v ∈ [0, 1]
//! ```
//!
//! (`u` along x, `v` along z; `h10` is the sample one column on, `h01` one row on), and
//! the solid is `{(x, z) in the field's rectangle, y ≤ surface}`. A cell with a hole at
//! any of its four samples is not part of the field (no surface, no solid).
//!
//! # The block hierarchy
//!
//! Level 0 holds each cell's lowest and highest sample; level `k` each block of
//! `2^k × 2^k` cells, the bounds of its four children (Jolt's `HeightFieldShape` keeps
//! the same kind of range pyramid). A query descends only into the blocks whose box —
//! the block's rectangle times `[min, max]` — it can touch, so a ray over a 4096 × 4096
//! field visits a few dozen blocks per level instead of sixteen million cells. A bilinear
//! patch lies within its four samples' range (it is a convex combination of them), so
//! the bounds are exact for the surface.

use crate::math::{Point, Real, Vector};
use std::path::Path;

/// The most samples [`HeightField::from_png`] reads from one image (2^28: a 16384 ×
/// 16384 map; its decoding buffer is then at most 512 MiB). A larger image is refused
/// before anything is allocated.
pub const MAX_HEIGHTFIELD_IMAGE_SAMPLES: usize = 1 << 28;

/// Why a heightfield could not be built or queried.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HeightFieldError {
    /// Fewer than 2 × 2 samples (no cell), or a row count and column count that do not
    /// match the samples given.
    #[error("heightfield needs at least 2 × 2 samples in full rows, got {rows} × {cols} for {len} samples")]
    BadGrid {
        /// Rows (along z).
        rows: usize,
        /// Columns (along x).
        cols: usize,
        /// Samples given.
        len: usize,
    },
    /// A height is NaN, infinite or above the magnitude limit.
    #[error("heightfield height [{row}][{col}] must be finite with magnitude <= {max:?}, got {value:?}", max = super::MAX_MAGNITUDE)]
    BadHeight {
        /// Row of the sample.
        row: usize,
        /// Column of the sample.
        col: usize,
        /// The value given.
        value: Real,
    },
    /// A cell size that is not finite and positive, an origin or height scale out of
    /// range, a field whose extent exceeds the magnitude limit, or a slope too steep for
    /// its cells to have normals (see [`HeightField::new`]).
    #[error("heightfield {field} must be {expected}, got {value:?}")]
    BadParameter {
        /// Which parameter.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
        /// The value given.
        value: Real,
    },
    /// The PNG image could not be read, is not grayscale, or is not 8 or 16 bits deep.
    #[error("heightfield image {path}: {reason}")]
    Image {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// `height_at` asked for a point outside the field's closed rectangle.
    #[error("({x:?}, {z:?}) is outside the heightfield's rectangle [0, {width:?}] × [0, {depth:?}] (local x, z from its origin)")]
    Outside {
        /// Local x asked for (from the origin).
        x: Real,
        /// Local z asked for.
        z: Real,
        /// The field's extent along x.
        width: Real,
        /// Its extent along z.
        depth: Real,
    },
}

/// A regular grid of heights, bilinear between samples, with holes (see the module
/// notes for the frame and the surface).
#[derive(Debug, Clone, PartialEq)]
pub struct HeightField {
    rows: usize,
    cols: usize,
    /// Row-major heights, NaN at holes.
    heights: Vec<Real>,
    cell: [Real; 2],
    origin: Point,
    /// Per level, per block (row-major, `ceil(cells / 2^k)` per side): the lowest and
    /// highest sample of its cells without holes (`+∞, −∞` when all are holes).
    levels: Vec<Vec<[Real; 2]>>,
    /// Blocks per side at each level: (rows, columns).
    dims: Vec<(usize, usize)>,
}

impl HeightField {
    /// A field of `rows × cols` samples (`samples[i * cols + j]` is row `i`, column `j`;
    /// `None` is a hole), cells `cell_size = [sx, sz]` apart, sample `[0][0]` at
    /// `origin` (local frame).
    ///
    /// # Errors
    /// [`HeightFieldError::BadGrid`] (fewer than 2 × 2 samples, or a count mismatch),
    /// [`HeightFieldError::BadHeight`] (NaN, infinite or too large), and
    /// [`HeightFieldError::BadParameter`] for a cell size that is not finite and > 0,
    /// an origin out of range, an extent beyond [`super::MAX_MAGNITUDE`], or a slope
    /// between neighbouring samples above `1 / `[`crate::tolerance::DEGENERATE_TRIANGLE`]
    /// (about 1.3e5 in `f32`, 7e13 in `f64`: a wall whose normal is rounding noise, as
    /// a [`super::TriMesh`] refuses such a triangle).
    pub fn new(
        rows: usize,
        cols: usize,
        samples: &[Option<Real>],
        cell_size: [Real; 2],
        origin: Point,
    ) -> Result<Self, HeightFieldError> {
        if rows < 2 || cols < 2 || rows.checked_mul(cols) != Some(samples.len()) {
            return Err(HeightFieldError::BadGrid {
                rows,
                cols,
                len: samples.len(),
            });
        }
        let max = super::MAX_MAGNITUDE;
        for (field, v) in [("cell_size x", cell_size[0]), ("cell_size z", cell_size[1])] {
            if !(v.is_finite() && v > 0.0 && v <= max) {
                return Err(HeightFieldError::BadParameter {
                    field,
                    expected: "finite and > 0 (within the magnitude limit)",
                    value: v,
                });
            }
        }
        for (field, v) in [
            ("origin x", origin.x),
            ("origin y", origin.y),
            ("origin z", origin.z),
        ] {
            if !(v.is_finite() && v.abs() <= max) {
                return Err(HeightFieldError::BadParameter {
                    field,
                    expected: "finite (within the magnitude limit)",
                    value: v,
                });
            }
        }
        for (field, v) in [
            (
                "extent x",
                origin.x.abs() + cell_size[0] * (cols - 1) as Real,
            ),
            (
                "extent z",
                origin.z.abs() + cell_size[1] * (rows - 1) as Real,
            ),
        ] {
            if v.is_nan() || v > max {
                return Err(HeightFieldError::BadParameter {
                    field,
                    expected: "within the magnitude limit",
                    value: v,
                });
            }
        }
        let mut heights = Vec::with_capacity(samples.len());
        for (k, s) in samples.iter().enumerate() {
            match *s {
                None => heights.push(Real::NAN),
                Some(h) if h.is_finite() && (h + origin.y).abs() <= max => heights.push(h),
                Some(h) => {
                    return Err(HeightFieldError::BadHeight {
                        row: k / cols,
                        col: k % cols,
                        value: h,
                    })
                }
            }
        }
        // Every cell's halves must have a normal beyond rounding, as a TriMesh's
        // triangles must (`tolerance::DEGENERATE_TRIANGLE`): a rise of more than its
        // inverse over one cell side is a wall whose normal is rounding noise. (A hole's
        // NaN compares false and passes.)
        let steepest = 1.0 / crate::tolerance::DEGENERATE_TRIANGLE;
        for (k, &h) in heights.iter().enumerate() {
            let (i, j) = (k / cols, k % cols);
            // The neighbours along +x and +z, where the grid has them.
            let along_x = (j + 1 < cols).then(|| (heights[k + 1], cell_size[0]));
            let along_z = (i + 1 < rows).then(|| (heights[k + cols], cell_size[1]));
            for (next, side) in along_x.into_iter().chain(along_z) {
                let slope = (next - h).abs() / side;
                if slope > steepest {
                    return Err(HeightFieldError::BadParameter {
                        field: "slope",
                        expected: "at most 1 / tolerance::DEGENERATE_TRIANGLE between neighbouring samples (steeper, a cell has no normal beyond rounding)",
                        value: slope,
                    });
                }
            }
        }
        let mut field = Self {
            rows,
            cols,
            heights,
            cell: cell_size,
            origin,
            levels: Vec::new(),
            dims: Vec::new(),
        };
        field.build_levels();
        Ok(field)
    }

    /// A field from a grayscale PNG depth map (8 or 16 bits per pixel): pixel row `i`
    /// is sample row `i` (along z), pixel column `j` sample column `j`; a pixel of value
    /// `p` (of at most `pmax`, 255 or 65535) is the height `p / pmax × height_scale`. No
    /// holes.
    ///
    /// # Errors
    /// [`HeightFieldError::Image`] for a file that cannot be read or decoded (truncated,
    /// not a PNG), a colour image, another bit depth, or more than
    /// [`MAX_HEIGHTFIELD_IMAGE_SAMPLES`] samples; then as [`HeightField::new`].
    pub fn from_png(
        path: impl AsRef<Path>,
        height_scale: Real,
        cell_size: [Real; 2],
        origin: Point,
    ) -> Result<Self, HeightFieldError> {
        let path = path.as_ref();
        let image_err = |reason: String| HeightFieldError::Image {
            path: path.display().to_string(),
            reason,
        };
        if !(height_scale.is_finite() && height_scale.abs() <= super::MAX_MAGNITUDE) {
            return Err(HeightFieldError::BadParameter {
                field: "height_scale",
                expected: "finite (within the magnitude limit)",
                value: height_scale,
            });
        }
        let file = std::fs::File::open(path).map_err(|e| image_err(e.to_string()))?;
        let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
        // Keep 16-bit samples as they are (no stripping), expand nothing.
        decoder.set_transformations(png::Transformations::IDENTITY);
        let mut reader = decoder.read_info().map_err(|e| image_err(e.to_string()))?;
        let info = reader.info();
        let (width, height) = (info.width as usize, info.height as usize);
        if info.color_type != png::ColorType::Grayscale {
            return Err(image_err(format!(
                "not a grayscale image (colour type {:?})",
                info.color_type
            )));
        }
        let depth = info.bit_depth;
        if !matches!(depth, png::BitDepth::Eight | png::BitDepth::Sixteen) {
            return Err(image_err(format!(
                "{depth:?}-bit samples (8 or 16 are read)"
            )));
        }
        // The header's size is checked before the buffer is made: a small file may
        // claim any size.
        if width
            .checked_mul(height)
            .is_none_or(|n| n > MAX_HEIGHTFIELD_IMAGE_SAMPLES)
        {
            return Err(image_err(format!(
                "{width} x {height} samples: more than the {MAX_HEIGHTFIELD_IMAGE_SAMPLES} read from an image"
            )));
        }
        let mut buf = vec![
            0;
            reader
                .output_buffer_size()
                .ok_or_else(|| image_err("image too large".into()))?
        ];
        let frame = reader
            .next_frame(&mut buf)
            .map_err(|e| image_err(e.to_string()))?;
        let bytes = &buf[..frame.buffer_size()];
        let samples: Vec<Option<Real>> = match depth {
            png::BitDepth::Eight => bytes
                .iter()
                .map(|&p| Some(p as Real / 255.0 * height_scale))
                .collect(),
            _ => bytes
                .chunks_exact(2)
                .map(|c| Some(u16::from_be_bytes([c[0], c[1]]) as Real / 65535.0 * height_scale))
                .collect(),
        };
        Self::new(height, width, &samples, cell_size, origin)
    }

    fn build_levels(&mut self) {
        let (cr, cc) = (self.rows - 1, self.cols - 1);
        let mut level = Vec::with_capacity(cr * cc);
        for i in 0..cr {
            for j in 0..cc {
                level.push(self.cell_range(i, j));
            }
        }
        let mut dims = vec![(cr, cc)];
        let mut levels = vec![level];
        while dims.last().is_some_and(|&(r, c)| r > 1 || c > 1) {
            let (r, c) = *dims.last().unwrap_or(&(1, 1));
            let (nr, nc) = (r.div_ceil(2), c.div_ceil(2));
            let below = &levels[levels.len() - 1];
            let mut next = vec![[Real::INFINITY, Real::NEG_INFINITY]; nr * nc];
            for i in 0..r {
                for j in 0..c {
                    let b = below[i * c + j];
                    let n = &mut next[(i / 2) * nc + j / 2];
                    n[0] = n[0].min(b[0]);
                    n[1] = n[1].max(b[1]);
                }
            }
            levels.push(next);
            dims.push((nr, nc));
        }
        self.levels = levels;
        self.dims = dims;
    }

    /// The range of cell `(i, j)`'s four samples, or `[+∞, −∞]` for a cell with a hole.
    fn cell_range(&self, i: usize, j: usize) -> [Real; 2] {
        let c = self.corners(i, j);
        if c.iter().any(|h| h.is_nan()) {
            return [Real::INFINITY, Real::NEG_INFINITY];
        }
        [
            c.iter().copied().fold(Real::INFINITY, Real::min),
            c.iter().copied().fold(Real::NEG_INFINITY, Real::max),
        ]
    }

    /// Cell `(i, j)`'s samples `[h00, h10, h01, h11]` (NaN at holes): `h10` one column
    /// on (x), `h01` one row on (z).
    pub(crate) fn corners(&self, i: usize, j: usize) -> [Real; 4] {
        let k = i * self.cols + j;
        [
            self.heights[k],
            self.heights[k + 1],
            self.heights[k + self.cols],
            self.heights[k + self.cols + 1],
        ]
    }

    /// Number of sample rows (along z).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of sample columns (along x).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The spacing of samples `[sx, sz]` (length units).
    pub fn cell_size(&self) -> [Real; 2] {
        self.cell
    }

    /// Where sample `[0][0]` is (local frame).
    pub fn origin(&self) -> Point {
        self.origin
    }

    /// The height stored at sample `[row][col]` (without the origin's y), `None` at a
    /// hole or outside the grid.
    pub fn sample(&self, row: usize, col: usize) -> Option<Real> {
        if row >= self.rows || col >= self.cols {
            return None;
        }
        let h = self.heights[row * self.cols + col];
        (!h.is_nan()).then_some(h)
    }

    /// The field's extent from its origin: `[(cols − 1) sx, (rows − 1) sz]`.
    pub fn extent(&self) -> [Real; 2] {
        [
            self.cell[0] * (self.cols - 1) as Real,
            self.cell[1] * (self.rows - 1) as Real,
        ]
    }

    /// The local y of the surface above `(x, z)` (local frame, the origin included):
    /// bilinear interpolation of the four samples around it; `Ok(None)` over a cell
    /// with a hole. A point on a cell boundary takes the cell before it on each axis
    /// only when it is the field's last row or column (the surface is continuous, so
    /// the two neighbours agree there).
    ///
    /// # Errors
    /// [`HeightFieldError::Outside`] for a point outside the field's closed rectangle
    /// (beyond the rounding of its edges: 4 ε of their coordinates), or a NaN coordinate.
    pub fn height_at(&self, x: Real, z: Real) -> Result<Option<Real>, HeightFieldError> {
        let (lx, lz) = (x - self.origin.x, z - self.origin.z);
        let [w, d] = self.extent();
        // The rectangle's edges as the caller computes them (origin + extent) may round
        // past it by a few units in the last place: that much is still on the edge.
        let slack = |e: Real, o: Real| 4.0 * crate::math::EPSILON * (e + o.abs());
        let (sx, sz) = (slack(w, self.origin.x), slack(d, self.origin.z));
        if !((-sx..=w + sx).contains(&lx) && (-sz..=d + sz).contains(&lz)) {
            return Err(HeightFieldError::Outside {
                x: lx,
                z: lz,
                width: w,
                depth: d,
            });
        }
        let (lx, lz) = (lx.clamp(0.0, w), lz.clamp(0.0, d));
        let (j, u) = split(lx / self.cell[0], self.cols - 1);
        let (i, v) = split(lz / self.cell[1], self.rows - 1);
        let [h00, h10, h01, h11] = self.corners(i, j);
        let h = bilinear(h00, h10, h01, h11, u, v);
        Ok((!h.is_nan()).then_some(h + self.origin.y))
    }

    /// The level count of the block hierarchy (level 0: cells).
    pub(crate) fn level_count(&self) -> usize {
        self.levels.len()
    }

    /// Blocks per side at `level`: (rows, columns).
    pub(crate) fn level_dims(&self, level: usize) -> (usize, usize) {
        self.dims[level]
    }

    /// Block `(i, j)`'s sample range at `level` (`[+∞, −∞]` when it has no cell).
    pub(crate) fn block_range(&self, level: usize, i: usize, j: usize) -> [Real; 2] {
        self.levels[level][i * self.dims[level].1 + j]
    }

    /// The local box of the whole field (`None` when every cell is a hole).
    pub fn local_bounds(&self) -> Option<(Point, Point)> {
        let top = self.levels.last()?.first()?;
        if top[0] > top[1] {
            return None;
        }
        let [w, d] = self.extent();
        Some((
            self.origin + Vector::new(0.0, top[0], 0.0),
            self.origin + Vector::new(w, top[1], d),
        ))
    }
}

/// `t` (in cells, ≥ 0) as a cell index below `cells` and the fraction in it: the last
/// cell takes its far boundary.
fn split(t: Real, cells: usize) -> (usize, Real) {
    let k = (t.floor() as usize).min(cells - 1);
    (k, (t - k as Real).clamp(0.0, 1.0))
}

/// The bilinear patch of `h00, h10, h01, h11` at `(u, v)`.
pub(crate) fn bilinear(h00: Real, h10: Real, h01: Real, h11: Real, u: Real, v: Real) -> Real {
    let a = h00 + (h10 - h00) * u;
    let b = h01 + (h11 - h01) * u;
    a + (b - a) * v
}

/// The field as triangles, for the contact, distance and cast queries: cell `(i, j)` is
/// split along its anti-diagonal, from sample `[i+1][j]` to `[i][j+1]` (the split parry3d
/// and Bullet make by default), into the halves `2 (i (cols − 1) + j)` (corners
/// `p00, p01, p10`: the half with `u + v ≤ 1`) and that plus one (`p10, p01, p11`), both
/// counter-clockwise seen from above (+y, the outside), where `p10` is one column on (+x)
/// and `p01` one row on (+z). A cell with a hole has neither. The field is one-sided:
/// the solid is below.
///
/// Edges between cells (and each cell's anti-diagonal) take their activity from the
/// crease between the two halves across them; edges on the rim of the field or of a
/// hole are boundary edges, active.
impl super::TriangleSet for HeightField {
    fn triangle_count(&self) -> usize {
        2 * (self.rows - 1) * (self.cols - 1)
    }

    fn local_aabb(&self) -> Option<crate::bounding::Aabb> {
        self.local_bounds()
            .map(|(lo, hi)| crate::bounding::Aabb::new(lo, hi))
    }

    fn triangles_in(
        &self,
        aabb: &crate::bounding::Aabb,
        f: &mut dyn FnMut(&super::MeshTriangle) -> std::ops::ControlFlow<()>,
    ) {
        self.triangles_in_where(aabb, &mut |_| true, &mut |_| true, f);
    }

    /// The cells' corners come straight from the samples; each cell within the box's
    /// height range is offered to `keep_box` as its box (its rectangle and the range of
    /// its four samples) before its halves' corners are made; a half's normal and its
    /// edges' neighbours and activity are worked out only for the halves `keep` accepts.
    fn triangles_in_where(
        &self,
        aabb: &crate::bounding::Aabb,
        keep_box: &mut dyn FnMut(&crate::bounding::Aabb) -> bool,
        keep: &mut dyn FnMut(&[Point; 3]) -> bool,
        f: &mut dyn FnMut(&super::MeshTriangle) -> std::ops::ControlFlow<()>,
    ) {
        let mut window = None;
        self.halves_in(aabb, None, keep_box, |(i, j, half), index, corners| {
            if !keep(corners) {
                return std::ops::ControlFlow::Continue(());
            }
            let (i0, i1, j0, j1) = self.cell_span(aabb).unwrap_or((i, i, j, j));
            let window = window.get_or_insert_with(|| Window::new(i0, i1, j0, j1));
            match window.cell_triangle(self, i, j, half) {
                Some(t) => f(&super::MeshTriangle { index, ..t }),
                None => std::ops::ControlFlow::Continue(()),
            }
        });
    }

    /// The halves' corners straight from the samples (the cells offered to `keep_box` as
    /// in [`super::TriangleSet::triangles_in_where`]); nothing else is worked out.
    fn corners_in(
        &self,
        aabb: &crate::bounding::Aabb,
        keep_box: &mut dyn FnMut(&crate::bounding::Aabb) -> bool,
        f: &mut dyn FnMut(u32, &[Point; 3]) -> std::ops::ControlFlow<()>,
    ) {
        self.halves_in(aabb, None, keep_box, |_, index, corners| f(index, corners));
    }

    /// [`super::TriangleSet::corners_in`] over the cells whose rectangle comes within
    /// `reach` of the centre across the ground (x and z): a cell farther than that has no
    /// point within `reach` of it, and its samples are not even read.
    fn corners_near(
        &self,
        aabb: &crate::bounding::Aabb,
        near: (Point, Real),
        keep_box: &mut dyn FnMut(&crate::bounding::Aabb) -> bool,
        f: &mut dyn FnMut(u32, &[Point; 3]) -> std::ops::ControlFlow<()>,
    ) {
        self.halves_in(aabb, Some(near), keep_box, |_, index, corners| {
            f(index, corners)
        });
    }

    /// The half's normal from its samples (`half_corners`), its edges left out.
    fn face_normal(&self, index: u32) -> Option<Vector> {
        let cells_x = self.cols - 1;
        let cell = index as usize / 2;
        let (i, j) = (cell / cells_x, cell % cells_x);
        self.half_corners(i as isize, j as isize, index as usize % 2)
            .map(|(_, n)| n)
    }

    fn triangle(&self, index: u32) -> Option<super::MeshTriangle> {
        let cells_x = self.cols - 1;
        let cell = index as usize / 2;
        let (i, j) = (cell / cells_x, cell % cells_x);
        if i >= self.rows - 1 {
            return None;
        }
        Window::new(i, i, j, j)
            .cell_triangle(self, i, j, index as usize % 2)
            .map(|t| super::MeshTriangle { index, ..t })
    }

    fn vertex_active(&self, t: &super::MeshTriangle, k: usize) -> bool {
        let cells_x = self.cols - 1;
        let cell = t.index as usize / 2;
        let (i, j) = (cell / cells_x, cell % cells_x);
        // (row, column) of the corners: p00, p01, p10 / p10, p01, p11.
        let corners = if t.index % 2 == 0 {
            [(i, j), (i + 1, j), (i, j + 1)]
        } else {
            [(i, j + 1), (i + 1, j), (i + 1, j + 1)]
        };
        let (r, c) = corners[k % 3];
        Window::new(i, i, j, j).sample_active(self, r, c)
    }

    fn one_sided(&self) -> bool {
        true
    }
}

impl HeightField {
    /// The cells `[i0, i1] × [j0, j1]` whose closed rectangles meet the box's x and z
    /// ranges; `None` when there is none.
    fn cell_span(&self, aabb: &crate::bounding::Aabb) -> Option<(usize, usize, usize, usize)> {
        let [sx, sz] = self.cell;
        let (cells_x, cells_z) = (self.cols - 1, self.rows - 1);
        let range = |lo: Real, hi: Real, o: Real, s: Real, n: usize| -> Option<(usize, usize)> {
            let (a, b) = ((lo - o) / s, (hi - o) / s);
            if a.is_nan() || b.is_nan() || b < 0.0 || a > n as Real {
                return None;
            }
            let first = (a.floor().max(0.0) as usize).min(n - 1);
            let last = (b.floor().max(0.0) as usize).min(n - 1);
            let first = first.saturating_sub(usize::from(a.fract() == 0.0 && first > 0));
            // A box with its ends swapped (mins above maxs) meets nothing.
            (first <= last).then_some((first, last))
        };
        let (j0, j1) = range(aabb.mins.x, aabb.maxs.x, self.origin.x, sx, cells_x)?;
        let (i0, i1) = range(aabb.mins.z, aabb.maxs.z, self.origin.z, sz, cells_z)?;
        Some((i0, i1, j0, j1))
    }

    /// Calls `f((i, j, half), index, corners)` for each half of the cells in `aabb`'s
    /// span within its height range (holes skipped) whose cell `keep_box` accepts, until
    /// `f` breaks: the walk behind [`super::TriangleSet::triangles_in_where`] and
    /// [`super::TriangleSet::corners_in`]. With `near = Some((centre, reach))`, the cells
    /// whose rectangle lies farther than `reach` from the centre's `(x, z)` are skipped
    /// first ([`super::TriangleSet::corners_near`]).
    fn halves_in(
        &self,
        aabb: &crate::bounding::Aabb,
        near: Option<(Point, Real)>,
        keep_box: &mut dyn FnMut(&crate::bounding::Aabb) -> bool,
        mut f: impl FnMut((usize, usize, usize), u32, &[Point; 3]) -> std::ops::ControlFlow<()>,
    ) {
        let [sx, sz] = self.cell;
        let cells_x = self.cols - 1;
        let Some((i0, i1, j0, j1)) = self.cell_span(aabb) else {
            return;
        };
        let (ylo, yhi) = (aabb.mins.y - self.origin.y, aabb.maxs.y - self.origin.y);
        // The footprint: the centre's offsets from the origin (x, z) and the squared
        // reach, a NaN one keeping every cell (no comparison with it is true).
        let (fx, fz, reach_sq) = match near {
            // (A reach whose square would be subnormal filters nothing: its rounding
            // could drop a cell the ball touches.)
            Some((c, r)) if r >= crate::tolerance::RESCALE_BELOW => {
                (c.x - self.origin.x, c.z - self.origin.z, r * r)
            }
            Some(_) => (0.0, 0.0, Real::INFINITY),
            None => (0.0, 0.0, Real::INFINITY),
        };
        // How far `t` lies outside `[k s, (k + 1) s]` (0 inside).
        let outside =
            |t: Real, k: usize, s: Real| (k as Real * s - t).max(t - (k + 1) as Real * s).max(0.0);
        for i in i0..=i1 {
            let dz = outside(fz, i, sz);
            let dz_sq = dz * dz;
            if dz_sq > reach_sq {
                continue;
            }
            for j in j0..=j1 {
                let dx = outside(fx, j, sx);
                if dx * dx + dz_sq > reach_sq {
                    continue;
                }
                // The cell's range from its four samples, which its halves need anyway:
                // one read of the samples rather than a second array (the level-0 block
                // ranges), whose cache misses cost more than the comparisons.
                let h = self.corners(i, j);
                let lo = h[0].min(h[1]).min(h[2].min(h[3]));
                let hi = h[0].max(h[1]).max(h[2].max(h[3]));
                // Out of the box's height range, or a hole (a NaN sample: `min`/`max`
                // may drop it, so it is checked apart).
                if lo > yhi || hi < ylo || h.iter().any(|x| x.is_nan()) {
                    continue;
                }
                // The cell's box, with the corners' own expressions (`half_points`).
                let cell = crate::bounding::Aabb::new(
                    self.origin + Vector::new(j as Real * sx, lo, i as Real * sz),
                    self.origin + Vector::new((j + 1) as Real * sx, hi, (i + 1) as Real * sz),
                );
                if !keep_box(&cell) {
                    continue;
                }
                let base = 2 * (i * cells_x + j) as u32;
                for half in 0..2 {
                    let corners = self.half_points(i, j, h, half);
                    if f((i, j, half), base + half as u32, &corners).is_break() {
                        return;
                    }
                }
            }
        }
    }

    /// Cell `(i, j)` as `(i, j, [h00, h10, h01, h11])`; `None` outside the grid or with a
    /// hole (a NaN sample).
    fn half_heights(&self, i: isize, j: isize) -> Option<(usize, usize, [Real; 4])> {
        if i < 0 || j < 0 || i as usize >= self.rows - 1 || j as usize >= self.cols - 1 {
            return None;
        }
        let (i, j) = (i as usize, j as usize);
        let h = self.corners(i, j);
        if h.iter().any(|h| h.is_nan()) {
            return None;
        }
        Some((i, j, h))
    }

    /// The corners of half `half` of cell `(i, j)` with samples `h`.
    fn half_points(&self, i: usize, j: usize, h: [Real; 4], half: usize) -> [Point; 3] {
        let [h00, h10, h01, h11] = h;
        let [sx, sz] = self.cell;
        let at = |dj: usize, di: usize, h: Real| {
            self.origin + Vector::new((j + dj) as Real * sx, h, (i + di) as Real * sz)
        };
        if half == 0 {
            [at(0, 0, h00), at(0, 1, h01), at(1, 0, h10)]
        } else {
            [at(1, 0, h10), at(0, 1, h01), at(1, 1, h11)]
        }
    }

    /// The corners (local frame) of half `half` of cell `(i, j)`, counter-clockwise from
    /// above, and its unit upward normal; `None` outside the grid or with a hole.
    fn half_corners(&self, i: isize, j: isize, half: usize) -> Option<([Point; 3], Vector)> {
        let (i, j, h) = self.half_heights(i, j)?;
        let [h00, h10, h01, h11] = h;
        let [sx, sz] = self.cell;
        // Normals from the height differences (exact for any origin): the halves are
        // graphs over the cell, so their normals always point up.
        let (dx, dz) = if half == 0 {
            // p00, p01, p10: slopes dh/dx = h10 − h00, dh/dz = h01 − h00.
            (h10 - h00, h01 - h00)
        } else {
            // p10, p01, p11: dh/dx = h11 − h01, dh/dz = h11 − h10.
            (h11 - h01, h11 - h10)
        };
        let normal = Vector::new(-dx * sz, sx * sz, -dz * sx);
        let nn = normal.length_squared();
        let normal = if nn.is_finite() && nn >= Real::MIN_POSITIVE {
            normal.normalize()
        } else {
            // Tiny cells (the products underflow) or huge ones: the scaled form.
            Self::slope_normal(dx, dz, sx, sz)
        };
        Some((self.half_points(i, j, h, half), normal))
    }

    /// The unit upward normal of a plane rising `dx` over `sx` along x and `dz` over
    /// `sz` along z (`sx, sz > 0`, all finite), the direction of `(−dx/sx, 1, −dz/sz)`
    /// formed without overflow or underflow at any cell size within the magnitude
    /// limit: times the smaller side `m` (the ratios `m/s` are at most 1), then over its
    /// largest component (which is then ±1) before normalising.
    pub(crate) fn slope_normal(dx: Real, dz: Real, sx: Real, sz: Real) -> Vector {
        let m = sx.min(sz);
        let n = Vector::new(-dx * (m / sx), m, -dz * (m / sz));
        (n / n.abs().max_element()).normalize()
    }

    /// The triangle (of the two-triangle split, see the [`super::TriangleSet`]
    /// implementation) over the local point `(x, z)`, and the height of its plane there
    /// (local y); `None` outside the field's rectangle, over a hole, or for a NaN.
    pub(crate) fn triangle_under(&self, x: Real, z: Real) -> Option<(super::MeshTriangle, Real)> {
        use super::TriangleSet;
        let (lx, lz) = (x - self.origin.x, z - self.origin.z);
        let [w, d] = self.extent();
        if !((0.0..=w).contains(&lx) && (0.0..=d).contains(&lz)) {
            return None;
        }
        let (j, u) = split(lx / self.cell[0], self.cols - 1);
        let (i, v) = split(lz / self.cell[1], self.rows - 1);
        let half = usize::from(u + v > 1.0);
        let t = self.triangle((2 * (i * (self.cols - 1) + j) + half) as u32)?;
        let (p, n) = (t.vertices[0], t.normal);
        let y = p.y - (n.x * (x - p.x) + n.z * (z - p.z)) / n.y;
        Some((t, y))
    }

    /// The halves across the three edges of half `half` of cell `(i, j)`.
    fn across(i: isize, j: isize, half: usize) -> [(isize, isize, usize); 3] {
        if half == 0 {
            // p00→p01 (x = j), p01→p10 (anti-diagonal), p10→p00 (z = i).
            [(i, j - 1, 1), (i, j, 1), (i - 1, j, 1)]
        } else {
            // p10→p01 (anti-diagonal), p01→p11 (z = i + 1), p11→p10 (x = j + 1).
            [(i, j, 0), (i + 1, j, 0), (i, j + 1, 0)]
        }
    }
}

/// A query's memo of the half normals and sample activities of a window of cells (the
/// cells it visits and one more all round: every edge and vertex of a visited half is
/// decided by halves within it), so that each is computed once per query. A window of up
/// to [`INLINE_CELLS`] cells (a ball's or a small box's 3 × 3 cells, or one cell, grown
/// by one all round) keeps its memo inline: no allocation.
struct Window {
    i0: isize,
    j0: isize,
    /// Cells per row and rows of the window.
    w: isize,
    h: isize,
    /// Per half (two per cell): `None` not computed yet, else the normal (`None` when the
    /// half does not exist).
    normals: Memo<Option<Vector>, { 2 * INLINE_CELLS }>,
    /// Per sample of the window (`(w + 1) × (h + 1)`): not computed yet, or its activity.
    samples: Memo<bool, { (INLINE_SIDE + 1) * (INLINE_SIDE + 1) }>,
}

/// The cells per side of the largest window whose memo is kept inline.
const INLINE_SIDE: usize = 5;
/// The cells of the largest window whose memo is kept inline.
const INLINE_CELLS: usize = INLINE_SIDE * INLINE_SIDE;

/// A memo of `len` slots: inline when `len ≤ N`, else on the heap.
struct Memo<T: Copy, const N: usize> {
    inline: [Option<T>; N],
    heap: Vec<Option<T>>,
}

impl<T: Copy, const N: usize> Memo<T, N> {
    fn new(len: usize) -> Self {
        Memo {
            inline: [None; N],
            heap: if len > N { vec![None; len] } else { Vec::new() },
        }
    }

    /// Slot `k` (below the `len` it was made with).
    fn slot(&mut self, k: usize) -> &mut Option<T> {
        if self.heap.is_empty() {
            &mut self.inline[k]
        } else {
            &mut self.heap[k]
        }
    }
}

impl Window {
    /// The window over cells `[i0, i1] × [j0, j1]` grown by one cell.
    fn new(i0: usize, i1: usize, j0: usize, j1: usize) -> Self {
        let (w, h) = ((j1 - j0 + 3) as isize, (i1 - i0 + 3) as isize);
        Window {
            i0: i0 as isize - 1,
            j0: j0 as isize - 1,
            w,
            h,
            normals: Memo::new((2 * w * h) as usize),
            samples: Memo::new(((w + 1) * (h + 1)) as usize),
        }
    }

    /// The unit normal of half `half` of cell `(i, j)` (`None` outside or at a hole).
    fn normal(&mut self, f: &HeightField, i: isize, j: isize, half: usize) -> Option<Vector> {
        let (a, b) = (i - self.i0, j - self.j0);
        if a < 0 || b < 0 || a >= self.h || b >= self.w {
            return f.half_corners(i, j, half).map(|(_, n)| n);
        }
        let k = (2 * (a * self.w + b)) as usize + half;
        *self
            .normals
            .slot(k)
            .get_or_insert_with(|| f.half_corners(i, j, half).map(|(_, n)| n))
    }

    /// The activity of half `half` of cell `(i, j)`'s three edges (`None`: no half).
    fn half_edges(
        &mut self,
        f: &HeightField,
        i: isize,
        j: isize,
        half: usize,
    ) -> Option<[bool; 3]> {
        let (vertices, normal) = f.half_corners(i, j, half)?;
        let across = HeightField::across(i, j, half);
        let mut out = [true; 3];
        for (k, a) in across.iter().enumerate() {
            let edge = vertices[(k + 1) % 3] - vertices[k];
            out[k] = self
                .normal(f, a.0, a.1, a.2)
                .is_none_or(|m| super::triangle_set::crease_is_active(normal, m, edge));
        }
        Some(out)
    }

    /// Whether an active edge meets at sample `(r, c)`: one of the (up to six) halves
    /// around it has an active edge through it (a missing half makes the sample a
    /// boundary vertex, with active edges).
    fn sample_active(&mut self, f: &HeightField, r: usize, c: usize) -> bool {
        let (r, c) = (r as isize, c as isize);
        let (a, b) = (r - self.i0, c - self.j0);
        let memo = (a >= 0 && b >= 0 && a <= self.h && b <= self.w)
            .then(|| (a * (self.w + 1) + b) as usize);
        if let Some(Some(x)) = memo.map(|k| *self.samples.slot(k)) {
            return x;
        }
        // The halves with the sample as a corner, and which of their corners it is.
        // (The cell it starts; the cell before it along x, where it is p10; the row
        // before, where it is p01; the cell before both, where it is p11.)
        let around: [(isize, isize, usize, usize); 6] = [
            (r, c, 0, 0),
            (r, c - 1, 0, 2),
            (r, c - 1, 1, 0),
            (r - 1, c, 0, 1),
            (r - 1, c, 1, 1),
            (r - 1, c - 1, 1, 2),
        ];
        let active = around.iter().any(|&(i, j, half, k)| {
            match self.half_edges(f, i, j, half) {
                // Edges k and k + 2 meet at corner k.
                Some(e) => e[k] || e[(k + 2) % 3],
                None => true,
            }
        });
        if let Some(k) = memo {
            *self.samples.slot(k) = Some(active);
        }
        active
    }

    /// Half `half` of cell `(i, j)` as a mesh triangle (index 0: the caller sets it).
    fn cell_triangle(
        &mut self,
        f: &HeightField,
        i: usize,
        j: usize,
        half: usize,
    ) -> Option<super::MeshTriangle> {
        let (ii, jj) = (i as isize, j as isize);
        let (vertices, normal) = f.half_corners(ii, jj, half)?;
        // Across each edge (k from vertex k to k + 1): the neighbouring half.
        let across = HeightField::across(ii, jj, half);
        let mut edges = [super::MeshEdge {
            active: true,
            neighbour_normal: None,
        }; 3];
        for (k, a) in across.iter().enumerate() {
            let neighbour_normal = self.normal(f, a.0, a.1, a.2);
            let edge = vertices[(k + 1) % 3] - vertices[k];
            edges[k] = super::MeshEdge {
                active: neighbour_normal
                    .is_none_or(|m| super::triangle_set::crease_is_active(normal, m, edge)),
                neighbour_normal,
            };
        }
        Some(super::MeshTriangle {
            index: 0,
            vertices,
            normal,
            edges,
        })
    }
}
