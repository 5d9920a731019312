//! # minkowski
//!
//! Convex collision detection built around GJK.
//!
//! * [`shape`]: spheres, boxes, capsules, cylinders, cones, pyramids, ellipsoids,
//!   segments, triangles, points, point-cloud hulls and rounded versions of any of them,
//!   each validated at construction and described by an analytic support map.
//! * [`support`]: the [`support::SupportMap`] trait and the adapters that compose support
//!   maps (pose, rounding, Minkowski difference, linear sweep).
//! * [`query`]: GJK (intersection, distance, closest points, warm start, Nesterov
//!   acceleration), EPA (penetration depth), and the shape-level `contact` query with a
//!   dispatcher that picks closed forms and SAT where they beat GJK;
//!   [`query::compound`] answers the same queries for compound shapes, part by part.
//! * [`hull`]: quickhull in 3D and six 2D hull algorithms, all on exact predicates.
//! * [`planar`]: 2D shapes and 2D GJK.
//! * [`broadphase`]: uniform grid, incremental sweep and prune, dynamic AABB tree, behind
//!   one trait.
//! * [`world`]: objects by handle, broad phase, parallel narrow phase, contact events.
//! * [`optimize`]: CCSA (Svanberg's conservative convex separable approximations), for
//!   preprocessing such as the terrain's bounding volumes.
//! * [`scene`]: seeded moving scenes (seed 000's experiment) for `minkowski scene` and
//!   the benchmarks.
//!
//! # Which query
//!
//! | need | call | answer |
//! |---|---|---|
//! | do they touch? (culling, triggers) | [`query::intersects`] | `bool`; stops at the first certificate |
//! | how far apart? (proximity, LOD) | [`query::distance`] | [`query::DistanceOutput`]: distance ≥ 0 with certified `[lower_bound, upper_bound]` |
//! | nearest points and direction (clearance, motion planning) | [`query::closest_points`] | [`query::ClosestPoints`]: the points, the separating normal |
//! | push out (penetration, one contact) | [`query::contact`] | [`query::Contact`]: signed distance (< 0 deep), normal, witnesses |
//! | resting contact for a solver | [`query::manifold()`] | [`query::Manifold`]: up to 4 points with depths and feature ids |
//! | many queries without allocating, own options | [`query::QueryContext`] | the same answers, reusing EPA's buffers |
//! | shapes made of parts | [`query::compound`] | the same answers and the parts that gave them |
//! | many moving objects | [`world::World`] | pairs and contact events per step |
//!
//! Every answer says how it was obtained (`status`: converged, numerical limit, iteration
//! bound); none panics or returns NaN on valid shapes and poses, and invalid ones are
//! refused when built ([`shape::ShapeError`], [`math::PoseError`]).
//!
//! Conventions: lengths are in the caller's units; shapes live in their local frame and
//! are placed by a [`Pose`]; pair queries answer in the world frame; normals point from
//! A towards B. [`Real`] is `f32` in this crate and `f64` in `minkowski-f64`
//! (`minkowski_f64`), the same sources built in double precision; the two crates can be
//! used side by side.
//!
//! ```
//! use minkowski::{query, shape::{Cuboid, Shape, Sphere}, Pose, Vector};
//!
//! let ball = Shape::from(Sphere::new(0.5).unwrap());
//! let boxy = Shape::from(Cuboid::new(Vector::new(1.0, 1.0, 1.0)).unwrap());
//! let at = |x| Pose::from_translation(Vector::new(x, 0.0, 0.0)).expect("valid pose");
//!
//! let c = query::contact(&boxy, &at(0.0), &ball, &at(1.3));
//! assert!((c.distance - (-0.2)).abs() < 1e-5);          // 0.2 deep
//! assert!((c.normal - Vector::X).length() < 1e-5);      // from the box towards the ball
//! assert!(!query::intersects(&boxy, &at(0.0), &ball, &at(1.6)));
//! ```

#![warn(missing_docs)]
#![forbid(unsafe_code)]
// Casts to and from `Real` are no-ops in the f64 build and conversions in the f32 build.
#![allow(clippy::unnecessary_cast)]

pub mod bounding;
pub mod broadphase;
pub mod hull;
pub mod math;
pub mod optimize;
pub mod planar;
#[cfg(feature = "protocol")]
pub mod protocol;
pub mod query;
pub mod scene;
pub mod shape;
pub mod support;
pub mod terrain;
pub mod tolerance;
pub mod world;

#[cfg(test)]
mod testing;

/// The glam version this crate is built on, so that an application can name the same
/// vector types (`minkowski::glam::Vec3` or `DVec3`) whatever glam it depends on itself.
pub use glam;
#[cfg(feature = "serde")]
#[doc(inline)]
pub use math::PoseDescription;
#[doc(inline)]
pub use math::{Point, Pose, PoseError, Real, Rotation, Vector};
/// The `mint` version this crate converts to and from (feature `mint`): interoperability
/// vector types that every glam version, nalgebra and others convert to. See
/// [`Pose::from_mint`].
#[cfg(feature = "mint")]
pub use mint;
