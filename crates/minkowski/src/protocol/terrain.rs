//! The `backward_project` line of `minkowski query` (the protocol's Extensions):
//! displacement-mapped terrain's backward projection ([`crate::terrain`]).
//!
//! ```text
//! {"query": "backward_project", "triangle": {"p": [[..], [..], [..]], "n": [[..], [..], [..]]},
//!  "point": [..], "method": "aligned_plane" | "aligned_projection" | "alpha_plane"}
//! ```
//!
//! Answer: `inside`, `iterations`, `status`, `t`, `u`, `v` ([`BackwardProjectAnswer`]).
//! A bad triangle is an `invalid_shape` error; a missing triangle, a bad point, a
//! missing or unknown method, and a point too far from the triangle are
//! `invalid_query` errors.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::cast::{field, query_err};
use super::{kind_of, shape_err, shape_err_owned, vec3, LineError};
use crate::terrain::{backward_project, BackProjectionMethod, BackProjectionStatus, BaseTriangle};
use crate::Vector;

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
