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
///
/// Flat storage, reused from step to step (cleared, not reallocated): the keys sorted
/// ascending and unique, each with the range of its points in one contiguous vector. A
/// lookup is a binary search over the keys, then a scan of that key's few points.
#[derive(Debug, Clone, Default)]
pub struct ContactCache {
    /// Sorted ascending, no repeats.
    keys: Vec<PairKey>,
    /// `(start, len)` in `points` of the key at the same index.
    ranges: Vec<(u32, u32)>,
    points: Vec<CachedPoint>,
}

impl ContactCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }
    /// Stores the points of one key (replacing any). Cheap when keys come in ascending
    /// order (each greater than or equal to the last one inserted); otherwise the key is
    /// put in its place, moving the later keys.
    pub fn insert(&mut self, key: PairKey, points: impl IntoIterator<Item = CachedPoint>) {
        let start = self.points.len();
        self.points.extend(points);
        let range = (start as u32, (self.points.len() - start) as u32);
        // Fast path: the new key is the last (or replaces the last).
        match self.keys.last() {
            None => {}
            Some(last) if *last < key => {}
            Some(last) if *last == key => {
                if let Some(r) = self.ranges.last_mut() {
                    *r = range;
                }
                return;
            }
            Some(_) => match self.keys.binary_search(&key) {
                Ok(i) => {
                    self.ranges[i] = range;
                    return;
                }
                Err(i) => {
                    self.keys.insert(i, key);
                    self.ranges.insert(i, range);
                    return;
                }
            },
        }
        self.keys.push(key);
        self.ranges.push(range);
    }
    /// The cached points of `key` (empty when none).
    pub fn points(&self, key: &PairKey) -> &[CachedPoint] {
        match self.keys.binary_search(key) {
            Ok(i) => {
                let (start, len) = self.ranges[i];
                let (start, len) = (start as usize, len as usize);
                self.points.get(start..start + len).unwrap_or(&[])
            }
            Err(_) => &[],
        }
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
        match_point(self.points(key), feature, local_b, tolerance)
    }
    /// The number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }
    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
    /// Forgets everything (keeping the storage for the next step).
    pub fn clear(&mut self) {
        self.keys.clear();
        self.ranges.clear();
        self.points.clear();
    }
}

/// Among one key's cached `points` ([`ContactCache::points`]): the one with feature id
/// `feature`, else the one nearest to `local_b` (body B's frame) within `tolerance`
/// (length; the first of equally near ones), if any.
pub fn match_point(
    points: &[CachedPoint],
    feature: u32,
    local_b: Vector,
    tolerance: Real,
) -> Option<&CachedPoint> {
    points.iter().find(|p| p.feature == feature).or_else(|| {
        points
            .iter()
            .map(|p| (p, (p.local_b - local_b).length_squared()))
            .filter(|(_, d)| *d <= tolerance * tolerance)
            .min_by(|x, y| x.1.total_cmp(&y.1))
            .map(|(p, _)| p)
    })
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

    /// Inserts in scrambled order with repeated keys against a map (last insert wins),
    /// then clears and reuses the storage.
    #[test]
    fn equals_a_map_in_any_insertion_order() {
        let mut state: u64 = 9;
        let mut next = move |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let mut c = ContactCache::new();
        for round in 0..3 {
            let mut map = std::collections::HashMap::new();
            for _ in 0..300 {
                let key = (next(20) as u32, next(20) as u32, next(2) as u32, 0);
                let pts: Vec<CachedPoint> = (0..next(5))
                    .map(|f| point(f as u32, (next(100) + round) as Real))
                    .collect();
                c.insert(key, pts.clone());
                map.insert(key, pts);
            }
            assert_eq!(c.len(), map.len());
            for a in 0..21 {
                for b in 0..21 {
                    for pa in 0..3 {
                        let key = (a, b, pa, 0);
                        let want = map.get(&key).map_or(&[][..], |v| &v[..]);
                        assert_eq!(c.points(&key), want);
                    }
                }
            }
            c.clear();
            assert!(c.is_empty() && c.points(&(0, 0, 0, 0)).is_empty());
        }
    }
}
