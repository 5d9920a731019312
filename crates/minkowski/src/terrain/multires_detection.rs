//! Multiresolution collision detection between an object and a displaced terrain
//! (seed 002 §3.6, Alg 9–13).
//!
//! The thesis's per-vertex test backward-projects every vertex of an object onto every
//! candidate base triangle (§2.4.2). §3.6 first tests the object against bounding
//! volumes of the surface, coarse to fine, and backward-projects only the vertices of
//! the convex parts that reach the finest level, onto the triangles they reach there.
//! Here, for one object (a compound: a list of convex parts, each a slice of
//! world-frame vertices; GJK works on their hull, [`PointHull`]):
//!
//! 0. **Index** (§2.5's uniform grid, [`crate::terrain::QuadIndex`]): the object's box is
//!    looked up once in a [`crate::terrain::FootprintGrid`] of the quads' volumes
//!    floored for points at or above its lowest height (the index's highest tier at
//!    or below it, [`crate::terrain::QuadIndex::grid_at`]; the index level `Y_F` for an
//!    object reaching below), so a far-off object costs one lookup; when it
//!    finds quads and the object has several parts, each part's box is looked up too,
//!    in its own tier's grid (a large object's box meets many quads that each part
//!    does not, and a deep tier's boxes reach far sideways under skewed directions). A part's
//!    floor in a quad then comes from its own lowest height
//!    ([`crate::terrain::QuadIndex::floor_at`]), tighter than the index level's, and
//!    its box is tested against the quad's coarsest cell floored there before
//!    anything else is set up. A part reaching below `Y_F`
//!    (sunk deeper than [`crate::terrain::TerrainVolumesOptions::index_depth`] under
//!    the terrain's lowest point) takes the *deep path*: every quad, as the thesis's
//!    broad phase would give it. Quads the index cannot hold are tested with every part.
//!
//! Then per part and quad:
//!
//! 1. **Early-out planes** (Alg 6, [`crate::terrain::EarlyOutPlanes`]): a triangle
//!    whose upper plane has the part's bounding box above it is dropped (its solid lies
//!    below that plane): one box test per triangle, not one per vertex. The box's
//!    lowest heights over the two base planes give the part's *floor* (below).
//! 2. **Coarsest rectangle** (Alg 9–10): the quad's level `b = size`. In a
//!    [`crate::terrain::QuadLayout`] every triangle is half a quad, so the coarsest
//!    rectangle meeting a triangle is the quad itself, and a bounding cell meets
//!    triangle 0 when `cy ≤ cx`, triangle 1 when `cy ≥ cx` (the diagonal runs through
//!    the corners of the cells it cuts); Alg 9's rectangle–triangle test is exact here
//!    and reduces to that comparison.
//! 3. **Recursion** (Alg 11): a bounding cell is tested by its box, then by its upper
//!    planes ([`upper_planes`](mod@crate::terrain::upper_planes): the part's box wholly
//!    beyond one of them is a miss), then vertex by vertex: of the part's vertices that
//!    reached the cell's parent, those in the cell's box and under its planes reach
//!    the cell, and a cell no vertex reaches is a miss. With
//!    [`MultiresOptions::gjk_cells`] a cell that some vertex reaches is also tested by
//!    [`gjk::intersects`] with the cell's margin, the thesis's test (a GJK run that
//!    does not converge counts as a hit). When hit, its four children at the next level
//!    are, each with the vertices that reached it.
//! 4. **Texel level** (Alg 12): level `b = 1`, one volume per map cell: the texel
//!    tetrahedron `conv{p00, p01, p10, p11}` (the bilinear patch's hull,
//!    [`crate::terrain::BilinearPatch`]) bounds the patch's *surface*, but neither the
//!    solid below it nor the Eq 2.2 surface the point-in-terrain test compares against;
//!    here it is grown by a bound of their difference and floored
//!    ([`crate::terrain::terrain_volumes`]'s notes, item 4), which holds both. No GJK
//!    here: only vertices can be contacts, so each vertex that reached the texel's
//!    parent is tested on its own, cheaply: its map box
//!    ([`crate::terrain::MapFootprint`]: where in the map its backward projection onto
//!    the triangle can fall) must meet the texel and the
//!    triangle's half of the quad, and the vertex must lie in the volume floored at its
//!    own depth (in its box, under its upper planes).
//! 5. **Surface** (Alg 13, §2.4.2): each vertex marked in step 4 is backward-projected
//!    onto each triangle it was marked for, once per quad
//!    ([`DisplacedTerrain::locate_in_triangle`], alpha plane); a vertex below the
//!    surface is a [`VertexContact`].
//!
//! Volumes also extend downward to a *floor*: the terrain is solid below its surface,
//! and a part sunk under the lowest bounding surface must still be found (the thesis's
//! volumes are shells and would miss it). The floor is a length `T` along the
//! directions below which the part has no point in the quad's solid: from the heights
//! over the base planes ([`QuadTerrainVolumes::floor_from_heights`]: `t = h / c(u, v)`
//! with `c ≥ min_i N_i · N̂b`), and for a part above `Y_F` also the index's
//! ([`crate::terrain::QuadIndex::floor`]); the shallower of the two is used.
//!
//! The thesis's Alg 11–12 remove a part from the candidate map at the first miss; here a
//! part stays a candidate while any cell at the current level hits (the "keep a part if
//! any leaf hits" correction of the design notes): each cell is its own branch.
//!
//! # Guarantee
//!
//! Every volume holds the solid of its cell above the floor (see
//! [`crate::terrain::terrain_volumes`]), grown by
//! [`crate::tolerance::TERRAIN_DETECTION_SLACK`] for rounding, and every upper plane and
//! map box holds it too: a vertex that [`DisplacedTerrain::locate`] puts in the terrain
//! lies in every volume over its map point, so its part survives to that texel, the
//! vertex passes the texel's tests and is projected onto that triangle, by the same
//! function. The contacts are exactly those of the brute force, not a subset; the tests
//! check this on seeded frames, parts sunk 25 m (the deep path) included.
//!
//! ```
//! use minkowski::terrain::{
//!     detect_multires, DisplacedTerrain, DisplacementMap, MultiresOptions, QuadFrame,
//!     QuadLayout, TerrainVolumes, TerrainVolumesOptions,
//! };
//! use minkowski::Vector;
//!
//! // One quad of 4 × 4 cells of 1 m, flat, directions up, displaced by 0.5 everywhere.
//! let map = DisplacementMap::new(5, 5, vec![0.5; 25]).unwrap();
//! let layout = QuadLayout::uniform(4, 4, 4).unwrap();
//! let corners = layout.quads()[0].corners();
//! let frame = QuadFrame {
//!     p: corners.map(|[i, j]| Vector::new(i as _, 0.0, j as _)),
//!     n: [Vector::Y; 4],
//! };
//! let terrain = DisplacedTerrain::new(map, layout, vec![frame]).unwrap();
//! let volumes = TerrainVolumes::build(&terrain, &TerrainVolumesOptions::default()).unwrap();
//!
//! // A box whose lower face is 0.25 under the surface, and a point far above.
//! let v = |x: f32, y: f32, z: f32| Vector::new(x as _, y as _, z as _);
//! let boxed = [
//!     v(1.0, 0.25, 1.0), v(2.0, 0.25, 1.0), v(1.0, 0.25, 2.0), v(2.0, 0.25, 2.0),
//!     v(1.0, 1.0, 1.0), v(2.0, 1.0, 1.0), v(1.0, 1.0, 2.0), v(2.0, 1.0, 2.0),
//! ];
//! let high = [v(2.0, 50.0, 2.0)];
//! let found =
//!     detect_multires(&terrain, &volumes, &[&boxed, &high], &MultiresOptions::default())
//!         .unwrap();
//! assert_eq!(found.keys(), vec![(0, 0), (0, 1), (0, 2), (0, 3)]);
//! assert!((found.contacts[0].depth_parameter() - 0.25).abs() < 1e-5);
//! // Only the lower face's vertices were projected, each onto at most both triangles.
//! assert!(found.counters.backward_projections <= 8);
//! assert!(found.counters.vertex_tests > 0);
//! ```

use super::displaced_terrain::{DisplacedTerrain, PointLocation};
use super::map_footprint::MapBox;
use super::terrain_contact::{TerrainDetection, VertexContact};
use super::terrain_volumes::{aabb_of, PointHull, QuadTerrainVolumes, TerrainVolumes, VolumeCell};
use super::BackProjectError;
use crate::bounding::Aabb;
use crate::math::{Point, Pose, Real, Vector};
use crate::query::gjk::{self, GjkOptions, GjkStatus};
use crate::shape::MAX_MAGNITUDE;
use crate::support::SupportMap;

/// Why [`detect_multires`] failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MultiresDetectionError {
    /// The volumes were built for another terrain (quad or triangle counts differ).
    #[error("the volumes do not belong to this terrain")]
    VolumesMismatch,
    /// A vertex has a NaN or infinite coordinate.
    #[error("part {part}, vertex {vertex}: coordinates must be finite")]
    NonFiniteVertex {
        /// The part.
        part: usize,
        /// The vertex.
        vertex: usize,
    },
    /// A vertex has a coordinate beyond [`MAX_MAGNITUDE`].
    #[error("part {part}, vertex {vertex}: coordinate magnitude above {max}")]
    VertexOutOfRange {
        /// The part.
        part: usize,
        /// The vertex.
        vertex: usize,
        /// The limit.
        max: Real,
    },
    /// A backward projection refused a vertex (not expected after the checks above).
    #[error("part {part}, vertex {vertex}: {source}")]
    BackProjection {
        /// The part.
        part: usize,
        /// The vertex.
        vertex: usize,
        /// Why.
        source: BackProjectError,
    },
}

/// Options of [`detect_multires`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MultiresOptions {
    /// The GJK runs' options (part against a volume).
    pub gjk: GjkOptions,
    /// `false` (default): a cell of the coarser levels is entered whenever a vertex of
    /// the part that reached it is in the cell's box and under its upper planes; no GJK.
    /// `true`: such a cell is also tested by GJK, the part's hull against the volume
    /// (Alg 11 as the thesis writes it). Both are exact (only vertices are contacts, and
    /// a contact vertex is in every volume over its map point). Without GJK a few more
    /// cells are entered, each much more cheaply: on the warship frames of Table 4.5
    /// the default takes the same backward projections in about a quarter less time,
    /// and on the small objects of Table 4.4 in about 40% less.
    pub gjk_cells: bool,
}

/// Volume tests by stage, the thesis's "calls" columns of Tables 4.4/4.5 (a test at the
/// coarser levels is a box check, then the upper planes, then a GJK run; at the texel
/// level a box check, then each vertex), and the index's work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MultiresStages {
    /// Tests of the coarsest level (`b = size`, the quad).
    pub coarsest: u64,
    /// Tests of the levels between.
    pub finer: u64,
    /// Tests of the texel level (`b = 1`).
    pub texel: u64,
    /// Lookups in the quads' index: the object's box (one per call with a vertex), then
    /// each part's box when the object's lookup found quads and there are several parts.
    pub index_queries: u64,
    /// Quads a shallow part's lookup found (each then visited: early-out planes, then
    /// its coarsest cell).
    pub index_tests: u64,
    /// Parts below the index level, tested against every quad.
    pub deep_parts: u64,
}

/// A volume's top points and its four floor points, as one hull.
struct Floored<'a> {
    top: &'a [Point],
    floor: [Point; 4],
}

impl SupportMap for Floored<'_> {
    fn local_support(&self, dir: Vector) -> Point {
        let top = PointHull(self.top).local_support(dir);
        let floor = PointHull(&self.floor).local_support(dir);
        if floor.dot(dir) > top.dot(dir) {
            floor
        } else {
            top
        }
    }

    fn local_center(&self) -> Point {
        PointHull(&self.floor).local_center()
    }
}

/// Every vertex of `parts` in the terrain (§3.6; see the module notes), with the
/// counters of the pass: `backward_projections` (vertex onto triangle),
/// `early_out_tests` (a part's box against a triangle's planes), `volume_tests`
/// (bounding cells considered against a part), `gjk_queries` (those that the box and
/// plane tests left to GJK) and `vertex_tests` (vertices tested against a texel
/// volume).
///
/// `parts[i]` are the world-frame vertices of convex part `i` (the part is their hull;
/// an empty part has no contacts); together they are one object (a compound), whose
/// box is looked up in the quads' index once.
///
/// # Errors
/// [`MultiresDetectionError`] for volumes of another terrain or a vertex that is not
/// finite or beyond [`MAX_MAGNITUDE`]; nothing is detected then.
pub fn detect_multires(
    terrain: &DisplacedTerrain,
    volumes: &TerrainVolumes,
    parts: &[&[Point]],
    options: &MultiresOptions,
) -> Result<TerrainDetection, MultiresDetectionError> {
    detect_multires_staged(terrain, volumes, parts, options).map(|(d, _)| d)
}

/// [`detect_multires`], also reporting the volume tests by stage.
///
/// # Errors
/// As [`detect_multires`].
pub fn detect_multires_staged(
    terrain: &DisplacedTerrain,
    volumes: &TerrainVolumes,
    parts: &[&[Point]],
    options: &MultiresOptions,
) -> Result<(TerrainDetection, MultiresStages), MultiresDetectionError> {
    if !volumes.matches(terrain) {
        return Err(MultiresDetectionError::VolumesMismatch);
    }
    for (part, vertices) in parts.iter().enumerate() {
        for (vertex, p) in vertices.iter().enumerate() {
            if !p.is_finite() {
                return Err(MultiresDetectionError::NonFiniteVertex { part, vertex });
            }
            if p.abs().max_element() > MAX_MAGNITUDE {
                return Err(MultiresDetectionError::VertexOutOfRange {
                    part,
                    vertex,
                    max: MAX_MAGNITUDE,
                });
            }
        }
    }
    let most_vertices = parts.iter().map(|p| p.len()).max().unwrap_or(0);
    let mut pass = Pass {
        terrain,
        gjk: &options.gjk,
        gjk_cells: options.gjk_cells,
        out: TerrainDetection::default(),
        stages: MultiresStages::default(),
        stack: Vec::new(),
        reached: Vec::new(),
        marks: vec![0; most_vertices],
        maps: vec![[(0.0, NO_MAP); 2]; most_vertices],
        map_stamps: vec![0; most_vertices],
        stamp: 0,
    };
    let boxes: Vec<Option<Aabb>> = parts
        .iter()
        .map(|p| (!p.is_empty()).then(|| aabb_of(p)))
        .collect();
    let Some(object) = boxes.iter().flatten().copied().reduce(|a, b| a.merged(&b)) else {
        pass.out.finish();
        return Ok((pass.out, pass.stages));
    };
    // 0. The index: the object's box once, then each part's box when that found quads.
    let index = volumes.index();
    let mut near = Vec::new();
    // The tier at or below the object's lowest point (the index level's grid for an
    // object reaching below it: its shallow parts are still above that level).
    index
        .grid_at(object.mins.y)
        .unwrap_or(index.grid())
        .query(&object, &mut near);
    pass.stages.index_queries += 1;
    let quads = volumes.quads();
    let mut near_part = Vec::new();
    for (pi, &part) in parts.iter().enumerate() {
        let Some(aabb) = boxes[pi] else { continue };
        let job = PartJob {
            index: pi,
            vertices: part,
            aabb,
        };
        if aabb.mins.y >= index.level() {
            // A shallow part: only the quads whose indexed box it meets, and those the
            // index does not hold.
            let found = if parts.len() > 1 && !near.is_empty() {
                index
                    .grid_at(aabb.mins.y)
                    .unwrap_or(index.grid())
                    .query(&aabb, &mut near_part);
                pass.stages.index_queries += 1;
                &near_part
            } else {
                &near
            };
            for &q in found {
                pass.stages.index_tests += 1;
                // No point of the part lies below its box's lowest height.
                let floor = index.floor_at(q, aabb.mins.y).unwrap_or(Real::NEG_INFINITY);
                pass.visit(q, &quads[q], &job, floor)?;
            }
            for &q in index.unindexed() {
                pass.visit(q, &quads[q], &job, Real::NEG_INFINITY)?;
            }
        } else {
            // A part below the index level: every quad (the deep path).
            pass.stages.deep_parts += 1;
            for (q, qv) in quads.iter().enumerate() {
                pass.visit(q, qv, &job, Real::NEG_INFINITY)?;
            }
        }
    }
    pass.out.finish();
    Ok((pass.out, pass.stages))
}

/// A vertex's heights over a quad's two base planes and its map boxes there
/// ([`crate::terrain::MapFootprint::bound`]).
type VertexMaps = [(Real, MapBox); 2];

/// The placeholder of [`Pass::maps`]' entries not yet computed (never read: an entry
/// is read only under its current stamp).
const NO_MAP: MapBox = MapBox {
    s_lo: 0.0,
    s_hi: 0.0,
    t_lo: 0.0,
    t_hi: 0.0,
};

/// One part, as the quads see it.
struct PartJob<'a> {
    index: usize,
    vertices: &'a [Point],
    aabb: Aabb,
}

/// A texel-level cell being tested: its volume, its box floored at the part's floor,
/// which of the quad's triangles it lies in, and its map cell.
#[derive(Clone, Copy)]
struct Texel<'a> {
    cell: &'a VolumeCell,
    grown: Aabb,
    in_tri: [bool; 2],
    ti: u32,
    tj: u32,
}

/// The state of one detection pass.
struct Pass<'a> {
    terrain: &'a DisplacedTerrain,
    gjk: &'a GjkOptions,
    gjk_cells: bool,
    out: TerrainDetection,
    stages: MultiresStages,
    /// Cells still to test: level, cell coordinates, and the range of `reached` holding
    /// the part's vertices that reached the cell's parent.
    stack: Vec<(usize, u32, u32, u32, u32)>,
    /// Runs of vertex indices, one per tested cell that some vertex reached (see
    /// [`Pass::descend`]); cleared per part and quad.
    reached: Vec<u32>,
    /// Per vertex of the current part: bit `k` when it is to be projected onto the
    /// current quad's triangle `k`.
    marks: Vec<u8>,
    /// Per vertex of the current part, once it reaches a texel of the current quad: its
    /// height over each triangle's base plane and its map box
    /// ([`crate::terrain::MapFootprint::bound`]), which do not depend on the texel;
    /// valid while stamped with [`Pass::stamp`] (a new part and quad takes a new stamp
    /// instead of clearing them).
    maps: Vec<VertexMaps>,
    /// Per vertex of the current part: the stamp its entry of [`Pass::maps`] was
    /// computed under (0: never).
    map_stamps: Vec<u32>,
    /// The stamp of the current part and quad's entries in [`Pass::maps`].
    stamp: u32,
}

impl Pass<'_> {
    /// Steps 1–5 for one part and one quad; `index_floor` a floor length valid for the
    /// part in this quad besides the heights' ([`QuadTerrainVolumes::floor_from_heights`];
    /// both hold, so the shallower is used), `−∞` when there is none.
    fn visit(
        &mut self,
        q: usize,
        qv: &QuadTerrainVolumes,
        part: &PartJob<'_>,
        index_floor: Real,
    ) -> Result<(), MultiresDetectionError> {
        // 1. Early-out planes: is the part's box on or below each triangle's upper
        // plane? Its lowest heights over the two base planes also give its floor.
        let mut live = [false; 2];
        let mut low = [0.0; 2];
        let (c, h) = (part.aabb.center(), part.aabb.half_extents());
        for (k, planes) in qv.early_out().iter().enumerate() {
            self.out.counters.early_out_tests += 1;
            let (mid, reach) = (planes.height(c), h.dot(planes.normal.abs()));
            live[k] = mid - reach <= planes.upper;
            low[k] = mid - reach;
        }
        if !(live[0] || live[1]) {
            return Ok(());
        }
        let floor = qv.floor_from_heights(low).max(index_floor);
        // 2. The coarsest cell's box first, before anything is set up for the descent:
        // most visits a large object's parts make end here.
        let coarsest = qv.levels()[0].cells[0].floored(floor);
        self.out.counters.volume_tests += 1;
        self.stages.coarsest += 1;
        if !coarsest.0.intersects(&part.aabb) {
            return Ok(());
        }
        if !self.descend(qv, part, floor, live, coarsest) {
            return Ok(());
        }
        // 5. Backward projection of the marked vertices onto their triangles.
        for (vertex, &p) in part.vertices.iter().enumerate() {
            let mark = core::mem::take(&mut self.marks[vertex]);
            for k in 0..2 {
                if mark & (1 << k) == 0 {
                    continue;
                }
                self.out.counters.backward_projections += 1;
                let found = self
                    .terrain
                    .locate_in_triangle(2 * q + k, p)
                    .map_err(|source| MultiresDetectionError::BackProjection {
                        part: part.index,
                        vertex,
                        source,
                    })?;
                if let Some(PointLocation::Below {
                    triangle,
                    u,
                    v,
                    t,
                    d,
                }) = found
                {
                    self.out.push(VertexContact {
                        part: part.index,
                        vertex,
                        point: p,
                        triangle,
                        u,
                        v,
                        t,
                        d,
                    });
                }
            }
        }
        Ok(())
    }

    /// Steps 2–4: the cells the part reaches, coarse to fine; at the texel level, the
    /// part's vertices in a texel volume are marked for its triangles. Whether any was.
    ///
    /// Each cell tests only the vertices that reached its parent (in the parent's box
    /// and under its upper planes), and hands its own survivors to its children: a
    /// contact vertex is in every volume over its map point, so it passes every
    /// ancestor's test and is never dropped on the way down (module notes,
    /// "Guarantee"); a cell no vertex reaches is not entered.
    ///
    /// `coarsest` is the quad's coarsest cell floored at `floor`
    /// ([`VolumeCell::floored`]), its box already found to meet the part's and counted.
    fn descend(
        &mut self,
        qv: &QuadTerrainVolumes,
        part: &PartJob<'_>,
        floor: Real,
        live: [bool; 2],
        coarsest: (Aabb, Real, [Point; 4]),
    ) -> bool {
        let size = qv.quad().size;
        let levels = qv.levels();
        let hull = PointHull(part.vertices);
        let mut any = false;
        self.reached.clear();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // Wrapped: entries of 2^32 visits ago could read as current.
            self.map_stamps.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        // Vertex indices fit in u32: a part's vertices are a slice in memory, and more
        // than 2^32 of them is not a part any caller can build; clamp regardless.
        let count = u32::try_from(part.vertices.len()).unwrap_or(u32::MAX);
        self.reached.extend(0..count);
        self.stack.clear();
        self.stack.push((0, 0, 0, 0, count));
        while let Some((li, cx, cy, from, len)) = self.stack.pop() {
            let level = &levels[li];
            let per_side = level.per_side(size);
            let in_tri = [live[0] && cy <= cx, live[1] && cy >= cx];
            if !(in_tri[0] || in_tri[1]) {
                continue;
            }
            let cell = &level.cells[(cy * per_side + cx) as usize];
            let texel = li + 1 == levels.len();
            let (grown, margin, floor_points) = if li == 0 {
                // Tested and counted by the caller.
                coarsest
            } else {
                self.out.counters.volume_tests += 1;
                if texel {
                    self.stages.texel += 1;
                } else {
                    self.stages.finer += 1;
                }
                cell.floored(floor)
            };
            if !grown.intersects(&part.aabb) {
                continue;
            }
            let (from, to) = (from as usize, (from + len) as usize);
            if texel {
                // 4. (Reached only when a quad's coarsest level is its texel level.)
                let quad = qv.quad();
                let texel = Texel {
                    cell,
                    grown,
                    in_tri,
                    ti: quad.s + cx,
                    tj: quad.t + cy,
                };
                for i in from..to {
                    let v = self.reached[i] as usize;
                    let maps = self.map_boxes(qv, v, part.vertices[v]);
                    let bits = texel_bits(&maps, texel.in_tri, texel.ti, texel.tj, quad);
                    any |= self.texel_vertex(qv, part, floor, &texel, v, &maps, bits);
                }
                continue;
            }
            // 3. The part's box against the upper planes; then the vertices that reached
            // the parent, each in the cell's box and under its planes; then GJK.
            if above_a_plane(cell, part, margin) {
                continue;
            }
            let start = self.reached.len();
            for i in from..to {
                let v = self.reached[i];
                let p = part.vertices[v as usize];
                if grown.contains_point(p) && cell.upper.iter().all(|u| u.excess(p) <= margin) {
                    self.reached.push(v);
                }
            }
            let survivors = (self.reached.len() - start) as u32;
            if survivors == 0 {
                continue;
            }
            if self.gjk_cells {
                self.out.counters.gjk_queries += 1;
                let volume = Floored {
                    top: &cell.points,
                    floor: floor_points,
                };
                let r = gjk::intersects(
                    &hull,
                    &Pose::IDENTITY,
                    &volume,
                    &Pose::IDENTITY,
                    margin,
                    self.gjk,
                    None,
                );
                if !r.intersecting && r.status == GjkStatus::Converged {
                    continue;
                }
            }
            if li + 2 == levels.len() {
                // The children are texels: 4. vertex by vertex (below).
                any |= self.texels(qv, part, floor, live, (cx, cy), start..self.reached.len());
                continue;
            }
            let start = start as u32;
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                self.stack
                    .push((li + 1, 2 * cx + dx, 2 * cy + dy, start, survivors));
            }
        }
        any
    }

    /// Step 4 for the four texels under the cell `(cx, cy)` of the level above them,
    /// with the vertices that reached that cell (`range` of `reached`), vertex by
    /// vertex: a vertex is tested only at the texels its map box meets (a condition of
    /// the test anyway), so most are tested once, and a texel no vertex maps into is
    /// never opened. Whether any vertex was marked.
    fn texels(
        &mut self,
        qv: &QuadTerrainVolumes,
        part: &PartJob<'_>,
        floor: Real,
        live: [bool; 2],
        (cx, cy): (u32, u32),
        range: core::ops::Range<usize>,
    ) -> bool {
        let quad = qv.quad();
        let Some(level) = qv.levels().last() else {
            return false;
        };
        let per_side = level.per_side(quad.size);
        // The four texels, opened when a vertex first maps into one: `None` not yet,
        // `Some(None)` opened and missed by the part's box.
        let mut opened: [Option<Option<Texel<'_>>>; 4] = [None; 4];
        // Which triangles each child lies in, `(0, 0), (1, 0), (0, 1), (1, 1)` order.
        let children = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dy)| {
            let (x, y) = (2 * cx + dx, 2 * cy + dy);
            (x, y, [live[0] && y <= x, live[1] && y >= x])
        });
        let mut any = false;
        for i in range {
            let v = self.reached[i] as usize;
            let p = part.vertices[v];
            let maps = self.map_boxes(qv, v, p);
            // The vertex's map box must meet the texel on one of its triangles' halves
            // (the tests `texel_vertex` needs: computed once, for the four at once).
            let all_bits = children_bits(&maps, &children, quad.s + 2 * cx, quad.t + 2 * cy, quad);
            for (c, &(x, y, in_tri)) in children.iter().enumerate() {
                let bits = all_bits[c];
                if bits == 0 {
                    continue;
                }
                let (ti, tj) = (quad.s + x, quad.t + y);
                let texel = *opened[c].get_or_insert_with(|| {
                    self.out.counters.volume_tests += 1;
                    self.stages.texel += 1;
                    let cell = &level.cells[(y * per_side + x) as usize];
                    let (grown, _) = cell.floored_box(floor);
                    grown.intersects(&part.aabb).then_some(Texel {
                        cell,
                        grown,
                        in_tri,
                        ti,
                        tj,
                    })
                });
                if let Some(texel) = texel {
                    any |= self.texel_vertex(qv, part, floor, &texel, v, &maps, bits);
                }
            }
        }
        any
    }

    /// Vertex `v`'s heights over the two base planes and map boxes
    /// ([`crate::terrain::MapFootprint::bound`]), computed once per part and quad.
    #[inline]
    fn map_boxes(&mut self, qv: &QuadTerrainVolumes, v: usize, p: Point) -> VertexMaps {
        if self.map_stamps[v] == self.stamp {
            return self.maps[v];
        }
        let footprints = qv.footprints();
        let maps = [footprints[0].bound(p), footprints[1].bound(p)];
        self.map_stamps[v] = self.stamp;
        self.maps[v] = maps;
        maps
    }

    /// Step 4 for one vertex and one texel: its map box must meet the texel and the
    /// triangle's half of the quad (`bits`, bit `k` for triangle `k`, from
    /// [`texel_bits`] on its map boxes `maps`), and the vertex must lie in the texel
    /// volume floored at its own depth (in its box, under its upper planes). Marks it
    /// and says so.
    #[allow(clippy::too_many_arguments)]
    fn texel_vertex(
        &mut self,
        qv: &QuadTerrainVolumes,
        part: &PartJob<'_>,
        floor: Real,
        texel: &Texel<'_>,
        v: usize,
        maps: &VertexMaps,
        bits: u8,
    ) -> bool {
        let p = part.vertices[v];
        self.out.counters.vertex_tests += 1;
        if bits == 0 || !texel.grown.contains_point(p) {
            return false;
        }
        let mut h = [Real::INFINITY; 2];
        for k in 0..2 {
            if bits & (1 << k) != 0 {
                h[k] = maps[k].0;
            }
        }
        let own = qv.floor_from_heights(h).max(floor);
        let (tight, margin) = texel.cell.floored_box(own);
        if tight.contains_point(p) && texel.cell.upper.iter().all(|u| u.excess(p) <= margin) {
            self.marks[v] |= bits;
            return true;
        }
        false
    }
}

/// [`texel_bits`] for the four texels `children` (local `(x, y)` and triangles, in the
/// order `(0, 0), (1, 0), (0, 1), (1, 1)`) of the map cells `[i0, i0 + 2) × [j0, j0 +
/// 2)`: the same comparisons, each map box's made once per axis and child column or
/// row.
#[inline]
fn children_bits(
    maps: &VertexMaps,
    children: &[(u32, u32, [bool; 2]); 4],
    i0: u32,
    j0: u32,
    quad: crate::terrain::Quad,
) -> [u8; 4] {
    let mut bits = [0u8; 4];
    for (k, (_, map)) in maps.iter().enumerate() {
        if !map.meets_half(quad.s, quad.t, k) {
            continue;
        }
        // `MapBox::meets_cell`, split by axis: columns i0, i0 + 1 and rows j0, j0 + 1.
        let column = |i: u32| {
            let i = i as Real;
            map.s_lo <= i + 1.0 && map.s_hi >= i
        };
        let row = |j: u32| {
            let j = j as Real;
            map.t_lo <= j + 1.0 && map.t_hi >= j
        };
        let (cols, rows) = ([column(i0), column(i0 + 1)], [row(j0), row(j0 + 1)]);
        for (c, (dx, dy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].into_iter().enumerate() {
            if children[c].2[k] && cols[dx] && rows[dy] {
                bits[c] |= 1 << k;
            }
        }
    }
    bits
}

/// Which of a quad's triangles (bit `k` for triangle `k`) a vertex with map boxes
/// `maps` can backward-project onto inside the texel `(ti, tj)` (map cells), which lies
/// in the triangles `in_tri` of the quad: the box must meet the texel and the
/// triangle's half of the quad ([`MapBox::meets_cell`], [`MapBox::meets_half`]).
#[inline]
fn texel_bits(
    maps: &VertexMaps,
    in_tri: [bool; 2],
    ti: u32,
    tj: u32,
    quad: crate::terrain::Quad,
) -> u8 {
    let mut bits = 0u8;
    for k in 0..2 {
        let map = &maps[k].1;
        if in_tri[k] && map.meets_cell(ti, tj) && map.meets_half(quad.s, quad.t, k) {
            bits |= 1 << k;
        }
    }
    bits
}

/// Whether the part's box lies wholly beyond one of the cell's upper planes by more
/// than `margin` (the vertices are then all beyond it too; a part whose box straddles
/// the planes is left to the per-vertex test).
fn above_a_plane(cell: &VolumeCell, part: &PartJob<'_>, margin: Real) -> bool {
    let (c, h) = (part.aabb.center(), part.aabb.half_extents());
    cell.upper
        .iter()
        .any(|u| u.normal.dot(c) - u.normal.abs().dot(h) > u.offset + margin)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::Quad;

    /// `children_bits` (the four texels at once) against `texel_bits` (one texel, the
    /// `MapBox` tests as written) on seeded random map boxes, including boxes whose
    /// bounds sit exactly on the texels' edges.
    #[test]
    fn children_bits_equal_texel_bits() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let quad = Quad {
            s: 8,
            t: 16,
            size: 8,
        };
        for _ in 0..200_000 {
            // Bounds on a quarter-cell lattice around the quad, so that edges are hit.
            let mut coordinate = |o: u32| (o as Real) - 2.0 + next(48) as Real * 0.25;
            let mut boxed = || {
                let (a, b) = (coordinate(quad.s), coordinate(quad.s));
                let (c, d) = (coordinate(quad.t), coordinate(quad.t));
                MapBox {
                    s_lo: a.min(b),
                    s_hi: a.max(b),
                    t_lo: c.min(d),
                    t_hi: c.max(d),
                }
            };
            let maps = [(0.0, boxed()), (0.0, boxed())];
            let (cx, cy) = (next(4) as u32, next(4) as u32);
            let live = [next(4) != 0, next(4) != 0];
            let children = [(0, 0), (1, 0), (0, 1), (1, 1)].map(|(dx, dy)| {
                let (x, y) = (2 * cx + dx, 2 * cy + dy);
                (x, y, [live[0] && y <= x, live[1] && y >= x])
            });
            let all = children_bits(&maps, &children, quad.s + 2 * cx, quad.t + 2 * cy, quad);
            for (c, &(x, y, in_tri)) in children.iter().enumerate() {
                let one = texel_bits(&maps, in_tri, quad.s + x, quad.t + y, quad);
                assert_eq!(all[c], one, "{maps:?} child {c} of ({cx}, {cy})");
            }
        }
    }
}
