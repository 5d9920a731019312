//! The multiresolution bounding volumes of a whole [`DisplacedTerrain`], per quad and
//! level, as the multiresolution detection of §3.6 reads them (seed 002 §3.5–3.6,
//! Alg 8; the detection is in [`crate::terrain::multires_detection`]).
//!
//! # Levels
//!
//! A quad of `size²` cells (`size` ∈ {16, 8, 4, 2}) gets one level per bounding size
//! `b = size, size/2, …, 2, 1`, coarsest first. Level `b` has `(size/b)²` *bounding
//! cells*, row-major; cell `(cx, cy)` covers map cells `[cx b, cx b + b) × [cy b, cy b +
//! b)` of the quad, and its four children are the cells `(2cx + i, 2cy + j)` of level
//! `b/2`. Level `b = size` is Alg 9's coarsest rectangle (the whole quad); level `b = 1`
//! is the texel level of Alg 12.
//!
//! Each bounding cell is a convex set of points (its *top*, [`VolumeCell::points`]) grown
//! by a distance ([`VolumeCell::pad`]); the detection adds four *floor* points below it
//! (see below). Which bound a level uses ([`LevelBound`]):
//!
//! * [`LevelBound::Optimised`]: Alg 8's volume ([`volume_level`], CCSA): the eight
//!   bounding vertices of the cell, upper and lower, plus the sample nodes the
//!   containment check added ([`VolumeLevel::extra_nodes`](super::multires_volume::VolumeLevel::extra_nodes));
//! * [`LevelBound::Slab`]: a closed form, the cell's four corner base points `p_c`
//!   pushed along their directions `n_c` to the smallest and the largest displacement
//!   sampled in the cell: `conv{p_c + d n_c : c corner, d ∈ {d_min, d_max}}`. A level
//!   `b ≥ 2` is optimised when it has at most
//!   [`TerrainVolumesOptions::max_optimised_points`] bounding points, a slab otherwise
//!   (Alg 8 on every level of a 16² quad takes seconds to tens of seconds; a terrain
//!   of many such quads would take hours);
//! * [`LevelBound::Texel`], level `b = 1`: Alg 12's texel tetrahedron, grown (item 4
//!   below), or the texel's slab where that is tighter.
//!
//! # What a volume holds, and why (derived)
//!
//! The detection must not miss a vertex that the point-in-terrain test
//! ([`DisplacedTerrain::locate`]) puts in the terrain. That test's solid, over triangle
//! `k`, is `{p_k(u, v) + t n_k(u, v) : (u, v) in the triangle, t < d(u, v)}`, with `p_k`
//! and `n_k` affine in `(u, v)` (Eq 2.1) and `d` the map's bilinear interpolation: it
//! is neither the bilinear patch of Eq 3.5 (the two differ inside a cell by a
//! second-order term) nor bounded below. So:
//!
//! 1. *Within a triangle, for a fixed `t`, the map `(u, v) ↦ p_k + t n_k` is affine*:
//!    the point is the convex combination, with the same weights, of the points `p_c +
//!    t n_c` at the corners of any triangle of the map containing `(u, v)`. The quad's
//!    diagonal runs through the corners of the bounding cells it cuts, so each cell's
//!    part in triangle `k` is spanned by cell corners, whose base points and directions
//!    are the triangle's ([`QuadTerrainVolumes::node_base`]).
//! 2. *Slabs*: inside a cell `d ≤ d_max` (a bilinear interpolation is bounded by its
//!    samples). A solid point with `t ≥ T` therefore lies on the segment from `p + T n`
//!    to `p + d_max n`, and so in `conv{p_c + T n_c, p_c + d_max n_c}` over the
//!    corners: the slab with its lower points moved to the floor `T` holds the cell's
//!    solid above `T`.
//! 3. *The floor*: a vertex `q` in the solid of a quad's triangle has `|q − p(u, v)| =
//!    |t| |n(u, v)|`, and `|n(u, v)| ≥ n(u, v) · N̂b ≥ min_i N_i · N̂b`; with the quad's
//!    base corners within `β` of their centre `b`, `|t| ≤ (|q − b| + β) / min_i N_i ·
//!    N̂b`. [`QuadTerrainVolumes::floor_length`] turns a part's bounding sphere into such
//!    a `T` (one per part and quad), below which no vertex of the part is in the terrain.
//!
//!    3b. *The floor from heights* (tighter near the surface): the height of a solid
//!    point over triangle `k`'s base plane is `h = t c(u, v)` with `c(u, v) = n(u, v) ·
//!    N̂b ≥ min_i N_i · N̂b > 0`, so `t ≥ min(h, 0) / min_i N_i · N̂b`;
//!    [`QuadTerrainVolumes::floor_from_heights`] turns the lowest heights of a part's
//!    box, or of one vertex, into such a `T`.
//! 4. *Texels*: with `w_c` the bilinear weights of `(a, b)` in the cell, `p_k = Σ w_c
//!    p_k(c)` (bilinear weights reproduce affine functions; `p_k`, `n_k` extended
//!    affinely to a corner across the diagonal) and `d = Σ w_c d_c`, so the surface
//!    point is `p_k + d n_k = Σ w_c (p_k(c) + d_c n_k(c)) + Σ w_c (d_c − d̄)(n_k −
//!    n_k(c))` for any constant `d̄`. The first sum is in the texel tetrahedron of the
//!    corners' surface points; with `d̄` the mid-range and `n_k` a convex combination of
//!    the `n_k(c)`, the second is at most `ε = Δn (d_max − d_min) / 2` long, `Δn` the
//!    largest `|n_k(c) − n_k(e)|`. The tetrahedron grown by `ε` holds the surface, and
//!    with the floor (item 2's segment) the solid. With parallel directions `ε = 0`: the
//!    surface is then the bilinear patch itself.
//! 5. *Optimised volumes* are whatever CCSA returned; each is made to hold the texels
//!    below it by its pad: `δ` = the largest, over its texels, of the distance (GJK,
//!    [`gjk::distance`]'s upper bound) from a texel's top point to the volume, plus that
//!    texel's own pad. With the floor the grown volume then holds every texel (a convex
//!    combination of points each within `δ` of a convex set is within `δ` of it), hence
//!    the solid. A solver that stopped early, or Fig 3.14's extreme lengths, cost a
//!    larger pad, never a missed contact.
//!
//! # Index
//!
//! [`QuadIndex`]: with `Y_F` the lowest `y` of every volume's points less
//! [`TerrainVolumesOptions::index_depth`], a solid point of quad `q` at or above a
//! height `y` has `t ≥ T(q, y) = min_c (y − P_c.y) / N_c.y` over the quad's corners
//! (when every `N_c.y > 0`: `y = p.y + t n.y` is affine in `(u, v)` for fixed `t`, and
//! the bound, a ratio of affine functions, is smallest at a corner), at most the
//! smallest sample. By item 2 the coarsest cell floored at `T(q, y)` then holds every
//! solid point of `q` at or above `y`, and so does its grown box.
//!
//! *Tiers.* Floored at `T_F(q) = T(q, Y_F)` alone, a quad's box reaches down to the
//! terrain-wide level: its floor points `P_c + T N_c` lie `|T| |N_c|` from the corners,
//! and with skewed directions that is *sideways* too, so the box is far wider than the
//! quad and a part near the surface meets many boxes of quads it cannot reach. So each
//! quad is filed at [`INDEX_TIERS`] heights `Y_F = Y_0 < Y_1 < …`, evenly spaced from
//! `Y_F` towards the highest volume point, in one [`FootprintGrid`] per tier: in grid
//! `k`, the coarsest cell floored at `T(q, Y_k)`. A part whose box's lowest height is
//! `y ≥ Y_F` is looked up in the grid of the highest tier `Y_k ≤ y`
//! ([`QuadIndex::grid_at`]): all its points are at or above `Y_k`, so a vertex of it in
//! the solid of an indexed quad `q` lies in `q`'s box of that grid, which the part's
//! box then meets. Tier `k`'s box is widened sideways only by the depth from the quad
//! down to `Y_k`, at most one tier spacing below the part. Quads with a corner
//! direction not pointing up, or a box that is not finite at some tier, are filed at
//! none ([`QuadIndex::unindexed`]); every part is tested against them.
//!
//! Each cell also carries its upper planes
//! ([`upper_planes`](mod@crate::terrain::upper_planes)), valid for
//! every floor the detection uses.
//!
//! Every volume also holds the sample nodes and the bilinear patches (a patch is a
//! convex combination of its nodes, which are surface points), which the tests check
//! with an independent facet test.

use super::displaced_terrain::DisplacedTerrain;
use super::early_out::EarlyOutPlanes;
use super::footprint_grid::FootprintGrid;
use super::map_footprint::MapFootprint;
use super::multires_volume::{
    cell_vertices, volume_level, MultiresVolumeError, QuadSamples, SurfaceStatus,
};
use super::quad_layout::Quad;
use super::upper_planes::{upper_planes, UpperPlane};
use crate::bounding::Aabb;
use crate::math::{Point, Pose, Real, Vector, EPSILON};
use crate::optimize::CcsaOptions;
use crate::query::gjk::{self, GjkOptions};
use crate::support::SupportMap;
use crate::tolerance::TERRAIN_DETECTION_SLACK;

/// Why [`TerrainVolumes::build`] failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TerrainVolumesError {
    /// Alg 8 refused a quad's samples (see [`MultiresVolumeError`]).
    #[error("quad {quad}: {source}")]
    Quad {
        /// The quad's index in the layout.
        quad: usize,
        /// Why.
        source: MultiresVolumeError,
    },
    /// A node's base point, direction or sample is missing or not finite.
    #[error("quad {quad}: node ({i}, {j}) has no finite base point, direction and sample")]
    BadNode {
        /// The quad's index.
        quad: usize,
        /// The node's column in the map.
        i: u32,
        /// The node's row.
        j: u32,
    },
    /// [`TerrainVolumesOptions::index_depth`] is negative or not finite.
    #[error("index depth {0} must be finite and >= 0")]
    BadIndexDepth(Real),
    /// A triangle of the quad has no early-out planes (non-finite surface heights).
    #[error("quad {quad}: triangle {triangle} has no finite early-out planes")]
    EarlyOut {
        /// The quad's index.
        quad: usize,
        /// The triangle's index in the terrain.
        triangle: usize,
    },
}

/// Which bound a level's cells are (see the module notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelBound {
    /// Alg 8's volume by CCSA, with how its two surfaces' optimisations ended and how
    /// many `(cell, node)` pairs the containment check added.
    Optimised {
        /// The upper surface's status.
        upper: SurfaceStatus,
        /// The lower surface's status.
        lower: SurfaceStatus,
        /// [`VolumeLevel::extra_nodes`](super::multires_volume::VolumeLevel::extra_nodes)'s length.
        extra_nodes: usize,
    },
    /// The closed-form slab `conv{p_c + d n_c : d ∈ {d_min, d_max}}`.
    Slab,
    /// The texel level (`b = 1`): per cell, the hull of the Eq 2.2 surface's points at
    /// its corners (the texel tetrahedron of Alg 12, one per triangle the cell belongs
    /// to) grown by the bound of module notes item 4, or the slab where that is tighter.
    Texel,
}

/// One bounding cell of a level (see the module notes). World frame, length units.
#[derive(Debug, Clone, PartialEq)]
pub struct VolumeCell {
    /// Base points `p_c` of the cell's corners, in the order `00, 10, 01, 11` (`s`
    /// first).
    pub corners: [Point; 4],
    /// Projection directions `n_c` at the corners (not normalised).
    pub directions: [Vector; 4],
    /// The top: the points whose hull, grown by [`VolumeCell::pad`], holds the cell's
    /// surface and the solid down to the lowest of them.
    pub points: Vec<Point>,
    /// How far the hull of [`VolumeCell::points`] is grown (length units, `≥ 0`; zero
    /// for slabs).
    pub pad: Real,
    /// The box of [`VolumeCell::points`] (not grown).
    pub aabb: Aabb,
    /// Half-spaces holding the cell's volume with any floor the detection uses, before
    /// its margin ([`upper_planes`](mod@crate::terrain::upper_planes)): the cheap tests
    /// before GJK and the texel level's point-in-volume test.
    pub upper: Vec<UpperPlane>,
}

impl VolumeCell {
    /// The cell's volume floored at length `floor` (module notes, items 2–3): its box
    /// grown by the margin, the margin (the pad plus [`TERRAIN_DETECTION_SLACK`] times
    /// the box's scale, for rounding), and the four floor points `p_c + floor n_c`.
    #[inline]
    pub fn floored(&self, floor: Real) -> (Aabb, Real, [Point; 4]) {
        let floor_points = QuadTerrainVolumes::floor_points(self, floor);
        let (grown, margin) = self.grown_box(floor_points);
        (grown, margin, floor_points)
    }

    /// [`VolumeCell::floored`]'s box and margin alone (the same values).
    #[inline]
    pub fn floored_box(&self, floor: Real) -> (Aabb, Real) {
        self.grown_box(QuadTerrainVolumes::floor_points(self, floor))
    }

    /// The box of the top's box and `floor_points`, grown by the margin; the margin.
    #[inline]
    fn grown_box(&self, floor_points: [Point; 4]) -> (Aabb, Real) {
        let mut lo = self.aabb.mins;
        let mut hi = self.aabb.maxs;
        for p in floor_points {
            lo = lo.min(p);
            hi = hi.max(p);
        }
        let scale = lo.abs().max(hi.abs()).max_element();
        let margin = self.pad + TERRAIN_DETECTION_SLACK * scale;
        (Aabb::new(lo, hi).loosened(margin), margin)
    }
}

/// One level of a quad: its bounding size, bound and cells (row-major).
#[derive(Debug, Clone, PartialEq)]
pub struct TerrainLevel {
    /// Map cells per bounding cell side.
    pub bounding_size: u32,
    /// Which bound its cells are.
    pub bound: LevelBound,
    /// `(size / bounding_size)²` cells, row-major (`index = cy · per_side + cx`).
    pub cells: Vec<VolumeCell>,
}

impl TerrainLevel {
    /// Bounding cells per side of a quad of `quad_size` map cells: `quad_size /
    /// bounding_size`, and 0 for a level whose `bounding_size` is 0 (its fields are
    /// public; such a level has no cells, rather than a division by zero).
    pub fn per_side(&self, quad_size: u32) -> u32 {
        quad_size.checked_div(self.bounding_size).unwrap_or(0)
    }
}

/// The volumes of one quad: every level, coarsest first, its nodes' base points and
/// directions, its triangles' early-out planes, and what the floor needs.
#[derive(Debug, Clone, PartialEq)]
pub struct QuadTerrainVolumes {
    quad: Quad,
    levels: Vec<TerrainLevel>,
    node_p: Vec<Point>,
    node_n: Vec<Vector>,
    early_out: [EarlyOutPlanes; 2],
    footprints: [MapFootprint; 2],
    centre: Point,
    reach: Real,
    min_crossing: Real,
    min_sample: Real,
}

impl QuadTerrainVolumes {
    /// The quad.
    pub fn quad(&self) -> Quad {
        self.quad
    }

    /// The levels, `b = size` first, `b = 1` last.
    pub fn levels(&self) -> &[TerrainLevel] {
        &self.levels
    }

    /// The early-out planes (Alg 6) of the quad's triangles `0` and `1`.
    pub fn early_out(&self) -> &[EarlyOutPlanes; 2] {
        &self.early_out
    }

    /// The map bounds ([`MapFootprint`]) of the quad's triangles `0` and `1`.
    pub fn footprints(&self) -> &[MapFootprint; 2] {
        &self.footprints
    }

    /// The base point and direction of the quad's node `(a, b)` (local, `0..=size`):
    /// those of the quad's triangle holding the node (on the diagonal both agree).
    /// `None` outside the quad.
    pub fn node_base(&self, a: u32, b: u32) -> Option<(Point, Vector)> {
        let side = self.quad.size + 1;
        if a >= side || b >= side {
            return None;
        }
        let k = (b * side + a) as usize;
        Some((self.node_p[k], self.node_n[k]))
    }

    /// A floor length `T` (in units of the directions, see the module notes, item 3):
    /// no point within `radius` of `centre` is in the solid of this quad with `t < T`.
    /// At most the quad's smallest sample. For non-finite input the answer is not
    /// finite.
    pub fn floor_length(&self, centre: Point, radius: Real) -> Real {
        let reach = (centre - self.centre).length() + radius + self.reach;
        // The cushion covers the rounding of the distances above.
        let t = -(reach / self.min_crossing) * (1.0 + 1.0 / 64.0);
        t.min(self.min_sample)
    }

    /// A floor length `T` from heights (module notes, item 3b): with `low[k]` at most
    /// the height ([`EarlyOutPlanes::height`]) over triangle `k`'s base plane of every
    /// point considered, no such point is in the solid of this quad with `t < T`. At
    /// most the quad's smallest sample; much tighter than
    /// [`QuadTerrainVolumes::floor_length`] near the surface. For non-finite input the
    /// answer is not finite.
    pub fn floor_from_heights(&self, low: [Real; 2]) -> Real {
        let h = low[0].min(low[1]).min(0.0);
        // The cushion covers the rounding of the heights and of the bound.
        let t = (h / self.min_crossing) * (1.0 + 1.0 / 64.0);
        t.min(self.min_sample)
    }

    /// The four floor points `p_c + T n_c` of a cell.
    #[inline]
    pub fn floor_points(cell: &VolumeCell, floor: Real) -> [Point; 4] {
        core::array::from_fn(|c| cell.corners[c] + cell.directions[c] * floor)
    }
}

/// What [`TerrainVolumes::build`] does per level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TerrainVolumesOptions {
    /// A level `b ≥ 2` is optimised by Alg 8 (CCSA) when it has at most this many
    /// bounding points, `(size / b + 1)²`; otherwise, and always at `b = 1`, it is a slab.
    /// `0`: every level a slab (no optimisation). Default 25: a 16² quad optimises its
    /// levels 16, 8 and 4 (4, 9 and 25 variables per surface), an 8² quad all three.
    pub max_optimised_points: usize,
    /// The solver's options.
    pub ccsa: CcsaOptions,
    /// How far below the terrain's lowest volume point the quads' spatial index reaches
    /// (length units, finite, `≥ 0`; see [`QuadIndex`]): a part reaching deeper is
    /// tested against every quad. Default 4.
    pub index_depth: Real,
}

impl Default for TerrainVolumesOptions {
    fn default() -> Self {
        Self {
            max_optimised_points: 25,
            ccsa: CcsaOptions::default(),
            index_depth: 4.0,
        }
    }
}

impl TerrainVolumesOptions {
    /// Every level a closed-form slab: no optimisation at all.
    pub fn slabs_only() -> Self {
        Self {
            max_optimised_points: 0,
            ..Self::default()
        }
    }
}

/// The bounding volumes of every quad of a [`DisplacedTerrain`] (see the module notes).
#[derive(Debug, Clone, PartialEq)]
pub struct TerrainVolumes {
    quads: Vec<QuadTerrainVolumes>,
    triangles: usize,
    index: QuadIndex,
}

/// The spatial index of a terrain's quads (module notes, "Index"): per tier, a
/// [`FootprintGrid`] of each quad's volume floored for points at or above the tier's
/// height, and the quads it cannot hold.
#[derive(Debug, Clone, PartialEq)]
pub struct QuadIndex {
    /// One grid per tier, `tiers[0]` the index level's.
    grids: Vec<FootprintGrid>,
    /// The tiers' heights, ascending: `tiers[0]` is the index level `Y_F`.
    tiers: Vec<Real>,
    floors: Vec<Real>,
    bounds: Vec<FloorBound>,
    unindexed: Vec<usize>,
}

/// How many tiers the index files each quad at (module notes, "Index"): the index
/// level and this many less one heights above it, evenly spaced up to the terrain's
/// highest volume point.
pub const INDEX_TIERS: usize = 16;

/// What the floor bound `T(q, y) = min_c (y − P_c.y) / N_c.y` of a quad needs (module
/// notes, "Index"): its corners' heights and directions' `y`, and its smallest sample.
#[derive(Debug, Clone, Copy, PartialEq)]
struct FloorBound {
    corner_y: [Real; 4],
    direction_y: [Real; 4],
    min_sample: Real,
}

impl FloorBound {
    /// `T(q, y)`, at most the smallest sample and cushioned for its rounding (it only
    /// deepens the floor): each corner's ratio less its own rounding bound, `4 ε (|y| +
    /// |P_c.y|) / N_c.y` (the subtraction errs by `ε (|y| + |P_c.y|)` at most, the
    /// division by `ε` of the ratio), then the whole less a 64th of itself (the floored
    /// box's own rounding). NaN when a corner direction does not point up, or `y` is
    /// not finite (checked first: `min` would skip a NaN kept from an earlier corner).
    fn at(&self, y: Real) -> Real {
        if !y.is_finite() {
            return Real::NAN;
        }
        let mut floor = self.min_sample;
        for c in 0..4 {
            let ny = self.direction_y[c];
            if ny <= 0.0 || ny.is_nan() {
                return Real::NAN;
            }
            let cy = self.corner_y[c];
            let rounding = 4.0 * EPSILON * (y.abs() + cy.abs()) / ny;
            floor = floor.min((y - cy) / ny - rounding);
        }
        floor - floor.abs() / 64.0
    }
}

impl QuadIndex {
    /// The index level `Y_F` (world `y`, length units): a point at or above it that is
    /// in the solid of an indexed quad `q` lies in `q`'s box in the grid.
    pub fn level(&self) -> Real {
        self.tiers[0]
    }

    /// The grid of the index level; box `q` is quad `q`'s (not filed for an unindexed
    /// quad).
    pub fn grid(&self) -> &FootprintGrid {
        &self.grids[0]
    }

    /// The tiers' heights `Y_0 = Y_F < Y_1 < …` (world `y`, length units; module notes,
    /// "Index"), ascending.
    pub fn tiers(&self) -> &[Real] {
        &self.tiers
    }

    /// The grid of tier `k` ([`QuadIndex::tiers`]): box `q` is quad `q`'s volume floored
    /// at `T(q, Y_k)`, so a point at or above `Y_k` in the solid of an indexed quad `q`
    /// lies in box `q`. `None` for `k` out of range.
    pub fn tier_grid(&self, k: usize) -> Option<&FootprintGrid> {
        self.grids.get(k)
    }

    /// The grid for a box whose lowest height is `y`: that of the highest tier at or
    /// below `y`, whose boxes are the tightest that hold every solid point at or above
    /// `y`. `None` when `y` is below the index level or not a number.
    pub fn grid_at(&self, y: Real) -> Option<&FootprintGrid> {
        // Ascending tiers: the count at or below `y` (NaN compares false: none).
        let k = self.tiers.partition_point(|&t| t <= y);
        k.checked_sub(1).map(|k| &self.grids[k])
    }

    /// Quad `q`'s floor length `T_F(q)` (in units of its directions): a point of its
    /// solid at or above [`QuadIndex::level`] has `t ≥ T_F(q)`. `None` for an unindexed
    /// quad or an index out of range.
    pub fn floor(&self, q: usize) -> Option<Real> {
        self.floors.get(q).copied().filter(|t| t.is_finite())
    }

    /// Quad `q`'s floor length for points at or above height `y` (world, length units):
    /// a point of its solid with `p.y ≥ y` has `t ≥ T(q, y)`, the bound of
    /// [`QuadIndex::floor`] with `y` in place of the index level (the same argument
    /// holds at any height), so it is at least as tight for `y ≥` [`QuadIndex::level`].
    /// `None` for an unindexed quad, an index out of range or a `y` that is not finite.
    pub fn floor_at(&self, q: usize, y: Real) -> Option<Real> {
        self.bounds
            .get(q)
            .map(|b| b.at(y))
            .filter(|t| t.is_finite())
    }

    /// The quads the grid does not hold (a corner direction not pointing up, `n · y ≤
    /// 0`, or a box that is not finite): every part is tested against them.
    pub fn unindexed(&self) -> &[usize] {
        &self.unindexed
    }

    /// Builds the index of `quads` (module notes, "Index").
    fn build(quads: &[QuadTerrainVolumes], depth: Real) -> Self {
        let cells = || {
            quads
                .iter()
                .flat_map(|q| q.levels.iter().flat_map(|l| l.cells.iter()))
        };
        let lowest = cells()
            .map(|c| c.aabb.mins.y - c.pad)
            .fold(Real::INFINITY, Real::min);
        let highest = cells()
            .map(|c| c.aabb.maxs.y + c.pad)
            .fold(Real::NEG_INFINITY, Real::max);
        let level = lowest - depth;
        // The tiers: the index level, then evenly up to the highest volume point (fewer
        // when that span is not finite and positive, or too small to separate them).
        let mut tiers = vec![level];
        let step = (highest - level) / INDEX_TIERS as Real;
        if step.is_finite() && step > 0.0 {
            for k in 1..INDEX_TIERS {
                let y = level + step * k as Real;
                if y > tiers[tiers.len() - 1] {
                    tiers.push(y);
                }
            }
        }
        let mut floors = Vec::with_capacity(quads.len());
        let mut bounds = Vec::with_capacity(quads.len());
        let mut boxes = vec![Vec::with_capacity(quads.len()); tiers.len()];
        let mut unindexed = Vec::new();
        let finite = |b: &Aabb| b.mins.is_finite() && b.maxs.is_finite();
        for (q, qv) in quads.iter().enumerate() {
            // The coarsest cell spans the quad: its corners are the quad's.
            let cell = &qv.levels[0].cells[0];
            let bound = FloorBound {
                corner_y: cell.corners.map(|p| p.y),
                direction_y: cell.directions.map(|n| n.y),
                min_sample: qv.min_sample,
            };
            bounds.push(bound);
            let tiered: Vec<Aabb> = tiers
                .iter()
                .map(|&y| {
                    let floor = bound.at(y);
                    if floor.is_finite() {
                        cell.floored(floor).0
                    } else {
                        Aabb::new(Vector::splat(Real::NAN), Vector::splat(Real::NAN))
                    }
                })
                .collect();
            // A quad is filed at every tier or at none.
            if tiered.iter().all(finite) {
                floors.push(bound.at(level));
                for (k, b) in tiered.into_iter().enumerate() {
                    boxes[k].push(b);
                }
            } else {
                floors.push(Real::NAN);
                unindexed.push(q);
                for tier in &mut boxes {
                    tier.push(Aabb::new(
                        Vector::splat(Real::NAN),
                        Vector::splat(Real::NAN),
                    ));
                }
            }
        }
        let grids = boxes
            .into_iter()
            .map(|boxes| {
                // Bins about the size of a typical quad's box at this tier.
                let (mut sum, mut count) = (0.0, 0usize);
                for b in boxes.iter().filter(|b| finite(b)) {
                    sum += (b.maxs.x - b.mins.x).max(b.maxs.z - b.mins.z);
                    count += 1;
                }
                let cell = sum / count.max(1) as Real;
                FootprintGrid::new(boxes, cell)
            })
            .collect();
        Self {
            grids,
            tiers,
            floors,
            bounds,
            unindexed,
        }
    }
}

impl TerrainVolumes {
    /// Builds every quad's levels (in parallel over quads with the `parallel` feature;
    /// the answer is the same either way).
    ///
    /// # Errors
    /// [`TerrainVolumesError`] for the first quad (by index) that failed.
    pub fn build(
        terrain: &DisplacedTerrain,
        options: &TerrainVolumesOptions,
    ) -> Result<Self, TerrainVolumesError> {
        if !(options.index_depth.is_finite() && options.index_depth >= 0.0) {
            return Err(TerrainVolumesError::BadIndexDepth(options.index_depth));
        }
        let count = terrain.layout().quads().len();
        #[cfg(feature = "parallel")]
        let built: Vec<Result<QuadTerrainVolumes, TerrainVolumesError>> = {
            use rayon::prelude::*;
            (0..count)
                .into_par_iter()
                .map(|q| build_quad(terrain, q, options))
                .collect()
        };
        #[cfg(not(feature = "parallel"))]
        let built: Vec<Result<QuadTerrainVolumes, TerrainVolumesError>> = (0..count)
            .map(|q| build_quad(terrain, q, options))
            .collect();
        let quads = built.into_iter().collect::<Result<Vec<_>, _>>()?;
        let index = QuadIndex::build(&quads, options.index_depth);
        Ok(Self {
            quads,
            triangles: terrain.triangles().len(),
            index,
        })
    }

    /// The quads' spatial index.
    pub fn index(&self) -> &QuadIndex {
        &self.index
    }

    /// The quads' volumes, in the layout's order.
    pub fn quads(&self) -> &[QuadTerrainVolumes] {
        &self.quads
    }

    /// Whether these volumes were built for a terrain of this many quads and triangles
    /// (a cheap guard against pairing volumes with another terrain).
    pub fn matches(&self, terrain: &DisplacedTerrain) -> bool {
        self.quads.len() == terrain.layout().quads().len()
            && self.triangles == terrain.triangles().len()
    }
}

/// The convex hull of a set of points, as a [`SupportMap`] (brute force over the points:
/// meant for a few dozen). An empty set supports at the origin.
#[derive(Debug, Clone, Copy)]
pub struct PointHull<'a>(pub &'a [Point]);

impl SupportMap for PointHull<'_> {
    fn local_support(&self, dir: Vector) -> Point {
        let mut best = Point::ZERO;
        let mut h = Real::NEG_INFINITY;
        for &p in self.0 {
            let hp = p.dot(dir);
            if hp > h {
                (best, h) = (p, hp);
            }
        }
        best
    }

    fn local_center(&self) -> Point {
        if self.0.is_empty() {
            return Point::ZERO;
        }
        self.0.iter().copied().sum::<Point>() / self.0.len() as Real
    }
}

/// The box of `points` (inverted, `[+∞, −∞]`, when empty).
pub(crate) fn aabb_of(points: &[Point]) -> Aabb {
    let mut lo = Vector::splat(Real::INFINITY);
    let mut hi = Vector::splat(Real::NEG_INFINITY);
    for &p in points {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    Aabb::new(lo, hi)
}

fn build_quad(
    terrain: &DisplacedTerrain,
    q: usize,
    options: &TerrainVolumesOptions,
) -> Result<QuadTerrainVolumes, TerrainVolumesError> {
    let quad = terrain.layout().quads()[q];
    let size = quad.size;
    let side = size + 1;
    let n_nodes = (side * side) as usize;
    let (mut node_p, mut node_n, mut node_l) = (
        Vec::with_capacity(n_nodes),
        Vec::with_capacity(n_nodes),
        Vec::with_capacity(n_nodes),
    );
    for b in 0..side {
        for a in 0..side {
            let (i, j) = (quad.s + a, quad.t + b);
            let bad = TerrainVolumesError::BadNode { quad: q, i, j };
            let k = quad.triangle_at(i as Real, j as Real);
            let tri = &terrain.triangles()[2 * q + k];
            let (u, v) = tri.parameters(i as Real, j as Real);
            let p = tri.base().base_point(u, v);
            let n = tri.base().direction(u, v);
            let l = terrain
                .map()
                .sample(i as usize, j as usize)
                .ok_or(bad.clone())?;
            if !(p.is_finite() && n.is_finite() && l.is_finite()) {
                return Err(bad);
            }
            node_p.push(p);
            node_n.push(n);
            node_l.push(l);
        }
    }
    let early = |k: usize| {
        terrain
            .early_out_planes(2 * q + k)
            .ok_or(TerrainVolumesError::EarlyOut {
                quad: q,
                triangle: 2 * q + k,
            })
    };
    let early_out = [early(0)?, early(1)?];
    let footprint = |k: usize| {
        MapFootprint::new(&terrain.triangles()[2 * q + k], &early_out[k]).ok_or(
            TerrainVolumesError::EarlyOut {
                quad: q,
                triangle: 2 * q + k,
            },
        )
    };
    let footprints = [footprint(0)?, footprint(1)?];
    let corner_ids = [0, size, size * side, size * side + size].map(|k| k as usize);
    let centre = corner_ids.iter().map(|&k| node_p[k]).sum::<Point>() * 0.25;
    let reach = corner_ids
        .iter()
        .map(|&k| (node_p[k] - centre).length())
        .fold(0.0, Real::max);
    let mut min_crossing = Real::INFINITY;
    for k in 0..2 {
        let base = terrain.triangles()[2 * q + k].base();
        let mut nb = base.base_normal().normalize_or_zero();
        if base.directions()[0].dot(nb) < 0.0 {
            nb = -nb;
        }
        for n in base.directions() {
            min_crossing = min_crossing.min(n.dot(nb));
        }
    }
    let min_sample = node_l.iter().copied().fold(Real::INFINITY, Real::min);
    if !(min_crossing > 0.0 && min_crossing.is_finite()) {
        // BaseTriangle::new refuses directions along the plane; only rounding gets here.
        return Err(TerrainVolumesError::EarlyOut {
            quad: q,
            triangle: 2 * q,
        });
    }
    let samples = QuadSamples {
        size: size as usize,
        positions: &node_p,
        directions: &node_n,
        lengths: &node_l,
    };
    let node = |a: u32, b: u32| (b * side + a) as usize;
    // The slab of the cell [a0, a0 + w] × [b0, b0 + w]: corners, directions, d range.
    let slab = |a0: u32, b0: u32, w: u32| {
        let ids = [
            node(a0, b0),
            node(a0 + w, b0),
            node(a0, b0 + w),
            node(a0 + w, b0 + w),
        ];
        let (mut lo, mut hi) = (Real::INFINITY, Real::NEG_INFINITY);
        for b in b0..=b0 + w {
            for a in a0..=a0 + w {
                lo = lo.min(node_l[node(a, b)]);
                hi = hi.max(node_l[node(a, b)]);
            }
        }
        (ids.map(|k| node_p[k]), ids.map(|k| node_n[k]), lo, hi)
    };
    let texels = texel_level(terrain, q, &quad, |a, b| slab(a, b, 1), &node_l);
    let mut levels = Vec::new();
    let mut b = size;
    while b >= 2 {
        let per_side = size / b;
        let points_count = ((per_side + 1) * (per_side + 1)) as usize;
        let mut cells = Vec::with_capacity((per_side * per_side) as usize);
        if points_count <= options.max_optimised_points {
            let level = volume_level(&samples, b as usize, &options.ccsa)
                .map_err(|source| TerrainVolumesError::Quad { quad: q, source })?;
            for cy in 0..per_side {
                for cx in 0..per_side {
                    let cell = (cy * per_side + cx) as usize;
                    let (corners, directions, _, _) = slab(cx * b, cy * b, b);
                    let mut points = cell_vertices(&samples, &level, cell).to_vec();
                    for &(c, k) in &level.extra_nodes {
                        if c == cell {
                            points.push(node_p[k] + node_n[k] * node_l[k]);
                        }
                    }
                    let mut pad: Real = 0.0;
                    // Item 5 of the module notes: the texels' tops against the hull.
                    for tb in cy * b..cy * b + b {
                        for ta in cx * b..cx * b + b {
                            let texel = &texels.cells[(tb * size + ta) as usize];
                            for top in &texel.points {
                                let r = gjk::distance(
                                    &PointHull(&points),
                                    &Pose::IDENTITY,
                                    &PointHull(core::slice::from_ref(top)),
                                    &Pose::IDENTITY,
                                    &GjkOptions::default(),
                                    None,
                                );
                                pad = if r.distance.is_nan() {
                                    Real::INFINITY
                                } else {
                                    pad.max(r.distance + texel.pad)
                                };
                            }
                        }
                    }
                    // An unusable optimum: this cell falls back to its slab.
                    cells.push(
                        padded_cell(corners, directions, points, pad)
                            .unwrap_or_else(|| slab_cell(slab(cx * b, cy * b, b))),
                    );
                }
            }
            levels.push(TerrainLevel {
                bounding_size: b,
                bound: LevelBound::Optimised {
                    upper: level.upper_status,
                    lower: level.lower_status,
                    extra_nodes: level.extra_nodes.len(),
                },
                cells,
            });
        } else {
            for cy in 0..per_side {
                for cx in 0..per_side {
                    cells.push(slab_cell(slab(cx * b, cy * b, b)));
                }
            }
            levels.push(TerrainLevel {
                bounding_size: b,
                bound: LevelBound::Slab,
                cells,
            });
        }
        b /= 2;
    }
    levels.push(texels);
    // Every floor the detection uses is at most the quad's smallest sample.
    for cell in levels.iter_mut().flat_map(|l| l.cells.iter_mut()) {
        cell.upper = upper_planes(&cell.points, &cell.corners, &cell.directions, min_sample);
    }
    Ok(QuadTerrainVolumes {
        quad,
        levels,
        node_p,
        node_n,
        early_out,
        footprints,
        centre,
        reach,
        min_crossing,
        min_sample,
    })
}

/// The texel level (module notes, item 4): per map cell, the Eq 2.2 surface's points
/// `p_k(c) + d_c n_k(c)` at the cell's corners for each triangle `k` the cell belongs to
/// (`p_k`, `n_k` extended affinely to a corner across the diagonal), grown by `ε =
/// Δn (d_max − d_min) / 2`; the slab where that is not tighter.
fn texel_level(
    terrain: &DisplacedTerrain,
    q: usize,
    quad: &Quad,
    slab: impl Fn(u32, u32) -> ([Point; 4], [Vector; 4], Real, Real),
    node_l: &[Real],
) -> TerrainLevel {
    let size = quad.size;
    let side = size + 1;
    let mut cells = Vec::with_capacity((size * size) as usize);
    for b in 0..size {
        for a in 0..size {
            let whole = slab(a, b);
            let (corners, directions, lo, hi) = whole;
            let samples = [(0, 0), (1, 0), (0, 1), (1, 1)]
                .map(|(da, db)| node_l[((b + db) * side + a + da) as usize]);
            let mut points = Vec::with_capacity(8);
            let mut spread: Real = 0.0;
            for k in 0..2 {
                if (k == 0 && b > a) || (k == 1 && b < a) {
                    continue;
                }
                let tri = &terrain.triangles()[2 * q + k];
                let mut n_k = [Vector::ZERO; 4];
                for (c, (da, db)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
                    let (i, j) = ((quad.s + a + da) as Real, (quad.t + b + db) as Real);
                    let (u, v) = tri.parameters(i, j);
                    n_k[c] = tri.base().direction(u, v);
                    points.push(tri.base().forward_project(u, v, samples[c]));
                }
                for c in 0..4 {
                    for e in c + 1..4 {
                        spread = spread.max((n_k[c] - n_k[e]).length());
                    }
                }
            }
            let pad = spread * (hi - lo) * 0.5;
            let shortest = directions
                .iter()
                .map(|n| n.length())
                .fold(Real::INFINITY, Real::min);
            let tighter = pad <= 0.5 * (hi - lo) * shortest;
            let grown = if tighter {
                padded_cell(corners, directions, points, pad)
            } else {
                None
            };
            cells.push(grown.unwrap_or_else(|| slab_cell(whole)));
        }
    }
    TerrainLevel {
        bounding_size: 1,
        bound: LevelBound::Texel,
        cells,
    }
}

/// The cell of top `points` grown by `pad`, or `None` when the pad or a point is not
/// finite (the caller falls back to the cell's slab).
fn padded_cell(
    corners: [Point; 4],
    directions: [Vector; 4],
    points: Vec<Point>,
    pad: Real,
) -> Option<VolumeCell> {
    if !(pad.is_finite() && points.iter().all(|p| p.is_finite())) {
        return None;
    }
    let aabb = aabb_of(&points);
    Some(VolumeCell {
        corners,
        directions,
        points,
        pad,
        aabb,
        upper: Vec::new(),
    })
}

fn slab_cell((corners, directions, lo, hi): ([Point; 4], [Vector; 4], Real, Real)) -> VolumeCell {
    let mut points = Vec::with_capacity(8);
    for d in [hi, lo] {
        for c in 0..4 {
            points.push(corners[c] + directions[c] * d);
        }
    }
    let aabb = aabb_of(&points);
    VolumeCell {
        corners,
        directions,
        points,
        pad: 0.0,
        aabb,
        upper: Vec::new(),
    }
}
