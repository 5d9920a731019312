//! The `minkowski hull` half of the protocol (`docs/query-protocol.md`).
//!
//! In: `{"id": ..., "points": [[x, y, z], ...]}` per line (`[x, y]` for 2D hulls).
//! Out, 3D ([`Hull3dAnswer`]): the extreme points (a subset of the input, no repeats),
//! and faces as convex polygons indexing them, counter-clockwise seen from outside
//! (coplanar triangles merged). Degenerate input keeps its dimension: 2 (one polygon
//! face, counter-clockwise about `normal`, which is also given), 1 (the two end points,
//! no faces), 0 (one vertex, no faces).
//! Out, 2D ([`Hull2dAnswer`]): the vertices counter-clockwise from the lowest (then
//! leftmost) point, collinear boundary points excluded; dimension 1 or 0 for collinear or
//! all-equal input.
//!
//! Errors as in `query` ([`super::LineError`]): `invalid_json`, `invalid_query` (no
//! `points`, wrong arity), `invalid_shape` (empty, non-finite or out-of-range points),
//! `internal`.
//!
//! Points are read and hulled as `f64` in both builds (exact predicates; coordinates up
//! to [`crate::hull::MAX_MAGNITUDE_F64`] = 1e60), and vertices are echoed as given.

use glam::{DVec2, DVec3};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{arr, err, kind_of, ErrorKind, LineError};
use crate::hull::{quickhull3d_f64, Algorithm2d, Dimension, HullError};

/// What `minkowski hull` computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// 3D hulls by quickhull.
    Space,
    /// 2D hulls by the given algorithm.
    Plane(Algorithm2d),
}

/// The answer to a 3D hull line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hull3dAnswer {
    /// 3 for a solid hull, 2 for coplanar points, 1 for collinear, 0 for all equal.
    pub dimension: u8,
    /// The faces: convex polygons of indices into `vertices`, counter-clockwise seen
    /// from outside (one face for a flat hull, none below).
    pub faces: Vec<Vec<u32>>,
    /// For a flat hull (dimension 2): the unit normal its face is counter-clockwise
    /// about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal: Option<[f64; 3]>,
    /// The hull's vertices, as given in the input.
    pub vertices: Vec<[f64; 3]>,
}

/// The answer to a 2D hull line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hull2dAnswer {
    /// The algorithm that ran (`"graham"`, ..., `"monotone"`).
    pub algorithm: String,
    /// 2 for a polygon, 1 for collinear points, 0 for all equal.
    pub dimension: usize,
    /// The hull's vertices, as given, counter-clockwise from the lowest (then leftmost).
    pub vertices: Vec<[f64; 2]>,
}

/// The answer to a hull line, by [`Mode`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum HullAnswer {
    /// A 3D hull.
    Space(Hull3dAnswer),
    /// A 2D hull.
    Plane(Hull2dAnswer),
}

/// The points as `f64`, whatever the build's precision: hulls are computed with exact
/// predicates on the numbers as given.
fn points<const N: usize>(q: &Map<String, Value>) -> Result<Vec<[f64; N]>, LineError> {
    let list = match q.get("points") {
        Some(Value::Array(a)) => a,
        Some(other) => {
            return Err(err(
                ErrorKind::InvalidQuery,
                format!(
                    "'points' must be an array of points, got {}",
                    kind_of(other)
                ),
            ))
        }
        None => return Err(err(ErrorKind::InvalidQuery, "a hull query needs 'points'")),
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, p) in list.iter().enumerate() {
        let coords = p.as_array().filter(|c| c.len() == N).ok_or_else(|| {
            err(
                ErrorKind::InvalidQuery,
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
                    ErrorKind::InvalidQuery,
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
        HullError::Internal { .. } => err(ErrorKind::Internal, e.to_string()),
        HullError::Empty => err(ErrorKind::InvalidShape, "the point set is empty"),
        other => err(ErrorKind::InvalidShape, other.to_string()),
    }
}

/// Answers one parsed hull line (without `id`, which the line handler adds; see
/// [`super::answer_line_with`]).
///
/// # Errors
/// [`ErrorKind::InvalidQuery`] for missing or malformed `points`,
/// [`ErrorKind::InvalidShape`] for an empty, non-finite or out-of-range point set,
/// [`ErrorKind::Internal`] for an internal hull error.
pub fn answer(q: &Map<String, Value>, mode: Mode) -> Result<HullAnswer, LineError> {
    match mode {
        Mode::Space => {
            let pts: Vec<DVec3> = points::<3>(q)?.into_iter().map(DVec3::from_array).collect();
            let hull = quickhull3d_f64(&pts).map_err(hull_err)?;
            Ok(HullAnswer::Space(Hull3dAnswer {
                dimension: hull.dimension() as u8,
                faces: hull.faces().map(<[u32]>::to_vec).collect(),
                normal: (hull.dimension() == Dimension::Polygon).then(|| arr(hull.normal())),
                // The input numbers themselves (not rounded to the build's precision).
                vertices: hull
                    .source_indices()
                    .iter()
                    .map(|&i| pts[i].to_array())
                    .collect(),
            }))
        }
        Mode::Plane(alg) => {
            let pts: Vec<DVec2> = points::<2>(q)?.into_iter().map(DVec2::from_array).collect();
            let ring = alg.run_f64(&pts).map_err(hull_err)?;
            Ok(HullAnswer::Plane(Hull2dAnswer {
                algorithm: alg.name().to_string(),
                dimension: ring.len().min(3) - 1,
                vertices: ring.iter().map(|&i| pts[i].to_array()).collect(),
            }))
        }
    }
}
