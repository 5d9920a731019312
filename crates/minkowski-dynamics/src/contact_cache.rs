//! Persistent contacts: the impulses of last step's contact points, found again by
//! feature id for warm starting.
//!
//! The library's manifolds name each point by the pair of features that made it
//! ([`minkowski::query::ManifoldPoint::feature`]); while the same features touch, the id
//! stays the same from one step to the next. The cache keys each pair of bodies (or body
//! and static geometry) and, inside it, the pieces that touched; a new point whose id
//! matches an old point of the same key starts from that point's normal and friction
//! impulses (warm starting, Catto 2005); the friction impulse is re-expressed in the new
//! tangent basis through its world vector, so that a turning normal keeps it. When no
//! id matches (the manifold's reduction or the reference face changed), the old point
//! nearest in body B's frame within a tolerance is taken instead (as Jolt and rapier
//! match by position).

use minkowski::{Real, Vector};
use std::collections::HashMap;

/// A pair of bodies and the pieces that touched: `(a, b, piece_a, piece_b)`, where `a`
/// is a body index or `STATIC_BASE + k` for static geometry `k`.
pub type PairKey = (u32, u32, u32, u32);

/// The offset of static geometry indices in a [`PairKey`].
pub const STATIC_BASE: u32 = 0x8000_0000;

/// What a contact point keeps between steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CachedPoint {
    /// The feature id.
    pub feature: u32,
    /// Normal impulse (mass·length/s per substep).
    pub normal_impulse: Real,
    /// Friction impulse as a world vector.
    pub tangent_impulse: Vector,
    /// The point in body B's frame (from its centre of mass), for matching by position
    /// when the feature ids changed.
    pub local_b: Vector,
    /// The friction anchors in A's and B's frames (static geometry: world) while static
    /// friction holds; `None` when the point slid, separated or drifted (the next step
    /// anchors at its new point).
    pub anchor: Option<(Vector, Vector)>,
}

/// The cache of one step, read by the next.
#[derive(Debug, Clone, Default)]
pub struct ContactCache {
    map: HashMap<PairKey, Vec<CachedPoint>>,
}

impl ContactCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }
    /// Stores the points of one key (replacing any).
    pub fn insert(&mut self, key: PairKey, points: Vec<CachedPoint>) {
        self.map.insert(key, points);
    }
    /// The cached point of `key` with feature id `feature`, else the one nearest to
    /// `local_b` (body B's frame) within `tolerance` (length), if any.
    pub fn find(
        &self,
        key: &PairKey,
        feature: u32,
        local_b: Vector,
        tolerance: Real,
    ) -> Option<&CachedPoint> {
        let points = self.map.get(key)?;
        points.iter().find(|p| p.feature == feature).or_else(|| {
            points
                .iter()
                .map(|p| (p, (p.local_b - local_b).length_squared()))
                .filter(|(_, d)| *d <= tolerance * tolerance)
                .min_by(|x, y| x.1.total_cmp(&y.1))
                .map(|(p, _)| p)
        })
    }
    /// The number of keys.
    pub fn len(&self) -> usize {
        self.map.len()
    }
    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
    /// Forgets everything.
    pub fn clear(&mut self) {
        self.map.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(feature: u32, x: Real) -> CachedPoint {
        CachedPoint {
            feature,
            normal_impulse: x,
            tangent_impulse: Vector::ZERO,
            local_b: Vector::new(x, 0.0, 0.0),
            anchor: None,
        }
    }

    #[test]
    fn matches_by_feature_then_by_position() {
        let mut c = ContactCache::new();
        c.insert((0, 1, 0, 0), vec![point(7, 0.5), point(9, -0.5)]);
        // By id, wherever the point now is.
        assert_eq!(
            c.find(&(0, 1, 0, 0), 9, Vector::splat(5.0), 0.01)
                .unwrap()
                .feature,
            9
        );
        // An unknown id near an old point: that point; far from every point: none.
        let near = Vector::new(0.49, 0.0, 0.0);
        assert_eq!(c.find(&(0, 1, 0, 0), 3, near, 0.05).unwrap().feature, 7);
        assert!(c
            .find(&(0, 1, 0, 0), 3, Vector::new(0.0, 1.0, 0.0), 0.05)
            .is_none());
        // Another pair or piece: nothing.
        assert!(c.find(&(0, 1, 1, 0), 7, near, 0.05).is_none());
        assert_eq!(c.len(), 1);
    }
}
