//! Queries with static level geometry (`halfspace`, `heightfield`, `trimesh`; the
//! protocol's Extensions) on
//! either side: `intersects`, `distance`, `closest_points`, `contact` and `manifold`,
//! answered through [`crate::query::static_dispatch`] with the geometry as A (when it
//! is B, the answer is turned round: normals reversed, points swapped).
//!
//! A `manifold` query with a `halfspace` answers as for two convex shapes (one
//! region); with a `trimesh` or `heightfield` it answers
//! `{"manifolds": [{"normal": [..], "points": [..]}, ...], "status": ..}`, one per
//! touching region. Two static shapes in one query are refused.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::cast::parse_heightfield;
use super::cast::{CastAnswer, ProjectAnswer};
use super::{
    arr, err, number, parse_collider, parse_margin, parse_pose, shape_err_owned, vec3,
    ClosestPointsAnswer, ContactAnswer, DistanceAnswer, ErrorKind, IntersectsAnswer, LineError,
    ManifoldAnswer, ManifoldPointAnswer, QueryKind,
};
use crate::query::compound::Collider;
use crate::query::halfspace as hs;
use crate::query::{static_dispatch as sd, Contact, Manifold, Motion, QueryOptions, QueryStatus};
use crate::shape::{HalfSpace, StaticShape, TriMesh, TriMeshFlags};
use crate::Pose;

/// The protocol's static shape types.
pub const STATIC_TYPES: [&str; 3] = ["halfspace", "heightfield", "trimesh"];

/// Whether `v` is a shape object of a static type.
pub fn is_static(v: Option<&Value>) -> bool {
    v.and_then(|v| v.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|t| STATIC_TYPES.contains(&t))
}

/// Parses a static shape object (`heightfield`).
///
/// # Errors
/// [`ErrorKind::InvalidShape`] naming the first bad field.
pub fn parse_static(v: &Value, name: &str) -> Result<StaticShape, LineError> {
    match v.get("type").and_then(Value::as_str) {
        Some("heightfield") => parse_heightfield(v, name).map(StaticShape::from),
        Some("halfspace") => parse_halfspace(v).map(StaticShape::from),
        Some("trimesh") => parse_trimesh(v).map(StaticShape::from),
        _ => Err(err(
            ErrorKind::InvalidShape,
            format!(
                "'{name}' is not a static shape ({})",
                STATIC_TYPES.join(", ")
            ),
        )),
    }
}

/// Parses a `halfspace` object: `normal` (unit within 1e-3, renormalised), `offset`
/// (default 0).
fn parse_halfspace(v: &Value) -> Result<HalfSpace, LineError> {
    let obj = v
        .as_object()
        .ok_or_else(|| err(ErrorKind::InvalidShape, "halfspace must be an object"))?;
    let normal = match obj.get("normal") {
        Some(n) => vec3(n, "halfspace normal", shape_err_owned)?,
        None => {
            return Err(err(
                ErrorKind::InvalidShape,
                "halfspace needs 'normal': [x, y, z]",
            ))
        }
    };
    let offset = match obj.get("offset") {
        None | Some(Value::Null) => 0.0,
        Some(_) => number(obj, "halfspace", "offset")?,
    };
    HalfSpace::new(normal, offset).map_err(LineError::from)
}

/// Parses a `trimesh` object: `vertices: [[x, y, z], ...]` and `indices: [[i, j, k],
/// ...]`, or `obj: "path"`; optional booleans `one_sided` and `closed` (default false).
fn parse_trimesh(v: &Value) -> Result<TriMesh, LineError> {
    let bad = |m: String| err(ErrorKind::InvalidShape, m);
    let obj = v
        .as_object()
        .ok_or_else(|| bad("trimesh must be an object".into()))?;
    let flag = |name: &str| match obj.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(bad(format!(
            "trimesh {name} must be a boolean, got {}",
            super::kind_of(other)
        ))),
    };
    let flags = TriMeshFlags {
        one_sided: flag("one_sided")?,
        closed: flag("closed")?,
    };
    let mesh = match (obj.get("obj"), obj.get("vertices"), obj.get("indices")) {
        (Some(Value::String(path)), None, None) => TriMesh::from_obj(path, flags),
        (None, Some(vs), Some(is)) => {
            let vs = vs
                .as_array()
                .ok_or_else(|| bad("trimesh vertices must be an array of [x, y, z]".into()))?;
            let vertices = vs
                .iter()
                .enumerate()
                .map(|(i, p)| vec3(p, &format!("trimesh vertices[{i}]"), shape_err_owned))
                .collect::<Result<Vec<_>, _>>()?;
            let is = is
                .as_array()
                .ok_or_else(|| bad("trimesh indices must be an array of [i, j, k]".into()))?;
            let mut indices = Vec::with_capacity(is.len());
            for (t, tri) in is.iter().enumerate() {
                let ijk = tri
                    .as_array()
                    .filter(|a| a.len() == 3)
                    .and_then(|a| {
                        let k = |x: &Value| x.as_u64().and_then(|x| u32::try_from(x).ok());
                        Some([k(&a[0])?, k(&a[1])?, k(&a[2])?])
                    })
                    .ok_or_else(|| {
                        bad(format!(
                            "trimesh indices[{t}] must be 3 integers in [0, 2^32)"
                        ))
                    })?;
                indices.push(ijk);
            }
            TriMesh::new(vertices, indices, flags)
        }
        _ => {
            return Err(bad(
                "trimesh needs 'vertices' and 'indices', or 'obj' (a path), not both".into(),
            ))
        }
    };
    mesh.map_err(|e| bad(e.to_string()))
}

/// A pairwise query line with static geometry on one side.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticQueryRequest {
    /// The query.
    pub kind: QueryKind,
    /// The static shape and its pose.
    pub fixed: (StaticShape, Pose),
    /// The other shape (convex or a compound) and its pose.
    pub other: (Collider, Pose),
    /// Whether the static shape is the query's `a` (else its `b`).
    pub fixed_is_a: bool,
    /// The manifold's `margin` (0 for the other kinds).
    pub margin: crate::Real,
}

impl StaticQueryRequest {
    /// Parses a query object whose `a` or `b` is static (see [`is_static`]).
    ///
    /// # Errors
    /// The first problem found, as the tool reports it.
    pub fn parse(q: &Map<String, Value>, kind: QueryKind) -> Result<Self, LineError> {
        let margin = if kind == QueryKind::Manifold {
            parse_margin(q)?
        } else {
            0.0
        };
        let get = |name: &str| {
            q.get(name)
                .ok_or_else(|| err(ErrorKind::InvalidQuery, format!("missing shape '{name}'")))
        };
        let (va, vb) = (get("a")?, get("b")?);
        let pose_a = parse_pose(q.get("pose_a"), "pose_a")?;
        let pose_b = parse_pose(q.get("pose_b"), "pose_b")?;
        let (sa, sb) = (is_static(Some(va)), is_static(Some(vb)));
        if sa && sb {
            return Err(err(
                ErrorKind::InvalidQuery,
                "a query between two static shapes (halfspace, heightfield, trimesh) is not supported",
            ));
        }
        let (fixed, other) = if sa {
            (
                (parse_static(va, "a")?, pose_a),
                (parse_collider(vb, "b")?, pose_b),
            )
        } else {
            (
                (parse_static(vb, "b")?, pose_b),
                (parse_collider(va, "a")?, pose_a),
            )
        };
        if fixed.0.is_empty() && kind != QueryKind::Intersects && kind != QueryKind::Manifold {
            return Err(err(
                ErrorKind::InvalidShape,
                format!(
                    "the {} has no surface (every cell is a hole)",
                    fixed.0.type_name()
                ),
            ));
        }
        Ok(Self {
            kind,
            fixed,
            other,
            fixed_is_a: sa,
            margin,
        })
    }

    /// Runs the query.
    ///
    /// # Errors
    /// [`ErrorKind::Internal`] should an answer not be finite (it is checked again by
    /// the line handler).
    pub fn answer(&self) -> Result<super::Answer, LineError> {
        let opts = QueryOptions::default();
        let ((s, ps), (b, pb)) = (&self.fixed, &self.other);
        let flip = !self.fixed_is_a;
        use super::Answer;
        Ok(match self.kind {
            QueryKind::Intersects => Answer::Intersects(IntersectsAnswer {
                intersects: sd::intersects(s, ps, b, pb, &opts),
                part_a: None,
                part_b: None,
            }),
            QueryKind::Distance | QueryKind::ClosestPoints => {
                let mut c = sd::closest_points(s, ps, b, pb, &opts);
                if flip {
                    std::mem::swap(&mut c.point_a, &mut c.point_b);
                    c.normal = -c.normal;
                }
                if self.kind == QueryKind::Distance {
                    Answer::Distance(DistanceAnswer {
                        distance: c.distance as f64,
                        intersects: c.intersecting,
                        iterations: c.iterations,
                        part_a: None,
                        part_b: None,
                        status: c.status,
                    })
                } else {
                    Answer::ClosestPoints(ClosestPointsAnswer::new(&c, None, None))
                }
            }
            QueryKind::Contact => {
                let c = sd::contact(s, ps, b, pb, &opts);
                Answer::Contact(ContactAnswer::new(&turned(c, flip), None, None))
            }
            QueryKind::Manifold => match s {
                // A plane touches in one region: the ordinary answer.
                StaticShape::HalfSpace(h) => {
                    let m = match b {
                        Collider::Convex(shape) => {
                            hs::manifold_halfspace(h, ps, shape, pb, self.margin)
                        }
                        Collider::Compound(c) => {
                            hs::manifold_halfspace_compound(h, ps, c, pb, self.margin)
                        }
                    };
                    let mut a = ManifoldAnswer::new(&m, None, None);
                    if flip {
                        a.normal = a.normal.map(|n| n.map(|x| -x));
                        for p in &mut a.points {
                            std::mem::swap(&mut p.point_a, &mut p.point_b);
                        }
                    }
                    Answer::Manifold(a)
                }
                _ => {
                    let ms = sd::manifolds(s, ps, b, pb, self.margin, &opts);
                    Answer::Manifolds(ManifoldsAnswer::new(&ms, flip))
                }
            },
        })
    }
}

/// `c` with A and B swapped when `flip`.
fn turned(mut c: Contact, flip: bool) -> Contact {
    if flip {
        std::mem::swap(&mut c.point_a, &mut c.point_b);
        c.normal = -c.normal;
    }
    c
}

/// One region of a [`ManifoldsAnswer`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegionAnswer {
    /// Unit normal from A towards B (world frame).
    pub normal: [f64; 3],
    /// Up to four point pairs, the deepest first.
    pub points: Vec<ManifoldPointAnswer>,
}

/// The answer to a `manifold` query with a triangle mesh or heightfield: one manifold
/// per touching region, the deepest first; empty when nothing is within the margin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifoldsAnswer {
    /// The regions.
    pub manifolds: Vec<RegionAnswer>,
    /// How the underlying contacts were obtained (the worst of them).
    pub status: QueryStatus,
}

impl ManifoldsAnswer {
    fn new(ms: &[Manifold], flip: bool) -> Self {
        let s = if flip { -1.0 } else { 1.0 };
        let status = ms
            .iter()
            .map(|m| m.status)
            .find(|s| *s != QueryStatus::Converged)
            .unwrap_or(QueryStatus::Converged);
        ManifoldsAnswer {
            manifolds: ms
                .iter()
                .map(|m| RegionAnswer {
                    normal: arr(m.normal * s),
                    points: m
                        .points()
                        .iter()
                        .map(|p| {
                            let (a, b) = if flip {
                                (p.point_b, p.point_a)
                            } else {
                                (p.point_a, p.point_b)
                            };
                            ManifoldPointAnswer {
                                distance: p.distance as f64,
                                feature: p.feature,
                                point_a: arr(a),
                                point_b: arr(b),
                            }
                        })
                        .collect(),
                })
                .collect(),
            status,
        }
    }

    pub(crate) fn is_finite(&self) -> bool {
        self.manifolds.iter().all(|m| {
            super::cast::finite(m.normal)
                && m.points.iter().all(|p| {
                    super::cast::finite(
                        std::iter::once(p.distance)
                            .chain(p.point_a)
                            .chain(p.point_b),
                    )
                })
        })
    }
}

/// A `cast` line with static geometry on one side (translations only).
#[derive(Debug, Clone, PartialEq)]
pub struct StaticCastRequest {
    /// The static shape, its pose and its motion.
    pub fixed: (StaticShape, Pose, Motion),
    /// The other shape, its pose and its motion.
    pub other: (Collider, Pose, Motion),
    /// Whether the static shape is the query's `a`.
    pub fixed_is_a: bool,
    /// `max_toi` (infinite when absent).
    pub max_toi: crate::Real,
    /// `target_distance` (0 when absent).
    pub target_distance: crate::Real,
}

impl StaticCastRequest {
    /// Parses a `cast` object whose `a` or `b` is static.
    ///
    /// # Errors
    /// The first bad field, as the tool reports it.
    pub fn parse(q: &Map<String, Value>) -> Result<Self, LineError> {
        use super::cast::{number, optional};
        let get = |name: &str| {
            q.get(name)
                .ok_or_else(|| err(ErrorKind::InvalidQuery, format!("missing shape '{name}'")))
        };
        let (va, vb) = (get("a")?, get("b")?);
        let (sa, sb) = (is_static(Some(va)), is_static(Some(vb)));
        if sa && sb {
            return Err(err(
                ErrorKind::InvalidQuery,
                "a cast between two static shapes is not supported",
            ));
        }
        let pose_a = parse_pose(q.get("pose_a"), "pose_a")?;
        let pose_b = parse_pose(q.get("pose_b"), "pose_b")?;
        let motion_a = Motion::new(optional(q, "vel_a")?, optional(q, "ang_vel_a")?);
        let motion_b = Motion::new(optional(q, "vel_b")?, optional(q, "ang_vel_b")?);
        let max_toi = number(q, "max_toi", crate::Real::INFINITY)?;
        let target_distance = number(q, "target_distance", 0.0)?;
        let (fixed, other) = if sa {
            (
                (parse_static(va, "a")?, pose_a, motion_a),
                (parse_collider(vb, "b")?, pose_b, motion_b),
            )
        } else {
            (
                (parse_static(vb, "b")?, pose_b, motion_b),
                (parse_collider(va, "a")?, pose_a, motion_a),
            )
        };
        Ok(Self {
            fixed,
            other,
            fixed_is_a: sa,
            max_toi,
            target_distance,
        })
    }

    /// Runs the cast.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidQuery`] for a turning motion or a bad number.
    pub fn answer(&self) -> Result<CastAnswer, LineError> {
        let ((s, ps, ms), (b, pb, mb)) = (&self.fixed, &self.other);
        let mut c = sd::cast(
            s,
            ps,
            *ms,
            b,
            pb,
            *mb,
            self.max_toi,
            self.target_distance,
            &QueryOptions::default(),
        )
        .map_err(super::cast::cast_err)?;
        if !self.fixed_is_a {
            std::mem::swap(&mut c.point_a, &mut c.point_b);
            c.normal = -c.normal;
        }
        Ok(CastAnswer::new(&c, None, None))
    }
}

/// A `project` line on static geometry.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticProjectRequest {
    /// The shape (`shape`) and its pose (`pose`).
    pub fixed: (StaticShape, Pose),
    /// The point (`point`, world frame).
    pub point: crate::Vector,
}

impl StaticProjectRequest {
    /// Parses a `project` object whose `shape` is static.
    ///
    /// # Errors
    /// The first bad field, as the tool reports it.
    pub fn parse(q: &Map<String, Value>) -> Result<Self, LineError> {
        let v = q
            .get("shape")
            .ok_or_else(|| err(ErrorKind::InvalidQuery, "missing shape 'shape'"))?;
        Ok(Self {
            fixed: (
                parse_static(v, "shape")?,
                parse_pose(q.get("pose"), "pose")?,
            ),
            point: super::cast::field(q, "point")?,
        })
    }

    /// Runs the projection.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidShape`] for geometry with no surface at all.
    pub fn answer(&self) -> Result<ProjectAnswer, LineError> {
        let (s, ps) = &self.fixed;
        let p = sd::project_point(s, ps, self.point, &QueryOptions::default())
            .map_err(super::cast::cast_err)?;
        if !p.distance.is_finite() {
            return Err(err(
                ErrorKind::InvalidShape,
                format!(
                    "the {} has no surface (every cell is a hole)",
                    s.type_name()
                ),
            ));
        }
        Ok(ProjectAnswer {
            distance: p.distance as f64,
            inside: p.inside,
            iterations: p.iterations,
            point: arr(p.point),
            status: p.status,
        })
    }
}
