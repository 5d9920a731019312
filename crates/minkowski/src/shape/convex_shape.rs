//! What a shape type provides to join [`Shape`]: the [`ConvexShape`] trait, and
//! [`ShapeParams`], the named parameters a shape is built from at run time.
//!
//! A shape type is one file in this module that implements [`SupportMap`] and
//! [`ConvexShape`], plus one line in the registry at the bottom of `shape/mod.rs`. The
//! registry generates the [`Shape`] variant and every per-kind method of the enum from
//! the trait: [`Shape::type_name`], [`Shape::core`], [`Shape::local_aabb`],
//! [`Shape::bounding_radius`], [`Shape::from_params`] (which the CLI's query protocol
//! parses with) and [`Shape::examples`] (which the benchmarks and the registry-wide tests
//! iterate over).
//!
//! What does not go through the trait, and why:
//!
//! * serde (feature `serde`) writes and reads shapes through `ShapeDescription`, an enum
//!   with one plain-data variant per kind, so that serde's derive gives every format the
//!   protocol's field names and types. A new shape adds its variant there; the
//!   exhaustive matches of its conversions fail to compile until it does, and the serde
//!   tests round-trip every registered kind.
//! * GJK and EPA run on the shape's *core*, one of the nine closed [`CoreShape`] kinds
//!   they are monomorphised over. A new shape reduces to one of them plus a margin (a
//!   polytope keeps a [`super::ConvexPolyhedron`] of its corners, a rounded shape a
//!   smaller core); the dispatcher's closed forms and the manifold's support features are
//!   chosen per core, so a new shape gets both without code of its own.
//! * The integration tests' oracles (`tests/common`) build each kind's independent twin
//!   (an exact f64 support map, membership and distance): that is per shape by design.
//!   The list of kinds they iterate comes from the registry, so a registered shape
//!   without a twin fails those tests loudly instead of being skipped.

use core::fmt::Debug;

use super::{CoreShape, Shape, ShapeError};
use crate::bounding::Aabb;
use crate::math::{Point, Real, Vector};
use crate::support::SupportMap;

/// A convex shape type of the [`Shape`] registry.
///
/// Implementors describe one set in their local frame (lengths in the caller's units,
/// axis shapes along local +Y). Their [`SupportMap`] and their
/// [`core`](ConvexShape::core) must describe the same set: the registry's tests check
/// the one against the other for every registered type.
pub trait ConvexShape: SupportMap + Clone + PartialEq + Debug + Sized {
    /// The shape's name in the query protocol (`"sphere"`, `"cuboid"`, ...), unique
    /// among the registered shapes. `"compound"` is taken (by
    /// [`super::Compound`], which is not a [`Shape`]).
    const TYPE_NAME: &'static str;

    /// Splits the shape into its core and margin (a length `>= 0`): the shape is exactly
    /// `core ⊕ ball(margin)`, in the same local frame. GJK and EPA run on the core and add
    /// the margin analytically; see [`Shape::core`].
    fn core(&self) -> (CoreShape<'_>, Real);

    /// The shape's bounding box in its local frame (it contains every point of the
    /// shape; it need not be the tightest box).
    fn local_aabb(&self) -> Aabb;

    /// The largest distance of a point of the shape from the local origin (length
    /// units), as computed in the build's precision. [`Shape::bounding_radius`] rounds it
    /// up by a few units in the last place and caps it by the box's farthest corner.
    fn bounding_radius(&self) -> Real;

    /// Builds the shape from named parameters: the query protocol's fields (see
    /// `docs/query-protocol.md`), read through `params` in the order the
    /// constructor takes them, so that the first bad field is the one reported.
    ///
    /// # Errors
    /// The accessor's error for a missing or malformed field, or the constructor's
    /// [`ShapeError`] (converted into `P::Error`) for a value it refuses.
    fn from_params<P: ShapeParams + ?Sized>(params: &P) -> Result<Self, P::Error>;

    /// The same shape scaled about its local origin by `factor` (finite, > 0): every
    /// length and point multiplied by it. The library calls it with powers of two, for
    /// which the scaling is exact (no rounding), to bring problems of extreme size to
    /// unit size before running GJK and EPA on them.
    ///
    /// # Errors
    /// The constructor's [`ShapeError`] when a scaled value leaves its allowed range.
    fn scaled(&self, factor: Real) -> Result<Self, ShapeError>;

    /// A representative instance about one length unit across, centred near the
    /// origin: what the benchmarks time for a type they have no hand-picked instance of,
    /// and what the registry-wide tests start from.
    fn example() -> Self;
}

/// Named parameters a shape is built from at run time (see
/// [`ConvexShape::from_params`]): the CLI implements it over a JSON shape object; tests
/// implement it over random numbers.
///
/// Each accessor reads the field named `field` of the shape being built. Values are in
/// the caller's units and local frame; range checks belong to the shape's constructor
/// (whose [`ShapeError`] converts into [`Self::Error`]), while the accessor refuses
/// only what cannot be read as the asked kind (missing, wrong type, unreadable number).
pub trait ShapeParams {
    /// Why a parameter could not be read, or a constructor's [`ShapeError`].
    type Error: From<ShapeError>;

    /// A number (a length or a coordinate).
    ///
    /// # Errors
    /// When the field is missing or not a number.
    fn number(&self, field: &'static str) -> Result<Real, Self::Error>;

    /// A vector `[x, y, z]` (extents, radii, a point).
    ///
    /// # Errors
    /// When the field is missing or not three numbers.
    fn vector(&self, field: &'static str) -> Result<Vector, Self::Error>;

    /// A vector that may be left out: `None` when the field is absent.
    ///
    /// # Errors
    /// When the field is present but not three numbers.
    fn optional_vector(&self, field: &'static str) -> Result<Option<Vector>, Self::Error>;

    /// A list of points `[[x, y, z], ...]` (possibly empty: the constructor decides).
    ///
    /// # Errors
    /// When the field is missing, not a list, or an element is not three numbers.
    fn points(&self, field: &'static str) -> Result<Vec<Point>, Self::Error>;

    /// An inner shape, itself given by parameters (a rounded shape's `shape`).
    ///
    /// # Errors
    /// When the field is missing or does not describe a shape.
    fn shape(&self, field: &'static str) -> Result<Shape, Self::Error>;
}
