//! The `minkowski query` JSON-lines protocol (see `shared/design/query-protocol.md`).
//!
//! One query object per line in, one answer object per line out, in order. A line that
//! cannot be answered gets `{"id": ..., "error": {"kind": ..., "message": ...}}`; the
//! tool then goes on. Error kinds: `invalid_json`, `invalid_query`, `invalid_shape`,
//! `invalid_pose`.
//!
//! Decided at the edges of the format (each pinned by a CLI test):
//! - `id` is echoed exactly as written, as raw JSON text: an integer beyond 64 bits stays
//!   that integer, `-0` stays `-0`, `1.50e3` stays `1.50e3`;
//! - a UTF-8 byte-order mark before the first line is skipped;
//! - a line of JSON whitespace only (space, tab, carriage return) carries no query and
//!   gets no answer; every other line gets one, so a line of other Unicode spaces is an
//!   `invalid_json` error;
//! - lengths and coordinates are held to `shape::MAX_MAGNITUDE` as written, before they
//!   are rounded to the build's precision.

use minkowski::query::compound::{self, Collider};
use minkowski::query::manifold::manifold_compound;
use minkowski::query::{self, Manifold, QueryOptions, QueryStatus};
use minkowski::shape::{Compound, Shape, ShapeError, ShapeParams};
use minkowski::{Pose, Real, Rotation, Vector};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

/// A line that cannot be answered: the protocol's error kind and a message.
#[derive(Debug)]
pub struct LineError {
    pub kind: &'static str,
    pub message: String,
}

pub fn err(kind: &'static str, message: impl Into<String>) -> LineError {
    LineError {
        kind,
        message: message.into(),
    }
}

fn shape_err(message: impl Into<String>) -> LineError {
    err("invalid_shape", message)
}

/// A JSON number as [`Real`], its magnitude held to [`minkowski::shape::MAX_MAGNITUDE`]
/// *as written*, before rounding to the build's precision (in f32, 100000004 would
/// otherwise round to the limit 1e8 and pass). `what` names it in the error.
fn within_limit(x: f64, what: &str, make: fn(String) -> LineError) -> Result<Real, LineError> {
    let max = minkowski::shape::MAX_MAGNITUDE;
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

fn shape_err_owned(m: String) -> LineError {
    shape_err(m)
}

fn pose_err_owned(m: String) -> LineError {
    err("invalid_pose", m)
}

/// Parses a shape object: its `type` names a registered shape
/// ([`Shape::TYPE_NAMES`]), whose constructor reads the other fields through
/// [`JsonShape`]. `name` says where the object is (`"a"`, `"rounded shape"`, ...) in the
/// error messages.
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
/// ([`minkowski::shape::ConvexShape::from_params`]). Error messages name the shape type
/// and the field (`"capsule radius must be a number, got a string"`).
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

/// A shape constructor's refusal, as the protocol's `invalid_shape` error.
impl From<ShapeError> for LineError {
    fn from(e: ShapeError) -> Self {
        shape_err(e.to_string())
    }
}

/// Parses a query's shape: a convex shape, or a `compound` of convex parts
/// (`parts: [{"shape": {...}, "pose": {...}}, ...]`, at least one).
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
            "invalid_query",
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

/// Parses an optional pose object (absent or null = identity).
pub fn parse_pose(v: Option<&Value>, name: &str) -> Result<Pose, LineError> {
    let v = match v {
        None | Some(Value::Null) => return Ok(Pose::IDENTITY),
        Some(v) => v,
    };
    let obj = v.as_object().ok_or_else(|| {
        err(
            "invalid_pose",
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
                    "invalid_pose",
                    format!("{name} rotation must be [x, y, z, w] (4 numbers)"),
                )
            })?;
            let mut q = [0.0 as Real; 4];
            for (i, x) in arr.iter().enumerate() {
                q[i] = x.as_f64().ok_or_else(|| {
                    err(
                        "invalid_pose",
                        format!("{name} rotation[{i}] must be a number, got {}", kind_of(x)),
                    )
                })? as Real;
            }
            Rotation::from_xyzw(q[0], q[1], q[2], q[3])
        }
        None => Rotation::IDENTITY,
    };
    // (Pose::new also holds the translation to the shapes' magnitude limit.)
    Pose::new(rotation, translation).map_err(|e| err("invalid_pose", format!("{name}: {e}")))
}

pub fn arr(v: Vector) -> Value {
    json!([v.x as f64, v.y as f64, v.z as f64])
}

fn status(s: QueryStatus) -> Value {
    Value::String(s.as_str().to_string())
}

/// Answers one parsed query object (without `id`, which the caller adds).
pub fn answer(q: &Map<String, Value>) -> Result<Map<String, Value>, LineError> {
    let kind = match q.get("query") {
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(err(
                "invalid_query",
                format!("'query' must be a string, got {}", kind_of(other)),
            ))
        }
        None => return Err(err("invalid_query", "missing 'query'")),
    };
    if !matches!(
        kind,
        "intersects" | "distance" | "closest_points" | "contact" | "manifold"
    ) {
        return Err(err(
            "invalid_query",
            format!(
                "unknown query '{}' (expected intersects, distance, closest_points, contact or \
                 manifold)",
                truncate(kind, 64)
            ),
        ));
    }
    let margin = if kind == "manifold" {
        parse_margin(q)?
    } else {
        0.0
    };
    let a = parse_collider(
        q.get("a")
            .ok_or_else(|| err("invalid_query", "missing shape 'a'"))?,
        "a",
    )?;
    let b = parse_collider(
        q.get("b")
            .ok_or_else(|| err("invalid_query", "missing shape 'b'"))?,
        "b",
    )?;
    let pa = parse_pose(q.get("pose_a"), "pose_a")?;
    let pb = parse_pose(q.get("pose_b"), "pose_b")?;
    let out = match (&a, &b) {
        (Collider::Convex(a), Collider::Convex(b)) => answer_convex(kind, a, &pa, b, &pb, margin),
        _ => answer_compound(kind, &a, &pa, &b, &pb, margin),
    };
    // The library never produces NaN on validated input; refuse to print one anyway.
    if out.values().any(has_non_finite) {
        return Err(err(
            "internal",
            "the query produced a non-finite number; please report this input",
        ));
    }
    Ok(out)
}

/// The manifold's fields: `normal` (absent when empty), `points`, `status`.
fn manifold_fields(m: &Manifold, out: &mut Map<String, Value>) {
    if !m.is_empty() {
        out.insert("normal".into(), arr(m.normal));
    }
    let points: Vec<Value> = m
        .points()
        .iter()
        .map(|p| {
            json!({
                "point_a": arr(p.point_a),
                "point_b": arr(p.point_b),
                "distance": p.distance as f64,
                "feature": p.feature,
            })
        })
        .collect();
    out.insert("points".into(), Value::Array(points));
    out.insert("status".into(), status(m.status));
}

/// Which parts answered, for a query with a compound (absent for a convex side).
fn part_fields(part_a: Option<u32>, part_b: Option<u32>, out: &mut Map<String, Value>) {
    if let Some(i) = part_a {
        out.insert("part_a".into(), json!(i));
    }
    if let Some(i) = part_b {
        out.insert("part_b".into(), json!(i));
    }
}

/// Answers a query where A or B is a compound, through [`minkowski::query::compound`]:
/// the same fields as for convex shapes, plus `part_a` / `part_b` (the parts that
/// answered, when that side is a compound).
fn answer_compound(
    kind: &str,
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    margin: Real,
) -> Map<String, Value> {
    let opts = QueryOptions::default();
    let mut out = Map::new();
    match kind {
        "intersects" => {
            let r = compound::intersects(a, pa, b, pb, &opts);
            out.insert("intersects".into(), Value::Bool(r.is_some()));
            if let Some(r) = r {
                part_fields(r.part_a, r.part_b, &mut out);
            }
        }
        "distance" | "closest_points" => {
            let r = compound::closest_points(a, pa, b, pb, &opts);
            let c = r.answer;
            out.insert("distance".into(), json!(c.distance as f64));
            out.insert("intersects".into(), Value::Bool(c.intersecting));
            if kind == "closest_points" {
                out.insert("point_a".into(), arr(c.point_a));
                out.insert("point_b".into(), arr(c.point_b));
            }
            out.insert("iterations".into(), json!(c.iterations));
            out.insert("status".into(), status(c.status));
            part_fields(r.part_a, r.part_b, &mut out);
        }
        "contact" => {
            let r = compound::contact(a, pa, b, pb, &opts);
            contact_fields(&r.answer, &mut out);
            part_fields(r.part_a, r.part_b, &mut out);
        }
        _ => {
            let r = manifold_compound(a, pa, b, pb, margin, &opts);
            manifold_fields(&r.answer, &mut out);
            part_fields(r.part_a, r.part_b, &mut out);
        }
    }
    out
}

fn contact_fields(c: &query::Contact, out: &mut Map<String, Value>) {
    out.insert("intersects".into(), Value::Bool(c.intersecting()));
    out.insert("distance".into(), json!(c.distance as f64));
    out.insert("normal".into(), arr(c.normal));
    out.insert("point_a".into(), arr(c.point_a));
    out.insert("point_b".into(), arr(c.point_b));
    out.insert("iterations".into(), json!(c.iterations));
    out.insert("status".into(), status(c.status));
    out.insert("method".into(), Value::String(c.method.as_str().into()));
}

/// Answers a query between two convex shapes.
fn answer_convex(
    kind: &str,
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    margin: Real,
) -> Map<String, Value> {
    let (pa, pb) = (*pa, *pb);
    let mut out = Map::new();
    match kind {
        "intersects" => {
            out.insert(
                "intersects".into(),
                Value::Bool(query::intersects(a, &pa, b, &pb)),
            );
        }
        "distance" => {
            let r = query::distance(a, &pa, b, &pb);
            out.insert("distance".into(), json!(r.distance as f64));
            out.insert("intersects".into(), Value::Bool(r.intersecting));
            out.insert("iterations".into(), json!(r.iterations));
            out.insert("status".into(), status(r.status));
        }
        "closest_points" => {
            let r = query::closest_points(a, &pa, b, &pb);
            out.insert("distance".into(), json!(r.distance as f64));
            out.insert("intersects".into(), Value::Bool(r.intersecting));
            out.insert("point_a".into(), arr(r.point_a));
            out.insert("point_b".into(), arr(r.point_b));
            out.insert("iterations".into(), json!(r.iterations));
            out.insert("status".into(), status(r.status));
        }
        "contact" => contact_fields(&query::contact(a, &pa, b, &pb), &mut out),
        _ => manifold_fields(&query::manifold(a, &pa, b, &pb, margin), &mut out),
    }
    out
}

fn has_non_finite(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_f64().is_some_and(|x| !x.is_finite()),
        Value::Array(a) => a.iter().any(has_non_finite),
        Value::Object(o) => o.values().any(has_non_finite),
        Value::Null => true,
        _ => false,
    }
}

/// Answers one input line (never panics): the answer object, or an error object.
pub fn answer_line(line: &str) -> String {
    answer_line_with(line, answer)
}

/// The `id` of a query line exactly as written (its JSON text), when the line is an
/// object with one. serde_json's numbers would otherwise turn an id beyond `i64`/`u64`
/// into a float and `-0` into `-0.0`; the protocol echoes ids verbatim.
fn raw_id(line: &str) -> Option<Box<RawValue>> {
    let fields: std::collections::BTreeMap<String, Box<RawValue>> =
        serde_json::from_str(line).ok()?;
    fields.get("id").cloned()
}

/// Answers one input line with `answer_fn` for the parsed object: echoes `id` verbatim,
/// and turns unparsable lines and `answer_fn`'s errors into error objects. Returns the
/// answer's JSON text (one line).
pub fn answer_line_with(
    line: &str,
    answer_fn: impl FnOnce(&Map<String, Value>) -> Result<Map<String, Value>, LineError>,
) -> String {
    let parsed: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return json!({"error": {"kind": "invalid_json", "message": e.to_string()}})
                .to_string();
        }
    };
    let obj = match parsed.as_object() {
        Some(o) => o,
        None => {
            return json!({"error": {
                "kind": "invalid_query",
                "message": format!("a query must be a JSON object, got {}", kind_of(&parsed)),
            }})
            .to_string();
        }
    };
    let mut out = Map::new();
    match answer_fn(obj) {
        Ok(fields) => out.extend(fields),
        Err(e) => {
            out.insert(
                "error".into(),
                json!({"kind": e.kind, "message": e.message}),
            );
        }
    }
    out.remove("id");
    let Some(id) = obj.get("id") else {
        return Value::Object(out).to_string();
    };
    let Some(raw) = raw_id(line) else {
        out.insert("id".into(), id.clone());
        return Value::Object(out).to_string();
    };
    let body = Value::Object(out).to_string();
    if body == "{}" {
        format!("{{\"id\":{}}}", raw.get())
    } else {
        format!("{{\"id\":{},{}", raw.get(), &body[1..])
    }
}
