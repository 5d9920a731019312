//! Pair queries: intersection, distance, closest points, contact, contact manifolds.
//!
//! Two levels:
//!
//! * **Shape-level** ([`intersects`], [`distance`], [`closest_points`], [`contact`]) take
//!   two [`crate::shape::Shape`]s and their world poses, pick the cheapest exact routine
//!   for the pair ([`dispatch`]), and answer in the world frame. [`manifold()`] builds
//!   on [`contact`]: up to four point pairs for a resting contact.
//! * **Generic** ([`gjk`], [`epa`]) take any two [`crate::support::SupportMap`]s, are
//!   monomorphised per shape type, and expose every option (tolerances, iteration
//!   bounds, the accelerated variant, the warm-start cache, reusable EPA buffers).
//!
//! A [`crate::shape::HalfSpace`] (unbounded, no support map) has closed-form queries of
//! its own against a convex shape or a compound ([`contact_halfspace`] and its siblings,
//! in [`halfspace`]).
//!
//! Every result carries a status saying how it was obtained; none invents an answer.

/// `body` run on the two cores' difference `A ⊖ B` in A's frame
/// ([`crate::support::MinkowskiDifference::relative`]), with the pair's support-search hints (`hints`,
/// starting cold).
///
/// Monomorphised per type of A's core only: B's support calls go through the
/// [`crate::shape::CoreShape`] enum (one predictable branch per call, inlined), so GJK and EPA are
/// compiled 10 times instead of 81 (one per pair of the nine core types). Hull against
/// hull, the costliest support maps and the most common pair in a world of meshes, keeps
/// its own instantiation. Measured against the per-pair version (bench-table ABBA, 10
/// runs): geomean 1.00 over the shape-pair table and 0.95 on hulls, for 53% less machine
/// code in the CLI and half the CPU time to rebuild it after an edit of GJK.
macro_rules! on_cores {
    ($ca:expr, $cb:expr, $pose_a:expr, $pose_b:expr, |$pair:ident, $hints:ident| $body:expr) => {
        if let ($crate::shape::CoreShape::Convex(sa), $crate::shape::CoreShape::Convex(sb)) = (&$ca, &$cb) {
            let $pair = $crate::support::MinkowskiDifference::relative(*sa, $pose_a, *sb, $pose_b);
            let $hints = &mut [u32::MAX; 2];
            $body
        } else {
            $crate::with_core!($ca, sa => {
                let $pair = $crate::support::MinkowskiDifference::relative(sa, $pose_a, &$cb, $pose_b);
                let $hints = &mut [u32::MAX; 2];
                $body
            })
        }
    };
}

pub mod advancement;
mod ball_ball_cast;
pub mod bisection;
mod box_box_cast;
mod cast;
pub mod compound;
mod contact;
mod context;
pub mod cw;
mod cyrus_beck;
pub mod dispatch;
pub mod epa;
pub mod feature;
pub mod gjk;
pub mod halfspace;
mod heightfield;
pub mod manifold;
mod pair;
mod point;
mod polytope;
mod ray;
mod ray_cone;
pub mod sat;
pub mod simplex;
pub mod static_dispatch;
pub mod static_geometry;
mod trimesh;

#[doc(inline)]
pub use crate::tolerance::OptionsError;
pub(crate) use cast::check_max_toi;
#[doc(inline)]
pub use cast::{cast_shapes, CastError, CastInput, CastStart, Motion, ShapeCast};
#[doc(inline)]
pub use contact::{ClosestPoints, Contact, ContactMethod, DistanceOutput, QueryStatus};
#[doc(inline)]
pub use context::{QueryContext, ShapePair};
#[doc(inline)]
pub use dispatch::{
    closest_points, closest_points_with, contact, contact_with, distance, distance_with,
    intersects, intersects_with, separation_bound_with, QueryOptions,
};
#[doc(inline)]
pub use halfspace::{
    cast_ray_halfspace, cast_shape_halfspace, closest_points_halfspace, contact_halfspace,
    contact_halfspace_compound, contains_point_halfspace, distance_halfspace, intersects_halfspace,
    manifold_halfspace, manifold_halfspace_compound, project_point_halfspace,
    signed_distance_halfspace, HalfSpaceCastInput,
};
#[doc(inline)]
pub use heightfield::cast_ray_heightfield;
#[doc(inline)]
pub use manifold::{manifold, manifold_with, Manifold, ManifoldPoint};
#[doc(inline)]
pub use point::{
    contains_point, project_point, project_point_with, signed_distance, PointProjection,
};
pub(crate) use ray::check_vector;
#[doc(inline)]
pub use ray::{cast_ray, Ray, RayCast, RayHit, RayOptions};
#[doc(inline)]
pub use trimesh::{cast_ray_trimesh, project_point_trimesh};
