//! The per-vertex baseline: the terrain collision the thesis's engine ran before
//! multiresolution detection (seed 002 §2.4.2, §2.5–2.6, the "original collision
//! detection" column of Tables 4.4/4.5).
//!
//! # What the engine did (§2.5, §2.6, §2.4.1–2.4.2)
//!
//! A broad phase (a tree of AABBs, a compound's parts as children of its node) found the
//! base triangles near each part; the early-out planes of each triangle (Alg 6) were
//! tested against the part's AABB, then against each vertex ("the vertices which are
//! between the upper and lower bounding planes are tested in the narrow phase"); each
//! remaining vertex was backward-projected onto the triangle by the aligned plane
//! (§2.4.1) and was in the terrain when its `(u, v)` fell inside the triangle and its
//! parameter `t` was below the displacement `d(u, v)` (§2.4.2).
//!
//! # What this does, exactly
//!
//! Built once per terrain ([`PerVertexBaseline::new`], offline as the engine's planes
//! were): the [`EarlyOutPlanes`] of every triangle, and a world AABB per triangle
//! bounding the part of its prism between the heights `lower − depth_reach` and
//! `upper` (below), registered in a uniform grid over `(x, z)` (the shared
//! [`crate::terrain::FootprintGrid`]). Per part
//! ([`PerVertexBaseline::detect`]):
//!
//! 1. **broad phase**: the part's AABB (of its vertices) against the grid, then against
//!    each triangle's AABB;
//! 2. **early out, part**: the part's AABB against the triangle's planes
//!    ([`EarlyOutPlanes::classify_aabb`]); wholly above: next triangle;
//! 3. **early out, vertex**: each vertex against the planes
//!    ([`EarlyOutPlanes::classify_point`]); above: next vertex. A vertex *below* the
//!    lower plane is projected too: it is in the terrain only if it is inside the
//!    triangle's prism, which only the projection tells;
//! 4. **backward projection** ([`BaselineConfig::method`], the aligned plane by
//!    default) and the test `inside && t < d(u, v)`; answers that are not a solution or
//!    an approximation (statuses other than `Converged` and `Approximate`), and points
//!    too far to project, are not contacts.
//!
//! Every backward projection is counted ([`DetectionCounters::backward_projections`]),
//! and every plane test of steps 2–3 ([`DetectionCounters::early_out_tests`]). A vertex
//! below the surface of several triangles is one contact, the deepest
//! ([`TerrainDetection::finish`]).
//!
//! # The prism bound (derived)
//!
//! With `N̂b` the planes' unit normal and `c_i = N_i · N̂b > 0`, a point
//! `x = p(u, v) + t n(u, v)` of the prism has height `h = t c(u, v)`, so
//! `x = p(u, v) + h n(u, v) / c(u, v)`, and `n / c = Σ μ_i N_i / c_i` with
//! `μ_i = λ_i c_i / Σ λ_j c_j` convex weights (`λ` the barycentric weights of `(u, v)`).
//! Hence `x ∈ triangle + h · conv{N_i / c_i}`, and for `h ∈ [a, b]` the AABB of
//! `{P_i} ` plus the AABB of `{a N_i / c_i, b N_i / c_i}` holds that slab of the prism.
//! The prism has no floor (the terrain is solid below its surface), so the baseline
//! looks [`BaselineConfig::depth_reach`] below the lower plane: a vertex deeper than
//! that under a triangle is not found (the thesis's objects are pushed out every frame
//! and never get that deep; the bench reports any such miss against brute force).
//!
//! # Accuracy
//!
//! The aligned plane is exact when a triangle's three directions are parallel (a
//! heightfield, [`crate::terrain::SyntheticMode::Heightfield`]): the baseline then
//! finds exactly the vertices [`DisplacedTerrain::locate`] finds (up to rounding at the
//! surface and the prisms' sides). With skewed directions it is approximate
//! (Tables 4.2–4.3): vertices near the surface can be missed or found wrongly; the
//! tests measure the rate. With [`BackProjectionMethod::AlphaPlane`] the baseline is
//! exact with any directions: the candidates (steps 1–3) are conservative.

use super::backward_projection::{
    backward_project, BackProjectError, BackProjectionMethod, BackProjectionStatus,
};
use super::displaced_terrain::DisplacedTerrain;
use super::early_out::{EarlyOutPlanes, PlaneSide};
use super::footprint_grid::FootprintGrid;
use super::terrain_contact::{DetectionCounters, TerrainDetection, VertexContact};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::shape::MAX_MAGNITUDE;

/// How the baseline is built and run. [`Default`]: aligned plane, 8 m depth reach,
/// 4 m grid bins.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BaselineConfig {
    /// The backward projection (the thesis's engine: [`BackProjectionMethod::AlignedPlane`]).
    pub method: BackProjectionMethod,
    /// How far below each triangle's lower early-out plane the broad phase looks, along
    /// the planes' normal (length units; finite, `≥ 0`).
    pub depth_reach: Real,
    /// The side of the broad phase's grid bins in `x` and `z` (length units; finite,
    /// `> 0`; enlarged if the grid would exceed a million bins).
    pub grid_cell: Real,
}

impl Default for BaselineConfig {
    fn default() -> Self {
        Self {
            method: BackProjectionMethod::AlignedPlane,
            depth_reach: 8.0,
            grid_cell: 4.0,
        }
    }
}

/// Why the baseline could not be built or run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PerVertexError {
    /// A configuration field is out of range.
    #[error("baseline {field} must be {expected}")]
    BadConfig {
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// A triangle's early-out planes could not be computed (a non-finite sample).
    #[error("triangle {triangle}: no early-out planes")]
    NoPlanes {
        /// The triangle.
        triangle: usize,
    },
    /// A vertex has a NaN or infinite coordinate.
    #[error("part {part}, vertex {vertex}: non-finite coordinate")]
    NonFiniteVertex {
        /// The part.
        part: usize,
        /// The vertex.
        vertex: usize,
    },
    /// A vertex coordinate's magnitude is above [`MAX_MAGNITUDE`].
    #[error("part {part}, vertex {vertex}: coordinate {value} beyond {max}")]
    VertexOutOfRange {
        /// The part.
        part: usize,
        /// The vertex.
        vertex: usize,
        /// The coordinate.
        value: Real,
        /// [`MAX_MAGNITUDE`].
        max: Real,
    },
}

/// The per-vertex baseline over one terrain (see the module notes).
#[derive(Debug, Clone, PartialEq)]
pub struct PerVertexBaseline<'t> {
    terrain: &'t DisplacedTerrain,
    config: BaselineConfig,
    planes: Vec<EarlyOutPlanes>,
    grid: FootprintGrid,
}

impl<'t> PerVertexBaseline<'t> {
    /// Builds the planes, the triangles' bounds and the grid for `terrain`.
    ///
    /// # Errors
    /// [`PerVertexError::BadConfig`]; [`PerVertexError::NoPlanes`] for a triangle whose
    /// planes cannot be computed.
    pub fn new(
        terrain: &'t DisplacedTerrain,
        config: BaselineConfig,
    ) -> Result<Self, PerVertexError> {
        if !(config.depth_reach.is_finite() && config.depth_reach >= 0.0) {
            return Err(PerVertexError::BadConfig {
                field: "depth_reach",
                expected: "finite and >= 0",
            });
        }
        if !(config.grid_cell.is_finite() && config.grid_cell > 0.0) {
            return Err(PerVertexError::BadConfig {
                field: "grid_cell",
                expected: "finite and > 0",
            });
        }
        let n = terrain.triangles().len();
        let mut planes = Vec::with_capacity(n);
        let mut bounds = Vec::with_capacity(n);
        for (k, tri) in terrain.triangles().iter().enumerate() {
            let p = terrain
                .early_out_planes(k)
                .ok_or(PerVertexError::NoPlanes { triangle: k })?;
            let base = tri.base();
            let (a, b) = (p.lower - config.depth_reach, p.upper);
            let mut lo = Vector::splat(Real::INFINITY);
            let mut hi = Vector::splat(Real::NEG_INFINITY);
            for v in base.vertices() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
            let mut dlo = Vector::splat(Real::INFINITY);
            let mut dhi = Vector::splat(Real::NEG_INFINITY);
            for d in base.directions() {
                // c_i > 0: the planes' normal is oriented toward the directions, which
                // a valid base triangle has all on one side.
                let unit = d / d.dot(p.normal);
                for q in [a * unit, b * unit] {
                    dlo = dlo.min(q);
                    dhi = dhi.max(q);
                }
            }
            let aabb = Aabb::new(lo + dlo, hi + dhi);
            if !(aabb.mins.is_finite() && aabb.maxs.is_finite()) {
                return Err(PerVertexError::NoPlanes { triangle: k });
            }
            planes.push(p);
            bounds.push(aabb);
        }
        let grid = FootprintGrid::new(bounds, config.grid_cell);
        Ok(Self {
            terrain,
            config,
            planes,
            grid,
        })
    }

    /// The terrain.
    pub fn terrain(&self) -> &'t DisplacedTerrain {
        self.terrain
    }

    /// The configuration.
    pub fn config(&self) -> &BaselineConfig {
        &self.config
    }

    /// The early-out planes of triangle `k`.
    pub fn planes(&self, k: usize) -> Option<&EarlyOutPlanes> {
        self.planes.get(k)
    }

    /// The world AABB of triangle `k`'s prism between `lower − depth_reach` and `upper`
    /// (see the module notes).
    pub fn prism_bounds(&self, k: usize) -> Option<&Aabb> {
        self.grid.boxes().get(k)
    }

    /// The triangles whose prism bounds overlap `aabb` (the broad phase), sorted, each
    /// once, into `out` (cleared first).
    pub fn candidates(&self, aabb: &Aabb, out: &mut Vec<usize>) {
        self.grid.query(aabb, out);
    }

    /// The vertices of `parts` (world frame, one vertex list per convex part) in the
    /// terrain, with the pass's counters (see the module notes).
    ///
    /// # Errors
    /// [`PerVertexError::NonFiniteVertex`] or [`PerVertexError::VertexOutOfRange`] for
    /// the first bad vertex (before any work).
    pub fn detect(&self, parts: &[&[Point]]) -> Result<TerrainDetection, PerVertexError> {
        check_parts(parts)?;
        let mut found = TerrainDetection::default();
        let mut counters = DetectionCounters::default();
        let mut candidates = Vec::new();
        for (part, vertices) in parts.iter().enumerate() {
            let Some(aabb) = vertex_aabb(vertices) else {
                continue;
            };
            self.candidates(&aabb, &mut candidates);
            for &k in &candidates {
                let planes = &self.planes[k];
                counters.early_out_tests += 1;
                if planes.classify_aabb(&aabb) == PlaneSide::Above {
                    continue;
                }
                let base = self.terrain.triangles()[k].base();
                for (vertex, &point) in vertices.iter().enumerate() {
                    counters.early_out_tests += 1;
                    if planes.classify_point(point) == PlaneSide::Above {
                        continue;
                    }
                    counters.backward_projections += 1;
                    let b = match backward_project(base, point, self.config.method) {
                        Ok(b) => b,
                        // Too far to project, or t overflowing: not under this
                        // triangle's surface (the point was checked above).
                        Err(_) => continue,
                    };
                    let usable = matches!(
                        b.status,
                        BackProjectionStatus::Converged | BackProjectionStatus::Approximate
                    );
                    if !(usable && b.inside) {
                        continue;
                    }
                    let Some(d) = self.terrain.displacement(k, b.u, b.v) else {
                        continue;
                    };
                    if b.t < d {
                        found.push(VertexContact {
                            part,
                            vertex,
                            point,
                            triangle: k,
                            u: b.u,
                            v: b.v,
                            t: b.t,
                            d,
                        });
                    }
                }
            }
        }
        found.counters = counters;
        found.finish();
        Ok(found)
    }
}

/// The brute-force detection: [`DisplacedTerrain::locate`] on every vertex of every
/// part (the alpha plane on every triangle, in index order, to the first triangle the
/// vertex is below the surface of). The oracle of the tests and the bench: no bound,
/// no early out. A contact is that first triangle's (not the deepest).
///
/// Costs a backward projection per vertex and triangle (fewer where a vertex is found
/// below an early triangle); they are counted.
///
/// # Errors
/// As [`PerVertexBaseline::detect`].
pub fn brute_force_detect(
    terrain: &DisplacedTerrain,
    parts: &[&[Point]],
) -> Result<TerrainDetection, PerVertexError> {
    check_parts(parts)?;
    let mut found = TerrainDetection::default();
    for (part, vertices) in parts.iter().enumerate() {
        for (vertex, &point) in vertices.iter().enumerate() {
            // `locate`, unrolled to count its projections.
            for k in 0..terrain.triangles().len() {
                found.counters.backward_projections += 1;
                let located = match terrain.locate_in_triangle(k, point) {
                    Ok(located) => located,
                    Err(e) => return Err(point_error(part, vertex, point, &e)),
                };
                if let Some(super::PointLocation::Below {
                    triangle,
                    u,
                    v,
                    t,
                    d,
                }) = located
                {
                    found.push(VertexContact {
                        part,
                        vertex,
                        point,
                        triangle,
                        u,
                        v,
                        t,
                        d,
                    });
                    break;
                }
            }
        }
    }
    found.finish();
    Ok(found)
}

/// Checks every vertex: finite, within [`MAX_MAGNITUDE`].
fn check_parts(parts: &[&[Point]]) -> Result<(), PerVertexError> {
    for (part, vertices) in parts.iter().enumerate() {
        for (vertex, p) in vertices.iter().enumerate() {
            if !p.is_finite() {
                return Err(PerVertexError::NonFiniteVertex { part, vertex });
            }
            if let Some(value) = p.to_array().into_iter().find(|x| x.abs() > MAX_MAGNITUDE) {
                return Err(PerVertexError::VertexOutOfRange {
                    part,
                    vertex,
                    value,
                    max: MAX_MAGNITUDE,
                });
            }
        }
    }
    Ok(())
}

/// The error of a point [`check_parts`] let through (not expected: it checks what
/// [`DisplacedTerrain::locate_in_triangle`] refuses).
fn point_error(part: usize, vertex: usize, point: Point, e: &BackProjectError) -> PerVertexError {
    match e {
        BackProjectError::PointOutOfRange { value, max } => PerVertexError::VertexOutOfRange {
            part,
            vertex,
            value: *value,
            max: *max,
        },
        _ => PerVertexError::VertexOutOfRange {
            part,
            vertex,
            value: point.abs().max_element(),
            max: MAX_MAGNITUDE,
        },
    }
}

/// The AABB of a vertex list (`None` when empty).
fn vertex_aabb(vertices: &[Point]) -> Option<Aabb> {
    let first = *vertices.first()?;
    let (lo, hi) = vertices[1..]
        .iter()
        .fold((first, first), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    Some(Aabb::new(lo, hi))
}
