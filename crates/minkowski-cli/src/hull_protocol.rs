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

use minkowski::hull::{quickhull3d, Algorithm2d, Dimension, HullError};
use minkowski::math::Vector2;
use minkowski::{Real, Vector};
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

fn points<const N: usize>(q: &Map<String, Value>) -> Result<Vec<[Real; N]>, LineError> {
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
        let mut xyz = [0.0 as Real; N];
        for (k, c) in coords.iter().enumerate() {
            xyz[k] = c.as_f64().ok_or_else(|| {
                err(
                    "invalid_query",
                    format!("points[{i}][{k}] must be a number, got {}", kind_of(c)),
                )
            })? as Real;
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
            let pts: Vec<Vector> = points::<3>(q)?
                .into_iter()
                .map(Vector::from_array)
                .collect();
            let hull = quickhull3d(&pts).map_err(hull_err)?;
            out.insert("dimension".into(), json!(hull.dimension() as u8));
            out.insert(
                "vertices".into(),
                Value::Array(hull.vertices().iter().map(|v| arr(*v)).collect()),
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
            let pts: Vec<Vector2> = points::<2>(q)?
                .into_iter()
                .map(Vector2::from_array)
                .collect();
            let ring = alg.run(&pts).map_err(hull_err)?;
            out.insert("dimension".into(), json!(ring.len().min(3) - 1));
            out.insert(
                "vertices".into(),
                Value::Array(
                    ring.iter()
                        .map(|&i| json!([pts[i].x as f64, pts[i].y as f64]))
                        .collect(),
                ),
            );
            out.insert("algorithm".into(), json!(alg.name()));
        }
    }
    Ok(out)
}
