//! Shapes as plain data, for serde (feature `serde`).
//!
//! [`ShapeDescription`] is a shape written out as the query protocol writes it (see
//! `docs/query-protocol.md`): an object whose `"type"` names the kind and whose other
//! fields are its parameters, `{"type": "capsule", "half_height": 0.5, "radius": 0.2}`.
//! It holds whatever was written and checks nothing; turning it into a [`Shape`],
//! [`Compound`] or [`Collider`] runs the shape's checked constructor, so a description
//! that names an invalid shape is refused with the constructor's [`ShapeError`].
//!
//! [`Shape`], [`Compound`] and [`Collider`] serialize through their description and
//! deserialize through it too: **deserialization never produces an invalid shape**; a
//! refused description is a deserialization error carrying the [`ShapeError`]'s message.
//! Use `ShapeDescription` with [`TryFrom`] directly to get the typed error.
//!
//! Numbers are read as `f64` and held to [`MAX_MAGNITUDE`] *as written*, before they are
//! rounded to the build's precision (in the `f32` build 100000004 would otherwise round
//! to the limit 1e8 and pass), as the CLI does. Written numbers are the shortest decimal
//! that reads back to the same [`Real`], so that shape → text → shape gives the same
//! shape, bit for bit, in both precisions.
//!
//! The format is internally tagged (`"type"`), which needs a self-describing format
//! (JSON, YAML, RON, MessagePack, CBOR...), not a schema-driven one such as bincode.
//!
//! A convex polyhedron is written as its hull's vertices (the points given to
//! [`ConvexPolyhedron::new`] that were not vertices are gone) and rebuilt from them: the
//! same vertices in the same order, so the same support points, and the same faces,
//! possibly listed in another order. Its
//! [`set_hill_climbing`](ConvexPolyhedron::set_hill_climbing) override is not kept.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{
    Capsule, Compound, Cone, ConvexPolyhedron, Cuboid, Cylinder, Ellipsoid, PointShape, Pyramid,
    RoundedShape, Segment, Shape, ShapeError, Sphere, Triangle, MAX_MAGNITUDE,
};
use crate::math::{shortest_f64, Point, PoseDescription, Real, Vector};
use crate::query::compound::Collider;

/// A shape as the protocol writes it: its kind (the `"type"` field, the shape's
/// [`ConvexShape::TYPE_NAME`](super::ConvexShape::TYPE_NAME), or `"compound"`) and its
/// parameters, unchecked. Lengths and coordinates are in the caller's units, in the
/// shape's local frame; axis shapes are along local +Y.
///
/// Build one from a shape with [`From`] (`ShapeDescription::from(&shape)`), and a shape
/// from one with [`TryFrom`], which runs the checked constructors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ShapeDescription {
    /// A ball ([`Sphere`]).
    Sphere {
        /// Radius (length, `>= 0`).
        radius: f64,
    },
    /// A box ([`Cuboid`]).
    Cuboid {
        /// Half extents along x, y, z (lengths, `>= 0`).
        half_extents: [f64; 3],
    },
    /// A capsule along Y ([`Capsule`]).
    Capsule {
        /// Half the length of the inner segment (length, `>= 0`).
        half_height: f64,
        /// Radius (length, `>= 0`).
        radius: f64,
    },
    /// A cylinder along Y ([`Cylinder`]).
    Cylinder {
        /// Half the height (length, `>= 0`).
        half_height: f64,
        /// Radius (length, `>= 0`).
        radius: f64,
    },
    /// A cone along Y, apex up ([`Cone`]).
    Cone {
        /// Half the height (length, `>= 0`).
        half_height: f64,
        /// Radius of the base (length, `>= 0`).
        radius: f64,
    },
    /// A rectangular pyramid along Y, apex up ([`Pyramid`]).
    Pyramid {
        /// Half extents of the bounding box (lengths, `>= 0`).
        half_extents: [f64; 3],
    },
    /// An axis-aligned ellipsoid ([`Ellipsoid`]).
    Ellipsoid {
        /// Radii along x, y, z (lengths, `>= 0`).
        radii: [f64; 3],
    },
    /// A segment ([`Segment`]).
    Segment {
        /// First endpoint.
        a: [f64; 3],
        /// Second endpoint.
        b: [f64; 3],
    },
    /// A triangle ([`Triangle`]).
    Triangle {
        /// First corner.
        a: [f64; 3],
        /// Second corner.
        b: [f64; 3],
        /// Third corner.
        c: [f64; 3],
    },
    /// A single point ([`PointShape`]).
    Point {
        /// The point (the local origin when left out).
        #[serde(default)]
        p: [f64; 3],
    },
    /// The convex hull of points ([`ConvexPolyhedron`]).
    Convex {
        /// The points (at least one; they need not all be on the hull).
        points: Vec<[f64; 3]>,
    },
    /// A shape inflated by a ball ([`RoundedShape`]).
    Rounded {
        /// The inner shape (convex: not a compound).
        shape: Box<ShapeDescription>,
        /// Radius of the ball (length, `>= 0`).
        radius: f64,
    },
    /// A rigid union of convex parts ([`Compound`]): a [`Collider`], not a [`Shape`].
    Compound {
        /// The parts (at least one).
        parts: Vec<PartDescription>,
    },
}

/// One part of a [`ShapeDescription::Compound`]: a convex shape and its pose in the
/// compound's frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartDescription {
    /// The part's shape (convex: not a compound).
    pub shape: ShapeDescription,
    /// The part's pose in the compound's frame (the identity when left out or `null`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pose: Option<PoseDescription>,
}

impl ShapeDescription {
    /// The kind's protocol name: the `"type"` field (`"sphere"`, ..., `"compound"`).
    pub fn type_name(&self) -> &'static str {
        match self {
            ShapeDescription::Sphere { .. } => "sphere",
            ShapeDescription::Cuboid { .. } => "cuboid",
            ShapeDescription::Capsule { .. } => "capsule",
            ShapeDescription::Cylinder { .. } => "cylinder",
            ShapeDescription::Cone { .. } => "cone",
            ShapeDescription::Pyramid { .. } => "pyramid",
            ShapeDescription::Ellipsoid { .. } => "ellipsoid",
            ShapeDescription::Segment { .. } => "segment",
            ShapeDescription::Triangle { .. } => "triangle",
            ShapeDescription::Point { .. } => "point",
            ShapeDescription::Convex { .. } => "convex",
            ShapeDescription::Rounded { .. } => "rounded",
            ShapeDescription::Compound { .. } => "compound",
        }
    }
}

/// A length or coordinate as written, held to [`MAX_MAGNITUDE`] before it is rounded to
/// [`Real`] (NaN passes: the constructors refuse it with their own error).
fn real(shape: &'static str, field: &'static str, x: f64) -> Result<Real, ShapeError> {
    if x.abs() > MAX_MAGNITUDE as f64 {
        return Err(ShapeError::OutOfRange {
            shape,
            field,
            value: x as Real,
            max: MAX_MAGNITUDE,
        });
    }
    Ok(x as Real)
}

/// Three lengths or coordinates as written, each held to the limit as in [`real`].
fn vector(shape: &'static str, field: &'static str, v: [f64; 3]) -> Result<Vector, ShapeError> {
    Ok(Vector::new(
        real(shape, field, v[0])?,
        real(shape, field, v[1])?,
        real(shape, field, v[2])?,
    ))
}

/// A vector written as the shortest decimals that read back to it.
fn written(v: Vector) -> [f64; 3] {
    [shortest_f64(v.x), shortest_f64(v.y), shortest_f64(v.z)]
}

/// Builds the described convex shape through its checked constructor.
///
/// # Errors
/// The constructor's [`ShapeError`]; [`ShapeError::OutOfRange`] for a number beyond
/// [`MAX_MAGNITUDE`] as written; [`ShapeError::WrongKind`] for a compound.
impl TryFrom<ShapeDescription> for Shape {
    type Error = ShapeError;

    fn try_from(d: ShapeDescription) -> Result<Self, ShapeError> {
        type D = ShapeDescription;
        Ok(match d {
            D::Sphere { radius } => Sphere::new(real("sphere", "radius", radius)?)?.into(),
            D::Cuboid { half_extents } => {
                Cuboid::new(vector("cuboid", "half_extents", half_extents)?)?.into()
            }
            D::Capsule {
                half_height,
                radius,
            } => Capsule::new(
                real("capsule", "half_height", half_height)?,
                real("capsule", "radius", radius)?,
            )?
            .into(),
            D::Cylinder {
                half_height,
                radius,
            } => Cylinder::new(
                real("cylinder", "half_height", half_height)?,
                real("cylinder", "radius", radius)?,
            )?
            .into(),
            D::Cone {
                half_height,
                radius,
            } => Cone::new(
                real("cone", "half_height", half_height)?,
                real("cone", "radius", radius)?,
            )?
            .into(),
            D::Pyramid { half_extents } => {
                Pyramid::new(vector("pyramid", "half_extents", half_extents)?)?.into()
            }
            D::Ellipsoid { radii } => Ellipsoid::new(vector("ellipsoid", "radii", radii)?)?.into(),
            D::Segment { a, b } => {
                Segment::new(vector("segment", "a", a)?, vector("segment", "b", b)?)?.into()
            }
            D::Triangle { a, b, c } => Triangle::new(
                vector("triangle", "a", a)?,
                vector("triangle", "b", b)?,
                vector("triangle", "c", c)?,
            )?
            .into(),
            D::Point { p } => PointShape::new(vector("point", "p", p)?)?.into(),
            D::Convex { points } => {
                let points = points
                    .into_iter()
                    .map(|p| vector("convex", "points", p))
                    .collect::<Result<Vec<Point>, _>>()?;
                ConvexPolyhedron::new(points)?.into()
            }
            D::Rounded { shape, radius } => {
                let inner = Shape::try_from(*shape)?;
                RoundedShape::new(inner, real("rounded", "radius", radius)?)?.into()
            }
            D::Compound { .. } => {
                return Err(ShapeError::WrongKind {
                    expected: "a convex shape",
                    got: "compound",
                })
            }
        })
    }
}

/// Builds the described compound (parts through [`Shape`]'s conversion, then
/// [`Compound::new`]).
///
/// # Errors
/// A part's [`ShapeError`] or [`Compound::new`]'s, a [`ShapeError::Pose`] for a part's
/// pose, or [`ShapeError::WrongKind`] for a description that is not a compound.
impl TryFrom<ShapeDescription> for Compound {
    type Error = ShapeError;

    fn try_from(d: ShapeDescription) -> Result<Self, ShapeError> {
        let ShapeDescription::Compound { parts } = d else {
            return Err(ShapeError::WrongKind {
                expected: "a compound",
                got: d.type_name(),
            });
        };
        let parts = parts
            .into_iter()
            .map(|part| {
                let pose = match part.pose {
                    Some(p) => p.try_into()?,
                    None => crate::Pose::IDENTITY,
                };
                Ok((pose, Shape::try_from(part.shape)?))
            })
            .collect::<Result<Vec<_>, ShapeError>>()?;
        Compound::new(parts)
    }
}

/// Builds the described collider: a compound for `"compound"`, a convex shape otherwise.
///
/// # Errors
/// As the conversions into [`Shape`] and [`Compound`].
impl TryFrom<ShapeDescription> for Collider {
    type Error = ShapeError;

    fn try_from(d: ShapeDescription) -> Result<Self, ShapeError> {
        match d {
            ShapeDescription::Compound { .. } => Compound::try_from(d).map(Collider::from),
            _ => Shape::try_from(d).map(Collider::Convex),
        }
    }
}

impl From<&Shape> for ShapeDescription {
    fn from(s: &Shape) -> Self {
        type D = ShapeDescription;
        let w = shortest_f64;
        match s {
            Shape::Sphere(s) => D::Sphere {
                radius: w(s.radius()),
            },
            Shape::Cuboid(s) => D::Cuboid {
                half_extents: written(s.half_extents()),
            },
            Shape::Capsule(s) => D::Capsule {
                half_height: w(s.half_height()),
                radius: w(s.radius()),
            },
            Shape::Cylinder(s) => D::Cylinder {
                half_height: w(s.half_height()),
                radius: w(s.radius()),
            },
            Shape::Cone(s) => D::Cone {
                half_height: w(s.half_height()),
                radius: w(s.radius()),
            },
            Shape::Pyramid(s) => D::Pyramid {
                half_extents: written(s.half_extents()),
            },
            Shape::Ellipsoid(s) => D::Ellipsoid {
                radii: written(s.radii()),
            },
            Shape::Segment(s) => D::Segment {
                a: written(s.a()),
                b: written(s.b()),
            },
            Shape::Triangle(s) => {
                let [a, b, c] = s.vertices();
                D::Triangle {
                    a: written(a),
                    b: written(b),
                    c: written(c),
                }
            }
            Shape::Point(s) => D::Point {
                p: written(s.point()),
            },
            Shape::Convex(s) => D::Convex {
                points: s.points().iter().map(|&p| written(p)).collect(),
            },
            Shape::Rounded(s) => D::Rounded {
                shape: Box::new(s.inner().into()),
                radius: w(s.radius()),
            },
        }
    }
}

impl From<&Compound> for ShapeDescription {
    fn from(c: &Compound) -> Self {
        ShapeDescription::Compound {
            parts: c
                .parts()
                .iter()
                .map(|(pose, shape)| PartDescription {
                    shape: shape.into(),
                    pose: Some(pose.into()),
                })
                .collect(),
        }
    }
}

impl From<&Collider> for ShapeDescription {
    fn from(c: &Collider) -> Self {
        match c {
            Collider::Convex(s) => s.into(),
            Collider::Compound(c) => (&**c).into(),
        }
    }
}

/// Serializes the [`ShapeDescription`] of the shape.
impl Serialize for Shape {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ShapeDescription::from(self).serialize(serializer)
    }
}

/// Deserializes a [`ShapeDescription`] and builds the shape through its checked
/// constructor; a refused description is an error with the [`ShapeError`]'s message.
impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let d = ShapeDescription::deserialize(deserializer)?;
        Shape::try_from(d).map_err(serde::de::Error::custom)
    }
}

/// Serializes the compound's [`ShapeDescription`] (`"type": "compound"`, its parts with
/// their poses).
impl Serialize for Compound {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ShapeDescription::from(self).serialize(serializer)
    }
}

/// Deserializes a compound's [`ShapeDescription`] and builds it with [`Compound::new`]
/// (every part checked).
impl<'de> Deserialize<'de> for Compound {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let d = ShapeDescription::deserialize(deserializer)?;
        Compound::try_from(d).map_err(serde::de::Error::custom)
    }
}

/// Serializes the collider's [`ShapeDescription`].
impl Serialize for Collider {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ShapeDescription::from(self).serialize(serializer)
    }
}

/// Deserializes a [`ShapeDescription`] into a compound or a convex shape, checked.
impl<'de> Deserialize<'de> for Collider {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let d = ShapeDescription::deserialize(deserializer)?;
        match d {
            ShapeDescription::Compound { .. } => Compound::try_from(d)
                .map(|c| Collider::Compound(Arc::new(c)))
                .map_err(serde::de::Error::custom),
            _ => Shape::try_from(d)
                .map(Collider::Convex)
                .map_err(serde::de::Error::custom),
        }
    }
}
