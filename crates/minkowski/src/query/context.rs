//! A caller-owned query context: the options and the scratch space of the shape-level
//! queries in one value, so that a caller decides where the memory lives.
//!
//! The free functions ([`contact`](super::contact), [`contact_with`](super::contact_with),
//! …) are conveniences over the same code: they take EPA's buffers from a per-thread slot,
//! which they move out and back (a nested call, or a call during thread teardown,
//! starts from empty buffers; none can panic). A [`QueryContext`] makes that state
//! explicit: one per thread or per task, reused across queries, and no query run with
//! it allocates once its buffers have grown to the largest polytope seen.

use super::dispatch::{self, contact_in};
use super::epa::EpaWorkspace;
use super::gjk::GjkCache;
use super::manifold::{manifold_in, Manifold};
use super::{ClosestPoints, Contact, DistanceOutput, QueryOptions};
use crate::math::{Pose, Real};
use crate::shape::Shape;

/// The input of every pair query: two shapes, each placed in the world by its pose
/// (Box2D's `b2DistanceInput` in spirit). Shapes live in their local frames; the poses
/// map them to the world, where every answer is given, with normals from A towards B.
#[derive(Debug, Clone, Copy)]
pub struct ShapePair<'s> {
    /// Shape A (local frame).
    pub a: &'s Shape,
    /// Where A is: local to world.
    pub pose_a: Pose,
    /// Shape B (local frame).
    pub b: &'s Shape,
    /// Where B is: local to world.
    pub pose_b: Pose,
}

impl<'s> ShapePair<'s> {
    /// A at `pose_a`, B at `pose_b`.
    pub fn new(a: &'s Shape, pose_a: Pose, b: &'s Shape, pose_b: Pose) -> Self {
        Self {
            a,
            pose_a,
            b,
            pose_b,
        }
    }

    /// The same pair with the roles of A and B exchanged (answers' normals reverse).
    pub fn swapped(self) -> Self {
        Self::new(self.b, self.pose_b, self.a, self.pose_a)
    }
}

/// Options and scratch space for the shape-level queries.
///
/// The free functions ([`contact`](super::contact), [`contact_with`](super::contact_with),
/// …) run the same code with EPA's buffers from a per-thread slot, which they move out
/// and back (a nested call, or a call during thread teardown, starts from empty
/// buffers; none can panic). A context makes that state the caller's: one per thread or
/// per task, reused across queries; no query run with it allocates once its buffers
/// have grown to the largest polytope seen.
///
/// Every method answers exactly as the free function of the same name with
/// [`options`](Self::options) would: same frames (world), units and outcomes. A
/// context is cheap to create (no allocation until EPA first runs) and may be cloned
/// or moved between threads; it is not shared between threads at once (`&mut self`).
///
/// ```
/// use minkowski::query::{gjk::GjkCache, QueryContext, QueryOptions, ShapePair};
/// use minkowski::shape::{Cylinder, Shape, Sphere};
/// use minkowski::{Pose, Vector};
///
/// let mut ctx = QueryContext::new(QueryOptions::default());
/// let post = Shape::from(Cylinder::new(1.0, 0.2).unwrap());
/// let ball = Shape::from(Sphere::new(0.5).unwrap());
/// let mut cache = GjkCache::new(); // this pair's warm start, frame to frame
/// for step in 0..10 {
///     let at = Pose::from_translation(Vector::new(1.0 - 0.05 * step as minkowski::Real, 0.0, 0.0))
///         .unwrap();
///     let pair = ShapePair::new(&post, Pose::IDENTITY, &ball, at);
///     let c = ctx.contact(&pair, Some(&mut cache));
///     if c.distance < 0.0 {
///         assert!(c.normal.x > 0.99); // push the ball out along +x
///     }
/// }
/// ```
#[derive(Debug, Clone, Default)]
pub struct QueryContext {
    /// The tolerances and bounds every query run with this context uses.
    pub options: QueryOptions,
    epa: EpaWorkspace,
}

impl QueryContext {
    /// A context with `options` and empty buffers.
    pub fn new(options: QueryOptions) -> Self {
        Self {
            options,
            epa: EpaWorkspace::new(),
        }
    }

    /// Whether A and B overlap or touch; see [`intersects_with`](super::intersects_with).
    /// `cache` warm-starts GJK from the pair's last query (see [`GjkCache`]).
    pub fn intersects(&mut self, q: &ShapePair<'_>, cache: Option<&mut GjkCache>) -> bool {
        dispatch::intersects_with(q.a, &q.pose_a, q.b, &q.pose_b, &self.options, cache)
    }

    /// Distance between A and B, with certified bounds; see
    /// [`distance_with`](super::distance_with).
    pub fn distance(&mut self, q: &ShapePair<'_>, cache: Option<&mut GjkCache>) -> DistanceOutput {
        dispatch::distance_with(q.a, &q.pose_a, q.b, &q.pose_b, &self.options, cache)
    }

    /// Distance, closest points and separating normal; see
    /// [`closest_points_with`](super::closest_points_with).
    pub fn closest_points(
        &mut self,
        q: &ShapePair<'_>,
        cache: Option<&mut GjkCache>,
    ) -> ClosestPoints {
        dispatch::closest_points_with(q.a, &q.pose_a, q.b, &q.pose_b, &self.options, cache)
    }

    /// Signed distance, normal and witnesses, with EPA's polytope in this context; see
    /// [`contact_with`](super::contact_with).
    pub fn contact(&mut self, q: &ShapePair<'_>, cache: Option<&mut GjkCache>) -> Contact {
        contact_in(
            q.a,
            &q.pose_a,
            q.b,
            &q.pose_b,
            &self.options,
            cache,
            Some(&mut self.epa),
        )
    }

    /// The contact manifold, with EPA's polytope in this context; see
    /// [`manifold_with`](super::manifold_with). `margin` is a length ≥ 0 (NaN or
    /// negative: 0).
    pub fn manifold(&mut self, q: &ShapePair<'_>, margin: Real) -> Manifold {
        manifold_in(
            q.a,
            &q.pose_a,
            q.b,
            &q.pose_b,
            margin,
            &self.options,
            Some(&mut self.epa),
        )
    }
}
