//! The narrow phase: contact manifolds of body pairs from the collision library.
//!
//! For two bodies each convex piece of A (one for a convex collider, every part of a
//! compound) is paired with each piece of B whose world box it meets, and
//! [`minkowski::query::manifold()`] gives up to four points with signed distances, a
//! normal from A to B and stable feature ids. For a body against static geometry
//! (half-space, heightfield, triangle mesh) [`static_dispatch::manifolds`] gives one
//! manifold per touching region, free of ghost collisions.
//!
//! Every query runs with a speculative `margin` (length): points up to that far apart are
//! kept, so that the solver can stop an approaching pair before it touches
//! (speculative contacts, Catto's "Speculative contacts", 2013, as in Box2D v3). The
//! world chooses the margin per pair from the pair's approach speed (see
//! `World::step`).

use minkowski::query::compound::Collider;
use minkowski::query::{manifold, static_dispatch, Manifold, QueryOptions};
use minkowski::shape::{Shape, StaticShape};
use minkowski::Pose;
use minkowski::Real;

/// A manifold of a pair, with which piece of each collider made it (0 for a convex
/// collider; the part index of a compound; the region index against static geometry).
#[derive(Debug, Clone, Copy)]
pub struct PairManifold {
    /// Piece of A.
    pub piece_a: u32,
    /// Piece of B.
    pub piece_b: u32,
    /// The manifold (world frame, normal from A to B).
    pub manifold: Manifold,
}

/// The convex pieces of a collider and their world poses.
fn pieces<'a>(c: &'a Collider, pose: &Pose) -> Vec<(u32, &'a Shape, Pose)> {
    match c {
        Collider::Convex(s) => vec![(0, s, *pose)],
        Collider::Compound(k) => k
            .parts()
            .iter()
            .enumerate()
            .map(|(i, (p, s))| (i as u32, s, pose.mul(p)))
            .collect(),
    }
}

/// The manifolds of two colliders at their world poses within `margin` (length ≥ 0):
/// one per pair of convex pieces that comes that close, in piece order; empty when none.
pub fn body_pair(
    a: &Collider,
    pose_a: &Pose,
    b: &Collider,
    pose_b: &Pose,
    margin: Real,
) -> Vec<PairManifold> {
    let mut out = Vec::new();
    let pa = pieces(a, pose_a);
    let pb = pieces(b, pose_b);
    for (ia, sa, qa) in &pa {
        let boxa = sa.local_aabb().transformed(qa).loosened(margin);
        for (ib, sb, qb) in &pb {
            if pa.len() * pb.len() > 1 && !boxa.intersects(&sb.local_aabb().transformed(qb)) {
                continue;
            }
            let m = manifold(sa, qa, sb, qb, margin);
            if m.is_empty() {
                continue;
            }
            out.push(PairManifold {
                piece_a: *ia,
                piece_b: *ib,
                manifold: m,
            });
        }
    }
    out
}

/// The manifolds of a collider `b` at `pose_b` against static geometry `s` at `pose_s`
/// within `margin`: one per touching region (A is the static geometry); empty when none.
pub fn static_pair(
    s: &StaticShape,
    pose_s: &Pose,
    b: &Collider,
    pose_b: &Pose,
    margin: Real,
) -> Vec<PairManifold> {
    static_dispatch::manifolds(s, pose_s, b, pose_b, margin, &QueryOptions::default())
        .into_iter()
        .enumerate()
        .map(|(i, m)| PairManifold {
            piece_a: i as u32,
            piece_b: 0,
            manifold: m,
        })
        .collect()
}
