//! Convex shapes with analytic support maps.
//!
//! Every shape lives in its own local frame, centred at the origin unless it is given by
//! explicit points. Shapes with an axis (capsule, cylinder, cone, pyramid) are aligned
//! with local **+Y**. Lengths are in the caller's units.
//!
//! Constructors validate their input and return [`ShapeError`] for NaN, infinite,
//! negative or out-of-range numbers and for empty point sets: a shape that exists is
//! well formed.
//!
//! [`Shape`] is the runtime (enum) form used by the dispatcher and the CLI. Internally
//! each shape splits into a *core* and a *margin* (a sphere is a point with margin `r`,
//! a capsule a segment with margin `r`, [`RoundedShape`] adds its radius to its inner
//! shape's margin): GJK runs on the cores, which is exact and far better conditioned
//! than running it on curved surfaces.
//!
//! The set of shapes is open: a shape type is one file here implementing
//! [`SupportMap`] and [`ConvexShape`], and one entry in the registry at the bottom of this
//! file, from which [`Shape`]'s variants, its per-kind methods, its construction from the
//! query protocol's parameters ([`Shape::from_params`], through [`ShapeParams`]) and the
//! list of kinds the benchmarks and tests iterate over ([`Shape::TYPE_NAMES`],
//! [`Shape::examples`]) are generated. See [`ConvexShape`] for what stays per core.
//!
//! [`HalfSpace`] (a plane and everything below it) is unbounded and has no support map,
//! so it is a type of its own, not a [`Shape`]: its queries are closed forms in
//! [`crate::query::halfspace`].

mod capsule;
mod compound;
mod cone;
pub(crate) mod convex_polyhedron;
mod convex_shape;
mod cuboid;
mod cylinder;
#[cfg(feature = "serde")]
mod description;
mod ellipsoid;
mod halfspace;
pub mod heightfield;
mod point;
pub(crate) mod polyhedron_features;
mod pyramid;
mod rounded;
mod segment;
mod sphere;
mod static_shape;
pub mod tessellation;
mod triangle;
pub mod triangle_set;
pub mod trimesh;

pub use capsule::Capsule;
pub use compound::Compound;
pub use cone::Cone;
pub use convex_polyhedron::{ConvexPolyhedron, HILL_CLIMB_MIN_VERTICES};
pub use convex_shape::{ConvexShape, ShapeParams};
pub use cuboid::Cuboid;
pub use cylinder::Cylinder;
#[cfg(feature = "serde")]
pub use description::{PartDescription, ShapeDescription};
pub use ellipsoid::Ellipsoid;
pub use halfspace::HalfSpace;
pub use heightfield::{HeightField, HeightFieldError, MAX_HEIGHTFIELD_IMAGE_SAMPLES};
pub use point::PointShape;
pub use polyhedron_features::SAT_CONTACT_MAX_VERTICES;
pub use pyramid::Pyramid;
pub use rounded::RoundedShape;
pub use segment::Segment;
pub use sphere::Sphere;
pub use static_shape::StaticShape;
pub use triangle::Triangle;
pub use triangle_set::{MeshEdge, MeshTriangle, TriangleSet};
pub use trimesh::{TriMesh, TriMeshError, TriMeshFlags};

use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::{Rounded, SupportMap};

/// The largest magnitude accepted for any length or coordinate: `1e8` in `f32`, `1e60`
/// in `f64`. GJK forms products of up to four lengths (squared areas); with coordinates
/// of the Minkowski difference up to a few times this bound they stay finite (f32 tops
/// out at 3.4e38), so larger input is refused rather than answered with garbage. (In
/// f32 the spacing of representable numbers at 1e8 is already 8 units.)
#[cfg(not(minkowski_f64))]
pub const MAX_MAGNITUDE: Real = 1e8;
/// The largest magnitude accepted for any length or coordinate: `1e8` in `f32`, `1e60`
/// in `f64`. GJK forms products of up to four lengths (squared areas); with coordinates
/// of the Minkowski difference up to a few times this bound they stay finite (f32 tops
/// out at 3.4e38), so larger input is refused rather than answered with garbage. (In
/// f32 the spacing of representable numbers at 1e8 is already 8 units.)
#[cfg(minkowski_f64)]
pub const MAX_MAGNITUDE: Real = 1e60;

/// Why a shape could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShapeError {
    /// A length (radius, half extent, ...) is NaN, infinite, negative or larger than
    /// [`MAX_MAGNITUDE`].
    #[error("{shape} {field} must be finite and >= 0, got {value}")]
    InvalidLength {
        /// The shape being built, e.g. `"sphere"`.
        shape: &'static str,
        /// The offending field, e.g. `"radius"`.
        field: &'static str,
        /// The value given.
        value: Real,
    },
    /// A length or coordinate has a magnitude above [`MAX_MAGNITUDE`] (or, for shape
    /// `"scene"`, a count above its limit: [`crate::scene::Scene::new`]).
    #[error("{shape} {field} magnitude must be <= {max}, got {value}")]
    OutOfRange {
        /// The shape being built.
        shape: &'static str,
        /// The offending field.
        field: &'static str,
        /// The value given.
        value: Real,
        /// The limit, [`MAX_MAGNITUDE`] (or the scene's count limit).
        max: Real,
    },
    /// A point has a NaN or infinite coordinate.
    #[error("{shape} {field} must have finite coordinates, got [{x}, {y}, {z}]")]
    NonFinitePoint {
        /// The shape being built.
        shape: &'static str,
        /// The offending field, e.g. `"points[3]"`.
        field: String,
        /// x coordinate given.
        x: Real,
        /// y coordinate given.
        y: Real,
        /// z coordinate given.
        z: Real,
    },
    /// A point set that must not be empty is empty.
    #[error("{shape} needs at least one point")]
    EmptyPointSet {
        /// The shape being built.
        shape: &'static str,
    },
    /// The convex hull of a point set could not be built (an unreadable OBJ file, or an
    /// internal hull error).
    #[error("convex hull: {0}")]
    Hull(#[from] crate::hull::HullError),
    /// A description of one kind where another is needed: a compound where a convex
    /// shape is needed (a [`Shape`], a rounded shape's inner shape, a compound's part),
    /// or a convex shape where a compound is.
    #[error("expected {expected}, got a shape of type '{got}'")]
    WrongKind {
        /// What was needed: `"a convex shape"` or `"a compound"`.
        expected: &'static str,
        /// The kind given (its protocol name).
        got: &'static str,
    },
    /// A compound part's pose is invalid.
    #[error("part pose: {0}")]
    Pose(#[from] crate::math::PoseError),
    /// A number that may have either sign (a half-space's offset) is NaN or infinite.
    #[error("{shape} {field} must be finite, got {value}")]
    NonFiniteValue {
        /// The shape being built, e.g. `"halfspace"`.
        shape: &'static str,
        /// The offending field, e.g. `"offset"`.
        field: &'static str,
        /// The value given.
        value: Real,
    },
    /// A direction that must be a unit vector (a half-space's normal) has a length
    /// farther from 1 than [`crate::tolerance::NORMAL_LENGTH_TOLERANCE`].
    #[error("{shape} {field} must be a unit vector (length within {tolerance} of 1), got length {length}")]
    NotUnit {
        /// The shape being built.
        shape: &'static str,
        /// The offending field, e.g. `"normal"`.
        field: &'static str,
        /// The length given.
        length: Real,
        /// The allowance, [`crate::tolerance::NORMAL_LENGTH_TOLERANCE`].
        tolerance: Real,
    },
}

/// Checks a length: finite, `>= 0`, at most [`MAX_MAGNITUDE`].
pub(crate) fn check_length(
    shape: &'static str,
    field: &'static str,
    value: Real,
) -> Result<Real, ShapeError> {
    if !value.is_finite() || value < 0.0 {
        return Err(ShapeError::InvalidLength {
            shape,
            field,
            value,
        });
    }
    if value > MAX_MAGNITUDE {
        return Err(ShapeError::OutOfRange {
            shape,
            field,
            value,
            max: MAX_MAGNITUDE,
        });
    }
    Ok(value)
}

/// Checks a point: finite coordinates of magnitude at most [`MAX_MAGNITUDE`].
pub(crate) fn check_point(
    shape: &'static str,
    field: impl Fn() -> String,
    p: Point,
) -> Result<Point, ShapeError> {
    if !p.is_finite() {
        return Err(ShapeError::NonFinitePoint {
            shape,
            field: field(),
            x: p.x,
            y: p.y,
            z: p.z,
        });
    }
    let m = p.abs().max_element();
    if m > MAX_MAGNITUDE {
        return Err(ShapeError::OutOfRange {
            shape,
            field: "point coordinate",
            value: m,
            max: MAX_MAGNITUDE,
        });
    }
    Ok(p)
}

/// Checks three lengths (half extents, radii).
pub(crate) fn check_extents(
    shape: &'static str,
    field: &'static str,
    v: Vector,
) -> Result<Vector, ShapeError> {
    for c in v.to_array() {
        check_length(shape, field, c)?;
    }
    Ok(v)
}

/// A borrowed view of a shape's core (the part GJK runs on); see [`Shape::core`].
#[derive(Debug, Clone, Copy)]
pub enum CoreShape<'a> {
    /// A point (the core of a sphere).
    Point(PointShape),
    /// A segment (the core of a capsule).
    Segment(Segment),
    /// A box.
    Cuboid(&'a Cuboid),
    /// A cylinder.
    Cylinder(&'a Cylinder),
    /// A cone.
    Cone(&'a Cone),
    /// A pyramid.
    Pyramid(&'a Pyramid),
    /// An ellipsoid.
    Ellipsoid(&'a Ellipsoid),
    /// A triangle.
    Triangle(&'a Triangle),
    /// A point cloud hull.
    Convex(&'a ConvexPolyhedron),
}

/// Runs `$body` with `$s` bound to the concrete support map inside a [`CoreShape`], so
/// that generic code is monomorphised per shape type instead of matching per call.
#[macro_export]
#[doc(hidden)]
macro_rules! with_core {
    ($core:expr, $s:ident => $body:expr) => {
        match $core {
            $crate::shape::CoreShape::Point(ref p) => {
                let $s = p;
                $body
            }
            $crate::shape::CoreShape::Segment(ref p) => {
                let $s = p;
                $body
            }
            $crate::shape::CoreShape::Cuboid(p) => {
                let $s = p;
                $body
            }
            $crate::shape::CoreShape::Cylinder(p) => {
                let $s = p;
                $body
            }
            $crate::shape::CoreShape::Cone(p) => {
                let $s = p;
                $body
            }
            $crate::shape::CoreShape::Pyramid(p) => {
                let $s = p;
                $body
            }
            $crate::shape::CoreShape::Ellipsoid(p) => {
                let $s = p;
                $body
            }
            $crate::shape::CoreShape::Triangle(p) => {
                let $s = p;
                $body
            }
            $crate::shape::CoreShape::Convex(p) => {
                let $s = p;
                $body
            }
        }
    };
}

impl SupportMap for CoreShape<'_> {
    #[inline]
    fn local_support(&self, dir: Vector) -> Point {
        with_core!(*self, s => s.local_support(dir))
    }
    #[inline]
    fn local_support_hinted(&self, dir: Vector, hint: &mut u32) -> Point {
        with_core!(*self, s => s.local_support_hinted(dir, hint))
    }
    #[inline]
    fn hinted_point(&self, hint: u32) -> Option<Point> {
        with_core!(*self, s => s.hinted_point(hint))
    }
    fn local_center(&self) -> Point {
        with_core!(*self, s => s.local_center())
    }
}

/// The largest distance of `points` from the origin.
pub(crate) fn farthest(points: &[Point]) -> Real {
    points.iter().map(|p| p.length()).fold(0.0, Real::max)
}

impl SupportMap for Shape {
    fn local_support(&self, dir: Vector) -> Point {
        let mut hint = u32::MAX;
        self.local_support_hinted(dir, &mut hint)
    }
    /// The core's support point, through the [`Rounded`] adapter when the shape has a
    /// margin (`core ⊕ ball(margin)`).
    fn local_support_hinted(&self, dir: Vector, hint: &mut u32) -> Point {
        let (core, margin) = self.core();
        if margin > 0.0 {
            Rounded::new(core, margin).local_support_hinted(dir, hint)
        } else {
            core.local_support_hinted(dir, hint)
        }
    }
    fn hinted_point(&self, hint: u32) -> Option<Point> {
        // A rounded shape's support point depends on the direction, not only on the
        // core's point ([`Rounded`] names none).
        let (core, margin) = self.core();
        if margin > 0.0 {
            Rounded::new(core, margin).hinted_point(hint)
        } else {
            core.hinted_point(hint)
        }
    }
    fn local_center(&self) -> Point {
        self.core().0.local_center()
    }
}

/// Generates [`Shape`] and its per-kind methods from the registry's list of
/// `Variant(Type)` entries (each type implements [`ConvexShape`]); see the invocation
/// below.
macro_rules! shape_registry {
    ($($(#[$doc:meta])* $variant:ident($ty:ty),)*) => {
        /// Any convex shape, for runtime dispatch (the CLI, heterogeneous scenes).
        ///
        /// Statically typed code can use the concrete shape types directly with the
        /// generic queries in [`crate::query::gjk`] and [`crate::query::epa`].
        ///
        /// The variants and the per-kind methods are generated from the registry in
        /// `shape/mod.rs` (one line per shape type; see [`ConvexShape`]).
        #[derive(Debug, Clone, PartialEq)]
        pub enum Shape {
            $($(#[$doc])* $variant($ty),)*
        }

        impl Shape {
            /// The protocol names of every registered shape type, in registry order
            /// (the order of the variants).
            pub const TYPE_NAMES: &'static [&'static str] =
                &[$(<$ty as ConvexShape>::TYPE_NAME,)*];

            /// The shape's name as used by the query protocol (`"sphere"`, `"cuboid"`,
            /// ...): its type's [`ConvexShape::TYPE_NAME`].
            pub fn type_name(&self) -> &'static str {
                match self {
                    $(Shape::$variant(_) => <$ty as ConvexShape>::TYPE_NAME,)*
                }
            }

            /// Splits the shape into its core and margin: the shape is exactly
            /// `core ⊕ ball(margin)`. Spheres become points, capsules segments, and
            /// rounded shapes add their radius to their inner shape's margin.
            pub fn core(&self) -> (CoreShape<'_>, Real) {
                match self {
                    $(Shape::$variant(s) => ConvexShape::core(s),)*
                }
            }

            /// The shape's bounding box in its local frame.
            pub fn local_aabb(&self) -> Aabb {
                match self {
                    $(Shape::$variant(s) => ConvexShape::local_aabb(s),)*
                }
            }

            /// The radius of a ball about the local origin that contains the shape
            /// (length units): the distance of its farthest point, rounded up by a few
            /// units in the last place, and never more than the farthest corner of
            /// [`local_aabb`](Self::local_aabb).
            pub fn bounding_radius(&self) -> Real {
                let corner = self.local_aabb().origin_radius();
                let exact = match self {
                    $(Shape::$variant(s) => ConvexShape::bounding_radius(s),)*
                };
                (exact * (1.0 + 4.0 * crate::math::EPSILON)).min(corner)
            }

            /// Builds the registered shape named `type_name` (a protocol name, see
            /// [`TYPE_NAMES`](Self::TYPE_NAMES)) from `params`; `None` when no
            /// registered shape has that name.
            ///
            /// # Errors
            /// `Some(Err(_))` with the accessor's error for a missing or malformed
            /// field, or the constructor's [`ShapeError`] converted into `P::Error`.
            pub fn from_params<P: ShapeParams + ?Sized>(
                type_name: &str,
                params: &P,
            ) -> Option<Result<Shape, P::Error>> {
                $(if type_name == <$ty as ConvexShape>::TYPE_NAME {
                    return Some(<$ty as ConvexShape>::from_params(params).map(Shape::$variant));
                })*
                None
            }

            /// The shape scaled about its local origin by `factor` (finite, > 0); see
            /// [`ConvexShape::scaled`].
            ///
            /// # Errors
            /// The shape's constructor's [`ShapeError`] for a scaled value out of range.
            pub fn scaled(&self, factor: Real) -> Result<Shape, ShapeError> {
                match self {
                    $(Shape::$variant(s) => ConvexShape::scaled(s, factor).map(Shape::$variant),)*
                }
            }

            /// One [`ConvexShape::example`] of every registered type, in registry order.
            pub fn examples() -> Vec<Shape> {
                vec![$(Shape::$variant(<$ty as ConvexShape>::example()),)*]
            }

            /// The support point of the variant's own support map (not through its core),
            /// for the registry's tests that hold the two against each other.
            #[cfg(test)]
            pub(crate) fn own_support(&self, dir: Vector) -> Point {
                match self {
                    $(Shape::$variant(s) => SupportMap::local_support(s, dir),)*
                }
            }
        }

        $(impl From<$ty> for Shape {
            fn from(s: $ty) -> Self {
                Shape::$variant(s)
            }
        })*
    };
}

// The registry: every shape type of [`Shape`], in protocol order. Adding a shape is a
// file implementing `ConvexShape` and `SupportMap`, its `mod`/`pub use` above, and one
// entry here (and, for the `serde` feature, its variant in `ShapeDescription`:
// `shape/description.rs`).
shape_registry! {
    /// A ball.
    Sphere(Sphere),
    /// A box.
    Cuboid(Cuboid),
    /// A segment along Y swept by a ball.
    Capsule(Capsule),
    /// A cylinder along Y.
    Cylinder(Cylinder),
    /// A cone along Y, apex up.
    Cone(Cone),
    /// A rectangular pyramid along Y, apex up.
    Pyramid(Pyramid),
    /// An axis-aligned ellipsoid.
    Ellipsoid(Ellipsoid),
    /// A segment between two points.
    Segment(Segment),
    /// A triangle.
    Triangle(Triangle),
    /// A single point.
    Point(PointShape),
    /// The convex hull of a point cloud.
    Convex(ConvexPolyhedron),
    /// Any shape inflated by a ball.
    Rounded(RoundedShape),
}

#[cfg(test)]
mod tests;
