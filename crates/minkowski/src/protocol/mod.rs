//! The JSON-lines protocol of the `minkowski` tool (feature `protocol`): typed requests
//! and answers, and the line handlers the tool runs. The protocol itself is written up
//! in `docs/query-protocol.md` in the repository; this module is its implementation, so
//! that an application (a server, a test harness) speaks it without the binary.
//!
//! One query object per line in, one answer object per line out, in order. A line that
//! cannot be answered gets `{"id": ..., "error": {"kind": ..., "message": ...}}` (see
//! [`LineError`]), and the tool goes on.
//!
//! * [`QueryRequest`]: a parsed `minkowski query` line ([`QueryRequest::parse`] checks
//!   it exactly as the tool does, with the tool's error messages); [`QueryRequest::answer`]
//!   runs it and gives an [`Answer`]. Both serialize to the protocol's objects.
//! * [`hull`]: the same for `minkowski hull`.
//! * [`answer_line`] / [`answer_line_with`]: one input line to one output line, `id`
//!   echoed verbatim.
//!
//! Decided at the edges of the format (each pinned by a CLI test):
//! - `id` is echoed exactly as written, as raw JSON text: an integer beyond 64 bits stays
//!   that integer, `-0` stays `-0`, `1.50e3` stays `1.50e3`; only the whitespace between
//!   its tokens is dropped (`[1, 2]` comes back `[1,2]`), so that an id never splits the
//!   answer's line;
//! - a UTF-8 byte-order mark before the first line is skipped, and a line of JSON
//!   whitespace only (space, tab, carriage return) carries no query and gets no answer
//!   (both done by the tool's reading loop, which sees the lines as bytes); every other
//!   line gets one, so a line of other Unicode spaces is an `invalid_json` error;
//! - lengths and coordinates are held to [`MAX_MAGNITUDE`](crate::shape::MAX_MAGNITUDE)
//!   as written, before they are rounded to the build's precision.
//!
//! Answers write every number as the `f64` value of the build's [`Real`] (in the `f32`
//! build `0.1f32` is written `0.10000000149011612`): the exact number the library
//! computed, which a reader in any language gets back bit for bit.

pub mod cast;
pub mod hull;
pub mod statics;
pub mod terrain;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::query::compound::{self, Collider};
use crate::query::manifold::manifold_compound;
use crate::query::{self, ContactMethod, Manifold, QueryOptions, QueryStatus};
use crate::shape::{Compound, Shape, ShapeError, ShapeParams};
use crate::{Pose, Real, Rotation, Vector};

/// The kind of a [`LineError`], the `error.kind` field of an error answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The line is not JSON (or not UTF-8).
    InvalidJson,
    /// The line is JSON but not a query: not an object, no or an unknown `query`, a
    /// missing shape, a bad option (`margin`), a hull line without `points`.
    InvalidQuery,
    /// A shape object cannot be read or names an invalid shape.
    InvalidShape,
    /// A pose object cannot be read or names an invalid pose.
    InvalidPose,
    /// The library failed on valid input (a non-finite result, an internal hull
    /// error): a bug to report with the line.
    Internal,
}

impl ErrorKind {
    /// The protocol name: `"invalid_json"`, `"invalid_query"`, `"invalid_shape"`,
    /// `"invalid_pose"`, `"internal"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidJson => "invalid_json",
            ErrorKind::InvalidQuery => "invalid_query",
            ErrorKind::InvalidShape => "invalid_shape",
            ErrorKind::InvalidPose => "invalid_pose",
            ErrorKind::Internal => "internal",
        }
    }
}

/// A line that cannot be answered: the protocol's error kind and a message naming the
/// offending field (`"capsule radius must be a number, got a string"`). Serializes as
/// the `error` object of an error answer, `{"kind": ..., "message": ...}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{}: {message}", kind.as_str())]
pub struct LineError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Which field and why, for a person.
    pub message: String,
}

impl LineError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        LineError {
            kind,
            message: message.into(),
        }
    }
}

/// A shape constructor's refusal, as an [`ErrorKind::InvalidShape`] error.
impl From<ShapeError> for LineError {
    fn from(e: ShapeError) -> Self {
        shape_err(e.to_string())
    }
}

/// The answer to a line that cannot be answered: `{"error": {"kind", "message"}}` (the
/// line handlers put `id` first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorAnswer {
    /// Why the line got no answer.
    pub error: LineError,
}

fn err(kind: ErrorKind, message: impl Into<String>) -> LineError {
    LineError::new(kind, message)
}

fn shape_err(message: impl Into<String>) -> LineError {
    err(ErrorKind::InvalidShape, message)
}

fn shape_err_owned(m: String) -> LineError {
    shape_err(m)
}

fn pose_err_owned(m: String) -> LineError {
    err(ErrorKind::InvalidPose, m)
}

/// A JSON number as [`Real`], its magnitude held to [`crate::shape::MAX_MAGNITUDE`]
/// *as written*, before rounding to the build's precision (in f32, 100000004 would
/// otherwise round to the limit 1e8 and pass). `what` names it in the error.
fn within_limit(x: f64, what: &str, make: fn(String) -> LineError) -> Result<Real, LineError> {
    let max = crate::shape::MAX_MAGNITUDE;
    if x.abs() > max as f64 {
        return Err(make(format!(
            "{what} magnitude must be <= {max:?}, got {x:?}"
        )));
    }
    Ok(x as Real)
}

/// Reads a JSON number as [`Real`] (NaN cannot appear in JSON; see [`within_limit`]).
fn number(obj: &Map<String, Value>, ty: &str, field: &str) -> Result<Real, LineError> {
    match obj.get(field) {
        Some(Value::Number(n)) => n
            .as_f64()
            .ok_or_else(|| shape_err(format!("{ty} {field} must be a number")))
            .and_then(|x| within_limit(x, &format!("{ty} {field}"), shape_err_owned)),
        Some(other) => Err(shape_err(format!(
            "{ty} {field} must be a number, got {}",
            kind_of(other)
        ))),
        None => Err(shape_err(format!("{ty} needs a number '{field}'"))),
    }
}

/// What kind of JSON value `v` is, for error messages (`"a string"`, `"an array"`, ...).
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Reads `[x, y, z]`.
fn vec3(v: &Value, what: &str, make: fn(String) -> LineError) -> Result<Vector, LineError> {
    let arr = v.as_array().ok_or_else(|| {
        make(format!(
            "{what} must be an array of 3 numbers, got {}",
            kind_of(v)
        ))
    })?;
    if arr.len() != 3 {
        return Err(make(format!(
            "{what} must be an array of 3 numbers, got {} elements",
            arr.len()
        )));
    }
    let mut out = [0.0 as Real; 3];
    for (i, x) in arr.iter().enumerate() {
        let x = x
            .as_f64()
            .ok_or_else(|| make(format!("{what}[{i}] must be a number, got {}", kind_of(x))))?;
        out[i] = within_limit(x, &format!("{what}[{i}]"), make)?;
    }
    Ok(Vector::from_array(out))
}

fn field_vec3(obj: &Map<String, Value>, ty: &str, field: &str) -> Result<Vector, LineError> {
    match obj.get(field) {
        Some(v) => vec3(v, &format!("{ty} {field}"), shape_err_owned),
        None => Err(shape_err(format!("{ty} needs '{field}': [x, y, z]"))),
    }
}

/// Parses a convex shape object: its `type` names a registered shape
/// ([`Shape::TYPE_NAMES`]), whose constructor reads the other fields through
/// [`ShapeParams`] ([`Shape::from_params`]). `name` says where the object is (`"a"`,
/// `"rounded shape"`, ...) in the error messages.
///
/// # Errors
/// [`ErrorKind::InvalidShape`] naming the first bad field, an unknown type, or a
/// compound (see [`parse_collider`]).
pub fn parse_shape(v: &Value, name: &str) -> Result<Shape, LineError> {
    let obj = v.as_object().ok_or_else(|| {
        shape_err(format!(
            "'{name}' must be a shape object, got {}",
            kind_of(v)
        ))
    })?;
    let ty = match obj.get("type") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(shape_err(format!(
                "shape 'type' must be a string, got {}",
                kind_of(other)
            )))
        }
        None => return Err(shape_err(format!("'{name}' needs a 'type'"))),
    };
    if ty == "compound" {
        return Err(shape_err(format!(
            "'{name}' cannot be a compound (compounds are only accepted as a query's \
             'a' or 'b', with convex parts)"
        )));
    }
    Shape::from_params(ty, &JsonShape { obj, ty }).unwrap_or_else(|| {
        Err(shape_err(format!(
            "unknown shape type '{}' (expected {} or compound)",
            truncate(ty, 64),
            Shape::TYPE_NAMES.join(", ")
        )))
    })
}

/// A shape object's fields, read for the shape's constructor
/// ([`crate::shape::ConvexShape::from_params`]). Error messages name the shape type and
/// the field (`"capsule radius must be a number, got a string"`).
struct JsonShape<'a> {
    obj: &'a Map<String, Value>,
    ty: &'a str,
}

impl ShapeParams for JsonShape<'_> {
    type Error = LineError;

    fn number(&self, field: &'static str) -> Result<Real, LineError> {
        number(self.obj, self.ty, field)
    }

    fn vector(&self, field: &'static str) -> Result<Vector, LineError> {
        field_vec3(self.obj, self.ty, field)
    }

    fn optional_vector(&self, field: &'static str) -> Result<Option<Vector>, LineError> {
        self.obj
            .get(field)
            .map(|v| vec3(v, &format!("{} {field}", self.ty), shape_err_owned))
            .transpose()
    }

    fn points(&self, field: &'static str) -> Result<Vec<Vector>, LineError> {
        let ty = self.ty;
        let pts = self
            .obj
            .get(field)
            .ok_or_else(|| shape_err(format!("{ty} needs '{field}': [[x, y, z], ...]")))?;
        let arr = pts.as_array().ok_or_else(|| {
            shape_err(format!(
                "{ty} {field} must be an array, got {}",
                kind_of(pts)
            ))
        })?;
        arr.iter()
            .enumerate()
            .map(|(i, p)| vec3(p, &format!("{ty} {field}[{i}]"), shape_err_owned))
            .collect()
    }

    fn shape(&self, field: &'static str) -> Result<Shape, LineError> {
        let ty = self.ty;
        let inner = self
            .obj
            .get(field)
            .ok_or_else(|| shape_err(format!("{ty} needs an inner '{field}'")))?;
        parse_shape(inner, &format!("{ty} {field}"))
    }
}

/// Parses a query's shape: a convex shape ([`parse_shape`]), or a `compound` of convex
/// parts (`parts: [{"shape": {...}, "pose": {...}}, ...]`, at least one).
///
/// # Errors
/// [`ErrorKind::InvalidShape`] (or [`ErrorKind::InvalidPose`] for a part's pose) naming
/// the first bad field.
pub fn parse_collider(v: &Value, name: &str) -> Result<Collider, LineError> {
    let obj = match v.as_object() {
        Some(o) if o.get("type").and_then(Value::as_str) == Some("compound") => o,
        _ => return parse_shape(v, name).map(Collider::Convex),
    };
    let parts = obj.get("parts").ok_or_else(|| {
        shape_err("compound needs 'parts': [{\"shape\": ..., \"pose\": ...}, ...]")
    })?;
    let arr = parts.as_array().ok_or_else(|| {
        shape_err(format!(
            "compound parts must be an array, got {}",
            kind_of(parts)
        ))
    })?;
    if arr.is_empty() {
        return Err(shape_err("compound needs at least one part"));
    }
    let mut out = Vec::with_capacity(arr.len());
    for (i, part) in arr.iter().enumerate() {
        let p = part.as_object().ok_or_else(|| {
            shape_err(format!(
                "compound parts[{i}] must be an object, got {}",
                kind_of(part)
            ))
        })?;
        let shape = p
            .get("shape")
            .ok_or_else(|| shape_err(format!("compound parts[{i}] needs a 'shape'")))?;
        let shape = parse_shape(shape, &format!("compound parts[{i}] shape"))?;
        let pose = parse_pose(p.get("pose"), &format!("compound parts[{i}] pose"))?;
        out.push((pose, shape));
    }
    Compound::new(out)
        .map(Collider::from)
        .map_err(|e| shape_err(e.to_string()))
}

/// Reads the optional `margin` of a manifold query (default 0): a finite number `>= 0`.
fn parse_margin(q: &Map<String, Value>) -> Result<Real, LineError> {
    let m = match q.get("margin") {
        None => return Ok(0.0),
        Some(Value::Number(n)) => n.as_f64().map(|x| x as Real),
        Some(_) => None,
    };
    match m {
        Some(m) if m.is_finite() && m >= 0.0 => Ok(m),
        _ => Err(err(
            ErrorKind::InvalidQuery,
            format!(
                "'margin' must be a finite number >= 0, got {}",
                q.get("margin")
                    .map_or_else(String::new, |v| truncate(&v.to_string(), 64))
            ),
        )),
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n).collect::<String>() + "..."
    }
}

/// Parses an optional pose object (absent or `null`: the identity). `name` says where
/// it is (`"pose_a"`, ...) in the error messages.
///
/// # Errors
/// [`ErrorKind::InvalidPose`] naming the bad field, or [`Pose::new`]'s refusal.
pub fn parse_pose(v: Option<&Value>, name: &str) -> Result<Pose, LineError> {
    let v = match v {
        None | Some(Value::Null) => return Ok(Pose::IDENTITY),
        Some(v) => v,
    };
    let obj = v.as_object().ok_or_else(|| {
        err(
            ErrorKind::InvalidPose,
            format!("'{name}' must be an object, got {}", kind_of(v)),
        )
    })?;
    let translation = match obj.get("translation") {
        Some(t) => vec3(t, &format!("{name} translation"), pose_err_owned)?,
        None => Vector::ZERO,
    };
    let rotation = match obj.get("rotation") {
        Some(r) => {
            let arr = r.as_array().filter(|a| a.len() == 4).ok_or_else(|| {
                err(
                    ErrorKind::InvalidPose,
                    format!("{name} rotation must be [x, y, z, w] (4 numbers)"),
                )
            })?;
            let mut q = [0.0 as Real; 4];
            for (i, x) in arr.iter().enumerate() {
                q[i] = x.as_f64().ok_or_else(|| {
                    err(
                        ErrorKind::InvalidPose,
                        format!("{name} rotation[{i}] must be a number, got {}", kind_of(x)),
                    )
                })? as Real;
            }
            Rotation::from_xyzw(q[0], q[1], q[2], q[3])
        }
        None => Rotation::IDENTITY,
    };
    // (Pose::new also holds the translation to the shapes' magnitude limit.)
    Pose::new(rotation, translation)
        .map_err(|e| err(ErrorKind::InvalidPose, format!("{name}: {e}")))
}

/// A vector as the protocol writes it: `[x, y, z]`, each the `f64` value of the
/// build's [`Real`].
pub fn arr(v: Vector) -> [f64; 3] {
    [v.x as f64, v.y as f64, v.z as f64]
}

/// The kind of a `minkowski query` line: its `query` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryKind {
    /// Whether the shapes overlap or touch: [`IntersectsAnswer`].
    Intersects,
    /// Their distance: [`DistanceAnswer`].
    Distance,
    /// Their distance and closest points: [`ClosestPointsAnswer`].
    ClosestPoints,
    /// Signed distance, normal and witness points: [`ContactAnswer`].
    Contact,
    /// Up to four contact points sharing a normal: [`ManifoldAnswer`].
    Manifold,
}

impl QueryKind {
    /// Every kind, in protocol order.
    pub const ALL: [QueryKind; 5] = [
        QueryKind::Intersects,
        QueryKind::Distance,
        QueryKind::ClosestPoints,
        QueryKind::Contact,
        QueryKind::Manifold,
    ];

    /// The protocol name (`"intersects"`, `"distance"`, `"closest_points"`,
    /// `"contact"`, `"manifold"`).
    pub fn as_str(self) -> &'static str {
        match self {
            QueryKind::Intersects => "intersects",
            QueryKind::Distance => "distance",
            QueryKind::ClosestPoints => "closest_points",
            QueryKind::Contact => "contact",
            QueryKind::Manifold => "manifold",
        }
    }

    /// The kind named `name`, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == name)
    }
}

/// A `minkowski query` line, parsed and checked: which query, the two colliders (convex
/// shapes or compounds) and their world poses, and the manifold's `margin`.
///
/// Serializes to the protocol's query object (without `id`, which belongs to the line:
/// see [`answer_line`]); deserializes from one through [`QueryRequest::parse`], so with
/// the tool's checks (the error's message is the tool's).
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRequest {
    /// The query (`query`).
    pub kind: QueryKind,
    /// Shape A (`a`), in its local frame.
    pub a: Collider,
    /// A's pose in the world (`pose_a`, the identity when absent).
    pub pose_a: Pose,
    /// Shape B (`b`), in its local frame.
    pub b: Collider,
    /// B's pose in the world (`pose_b`, the identity when absent).
    pub pose_b: Pose,
    /// For [`QueryKind::Manifold`]: also report points whose separation is below it
    /// (length, `>= 0`; `margin`, 0 when absent). Not written for the other kinds.
    pub margin: Real,
}

impl QueryRequest {
    /// Parses a query object, checking in the tool's order: `query`, `margin` (for a
    /// manifold), `a`, `b`, `pose_a`, `pose_b`. Unknown fields (`id` among them) are
    /// ignored.
    ///
    /// # Errors
    /// The first problem found, with the tool's kind and message.
    pub fn parse(q: &Map<String, Value>) -> Result<Self, LineError> {
        let kind = match q.get("query") {
            Some(Value::String(s)) => s.as_str(),
            Some(other) => {
                return Err(err(
                    ErrorKind::InvalidQuery,
                    format!("'query' must be a string, got {}", kind_of(other)),
                ))
            }
            None => return Err(err(ErrorKind::InvalidQuery, "missing 'query'")),
        };
        let Some(kind) = QueryKind::from_name(kind) else {
            return Err(err(
                ErrorKind::InvalidQuery,
                format!(
                    "unknown query '{}' (expected intersects, distance, closest_points, \
                     contact, manifold, ray, cast, project, height_at, backward_project or terrain_contact)",
                    truncate(kind, 64)
                ),
            ));
        };
        let margin = if kind == QueryKind::Manifold {
            parse_margin(q)?
        } else {
            0.0
        };
        let a = parse_collider(
            q.get("a")
                .ok_or_else(|| err(ErrorKind::InvalidQuery, "missing shape 'a'"))?,
            "a",
        )?;
        let b = parse_collider(
            q.get("b")
                .ok_or_else(|| err(ErrorKind::InvalidQuery, "missing shape 'b'"))?,
            "b",
        )?;
        let pose_a = parse_pose(q.get("pose_a"), "pose_a")?;
        let pose_b = parse_pose(q.get("pose_b"), "pose_b")?;
        Ok(QueryRequest {
            kind,
            a,
            pose_a,
            b,
            pose_b,
            margin,
        })
    }

    /// Runs the query with default options: through the shape-level queries
    /// ([`crate::query`]) for two convex shapes, through [`crate::query::compound`]
    /// when either is a compound (then the answer says which parts answered).
    pub fn answer(&self) -> Answer {
        match (&self.a, &self.b) {
            (Collider::Convex(a), Collider::Convex(b)) => self.answer_convex(a, b),
            _ => self.answer_compound(),
        }
    }

    fn answer_convex(&self, a: &Shape, b: &Shape) -> Answer {
        let (pa, pb) = (&self.pose_a, &self.pose_b);
        match self.kind {
            QueryKind::Intersects => Answer::Intersects(IntersectsAnswer {
                intersects: query::intersects(a, pa, b, pb),
                part_a: None,
                part_b: None,
            }),
            QueryKind::Distance => {
                let r = query::distance(a, pa, b, pb);
                Answer::Distance(DistanceAnswer {
                    distance: r.distance as f64,
                    intersects: r.intersecting,
                    iterations: r.iterations,
                    part_a: None,
                    part_b: None,
                    status: r.status,
                })
            }
            QueryKind::ClosestPoints => {
                let r = query::closest_points(a, pa, b, pb);
                Answer::ClosestPoints(ClosestPointsAnswer::new(&r, None, None))
            }
            QueryKind::Contact => Answer::Contact(ContactAnswer::new(
                &query::contact(a, pa, b, pb),
                None,
                None,
            )),
            QueryKind::Manifold => Answer::Manifold(ManifoldAnswer::new(
                &query::manifold(a, pa, b, pb, self.margin),
                None,
                None,
            )),
        }
    }

    fn answer_compound(&self) -> Answer {
        let opts = QueryOptions::default();
        let (a, pa, b, pb) = (&self.a, &self.pose_a, &self.b, &self.pose_b);
        match self.kind {
            QueryKind::Intersects => {
                let r = compound::intersects(a, pa, b, pb, &opts);
                Answer::Intersects(IntersectsAnswer {
                    intersects: r.is_some(),
                    part_a: r.and_then(|r| r.part_a),
                    part_b: r.and_then(|r| r.part_b),
                })
            }
            QueryKind::Distance => {
                let r = compound::closest_points(a, pa, b, pb, &opts);
                let c = r.answer;
                Answer::Distance(DistanceAnswer {
                    distance: c.distance as f64,
                    intersects: c.intersecting,
                    iterations: c.iterations,
                    part_a: r.part_a,
                    part_b: r.part_b,
                    status: c.status,
                })
            }
            QueryKind::ClosestPoints => {
                let r = compound::closest_points(a, pa, b, pb, &opts);
                Answer::ClosestPoints(ClosestPointsAnswer::new(&r.answer, r.part_a, r.part_b))
            }
            QueryKind::Contact => {
                let r = compound::contact(a, pa, b, pb, &opts);
                Answer::Contact(ContactAnswer::new(&r.answer, r.part_a, r.part_b))
            }
            QueryKind::Manifold => {
                let r = manifold_compound(a, pa, b, pb, self.margin, &opts);
                Answer::Manifold(ManifoldAnswer::new(&r.answer, r.part_a, r.part_b))
            }
        }
    }
}

/// Writes the protocol's query object: `query`, `a`, `pose_a`, `b`, `pose_b` and, for a
/// manifold, `margin`.
impl Serialize for QueryRequest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry("query", &self.kind)?;
        m.serialize_entry("a", &self.a)?;
        m.serialize_entry("pose_a", &self.pose_a)?;
        m.serialize_entry("b", &self.b)?;
        m.serialize_entry("pose_b", &self.pose_b)?;
        if self.kind == QueryKind::Manifold {
            m.serialize_entry("margin", &crate::math::shortest_f64(self.margin))?;
        }
        m.end()
    }
}

/// Reads a query object and checks it with [`QueryRequest::parse`].
impl<'de> Deserialize<'de> for QueryRequest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(deserializer)?;
        let obj = v.as_object().ok_or_else(|| {
            serde::de::Error::custom(format!(
                "a query must be a JSON object, got {}",
                kind_of(&v)
            ))
        })?;
        QueryRequest::parse(obj).map_err(|e| serde::de::Error::custom(e.message))
    }
}

/// Whether every number in an answer is finite (the library never produces NaN on
/// validated input; the line handler refuses to print one anyway).
fn all_finite(xs: &[f64]) -> bool {
    xs.iter().all(|x| x.is_finite())
}

/// The answer to an `intersects` query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntersectsAnswer {
    /// Whether the shapes overlap or touch.
    pub intersects: bool,
    /// For a compound A that intersects: the index of a part that does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_a: Option<u32>,
    /// For a compound B that intersects: the index of a part that does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_b: Option<u32>,
}

/// The answer to a `distance` query (see [`crate::query::DistanceOutput`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DistanceAnswer {
    /// Distance between the shapes (length, `>= 0`; 0 when they overlap or touch).
    pub distance: f64,
    /// Whether the shapes overlap or touch.
    pub intersects: bool,
    /// GJK iterations (0 for closed forms).
    pub iterations: u32,
    /// For a compound A: the part that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_a: Option<u32>,
    /// For a compound B: the part that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_b: Option<u32>,
    /// How the answer was obtained.
    pub status: QueryStatus,
}

/// The answer to a `closest_points` query (see [`crate::query::ClosestPoints`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClosestPointsAnswer {
    /// Distance between the shapes (length, `>= 0`; 0 when they overlap or touch).
    pub distance: f64,
    /// Whether the shapes overlap or touch.
    pub intersects: bool,
    /// GJK iterations (0 for closed forms).
    pub iterations: u32,
    /// For a compound A: the part that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_a: Option<u32>,
    /// For a compound B: the part that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_b: Option<u32>,
    /// Closest point on A (world frame; common to both when they overlap).
    pub point_a: [f64; 3],
    /// Closest point on B (world frame).
    pub point_b: [f64; 3],
    /// How the answer was obtained.
    pub status: QueryStatus,
}

impl ClosestPointsAnswer {
    fn new(r: &query::ClosestPoints, part_a: Option<u32>, part_b: Option<u32>) -> Self {
        ClosestPointsAnswer {
            distance: r.distance as f64,
            intersects: r.intersecting,
            iterations: r.iterations,
            part_a,
            part_b,
            point_a: arr(r.point_a),
            point_b: arr(r.point_b),
            status: r.status,
        }
    }
}

/// The answer to a `contact` query (see [`crate::query::Contact`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ContactAnswer {
    /// Signed distance (length): negative = penetration depth.
    pub distance: f64,
    /// Whether the shapes overlap or touch (`distance <= 0`).
    pub intersects: bool,
    /// Iterations of GJK plus EPA (0 for closed forms and SAT).
    pub iterations: u32,
    /// Which routine answered.
    pub method: ContactMethod,
    /// Unit normal from A towards B (world frame).
    pub normal: [f64; 3],
    /// For a compound A: the part that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_a: Option<u32>,
    /// For a compound B: the part that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_b: Option<u32>,
    /// Point on A's surface (world frame).
    pub point_a: [f64; 3],
    /// Point on B's surface (world frame); `point_b − point_a = distance · normal`.
    pub point_b: [f64; 3],
    /// How the answer was obtained.
    pub status: QueryStatus,
}

impl ContactAnswer {
    fn new(c: &query::Contact, part_a: Option<u32>, part_b: Option<u32>) -> Self {
        ContactAnswer {
            distance: c.distance as f64,
            intersects: c.intersecting(),
            iterations: c.iterations,
            method: c.method,
            normal: arr(c.normal),
            part_a,
            part_b,
            point_a: arr(c.point_a),
            point_b: arr(c.point_b),
            status: c.status,
        }
    }
}

/// One point pair of a [`ManifoldAnswer`] (see [`crate::query::ManifoldPoint`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ManifoldPointAnswer {
    /// Signed separation along the normal (length; negative = penetrating).
    pub distance: f64,
    /// The id of the pair of features that made the point.
    pub feature: u32,
    /// Point on A's surface (world frame).
    pub point_a: [f64; 3],
    /// Point on B's surface (world frame).
    pub point_b: [f64; 3],
}

impl From<&query::ManifoldPoint> for ManifoldPointAnswer {
    fn from(p: &query::ManifoldPoint) -> Self {
        ManifoldPointAnswer {
            distance: p.distance as f64,
            feature: p.feature,
            point_a: arr(p.point_a),
            point_b: arr(p.point_b),
        }
    }
}

/// The answer to a `manifold` query (see [`crate::query::Manifold`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifoldAnswer {
    /// Unit normal from A towards B (world frame); absent when `points` is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normal: Option<[f64; 3]>,
    /// For a compound A: the part that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_a: Option<u32>,
    /// For a compound B: the part that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_b: Option<u32>,
    /// Up to four point pairs, the deepest first; empty when the shapes are farther
    /// apart than the margin.
    pub points: Vec<ManifoldPointAnswer>,
    /// How the underlying contact was obtained.
    pub status: QueryStatus,
}

impl ManifoldAnswer {
    fn new(m: &Manifold, part_a: Option<u32>, part_b: Option<u32>) -> Self {
        ManifoldAnswer {
            normal: (!m.is_empty()).then(|| arr(m.normal)),
            part_a,
            part_b,
            points: m.points().iter().map(ManifoldPointAnswer::from).collect(),
            status: m.status,
        }
    }
}

/// The answer to a [`QueryRequest`]: one of the per-kind answers, serialized as that
/// answer's object (fields in alphabetical order, as the tool writes them).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    /// To an `intersects` query.
    Intersects(IntersectsAnswer),
    /// To a `distance` query.
    Distance(DistanceAnswer),
    /// To a `closest_points` query.
    ClosestPoints(ClosestPointsAnswer),
    /// To a `contact` query.
    Contact(ContactAnswer),
    /// To a `manifold` query.
    Manifold(ManifoldAnswer),
    /// To a `manifold` query with a triangle mesh or heightfield: one per region.
    Manifolds(statics::ManifoldsAnswer),
    /// To a `ray` query.
    Ray(cast::RayAnswer),
    /// To a `cast` query.
    Cast(cast::CastAnswer),
    /// To a `project` query.
    Project(cast::ProjectAnswer),
    /// To a `height_at` query.
    HeightAt(cast::HeightAtAnswer),
    /// To a `backward_project` query.
    BackwardProject(terrain::BackwardProjectAnswer),
    /// To a `terrain_contact` query.
    TerrainContact(terrain::TerrainContactAnswer),
}

impl Answer {
    /// Whether every number in the answer is finite.
    pub fn is_finite(&self) -> bool {
        match self {
            Answer::Intersects(_) => true,
            Answer::Distance(a) => a.distance.is_finite(),
            Answer::ClosestPoints(a) => {
                a.distance.is_finite() && all_finite(&a.point_a) && all_finite(&a.point_b)
            }
            Answer::Contact(a) => {
                a.distance.is_finite()
                    && all_finite(&a.normal)
                    && all_finite(&a.point_a)
                    && all_finite(&a.point_b)
            }
            Answer::Manifold(a) => {
                a.normal.iter().all(|n| all_finite(n))
                    && a.points.iter().all(|p| {
                        p.distance.is_finite() && all_finite(&p.point_a) && all_finite(&p.point_b)
                    })
            }
            Answer::Manifolds(a) => a.is_finite(),
            Answer::Ray(a) => a.is_finite(),
            Answer::Cast(a) => a.is_finite(),
            Answer::Project(a) => a.is_finite(),
            Answer::HeightAt(a) => a.height.is_none_or(f64::is_finite),
            Answer::BackwardProject(a) => a.is_finite(),
            Answer::TerrainContact(a) => a.is_finite(),
        }
    }
}

/// Answers one parsed query object (without `id`, which the line handler adds): parses
/// it ([`QueryRequest::parse`], or for `ray`, `cast` and `project` lines the requests of
/// [`cast`]) and runs it.
///
/// # Errors
/// The parse error, or [`ErrorKind::Internal`] for an answer with a non-finite number.
pub fn answer(q: &Map<String, Value>) -> Result<Answer, LineError> {
    let answer = match q.get("query").and_then(Value::as_str) {
        Some("ray") => Answer::Ray(cast::RayRequest::parse(q)?.answer()?),
        Some("cast") if statics::is_static(q.get("a")) || statics::is_static(q.get("b")) => {
            Answer::Cast(statics::StaticCastRequest::parse(q)?.answer()?)
        }
        Some("cast") => Answer::Cast(cast::CastRequest::parse(q)?.answer()?),
        Some("project") if statics::is_static(q.get("shape")) => {
            Answer::Project(statics::StaticProjectRequest::parse(q)?.answer()?)
        }
        Some("project") => Answer::Project(cast::ProjectRequest::parse(q)?.answer()?),
        Some("height_at") => Answer::HeightAt(cast::HeightAtRequest::parse(q)?.answer()?),
        Some("backward_project") => {
            Answer::BackwardProject(terrain::BackwardProjectRequest::parse(q)?.answer()?)
        }
        Some("terrain_contact") => {
            Answer::TerrainContact(terrain::TerrainContactRequest::parse(q)?.answer()?)
        }
        Some(kind) if statics::is_static(q.get("a")) || statics::is_static(q.get("b")) => {
            match QueryKind::from_name(kind) {
                Some(kind) => statics::StaticQueryRequest::parse(q, kind)?.answer()?,
                None => QueryRequest::parse(q)?.answer(),
            }
        }
        _ => QueryRequest::parse(q)?.answer(),
    };
    if !answer.is_finite() {
        return Err(err(
            ErrorKind::Internal,
            "the query produced a non-finite number; please report this input",
        ));
    }
    Ok(answer)
}

/// Answers one `minkowski query` input line (never panics): the answer object, or an
/// error object, as one line of JSON text (no newline).
pub fn answer_line(line: &str) -> String {
    answer_line_with(line, answer)
}

/// The `id` of a query line exactly as written (its JSON text), when the line is an
/// object with one. serde_json's numbers would otherwise turn an id beyond `i64`/`u64`
/// into a float and `-0` into `-0.0`; the protocol echoes ids verbatim.
///
/// The text is echoed with the JSON whitespace between its tokens removed (the
/// whitespace inside strings stays): an id written over several lines, or with tabs or
/// carriage returns in it, must not split the answer line.
fn raw_id(line: &str) -> Option<String> {
    let fields: std::collections::BTreeMap<String, Box<RawValue>> =
        serde_json::from_str(line).ok()?;
    fields.get("id").map(|raw| compact(raw.get()))
}

/// `json` (valid JSON text) without the whitespace between its tokens.
fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if !matches!(c, ' ' | '\t' | '\n' | '\r') {
            in_string = c == '"';
            out.push(c);
        }
    }
    out
}

/// Answers one input line with `answer_fn` for the parsed object: echoes `id`
/// verbatim, and turns unparsable lines and `answer_fn`'s errors into error objects.
/// Returns the answer's JSON text (one line, `id` first, then the answer's fields; no
/// `id` when the line has none). `answer_fn`'s answer must serialize to a JSON object.
pub fn answer_line_with<T: Serialize>(
    line: &str,
    answer_fn: impl FnOnce(&Map<String, Value>) -> Result<T, LineError>,
) -> String {
    let parsed: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error_line(err(ErrorKind::InvalidJson, e.to_string())),
    };
    let Some(obj) = parsed.as_object() else {
        return error_line(err(
            ErrorKind::InvalidQuery,
            format!("a query must be a JSON object, got {}", kind_of(&parsed)),
        ));
    };
    let body = match answer_fn(obj) {
        Ok(answer) => serde_json::to_string(&answer),
        Err(error) => serde_json::to_string(&ErrorAnswer { error }),
    }
    .unwrap_or_else(|e| {
        error_body(err(
            ErrorKind::Internal,
            format!("the answer could not be written: {e}"),
        ))
    });
    let Some(id) = obj.get("id") else {
        return body;
    };
    match raw_id(line) {
        Some(raw) if body == "{}" => format!("{{\"id\":{raw}}}"),
        Some(raw) => format!("{{\"id\":{raw},{}", &body[1..]),
        // Not reached for a line that parsed (the raw reading accepts what the parse
        // does): the id as parsed, among the fields in alphabetical order.
        None => match serde_json::from_str::<Value>(&body) {
            Ok(Value::Object(mut out)) => {
                out.insert("id".into(), id.clone());
                Value::Object(out).to_string()
            }
            _ => body,
        },
    }
}

/// An error answer's text, `{"error": {"kind": ..., "message": ...}}`.
fn error_body(error: LineError) -> String {
    // A struct of a string and a unit enum always serializes.
    serde_json::to_string(&ErrorAnswer { error }).unwrap_or_default()
}

/// The answer to a line that is not a JSON object (so has no `id`).
fn error_line(error: LineError) -> String {
    error_body(error)
}

/// The answer to an input line that is not UTF-8 (the tool reads bytes): an
/// [`ErrorKind::InvalidJson`] error object.
pub fn invalid_utf8_line(e: std::str::Utf8Error) -> String {
    error_body(err(
        ErrorKind::InvalidJson,
        format!("line is not valid UTF-8: {e}"),
    ))
}
