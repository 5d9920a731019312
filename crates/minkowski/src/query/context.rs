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
    pub fn intersects(
        &mut self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        cache: Option<&mut GjkCache>,
    ) -> bool {
        dispatch::intersects_with(a, pose_a, b, pose_b, &self.options, cache)
    }

    /// Distance between A and B; see [`distance_with`](super::distance_with).
    pub fn distance(
        &mut self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        cache: Option<&mut GjkCache>,
    ) -> DistanceOutput {
        dispatch::distance_with(a, pose_a, b, pose_b, &self.options, cache)
    }

    /// Distance and closest points; see [`closest_points_with`](super::closest_points_with).
    pub fn closest_points(
        &mut self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        cache: Option<&mut GjkCache>,
    ) -> ClosestPoints {
        dispatch::closest_points_with(a, pose_a, b, pose_b, &self.options, cache)
    }

    /// Signed distance, normal and witnesses, with EPA's polytope in this context; see
    /// [`contact_with`](super::contact_with).
    pub fn contact(
        &mut self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        cache: Option<&mut GjkCache>,
    ) -> Contact {
        contact_in(
            a,
            pose_a,
            b,
            pose_b,
            &self.options,
            cache,
            Some(&mut self.epa),
        )
    }

    /// The contact manifold, with EPA's polytope in this context; see
    /// [`manifold_with`](super::manifold_with). `margin` is a length ≥ 0 (NaN or
    /// negative: 0).
    pub fn manifold(
        &mut self,
        a: &Shape,
        pose_a: &Pose,
        b: &Shape,
        pose_b: &Pose,
        margin: Real,
    ) -> Manifold {
        manifold_in(
            a,
            pose_a,
            b,
            pose_b,
            margin,
            &self.options,
            Some(&mut self.epa),
        )
    }
}
