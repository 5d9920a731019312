//! The `minkowski hull` JSON-lines protocol (second half of
//! `shared/design/query-protocol.md`).
//!
//! In: `{"id": ..., "points": [[x, y, z], ...]}` per line (`[x, y]` with `--2d`).
//! Out, 3D: `{"id", "dimension", "vertices", "faces"}`: the extreme points (a subset of
//! the input, no repeats), and faces as convex polygons indexing `vertices`,
//! counter-clockwise seen from outside (coplanar triangles merged). Degenerate input
//! keeps its dimension: 2 (one polygon face, counter-clockwise about `normal`, which is
//! also given), 1 (the two end points, no faces), 0 (one vertex, no faces).
//! Out, 2D: `{"id", "dimension", "vertices", "algorithm"}`, counter-clockwise from the
//! lowest (then leftmost) point, collinear boundary points excluded; dimension 1 or 0 for
//! collinear or all-equal input.
//!
//! Errors as in `query`: `invalid_json`, `invalid_query` (no `points`, wrong arity),
//! `invalid_shape` (empty, non-finite or out-of-range points), `internal`.
//!
//! Points are read and hulled as `f64` in both builds (exact predicates; coordinates up
//! to `minkowski::hull::MAX_MAGNITUDE_F64` = 1e60), and vertices are echoed as given.

use glam::{DVec2, DVec3};
use minkowski::hull::{quickhull3d_f64, Algorithm2d, Dimension, HullError};
use serde_json::{json, Map, Value};

use crate::protocol::{arr, err, kind_of, LineError};

/// What `minkowski hull` computes.
#[derive(Debug, Clone, Copy)]
pub enum Mode {
    /// 3D hulls by quickhull.
    Space,
    /// 2D hulls by the given algorithm.
    Plane(Algorithm2d),
}

/// The points as `f64`, whatever the build's precision: hulls are computed with exact
/// predicates on the numbers as given.
fn points<const N: usize>(q: &Map<String, Value>) -> Result<Vec<[f64; N]>, LineError> {
    let list = match q.get("points") {
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(err(
                "invalid_query",
                format!(
                    "'points' must be an array of points, got {}",
                    kind_of(other)
                ),
            ))
        }
        None => return Err(err("invalid_query", "a hull query needs 'points'")),
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, p) in list.iter().enumerate() {
        let coords = p.as_array().filter(|c| c.len() == N).ok_or_else(|| {
            err(
                "invalid_query",
                format!(
                    "points[{i}] must be an array of {N} numbers, got {}",
                    describe(p)
                ),
            )
        })?;
        let mut xyz = [0.0f64; N];
        for (k, c) in coords.iter().enumerate() {
            xyz[k] = c.as_f64().ok_or_else(|| {
                err(
                    "invalid_query",
                    format!("points[{i}][{k}] must be a number, got {}", kind_of(c)),
                )
            })?;
        }
        out.push(xyz);
    }
    Ok(out)
}

fn describe(v: &Value) -> String {
    match v.as_array() {
        Some(a) => format!("{} elements", a.len()),
        None => kind_of(v).to_string(),
    }
}

fn hull_err(e: HullError) -> LineError {
    match e {
        HullError::Internal { .. } => err("internal", e.to_string()),
        HullError::Empty => err("invalid_shape", "the point set is empty"),
        other => err("invalid_shape", other.to_string()),
    }
}

/// Answers one parsed hull query (without `id`).
pub fn answer(q: &Map<String, Value>, mode: Mode) -> Result<Map<String, Value>, LineError> {
    let mut out = Map::new();
    match mode {
        Mode::Space => {
            let pts: Vec<DVec3> = points::<3>(q)?.into_iter().map(DVec3::from_array).collect();
            let hull = quickhull3d_f64(&pts).map_err(hull_err)?;
            out.insert("dimension".into(), json!(hull.dimension() as u8));
            // The input numbers themselves (not rounded to the build's precision).
            out.insert(
                "vertices".into(),
                Value::Array(
                    hull.source_indices()
                        .iter()
                        .map(|&i| json!(pts[i].to_array()))
                        .collect(),
                ),
            );
            out.insert(
                "faces".into(),
                Value::Array(hull.faces().map(|f| json!(f)).collect()),
            );
            if hull.dimension() == Dimension::Polygon {
                out.insert("normal".into(), arr(hull.normal()));
            }
        }
        Mode::Plane(alg) => {
            let pts: Vec<DVec2> = points::<2>(q)?.into_iter().map(DVec2::from_array).collect();
            let ring = alg.run_f64(&pts).map_err(hull_err)?;
            out.insert("dimension".into(), json!(ring.len().min(3) - 1));
            out.insert(
                "vertices".into(),
                Value::Array(ring.iter().map(|&i| json!([pts[i].x, pts[i].y])).collect()),
            );
            out.insert("algorithm".into(), json!(alg.name()));
        }
    }
    Ok(out)
}
