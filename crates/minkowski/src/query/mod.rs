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
//! Every result carries a status saying how it was obtained; none invents an answer.

pub mod compound;
mod contact;
mod context;
pub mod dispatch;
pub mod epa;
pub mod feature;
pub mod gjk;
pub mod manifold;
mod pair;
mod polytope;
pub mod simplex;

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
pub use manifold::{manifold, manifold_with, Manifold, ManifoldPoint};
