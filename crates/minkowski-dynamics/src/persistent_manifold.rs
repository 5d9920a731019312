//! Persistent manifolds: a pair whose relative pose has barely changed since its
//! manifolds were computed reuses them, moved with the bodies, instead of asking the
//! narrow phase again.
//!
//! # The refresh and its error bound
//!
//! When the narrow phase computes the manifolds of a pair at poses `P_A`, `P_B` (the
//! colliders' world poses) it stores each point pair in its own body's frame,
//! `a = P_A⁻¹ p_A` and `b = P_B⁻¹ p_B`, the normal in A's frame, the relative pose
//! `T = P_A⁻¹ P_B` and the margin `m_f` it used. At later poses `P'_A`, `P'_B` with
//! relative pose `T' = P'_A⁻¹ P'_B`, a point fixed in B, seen from A, moved by
//! `(T' − T) b`, whose length is at most
//!
//! ```text
//! Δ = |t' − t| + θ · max|b|,    θ = the angle of the rotation R' R⁻¹ (≈ 2 |vec(q' q⁻¹)|)
//! ```
//!
//! If `Δ ≤ τ`, the stored points are refreshed, `p'_A = P'_A a`, `p'_B = P'_B b`, the
//! normal `n' = R'_A n`, and each point's signed distance `n'·(p'_B − p'_A)`. Every
//! distance is then within `τ` (plus the normal's turn times the points' spread, also
//! bounded by `θ`) of what a new query would give for the same features, and a point
//! that a new query would add at the margin `m` (distance ≤ `m`) was within `m + τ` at
//! the stored poses: the fresh query runs at `m_f = m + 2τ`, and reuse requires the
//! current margin to be at most `m_f − τ`, so no such point is missing. Because `T` is
//! the pose of the last *computed* manifold, not of the last step, the error does not
//! accumulate: the pair is computed again as soon as it has moved `τ` in all.
//!
//! This is the contact caching of Bullet's `btPersistentManifold` (points kept in each
//! body's frame and refreshed, Coumans) and of PhysX's persistent contact manifolds,
//! with the reuse test made a bound on the points' motion. Feature ids are kept, so
//! warm starting and friction anchors see the same points.

use crate::contact_manifold::PairManifold;
use minkowski::query::ManifoldPoint;
use minkowski::{Pose, Real, Vector};

/// A manifold in the world frame as the solver takes it (a library manifold or a
/// refreshed one).
#[derive(Debug, Clone, Copy)]
pub(crate) struct WorldManifold {
    pub piece_a: u32,
    pub piece_b: u32,
    /// Unit normal from A to B (world).
    pub normal: Vector,
    points: [ManifoldPoint; 4],
    len: usize,
}

impl WorldManifold {
    /// The point pairs (world).
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..self.len]
    }
}

impl From<&crate::box_box_manifold::BoxBoxManifold> for WorldManifold {
    /// A convex pair's box–box manifold (pieces 0 and 0).
    fn from(m: &crate::box_box_manifold::BoxBoxManifold) -> Self {
        WorldManifold {
            piece_a: 0,
            piece_b: 0,
            normal: m.normal,
            points: m.points,
            len: m.len.min(4),
        }
    }
}

impl From<&PairManifold> for WorldManifold {
    fn from(pm: &PairManifold) -> Self {
        let mut points = [ManifoldPoint {
            point_a: Vector::ZERO,
            point_b: Vector::ZERO,
            distance: 0.0,
            feature: 0,
        }; 4];
        let src = pm.manifold.points();
        let len = src.len().min(4);
        points[..len].copy_from_slice(&src[..len]);
        WorldManifold {
            piece_a: pm.piece_a,
            piece_b: pm.piece_b,
            normal: pm.manifold.normal,
            points,
            len,
        }
    }
}

/// A pair's manifolds as the narrow phase hands them on: none or one (almost every
/// pair: two convex colliders give at most one manifold) held inline, more (compounds,
/// static geometry with several touching regions) in a vector. So that the narrow phase
/// allocates nothing per pair in the common case.
#[derive(Debug, Clone, Default)]
pub(crate) enum PairManifolds {
    /// No manifold (farther apart than the margin).
    #[default]
    None,
    /// One manifold.
    One(WorldManifold),
    /// Two or more.
    Many(Vec<WorldManifold>),
}

impl PairManifolds {
    /// The manifolds, in the order they were given.
    pub fn as_slice(&self) -> &[WorldManifold] {
        match self {
            PairManifolds::None => &[],
            PairManifolds::One(m) => std::slice::from_ref(m),
            PairManifolds::Many(v) => v,
        }
    }
}

impl FromIterator<WorldManifold> for PairManifolds {
    /// Inline for none or one; a vector only from the second manifold on.
    fn from_iter<I: IntoIterator<Item = WorldManifold>>(iter: I) -> Self {
        let mut it = iter.into_iter();
        let Some(first) = it.next() else {
            return PairManifolds::None;
        };
        match it.next() {
            None => PairManifolds::One(first),
            Some(second) => {
                let mut v = Vec::with_capacity(2 + it.size_hint().0);
                v.push(first);
                v.push(second);
                v.extend(it);
                PairManifolds::Many(v)
            }
        }
    }
}

/// One pair's stored manifolds (module notes).
#[derive(Debug, Clone)]
pub(crate) struct StoredPair {
    /// `(a, b)` as in the contact cache's keys.
    pub key: (u32, u32),
    /// `P_A⁻¹ P_B` when computed.
    relative: Pose,
    /// The margin the query ran with (`m_f`).
    margin: Real,
    /// The largest `|b|` over the points (B's frame).
    reach: Real,
    /// The manifolds with points in their bodies' frames and normals in A's.
    local: Vec<WorldManifold>,
}

impl StoredPair {
    /// Stores `manifolds` computed at `pose_a`, `pose_b` with margin `margin`.
    pub fn new(
        key: (u32, u32),
        pose_a: &Pose,
        pose_b: &Pose,
        margin: Real,
        manifolds: &[WorldManifold],
    ) -> StoredPair {
        let mut reach: Real = 0.0;
        let local = manifolds
            .iter()
            .map(|m| {
                let mut l = *m;
                l.normal = pose_a.inverse_transform_vector(m.normal);
                for p in &mut l.points[..l.len] {
                    p.point_a = pose_a.inverse_transform_point(p.point_a);
                    p.point_b = pose_b.inverse_transform_point(p.point_b);
                    reach = reach.max(p.point_b.length());
                }
                l
            })
            .collect();
        StoredPair {
            key,
            relative: pose_a.inv_mul(pose_b),
            margin,
            reach,
            local,
        }
    }

    /// The stored manifolds moved to `pose_a`, `pose_b` when the pair moved at most
    /// `tolerance` (length) since they were computed and `margin ≤ m_f − tolerance`;
    /// `None` otherwise (compute afresh).
    pub fn refresh(
        &self,
        pose_a: &Pose,
        pose_b: &Pose,
        margin: Real,
        tolerance: Real,
    ) -> Option<PairManifolds> {
        let now = pose_a.inv_mul(pose_b);
        let dt = (now.translation() - self.relative.translation()).length();
        let dq = now.rotation() * self.relative.rotation().inverse();
        let angle = 2.0 * Vector::new(dq.x, dq.y, dq.z).length();
        let moved = dt + angle * self.reach;
        // Written so that a NaN refuses the reuse.
        if moved <= tolerance && margin <= self.margin - tolerance {
            Some(
                self.local
                    .iter()
                    .map(|l| {
                        let mut m = *l;
                        m.normal = pose_a.transform_vector(l.normal);
                        for p in &mut m.points[..m.len] {
                            p.point_a = pose_a.transform_point(p.point_a);
                            p.point_b = pose_b.transform_point(p.point_b);
                            p.distance = m.normal.dot(p.point_b - p.point_a);
                        }
                        m
                    })
                    .collect(),
            )
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact_manifold::body_pair;
    use minkowski::query::compound::Collider;
    use minkowski::shape::{Cuboid, Shape};
    use minkowski::Rotation;

    fn rng(seed: u64) -> impl FnMut() -> Real {
        let mut s = seed;
        move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 40) as Real / (1u64 << 24) as Real
        }
    }

    /// Refreshed manifolds against new queries (the oracle) on seeded box pairs resting
    /// face on face, then nudged by less than the tolerance: the same feature ids, and
    /// each distance within the tolerance of the new query's. Nudged by more: no reuse.
    #[test]
    fn refresh_matches_new_query_within_tolerance() {
        let mut r = rng(7);
        let box_a = Collider::Convex(Shape::from(Cuboid::new(Vector::splat(0.5)).unwrap()));
        let box_b = Collider::Convex(Shape::from(
            Cuboid::new(Vector::new(0.5, 0.3, 0.4)).unwrap(),
        ));
        let (tol, m) = (5e-4 as Real, 0.02 as Real);
        let (mut reused, mut refused, mut compared) = (0, 0, 0);
        for _ in 0..400 {
            let pa = Pose::new(
                Rotation::from_rotation_y(r() * 6.0),
                Vector::new(r() * 20.0 - 10.0, r() * 5.0, r() * 20.0 - 10.0),
            )
            .unwrap();
            // B on A's top face, turned about the face normal, offset within the face.
            let lift = 0.8 + (r() - 0.5) * 0.01;
            let local = Pose::new(
                Rotation::from_rotation_y(r() * 1.5),
                Vector::new(r() * 0.6 - 0.3, lift, r() * 0.6 - 0.3),
            )
            .unwrap();
            let pb = pa.mul(&local);
            let fresh: Vec<WorldManifold> = body_pair(&box_a, &pa, &box_b, &pb, m + 2.0 * tol)
                .iter()
                .map(WorldManifold::from)
                .collect();
            let stored = StoredPair::new((0, 1), &pa, &pb, m + 2.0 * tol, &fresh);
            // A nudge of B: small (reusable) or large (refused).
            let big = r() < 0.3;
            let s = if big { 20.0 * tol } else { 0.3 * tol };
            let nudge = Pose::new(
                Rotation::from_rotation_z((r() - 0.5) * s),
                Vector::new(r() - 0.5, r() - 0.5, r() - 0.5) * s,
            )
            .unwrap();
            let pb2 = pb.mul(&nudge);
            match stored.refresh(&pa, &pb2, m, tol) {
                None => {
                    refused += 1;
                    assert!(big, "a nudge within the tolerance was refused");
                }
                Some(again) => {
                    let again = again.as_slice();
                    reused += 1;
                    assert!(!big, "a nudge of 20 tolerances was reused");
                    let oracle: Vec<WorldManifold> =
                        body_pair(&box_a, &pa, &box_b, &pb2, m + 2.0 * tol)
                            .iter()
                            .map(WorldManifold::from)
                            .collect();
                    assert_eq!(again.len(), oracle.len());
                    for (x, y) in again.iter().zip(&oracle) {
                        assert!(x.normal.dot(y.normal) > 1.0 - 1e-5);
                        for p in x.points() {
                            if let Some(q) = y.points().iter().find(|q| q.feature == p.feature) {
                                assert!((p.distance - q.distance).abs() <= tol + 1e-5);
                                compared += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(
            reused > 200 && refused > 50,
            "{reused} reused, {refused} refused"
        );
        assert!(compared > 600, "{compared} points compared");
    }

    /// Collecting 0 to 5 manifolds gives the same sequence as collecting into a
    /// vector (the oracle), inline for none or one.
    #[test]
    fn pair_manifolds_collect_like_a_vector() {
        let pa = Pose::IDENTITY;
        for n in 0..6u32 {
            let ms: Vec<WorldManifold> = (0..n)
                .map(|k| WorldManifold {
                    piece_a: k,
                    piece_b: 2 * k,
                    normal: Vector::Y,
                    points: [ManifoldPoint {
                        point_a: pa.translation(),
                        point_b: Vector::splat(k as Real),
                        distance: -(k as Real),
                        feature: k,
                    }; 4],
                    len: (k as usize) % 5,
                })
                .collect();
            let pm: PairManifolds = ms.iter().copied().collect();
            let got = pm.as_slice();
            assert_eq!(got.len(), ms.len());
            for (x, y) in got.iter().zip(&ms) {
                assert_eq!(
                    (x.piece_a, x.piece_b, x.normal),
                    (y.piece_a, y.piece_b, y.normal)
                );
                assert_eq!(x.points(), y.points());
            }
            assert_eq!(matches!(pm, PairManifolds::Many(_)), n >= 2);
        }
    }

    /// A margin grown beyond what the stored query covered forces a new query.
    #[test]
    fn larger_margin_is_not_reused() {
        let pa = Pose::IDENTITY;
        let pb = Pose::from_translation(Vector::new(0.0, 1.0, 0.0)).unwrap();
        let stored = StoredPair::new((0, 1), &pa, &pb, 0.03, &[]);
        assert!(stored.refresh(&pa, &pb, 0.02, 5e-3).is_some());
        assert!(stored.refresh(&pa, &pb, 0.029, 5e-3).is_none());
        assert!(stored.refresh(&pa, &pb, Real::NAN, 5e-3).is_none());
    }
}
