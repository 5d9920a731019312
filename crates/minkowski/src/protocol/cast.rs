//! The `ray`, `cast` and `project` lines of `minkowski query` (the protocol's
//! Extensions): parsed requests and their answers.
//!
//! ```text
//! {"query": "ray", "shape": .., "pose": .., "origin": [..], "dir": [..], "max_toi": t, "solid": true}
//! {"query": "cast", "a": .., "pose_a": .., "vel_a": [..], "b": .., "pose_b": .., "vel_b": [..],
//!  "max_toi": t, "target_distance": s, "ang_vel_a": [..], "ang_vel_b": [..]}
//! {"query": "project", "shape": .., "pose": .., "point": [..]}
//! {"query": "height_at", "shape": {"type": "heightfield", ..}, "x": x, "z": z}
//! ```
//!
//! Every vector is world frame; `max_toi` defaults to infinity, `target_distance` to 0,
//! velocities to zero, `solid` to true. `ray` and `cast` take compounds (a turning
//! compound is refused); `project` takes a convex shape.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    arr, err, kind_of, parse_collider, parse_pose, shape_err, shape_err_owned, vec3, ErrorKind,
    LineError,
};
use crate::query::compound::{self, Collider};
use crate::query::{
    self, CastError, CastStart, Motion, QueryOptions, QueryStatus, Ray, RayOptions, ShapeCast,
};
use crate::shape::{HeightField, Shape, StaticShape};
use crate::{Pose, Real, Vector};

pub(crate) fn query_err(m: String) -> LineError {
    err(ErrorKind::InvalidQuery, m)
}

/// A required `[x, y, z]` field of the query (held to the magnitude limit as written).
pub(crate) fn field(q: &Map<String, Value>, name: &str) -> Result<Vector, LineError> {
    match q.get(name) {
        Some(v) => vec3(v, &format!("'{name}'"), query_err),
        None => Err(query_err(format!("missing '{name}': [x, y, z]"))),
    }
}

/// An optional `[x, y, z]` field (zero when absent or null).
pub(crate) fn optional(q: &Map<String, Value>, name: &str) -> Result<Vector, LineError> {
    match q.get(name) {
        None | Some(Value::Null) => Ok(Vector::ZERO),
        Some(v) => vec3(v, &format!("'{name}'"), query_err),
    }
}

/// An optional number `>= 0` (`default` when absent or null).
pub(crate) fn number(q: &Map<String, Value>, name: &str, default: Real) -> Result<Real, LineError> {
    match q.get(name) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(x) if x >= 0.0 => Ok(x as Real),
            _ => Err(query_err(format!(
                "'{name}' must be a number >= 0, got {n}"
            ))),
        },
        Some(other) => Err(query_err(format!(
            "'{name}' must be a number >= 0, got {}",
            kind_of(other)
        ))),
    }
}

/// A required shape field: a convex shape or a compound.
fn collider(q: &Map<String, Value>, name: &str) -> Result<Collider, LineError> {
    let v = q
        .get(name)
        .ok_or_else(|| query_err(format!("missing shape '{name}'")))?;
    parse_collider(v, name)
}

/// Parses a `heightfield` object: `heights` (rows along local z of columns along x,
/// `null` for a hole) or `png` (a grayscale depth map) with `height_scale`;
/// `cell_size: [sx, sz]`; optional `origin`.
///
/// # Errors
/// [`ErrorKind::InvalidShape`] naming the bad field, or the field's own error.
pub fn parse_heightfield(v: &Value, name: &str) -> Result<HeightField, LineError> {
    let obj = v
        .as_object()
        .ok_or_else(|| shape_err(format!("'{name}' must be a heightfield object")))?;
    let cell = match obj.get("cell_size").and_then(Value::as_array) {
        Some(a) if a.len() == 2 => {
            let x = a[0].as_f64();
            let z = a[1].as_f64();
            match (x, z) {
                (Some(x), Some(z)) => [x as Real, z as Real],
                _ => {
                    return Err(shape_err(
                        "heightfield cell_size must be [sx, sz] (2 numbers)",
                    ))
                }
            }
        }
        _ => return Err(shape_err("heightfield needs 'cell_size': [sx, sz]")),
    };
    let origin = match obj.get("origin") {
        None | Some(Value::Null) => Vector::ZERO,
        Some(o) => vec3(o, "heightfield origin", shape_err_owned)?,
    };
    let field = match (obj.get("heights"), obj.get("png")) {
        (Some(rows), None) => {
            let rows = rows
                .as_array()
                .ok_or_else(|| shape_err("heightfield heights must be an array of rows"))?;
            let cols = rows.first().and_then(Value::as_array).map_or(0, Vec::len);
            // Grown as the rows are checked: a line's first row must not size the
            // buffer for rows it does not have (a short line could claim terabytes).
            let mut samples = Vec::new();
            for (i, row) in rows.iter().enumerate() {
                let row = row.as_array().filter(|r| r.len() == cols).ok_or_else(|| {
                    shape_err(format!(
                        "heightfield heights[{i}] must be an array of {cols} numbers or nulls"
                    ))
                })?;
                for (j, h) in row.iter().enumerate() {
                    samples.push(match h {
                        Value::Null => None,
                        Value::Number(n) => Some(n.as_f64().unwrap_or(f64::NAN) as Real),
                        _ => {
                            return Err(shape_err(format!(
                                "heightfield heights[{i}][{j}] must be a number or null"
                            )))
                        }
                    });
                }
            }
            HeightField::new(rows.len(), cols, &samples, cell, origin)
        }
        (None, Some(Value::String(path))) => {
            let scale = obj
                .get("height_scale")
                .and_then(Value::as_f64)
                .ok_or_else(|| shape_err("heightfield png needs a number 'height_scale'"))?;
            HeightField::from_png(path, scale as Real, cell, origin)
        }
        _ => {
            return Err(shape_err(
                "heightfield needs exactly one of 'heights' (rows of numbers or nulls) and 'png' (a path)"
                    ,
            ))
        }
    };
    field.map_err(|e| shape_err(e.to_string()))
}

/// What a ray is cast at: a convex shape or compound, or static geometry.
#[derive(Debug, Clone, PartialEq)]
pub enum RayTarget {
    /// A convex shape or a compound.
    Collider(Collider),
    /// Static geometry (a heightfield).
    Static(StaticShape),
}

fn ray_target(q: &Map<String, Value>) -> Result<RayTarget, LineError> {
    let v = q
        .get("shape")
        .ok_or_else(|| query_err("missing shape 'shape'".into()))?;
    if super::statics::is_static(Some(v)) {
        return super::statics::parse_static(v, "shape").map(RayTarget::Static);
    }
    parse_collider(v, "shape").map(RayTarget::Collider)
}

/// A `height_at` line, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct HeightAtRequest {
    /// The field (`shape`).
    pub field: HeightField,
    /// Local x.
    pub x: Real,
    /// Local z.
    pub z: Real,
}

impl HeightAtRequest {
    /// Parses a `height_at` object.
    ///
    /// # Errors
    /// The first bad field, as the tool reports it.
    pub fn parse(q: &Map<String, Value>) -> Result<Self, LineError> {
        let v = q
            .get("shape")
            .ok_or_else(|| query_err("missing shape 'shape' (a heightfield)".into()))?;
        if v.get("type").and_then(Value::as_str) != Some("heightfield") {
            return Err(err(
                ErrorKind::InvalidShape,
                "'shape' of a height_at query must be a heightfield",
            ));
        }
        let field = parse_heightfield(v, "shape")?;
        let coord = |name: &str| match q.get(name).and_then(Value::as_f64) {
            Some(x) if x.is_finite() => Ok(x as Real),
            _ => Err(query_err(format!("'{name}' must be a finite number"))),
        };
        Ok(Self {
            field,
            x: coord("x")?,
            z: coord("z")?,
        })
    }

    /// The height there.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidQuery`] for a point outside the field's rectangle.
    pub fn answer(&self) -> Result<HeightAtAnswer, LineError> {
        match self.field.height_at(self.x, self.z) {
            Ok(Some(h)) => Ok(HeightAtAnswer {
                height: Some(h as f64),
                hole: None,
            }),
            Ok(None) => Ok(HeightAtAnswer {
                height: None,
                hole: Some(true),
            }),
            Err(e) => Err(query_err(e.to_string())),
        }
    }
}

/// The answer to a `height_at` line: `height`, or `hole: true`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HeightAtAnswer {
    /// The surface's local y there (origin included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    /// Present (true) over a hole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hole: Option<bool>,
}

pub(crate) fn cast_err(e: CastError) -> LineError {
    query_err(e.to_string())
}

/// A `ray` line, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct RayRequest {
    /// The shape (`shape`: convex, a compound or a heightfield), in its local frame.
    pub shape: RayTarget,
    /// Its pose (`pose`).
    pub pose: Pose,
    /// The ray (`origin`, `dir`; world frame).
    pub ray: Ray,
    /// `max_toi` and `solid`.
    pub options: RayOptions,
}

impl RayRequest {
    /// Parses a `ray` object.
    ///
    /// # Errors
    /// The first bad field, as the tool reports it.
    pub fn parse(q: &Map<String, Value>) -> Result<Self, LineError> {
        let shape = ray_target(q)?;
        let pose = parse_pose(q.get("pose"), "pose")?;
        let ray = Ray::new(field(q, "origin")?, field(q, "dir")?);
        let max_toi = number(q, "max_toi", Real::INFINITY)?;
        let solid = match q.get("solid") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(query_err(format!(
                    "'solid' must be a boolean, got {}",
                    kind_of(other)
                )))
            }
        };
        Ok(Self {
            shape,
            pose,
            ray,
            options: RayOptions { max_toi, solid },
        })
    }

    /// Runs the ray cast.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidQuery`] for a zero direction.
    pub fn answer(&self) -> Result<RayAnswer, LineError> {
        let part = match &self.shape {
            RayTarget::Collider(c) => {
                compound::cast_ray(c, &self.pose, &self.ray, &self.options).map_err(cast_err)?
            }
            RayTarget::Static(s) => compound::PartAnswer {
                answer: query::static_dispatch::cast_ray(s, &self.pose, &self.ray, &self.options)
                    .map_err(cast_err)?,
                part_a: None,
                part_b: None,
            },
        };
        let r = part.answer;
        Ok(RayAnswer {
            hit: r.hit.is_some(),
            part: r.hit.and(part.part_a),
            inside: r.hit.map(|h| h.inside),
            iterations: r.iterations,
            normal: r.hit.map(|h| arr(h.normal)),
            point: r.hit.map(|h| arr(h.point)),
            status: r.status,
            toi: r.hit.map(|h| h.toi as f64),
        })
    }
}

/// The answer to a `ray` line (see [`crate::query::RayCast`]); the hit's fields are
/// absent on a miss.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RayAnswer {
    /// Whether the ray hits the shape within `max_toi`.
    pub hit: bool,
    /// Whether the ray starts inside the shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inside: Option<bool>,
    /// GJK iterations (0 for closed forms).
    pub iterations: u32,
    /// Unit outward normal at the hit (world frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal: Option<[f64; 3]>,
    /// For a compound: the part hit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<u32>,
    /// The hit point (world frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<[f64; 3]>,
    /// How the answer was obtained.
    pub status: QueryStatus,
    /// The time of the hit, in units of `dir`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toi: Option<f64>,
}

/// A `project` line, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectRequest {
    /// The shape (`shape`), in its local frame.
    pub shape: Shape,
    /// Its pose (`pose`).
    pub pose: Pose,
    /// The point projected (`point`, world frame).
    pub point: Vector,
}

impl ProjectRequest {
    /// Parses a `project` object.
    ///
    /// # Errors
    /// The first bad field, as the tool reports it.
    pub fn parse(q: &Map<String, Value>) -> Result<Self, LineError> {
        let shape = match collider(q, "shape")? {
            Collider::Convex(s) => s,
            Collider::Compound(_) => {
                return Err(err(
                    ErrorKind::InvalidShape,
                    "'shape' of a project query must be a convex shape, got a compound",
                ))
            }
        };
        Ok(Self {
            shape,
            pose: parse_pose(q.get("pose"), "pose")?,
            point: field(q, "point")?,
        })
    }

    /// Runs the projection.
    ///
    /// # Errors
    /// Not for a parsed request (its point is checked); kept for symmetry.
    pub fn answer(&self) -> Result<ProjectAnswer, LineError> {
        let p = query::project_point(&self.shape, &self.pose, self.point).map_err(cast_err)?;
        Ok(ProjectAnswer {
            distance: p.distance as f64,
            inside: p.inside,
            iterations: p.iterations,
            point: arr(p.point),
            status: p.status,
        })
    }
}

/// The answer to a `project` line (see [`crate::query::PointProjection`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProjectAnswer {
    /// Signed distance to the surface (negative inside).
    pub distance: f64,
    /// Whether the point is inside the shape (never for a shape without interior).
    pub inside: bool,
    /// GJK plus EPA iterations.
    pub iterations: u32,
    /// The closest point of the surface (world frame).
    pub point: [f64; 3],
    /// How the answer was obtained.
    pub status: QueryStatus,
}

/// A `cast` line, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct CastRequest {
    /// Shape A (`a`, convex or a compound).
    pub a: Collider,
    /// A's pose at time 0.
    pub pose_a: Pose,
    /// Shape B (`b`, convex or a compound).
    pub b: Collider,
    /// B's pose at time 0.
    pub pose_b: Pose,
    /// A's motion (`vel_a`, `ang_vel_a`).
    pub motion_a: Motion,
    /// B's motion (`vel_b`, `ang_vel_b`).
    pub motion_b: Motion,
    /// `max_toi` (infinite when absent).
    pub max_toi: Real,
    /// `target_distance` (0 when absent).
    pub target_distance: Real,
}

impl CastRequest {
    /// Parses a `cast` object.
    ///
    /// # Errors
    /// The first bad field, as the tool reports it.
    pub fn parse(q: &Map<String, Value>) -> Result<Self, LineError> {
        let a = collider(q, "a")?;
        let b = collider(q, "b")?;
        let pose_a = parse_pose(q.get("pose_a"), "pose_a")?;
        let pose_b = parse_pose(q.get("pose_b"), "pose_b")?;
        let motion_a = Motion::new(optional(q, "vel_a")?, optional(q, "ang_vel_a")?);
        let motion_b = Motion::new(optional(q, "vel_b")?, optional(q, "ang_vel_b")?);
        let max_toi = number(q, "max_toi", Real::INFINITY)?;
        let target_distance = number(q, "target_distance", 0.0)?;
        Ok(Self {
            a,
            pose_a,
            b,
            pose_b,
            motion_a,
            motion_b,
            max_toi,
            target_distance,
        })
    }

    /// Runs the cast.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidQuery`] for a target distance beyond the magnitude limit.
    pub fn answer(&self) -> Result<CastAnswer, LineError> {
        let part = compound::cast_colliders(
            &self.a,
            &self.pose_a,
            self.motion_a,
            &self.b,
            &self.pose_b,
            self.motion_b,
            self.max_toi,
            self.target_distance,
            &QueryOptions::default(),
        )
        .map_err(cast_err)?;
        Ok(CastAnswer::new(&part.answer, part.part_a, part.part_b))
    }
}

impl CastAnswer {
    /// The answer to a cast, with the compound parts that answered.
    pub(crate) fn new(c: &ShapeCast, part_a: Option<u32>, part_b: Option<u32>) -> Self {
        CastAnswer {
            distance: c.initial_distance.map(|d| d as f64),
            hit: c.hit,
            initially: (c.start != CastStart::Separated).then_some(c.start),
            iterations: c.iterations,
            normal: c.hit.then(|| arr(c.normal)),
            part_a,
            part_b,
            point_a: c.hit.then(|| arr(c.point_a)),
            point_b: c.hit.then(|| arr(c.point_b)),
            status: c.status,
            toi: c.hit.then_some(c.toi as f64),
        }
    }
}

/// The answer to a `cast` line (see [`crate::query::ShapeCast`]); the hit's fields are
/// absent on a miss, `initially` and `distance` are present when the shapes start within
/// the target distance (overlapping or not).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CastAnswer {
    /// The signed distance at time 0 when the shapes start within the target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance: Option<f64>,
    /// Whether the shapes come within the target distance.
    pub hit: bool,
    /// `"overlapping"` or `"within_target"` when they start so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initially: Option<CastStart>,
    /// Support-map iterations in all.
    pub iterations: u32,
    /// Unit normal from A towards B at the time of impact (world frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal: Option<[f64; 3]>,
    /// For a compound A: the part that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_a: Option<u32>,
    /// For a compound B: the part that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_b: Option<u32>,
    /// The point of A at the time of impact (world frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point_a: Option<[f64; 3]>,
    /// The point of B at the time of impact (world frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point_b: Option<[f64; 3]>,
    /// How the answer was obtained.
    pub status: QueryStatus,
    /// The time of impact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toi: Option<f64>,
}

/// Whether every number of an answer is finite.
pub(crate) fn finite(xs: impl IntoIterator<Item = f64>) -> bool {
    xs.into_iter().all(f64::is_finite)
}

impl RayAnswer {
    pub(crate) fn is_finite(&self) -> bool {
        finite(
            self.toi
                .into_iter()
                .chain(self.normal.into_iter().flatten())
                .chain(self.point.into_iter().flatten()),
        )
    }
}

impl ProjectAnswer {
    pub(crate) fn is_finite(&self) -> bool {
        finite(std::iter::once(self.distance).chain(self.point))
    }
}

impl CastAnswer {
    pub(crate) fn is_finite(&self) -> bool {
        finite(
            self.toi
                .into_iter()
                .chain(self.distance)
                .chain(self.normal.into_iter().flatten())
                .chain(self.point_a.into_iter().flatten())
                .chain(self.point_b.into_iter().flatten()),
        )
    }
}
