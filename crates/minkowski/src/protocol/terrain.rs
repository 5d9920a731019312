//! The `backward_project` line of `minkowski query` (the protocol's Extensions):
//! displacement-mapped terrain's backward projection ([`crate::terrain`]).
//!
//! ```text
//! {"query": "backward_project", "triangle": {"p": [[..], [..], [..]], "n": [[..], [..], [..]]},
//!  "point": [..], "method": "aligned_plane" | "aligned_projection" | "alpha_plane"}
//! ```
//!
//! Answer: `inside`, `iterations`, `status`, `t`, `u`, `v` ([`BackwardProjectAnswer`]).
//!
//! And the `terrain_contact` line: an object against a whole displaced terrain
//! ([`TerrainContactRequest`]; the terrain's description in [`parse_displaced_terrain`]),
//! answered with one manifold per part under the surface ([`TerrainContactAnswer`]).
//! A bad triangle is an `invalid_shape` error; a missing triangle, a bad point, a
//! missing or unknown method, and a point too far from the triangle are
//! `invalid_query` errors.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::cast::{field, query_err};
use super::{
    arr, kind_of, parse_collider, parse_pose, shape_err, shape_err_owned, vec3, within_limit,
    LineError, ManifoldPointAnswer,
};
use crate::query::compound::Collider;
use crate::terrain::{
    backward_project, terrain_manifolds, BackProjectionMethod, BackProjectionStatus, BaseTriangle,
    DisplacedTerrain, DisplacementMap, QuadFrame, QuadLayout, SyntheticMode, SyntheticTerrain,
    SyntheticTerrainConfig, TerrainStatic, TerrainVolumesOptions, MAX_MAP_SIDE, QUAD_SIZES,
};
use crate::{Pose, Real, Vector};

/// Parses a base triangle object `{"p": [[x, y, z] × 3], "n": [[x, y, z] × 3]}`: the
/// vertices `P0..P2` and the projection directions `N0..N2` (see [`BaseTriangle::new`]).
///
/// # Errors
/// [`super::ErrorKind::InvalidShape`] naming the first bad field, or the triangle's
/// refusal ([`crate::terrain::BaseTriangleError`]).
pub fn parse_base_triangle(v: &Value) -> Result<BaseTriangle, LineError> {
    let obj = v.as_object().ok_or_else(|| {
        shape_err(format!(
            "'triangle' must be an object {{\"p\": [[x, y, z] x3], \"n\": [[x, y, z] x3]}}, got {}",
            kind_of(v)
        ))
    })?;
    let three = |key: &str| -> Result<[Vector; 3], LineError> {
        let arr = obj
            .get(key)
            .ok_or_else(|| shape_err(format!("triangle needs '{key}': [[x, y, z] x3]")))?;
        let arr = arr.as_array().filter(|a| a.len() == 3).ok_or_else(|| {
            shape_err(format!(
                "triangle {key} must be an array of 3 points, got {}",
                match arr.as_array() {
                    Some(a) => format!("{} elements", a.len()),
                    None => kind_of(arr).to_string(),
                }
            ))
        })?;
        let mut out = [Vector::ZERO; 3];
        for (i, x) in arr.iter().enumerate() {
            out[i] = vec3(x, &format!("triangle {key}[{i}]"), shape_err_owned)?;
        }
        Ok(out)
    };
    let p = three("p")?;
    let n = three("n")?;
    BaseTriangle::new(p, n).map_err(|e| shape_err(e.to_string()))
}

/// A `backward_project` line, parsed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BackwardProjectRequest {
    /// The base triangle (`triangle`), in the frame of `point`.
    pub triangle: BaseTriangle,
    /// The point to project back (`point`).
    pub point: Vector,
    /// Which method (`method`).
    pub method: BackProjectionMethod,
}

impl BackwardProjectRequest {
    /// Parses a `backward_project` object, checking `triangle`, `point`, `method` in
    /// that order.
    ///
    /// # Errors
    /// The first bad field, as the tool reports it.
    pub fn parse(q: &Map<String, Value>) -> Result<Self, LineError> {
        let triangle = q.get("triangle").ok_or_else(|| {
            query_err("missing 'triangle': {\"p\": [[x, y, z] x3], \"n\": [[x, y, z] x3]}".into())
        })?;
        let triangle = parse_base_triangle(triangle)?;
        let point = field(q, "point")?;
        let names = || {
            BackProjectionMethod::ALL
                .map(BackProjectionMethod::as_str)
                .join(", ")
        };
        let method = match q.get("method") {
            Some(Value::String(s)) => BackProjectionMethod::from_name(s).ok_or_else(|| {
                query_err(format!(
                    "unknown method '{}' (expected {})",
                    s.chars().take(64).collect::<String>(),
                    names()
                ))
            })?,
            Some(other) => {
                return Err(query_err(format!(
                    "'method' must be a string ({}), got {}",
                    names(),
                    kind_of(other)
                )))
            }
            None => return Err(query_err(format!("missing 'method' ({})", names()))),
        };
        Ok(Self {
            triangle,
            point,
            method,
        })
    }

    /// Runs the backward projection ([`backward_project`]).
    ///
    /// # Errors
    /// [`super::ErrorKind::InvalidQuery`] for a point the projection refuses (too far
    /// from the triangle, or an answer that is not representable).
    pub fn answer(&self) -> Result<BackwardProjectAnswer, LineError> {
        let b = backward_project(&self.triangle, self.point, self.method)
            .map_err(|e| query_err(e.to_string()))?;
        Ok(BackwardProjectAnswer {
            inside: b.inside,
            iterations: b.iterations,
            status: b.status,
            t: b.t as f64,
            u: b.u as f64,
            v: b.v as f64,
        })
    }
}

/// The answer to a `backward_project` line (see [`crate::terrain::BackProjection`]):
/// `point ≈ p(u, v) + t n(u, v)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BackwardProjectAnswer {
    /// Whether `(u, v)` is in the triangle (within rounding); false when no solution is
    /// inside and the answer is the one nearest the triangle.
    pub inside: bool,
    /// 0 for the aligned plane; BFGS iterations; Newton steps on the alpha plane's root.
    pub iterations: u32,
    /// How the answer was obtained (`converged`, `approximate`, ...).
    pub status: BackProjectionStatus,
    /// The parameter along `n(u, v)` (relative to its length).
    pub t: f64,
    /// Barycentric parameter along `P1 − P0`.
    pub u: f64,
    /// Barycentric parameter along `P2 − P0`.
    pub v: f64,
}

impl BackwardProjectAnswer {
    pub(crate) fn is_finite(&self) -> bool {
        [self.t, self.u, self.v].iter().all(|x| x.is_finite())
    }
}

/// The most cells along each side of a `synthetic` terrain in a query line (its samples
/// are ray cast at parse time).
pub const MAX_SYNTHETIC_CELLS: u32 = 128;

/// A non-negative integer field of a terrain description.
fn count(obj: &Map<String, Value>, what: &str, key: &str) -> Result<Option<u64>, LineError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| {
            shape_err(format!(
                "terrain {what} '{key}' must be a non-negative integer, got {}",
                kind_of(v)
            ))
        }),
    }
}

/// A number field of a terrain description (held to the magnitude limit).
fn real(obj: &Map<String, Value>, what: &str, key: &str) -> Result<Option<Real>, LineError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_f64()
            .ok_or_else(|| shape_err(format!("terrain {what} '{key}' must be a number")))
            .and_then(|x| within_limit(x, &format!("terrain {what} '{key}'"), shape_err_owned))
            .map(Some),
        Some(v) => Err(shape_err(format!(
            "terrain {what} '{key}' must be a number, got {}",
            kind_of(v)
        ))),
    }
}

/// An object field of a terrain description.
fn object<'a>(
    obj: &'a Map<String, Value>,
    key: &str,
) -> Result<Option<&'a Map<String, Value>>, LineError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o)),
        Some(v) => Err(shape_err(format!(
            "terrain '{key}' must be an object, got {}",
            kind_of(v)
        ))),
    }
}

/// Parses the `terrain` object of a `terrain_contact` line (see the protocol's
/// Extensions in `docs/query-protocol.md`): either `{"synthetic": {...}}`, or a `map`
/// with a `quad_size` and a base, `grid` (flat, one direction) or `corners` (a point
/// and a direction per quad-corner node).
///
/// # Errors
/// [`super::ErrorKind::InvalidShape`] naming the first bad field, or the terrain's own
/// refusal (a map too small, a degenerate base triangle, ...).
pub fn parse_displaced_terrain(v: &Value) -> Result<DisplacedTerrain, LineError> {
    let obj = v.as_object().ok_or_else(|| {
        shape_err(format!(
            "'terrain' must be an object ({{\"synthetic\": ...}} or {{\"map\": ..., \"quad_size\": ..., \"grid\" | \"corners\": ...}}), got {}",
            kind_of(v)
        ))
    })?;
    if let Some(s) = object(obj, "synthetic")? {
        return parse_synthetic(s);
    }
    let map = object(obj, "map")?.ok_or_else(|| {
        shape_err(
            "terrain needs 'synthetic' or 'map': {\"width\": w, \"height\": h, \"values\": [...]}",
        )
    })?;
    let width =
        count(map, "map", "width")?.ok_or_else(|| shape_err("terrain map needs 'width'"))?;
    let height =
        count(map, "map", "height")?.ok_or_else(|| shape_err("terrain map needs 'height'"))?;
    let values = map
        .get("values")
        .and_then(Value::as_array)
        .ok_or_else(|| shape_err("terrain map needs 'values': an array of numbers, row by row"))?;
    let mut d = Vec::with_capacity(values.len());
    for (k, x) in values.iter().enumerate() {
        let x = x.as_f64().ok_or_else(|| {
            shape_err(format!(
                "terrain map values[{k}] must be a number, got {}",
                kind_of(x)
            ))
        })?;
        d.push(within_limit(
            x,
            &format!("terrain map values[{k}]"),
            shape_err_owned,
        )?);
    }
    let (w, h) = (
        usize::try_from(width).unwrap_or(usize::MAX),
        usize::try_from(height).unwrap_or(usize::MAX),
    );
    if w < 2 || h < 2 || w > MAX_MAP_SIDE || h > MAX_MAP_SIDE {
        return Err(shape_err(format!(
            "terrain map width and height must be 2..={MAX_MAP_SIDE}, got {width} x {height}"
        )));
    }
    let map = DisplacementMap::new(w, h, d).map_err(|e| shape_err(e.to_string()))?;
    let size = count(obj, "terrain", "quad_size")?.unwrap_or(16);
    let size = u32::try_from(size)
        .ok()
        .filter(|s| QUAD_SIZES.contains(s))
        .ok_or_else(|| {
            shape_err(format!(
                "terrain quad_size must be one of {QUAD_SIZES:?}, got {size}"
            ))
        })?;
    let (cells_s, cells_t) = ((w - 1) as u32, (h - 1) as u32);
    let layout =
        QuadLayout::uniform(cells_s, cells_t, size).map_err(|e| shape_err(e.to_string()))?;
    let frames: Vec<QuadFrame> = if let Some(g) = object(obj, "grid")? {
        let origin = match g.get("origin") {
            None | Some(Value::Null) => Vector::ZERO,
            Some(v) => vec3(v, "terrain grid origin", shape_err_owned)?,
        };
        let cell = match g.get("cell_size") {
            Some(Value::Array(a)) if a.len() == 2 => {
                let mut c = [0.0; 2];
                for (k, x) in a.iter().enumerate() {
                    let x = x
                        .as_f64()
                        .ok_or_else(|| shape_err("terrain grid cell_size must be [sx, sz]"))?;
                    c[k] = within_limit(x, "terrain grid cell_size", shape_err_owned)?;
                }
                c
            }
            _ => return Err(shape_err("terrain grid needs 'cell_size': [sx, sz]")),
        };
        if !(cell[0] > 0.0 && cell[1] > 0.0) {
            return Err(shape_err(format!(
                "terrain grid cell_size must be > 0, got [{}, {}]",
                cell[0], cell[1]
            )));
        }
        let n = match g.get("direction") {
            None | Some(Value::Null) => Vector::Y,
            Some(v) => vec3(v, "terrain grid direction", shape_err_owned)?,
        };
        layout
            .quads()
            .iter()
            .map(|q| QuadFrame {
                p: q.corners().map(|[i, j]| {
                    origin + Vector::new(i as Real * cell[0], 0.0, j as Real * cell[1])
                }),
                n: [n; 4],
            })
            .collect()
    } else if let Some(c) = object(obj, "corners")? {
        if cells_s % size != 0 || cells_t % size != 0 {
            return Err(shape_err(format!(
                "terrain corners need (width - 1) and (height - 1) to be multiples of quad_size {size}, got {cells_s} x {cells_t} cells"
            )));
        }
        let (ns, nt) = ((cells_s / size + 1) as usize, (cells_t / size + 1) as usize);
        let list = |key: &str| -> Result<Vec<Vector>, LineError> {
            let a = c.get(key).and_then(Value::as_array).ok_or_else(|| {
                shape_err(format!(
                    "terrain corners need '{key}': {} points [x, y, z]",
                    ns * nt
                ))
            })?;
            if a.len() != ns * nt {
                return Err(shape_err(format!(
                    "terrain corners {key} must have {} points ({ns} x {nt} quad corners), got {}",
                    ns * nt,
                    a.len()
                )));
            }
            a.iter()
                .enumerate()
                .map(|(k, x)| vec3(x, &format!("terrain corners {key}[{k}]"), shape_err_owned))
                .collect()
        };
        let (p, n) = (list("points")?, list("directions")?);
        let at = |[i, j]: [u32; 2]| (j / size) as usize * ns + (i / size) as usize;
        layout
            .quads()
            .iter()
            .map(|q| QuadFrame {
                p: q.corners().map(|c| p[at(c)]),
                n: q.corners().map(|c| n[at(c)]),
            })
            .collect()
    } else {
        return Err(shape_err("terrain needs a base: 'grid' or 'corners'"));
    };
    DisplacedTerrain::new(map, layout, frames).map_err(|e| shape_err(e.to_string()))
}

/// `{"synthetic": {"seed", "cells": [s, t], "cell_size", "mode", "roughness"}}`.
fn parse_synthetic(s: &Map<String, Value>) -> Result<DisplacedTerrain, LineError> {
    let d = SyntheticTerrainConfig::default();
    let seed = count(s, "synthetic", "seed")?.unwrap_or(d.seed);
    let (cells_s, cells_t) = match s.get("cells") {
        None | Some(Value::Null) => (d.cells_s, d.cells_t),
        Some(Value::Array(a)) if a.len() == 2 => {
            let c = |k: usize| {
                a[k].as_u64()
                    .and_then(|x| u32::try_from(x).ok())
                    .filter(|&x| x <= MAX_SYNTHETIC_CELLS)
                    .ok_or_else(|| {
                        shape_err(format!(
                            "terrain synthetic cells must be integers <= {MAX_SYNTHETIC_CELLS}"
                        ))
                    })
            };
            (c(0)?, c(1)?)
        }
        Some(_) => return Err(shape_err("terrain synthetic 'cells' must be [s, t]")),
    };
    let mode = match s.get("mode") {
        None | Some(Value::Null) => d.mode,
        Some(Value::String(m)) if m == "skewed" => SyntheticMode::Skewed,
        Some(Value::String(m)) if m == "heightfield" => SyntheticMode::Heightfield,
        Some(_) => {
            return Err(shape_err(
                "terrain synthetic 'mode' must be \"skewed\" or \"heightfield\"",
            ))
        }
    };
    let config = SyntheticTerrainConfig {
        seed,
        cells_s,
        cells_t,
        cell_size: real(s, "synthetic", "cell_size")?.unwrap_or(d.cell_size),
        mode,
        roughness: real(s, "synthetic", "roughness")?.unwrap_or(d.roughness),
    };
    SyntheticTerrain::generate(config)
        .map(|t| t.terrain)
        .map_err(|e| shape_err(e.to_string()))
}

/// A `terrain_contact` line, parsed: the terrain with closed-form slab volumes (the
/// detection is exact with any volumes; optimised ones only make it faster, and take
/// seconds to build), the object and its pose.
#[derive(Debug, Clone)]
pub struct TerrainContactRequest {
    /// The terrain (`terrain`).
    pub terrain: TerrainStatic,
    /// The object (`shape`: a convex shape or a compound).
    pub collider: Collider,
    /// Its pose (`pose`, local to world; default identity).
    pub pose: Pose,
}

impl TerrainContactRequest {
    /// Parses a `terrain_contact` object, checking `terrain`, `shape`, `pose` in that
    /// order.
    ///
    /// # Errors
    /// The first bad field, as the tool reports it.
    pub fn parse(q: &Map<String, Value>) -> Result<Self, LineError> {
        let terrain = q
            .get("terrain")
            .ok_or_else(|| query_err("missing 'terrain'".into()))?;
        let terrain = parse_displaced_terrain(terrain)?;
        let shape = q
            .get("shape")
            .ok_or_else(|| query_err("missing 'shape'".into()))?;
        let collider = parse_collider(shape, "shape")?;
        let pose = parse_pose(q.get("pose"), "pose")?;
        let terrain = TerrainStatic::build(terrain, &TerrainVolumesOptions::slabs_only())
            .map_err(|e| shape_err(e.to_string()))?;
        Ok(Self {
            terrain,
            collider,
            pose,
        })
    }

    /// Runs the detection ([`TerrainStatic::detect`]) and builds the manifolds.
    ///
    /// # Errors
    /// [`super::ErrorKind::InvalidQuery`] when a point of the object is beyond the
    /// magnitude limit.
    pub fn answer(&self) -> Result<TerrainContactAnswer, LineError> {
        let found = self
            .terrain
            .detect(&self.collider, &self.pose)
            .map_err(|e| query_err(e.to_string()))?;
        let contacts = terrain_manifolds(self.terrain.terrain(), &found)
            .into_iter()
            .map(|m| TerrainRegionAnswer {
                normal: arr(m.manifold.normal),
                part: m.part,
                points: m
                    .manifold
                    .points()
                    .iter()
                    .map(ManifoldPointAnswer::from)
                    .collect(),
                triangle: m.triangle,
            })
            .collect();
        Ok(TerrainContactAnswer {
            backward_projections: found.counters.backward_projections,
            contacts,
        })
    }
}

/// One part of the object under the surface (see [`crate::terrain::TerrainManifold`]):
/// the terrain is A, the object B.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerrainRegionAnswer {
    /// Unit surface normal at the deepest point, out of the terrain (world frame).
    pub normal: [f64; 3],
    /// The object's part (0 for a convex shape).
    pub part: usize,
    /// Up to four point pairs, the deepest first, distances negative.
    pub points: Vec<ManifoldPointAnswer>,
    /// The base triangle under the deepest point.
    pub triangle: usize,
}

/// The answer to a `terrain_contact` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TerrainContactAnswer {
    /// Backward projections the detection made.
    pub backward_projections: u64,
    /// One per part with a point under the surface, in part order; empty when none.
    pub contacts: Vec<TerrainRegionAnswer>,
}

impl TerrainContactAnswer {
    pub(crate) fn is_finite(&self) -> bool {
        self.contacts.iter().all(|c| {
            c.normal.iter().all(|x| x.is_finite())
                && c.points.iter().all(|p| {
                    p.distance.is_finite()
                        && p.point_a.iter().chain(&p.point_b).all(|x| x.is_finite())
                })
        })
    }
}
