//! Multiresolution collision detection between an object and a displaced terrain
//! (seed 002 §3.6, Alg 9–13).
//!
//! The thesis's per-vertex test backward-projects every vertex of an object onto every
//! candidate base triangle (§2.4.2). §3.6 first tests the object against bounding
//! volumes of the surface, coarse to fine, and backward-projects only the vertices of
//! the convex parts that reach the finest level, onto the triangles they reach there.
//! Here, per convex part (a slice of world-frame vertices; GJK works on their hull,
//! [`PointHull`]) and per quad of the layout:
//!
//! 1. **Early-out planes** (Alg 6, [`EarlyOutPlanes`]): a triangle whose upper plane
//!    has the part's bounding box above it is dropped (its solid lies below that
//!    plane): one box test per triangle, not one per vertex.
//! 2. **Coarsest rectangle** (Alg 9–10): the quad's level `b = size`. In a
//!    [`crate::terrain::QuadLayout`] every triangle is half a quad, so the coarsest
//!    rectangle meeting a triangle is the quad itself, and a bounding cell meets
//!    triangle 0 when `cy ≤ cx`, triangle 1 when `cy ≥ cx` (the diagonal runs through
//!    the corners of the cells it cuts); Alg 9's rectangle–triangle test is exact here
//!    and reduces to that comparison.
//! 3. **Recursion with GJK** (Alg 11): a bounding cell is tested (its box first, then
//!    [`gjk::intersects`] with the cell's pad as margin) and, when hit, its four
//!    children at the next level are. A GJK run that does not converge counts as a hit.
//! 4. **Texel level** (Alg 12): level `b = 1`, one volume per map cell: the texel
//!    tetrahedron `conv{p00, p01, p10, p11}` (the bilinear patch's hull,
//!    [`crate::terrain::BilinearPatch`]) bounds the patch's *surface*, but neither the
//!    solid below it nor the Eq 2.2 surface the point-in-terrain test compares against;
//!    here it is grown by a bound of their difference and floored
//!    ([`crate::terrain::terrain_volumes`]'s notes, item 4), which holds both.
//! 5. **Surface** (Alg 13, §2.4.2): each vertex of the part inside the box of the
//!    surviving texel volumes of a triangle and not above the triangle's upper plane is
//!    backward-projected onto it ([`DisplacedTerrain::locate_in_triangle`], alpha
//!    plane); a vertex below the surface is a [`VertexContact`].
//!
//! Volumes also extend downward to a *floor* per part and quad
//! ([`QuadTerrainVolumes::floor_length`]): the terrain is solid below its surface, and
//! a part sunk under the lowest bounding surface must still be found. The thesis's
//! volumes are shells and would miss it.
//!
//! The thesis's Alg 11–12 remove a part from the candidate map at the first miss; here a
//! part stays a candidate while any cell at the current level hits (the "keep a part if
//! any leaf hits" correction of the design notes): each cell is its own branch.
//!
//! # Guarantee
//!
//! Every volume holds the solid of its cell above the floor (see
//! [`crate::terrain::terrain_volumes`]), grown by
//! [`TERRAIN_DETECTION_SLACK`] for rounding: a vertex that
//! [`DisplacedTerrain::locate`] puts in the terrain lies in every volume over its map
//! point, so its part survives to that texel and the vertex is projected onto that
//! triangle, by the same function. The contacts are exactly those of the brute force,
//! not a subset; the tests check this on seeded frames.
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
//! ```

use super::displaced_terrain::{DisplacedTerrain, PointLocation};
use super::early_out::{EarlyOutPlanes, PlaneSide};
use super::terrain_contact::{TerrainDetection, VertexContact};
use super::terrain_volumes::{aabb_of, PointHull, QuadTerrainVolumes, TerrainVolumes, VolumeCell};
use super::BackProjectError;
use crate::bounding::Aabb;
use crate::math::{Point, Pose, Real, Vector};
use crate::query::gjk::{self, GjkOptions, GjkStatus};
use crate::shape::MAX_MAGNITUDE;
use crate::support::SupportMap;
use crate::tolerance::TERRAIN_DETECTION_SLACK;

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
}

/// Volume tests by stage, the thesis's "calls" columns of Tables 4.4/4.5 (each test is
/// a box check, then a GJK run when the boxes meet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MultiresStages {
    /// Tests of the coarsest level (`b = size`, the quad).
    pub coarsest: u64,
    /// Tests of the levels between.
    pub finer: u64,
    /// Tests of the texel level (`b = 1`).
    pub texel: u64,
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
/// `early_out_tests` (a part's box, or a vertex, against a triangle's planes),
/// `volume_tests` (bounding
/// volumes considered against a part) and `gjk_queries` (those whose boxes met).
///
/// `parts[i]` are the world-frame vertices of convex part `i` (the part is their hull;
/// an empty part has no contacts).
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
    let mut out = TerrainDetection::default();
    let mut stages = MultiresStages::default();
    let mut stack = Vec::new();
    for (pi, &part) in parts.iter().enumerate() {
        if part.is_empty() {
            continue;
        }
        let aabb = aabb_of(part);
        let centre = aabb.center();
        let radius = part
            .iter()
            .map(|p| (*p - centre).length())
            .fold(0.0, Real::max);
        for (q, qv) in volumes.quads().iter().enumerate() {
            // 1. Early-out planes: is the part's box on or below each triangle's upper
            // plane? (One test per triangle; the vertices meet the planes in step 5.)
            let mut live = [false; 2];
            for (k, planes) in qv.early_out().iter().enumerate() {
                out.counters.early_out_tests += 1;
                live[k] = planes.classify_aabb(&aabb) != PlaneSide::Above;
            }
            if !(live[0] || live[1]) {
                continue;
            }
            let floor = qv.floor_length(centre, radius);
            let hits = descend(
                qv,
                part,
                &aabb,
                floor,
                live,
                &options.gjk,
                &mut stack,
                &mut out,
                &mut stages,
            );
            // 5. Backward projection of the part's vertices onto the reached triangles.
            for (k, reach) in hits.iter().enumerate() {
                let Some(reach) = reach else { continue };
                let triangle = 2 * q + k;
                project_vertices(
                    terrain,
                    &qv.early_out()[k],
                    reach,
                    triangle,
                    pi,
                    part,
                    &mut out,
                )?;
            }
        }
    }
    out.finish();
    Ok((out, stages))
}

/// Steps 2–4 for one part and one quad: the boxes (grown) of the texel volumes the part
/// reaches, merged per triangle.
#[allow(
    clippy::too_many_arguments,
    reason = "one recursion's state, passed down from the detection loop"
)]
fn descend(
    qv: &QuadTerrainVolumes,
    part: &[Point],
    part_box: &Aabb,
    floor: Real,
    live: [bool; 2],
    gjk_options: &GjkOptions,
    stack: &mut Vec<(usize, u32, u32)>,
    out: &mut TerrainDetection,
    stages: &mut MultiresStages,
) -> [Option<Aabb>; 2] {
    let size = qv.quad().size;
    let levels = qv.levels();
    let hull = PointHull(part);
    let mut reached: [Option<Aabb>; 2] = [None, None];
    stack.clear();
    stack.push((0, 0, 0));
    while let Some((li, cx, cy)) = stack.pop() {
        let level = &levels[li];
        let per_side = level.per_side(size);
        let in_tri = [live[0] && cy <= cx, live[1] && cy >= cx];
        if !(in_tri[0] || in_tri[1]) {
            continue;
        }
        let cell = &level.cells[(cy * per_side + cx) as usize];
        out.counters.volume_tests += 1;
        if li == 0 {
            stages.coarsest += 1;
        } else if li + 1 == levels.len() {
            stages.texel += 1;
        } else {
            stages.finer += 1;
        }
        let Some(grown) = hit(cell, &hull, part_box, floor, gjk_options, out) else {
            continue;
        };
        if li + 1 < levels.len() {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                stack.push((li + 1, 2 * cx + dx, 2 * cy + dy));
            }
        } else {
            for k in 0..2 {
                if in_tri[k] {
                    reached[k] = Some(match reached[k] {
                        Some(b) => b.merged(&grown),
                        None => grown,
                    });
                }
            }
        }
    }
    reached
}

/// Whether the part reaches `cell` floored at `floor`: the grown volume's box when it
/// does.
fn hit(
    cell: &VolumeCell,
    hull: &PointHull<'_>,
    part_box: &Aabb,
    floor: Real,
    gjk_options: &GjkOptions,
    out: &mut TerrainDetection,
) -> Option<Aabb> {
    let floor_points = QuadTerrainVolumes::floor_points(cell, floor);
    let mut lo = cell.aabb.mins;
    let mut hi = cell.aabb.maxs;
    for p in floor_points {
        lo = lo.min(p);
        hi = hi.max(p);
    }
    let scale = lo.abs().max(hi.abs()).max_element();
    let margin = cell.pad + TERRAIN_DETECTION_SLACK * scale;
    let grown = Aabb::new(lo, hi).loosened(margin);
    if !grown.intersects(part_box) {
        return None;
    }
    out.counters.gjk_queries += 1;
    let volume = Floored {
        top: &cell.points,
        floor: floor_points,
    };
    let r = gjk::intersects(
        hull,
        &Pose::IDENTITY,
        &volume,
        &Pose::IDENTITY,
        margin,
        gjk_options,
        None,
    );
    (r.intersecting || r.status != GjkStatus::Converged).then_some(grown)
}

fn project_vertices(
    terrain: &DisplacedTerrain,
    planes: &EarlyOutPlanes,
    reach: &Aabb,
    triangle: usize,
    part_index: usize,
    part: &[Point],
    out: &mut TerrainDetection,
) -> Result<(), MultiresDetectionError> {
    for (vertex, &p) in part.iter().enumerate() {
        if !reach.contains_point(p) {
            continue;
        }
        out.counters.early_out_tests += 1;
        if planes.classify_point(p) == PlaneSide::Above {
            continue;
        }
        out.counters.backward_projections += 1;
        let found = terrain.locate_in_triangle(triangle, p).map_err(|source| {
            MultiresDetectionError::BackProjection {
                part: part_index,
                vertex,
                source,
            }
        })?;
        if let Some(PointLocation::Below {
            triangle,
            u,
            v,
            t,
            d,
        }) = found
        {
            out.push(VertexContact {
                part: part_index,
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
    Ok(())
}
