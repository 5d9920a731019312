//! Queries between colliders that may be compounds: every narrow-phase query, answered
//! part by part, with the parts that answered.
//!
//! A [`Collider`] is a convex [`Shape`] or a [`Compound`]. Each query is the union or
//! the minimum, over part pairs, of the convex query of [`crate::query`] on the two
//! parts; a convex collider counts as a compound of one part. Frames and units are
//! those of the convex queries: world frame, normal from A towards B.
//!
//! # Which part pair answers (the tie rule)
//!
//! Every query ranks part pairs `(i, j)` by a value, then by `(i, j)` in lexicographic
//! order (A's part first), and answers with the first in that ranking:
//!
//! | query            | value of a part pair                | answer                     |
//! |------------------|-------------------------------------|----------------------------|
//! | [`intersects`]   | (only pairs that intersect count)   | smallest `(i, j)` that intersects, or `None` |
//! | [`distance`]     | [`distance_with`](super::distance_with) | least distance        |
//! | [`closest_points`] | [`closest_points_with`](super::closest_points_with)`.distance` | least distance |
//! | [`contact`]      | [`contact_with`](super::contact_with)`.distance` (signed) | deepest overlap, else closest |
//!
//! so among part pairs at equal distance (several touching pairs, all at 0) the one
//! with the smallest `(i, j)` answers, and a query's answer is a function of its input
//! alone: the same as a scan over all part pairs with the convex queries would give
//! (a NaN value ranks after every number).
//!
//! # How part pairs are pruned
//!
//! No part pair is queried unless it could change the answer. The two colliders' trees
//! ([`Compound::tree`]; a convex shape is a tree of one leaf) are descended together in
//! A's frame, branch and bound: each node pair carries a lower bound, from the two
//! boxes, on the value of every part pair below it; the pair with the least bound (then
//! the smallest parts) is taken next and its larger node split, and a pair whose bound
//! already ranks after the best answer so far is dropped. So part pairs are
//! answered in the order of their bounds, as a scan sorted by box distance would, but
//! without placing and sorting all `n × m` boxes. The bound is, for intersection, 0 if
//! the boxes meet (else the pair is dropped); for distance and closest points, the
//! distance between the boxes; for contact, that distance when the boxes are apart, and
//! minus their overlap when they meet (the depth to which two boxes overlap bounds the
//! depth of anything inside them). The bounds are lowered by what the convex queries
//! may still report as touching — GJK's uncertified touching zone
//! ([`tolerance::UNCERTIFIED_TOUCH`]) and [`tolerance::SLACK`] touching floors at the
//! part pairs' scale, plus the rounding of the world poses — so pruning never changes
//! an answer. For intersection every bound is 0, so part pairs are met in index order
//! and the first that intersects ends the descent.
//!
//! The node pairs waiting (a binary heap of 128) live on the call stack: no query
//! allocates. A pair that does not fit is descended depth first on the spot, with a
//! stack sized for two trees of the largest depth a compound can have
//! ([`AabbTree::MAX_DEPTH`]); were even that full, the node pair at hand would be
//! scanned part pair by part pair. Every path gives the same answer.
//!
//! # Warm starts
//!
//! The `_with` variants take the caller's [`PartCaches`]: a [`GjkCache`] per part pair
//! met lately, handed to the convex queries, so that coherent motion warm-starts GJK
//! part pair by part pair (the collision world keeps one per compound pair). Answers
//! with and without them agree within the convex queries' tolerances.

use std::sync::Arc;

use super::dispatch;
use super::gjk::GjkCache;
use super::{ClosestPoints, Contact, QueryOptions};
use crate::bounding::{Aabb, AabbTree};
use crate::math::{Matrix3, Pose, Real, Vector};
use crate::shape::{Compound, Shape};
use crate::tolerance;

/// A convex shape or a compound of convex parts.
#[derive(Debug, Clone, PartialEq)]
pub enum Collider {
    /// One convex shape.
    Convex(Shape),
    /// A compound (shared: cloning a collider does not copy its parts).
    Compound(Arc<Compound>),
}

impl From<Shape> for Collider {
    fn from(s: Shape) -> Self {
        Collider::Convex(s)
    }
}

impl From<Compound> for Collider {
    fn from(c: Compound) -> Self {
        Collider::Compound(Arc::new(c))
    }
}

impl Collider {
    /// Bounding box in the collider's local frame.
    pub fn local_aabb(&self) -> Aabb {
        match self {
            Collider::Convex(s) => s.local_aabb(),
            Collider::Compound(c) => c.local_aabb(),
        }
    }

    /// The radius of a ball about the local origin that contains the collider (length
    /// units; see [`Shape::bounding_radius`]). A compound's is its parts' largest
    /// distance from the origin plus radius, or its box's farthest corner if less.
    pub fn bounding_radius(&self) -> Real {
        match self {
            Collider::Convex(s) => s.bounding_radius(),
            Collider::Compound(c) => {
                let parts = c
                    .parts()
                    .iter()
                    .map(|(pose, s)| pose.translation().length() + s.bounding_radius())
                    .fold(0.0, Real::max);
                (parts * (1.0 + 4.0 * crate::math::EPSILON)).min(c.local_aabb().origin_radius())
            }
        }
    }

    /// How far from the local origin a part's points or local origin reach (length
    /// units): the scale of the part queries' rounding.
    fn reach(&self) -> Real {
        match self {
            Collider::Convex(s) => s.bounding_radius(),
            Collider::Compound(c) => c.reach(),
        }
    }

    /// Convex piece `i` with its pose in the world, given the collider's pose (piece 0
    /// is the shape itself for a convex collider).
    fn piece(&self, i: u32, pose: &Pose) -> (&Shape, Pose) {
        match self {
            Collider::Convex(s) => (s, *pose),
            Collider::Compound(c) => {
                let (p, s) = &c.parts()[i as usize];
                (s, pose.mul(p))
            }
        }
    }

    fn part_index(&self, i: u32) -> Option<u32> {
        matches!(self, Collider::Compound(_)).then_some(i)
    }
}

/// An answer with the parts that gave it (`None` for a convex collider).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PartAnswer<T> {
    /// The answer, as the convex query gives it for the two parts.
    pub answer: T,
    /// Index of A's part, if A is a compound.
    pub part_a: Option<u32>,
    /// Index of B's part, if B is a compound.
    pub part_b: Option<u32>,
}

/// Warm starts for the part pairs of one collider pair, kept by the caller from query
/// to query: a [`GjkCache`] per part pair `(part of A, part of B)` (part 0 for a convex
/// collider) that the `_with` queries of this module met lately, handed to the convex
/// queries (Box2D's simplex cache, one per part pair).
///
/// At most [`CAPACITY`](Self::CAPACITY) part pairs are kept; a new one then takes the
/// place of the one used longest ago. The memory for them is taken once, at the first
/// part pair kept; no query allocates after that. Like a [`GjkCache`], caches from
/// another collider pair (or with A and B swapped) are harmless: they only change where
/// GJK starts, never the answer beyond its tolerances.
#[derive(Debug, Clone, Default)]
pub struct PartCaches {
    entries: Vec<PartCache>,
    /// Queries started so far: the age of an entry.
    clock: u64,
}

#[derive(Debug, Clone, Copy)]
struct PartCache {
    parts: (u32, u32),
    /// [`PartCaches::clock`] at the entry's last use.
    used: u64,
    cache: GjkCache,
}

impl PartCaches {
    /// The most part pairs kept (32; about 4 KiB in f32).
    pub const CAPACITY: usize = 32;

    /// No part pair kept yet (no allocation).
    pub const fn new() -> Self {
        Self {
            entries: Vec::new(),
            clock: 0,
        }
    }

    /// Part pairs kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no part pair is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets every part pair (the memory is kept): the next queries start cold.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Marks the start of a query: entries used from now on are the most recent.
    fn start_query(&mut self) {
        self.clock = self.clock.wrapping_add(1);
    }

    /// The cache of part pair `parts`, made (cold) if it is not kept, in place of the
    /// entry used longest ago when all [`CAPACITY`](Self::CAPACITY) are taken.
    fn get(&mut self, parts: (u32, u32)) -> &mut GjkCache {
        let fresh = PartCache {
            parts,
            used: self.clock,
            cache: GjkCache::new(),
        };
        let k = match self.entries.iter().position(|e| e.parts == parts) {
            Some(k) => k,
            None if self.entries.len() < Self::CAPACITY => {
                if self.entries.capacity() == 0 {
                    self.entries.reserve_exact(Self::CAPACITY);
                }
                self.entries.push(fresh);
                self.entries.len() - 1
            }
            None => {
                // Full (so not empty): the oldest entry gives way (the first of equals).
                let oldest = self
                    .entries
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, e)| e.used)
                    .map_or(0, |(k, _)| k);
                self.entries[oldest] = fresh;
                oldest
            }
        };
        let e = &mut self.entries[k];
        e.used = self.clock;
        &mut e.cache
    }
}

/// A convex piece's slot in the caches, if any.
fn cache_of<'a>(
    caches: &'a mut Option<&mut PartCaches>,
    parts: (u32, u32),
) -> Option<&'a mut GjkCache> {
    caches.as_deref_mut().map(|c| c.get(parts))
}

/// Places boxes of one frame in another (Arvo's method, as [`Aabb::transformed`]) with
/// the rotation matrix built once.
#[derive(Debug, Clone, Copy)]
struct Placement {
    r: Matrix3,
    abs: Matrix3,
    t: Vector,
}

impl Placement {
    fn new(pose: &Pose) -> Self {
        let r = Matrix3::from_quat(pose.rotation());
        let abs = Matrix3::from_cols(r.x_axis.abs(), r.y_axis.abs(), r.z_axis.abs());
        Self {
            r,
            abs,
            t: pose.translation(),
        }
    }

    fn apply(&self, b: &Aabb) -> Aabb {
        let c = self.r * b.center() + self.t;
        let e = self.abs * b.half_extents();
        Aabb::new(c - e, c + e)
    }
}

/// One side of a pair as the descent sees it: a compound's tree, or a convex shape as a
/// tree of one leaf (node 0, part 0); boxes placed in A's frame.
struct Side<'a> {
    tree: Option<&'a AabbTree>,
    /// The convex shape's local box (a compound's boxes are its tree's).
    single: Aabb,
    /// From the side's frame to A's (`None` for A itself).
    place: Option<Placement>,
}

impl<'a> Side<'a> {
    fn new(c: &'a Collider, place: Option<Placement>) -> Self {
        match c {
            Collider::Convex(s) => Side {
                tree: None,
                single: s.local_aabb(),
                place,
            },
            Collider::Compound(k) => Side {
                tree: Some(k.tree()),
                single: k.local_aabb(),
                place,
            },
        }
    }

    fn local(&self, n: u32) -> &Aabb {
        match self.tree {
            Some(t) => &t.node(n).aabb,
            None => &self.single,
        }
    }

    /// Node `n`'s box in A's frame.
    fn aabb(&self, n: u32) -> Aabb {
        match &self.place {
            Some(p) => p.apply(self.local(n)),
            None => *self.local(n),
        }
    }

    /// The smallest part below node `n` (the part, for a leaf).
    fn first(&self, n: u32) -> u32 {
        self.tree.map_or(0, |t| t.node(n).first)
    }

    fn children(&self, n: u32) -> Option<(u32, u32)> {
        self.tree.and_then(|t| t.children(n))
    }

    /// Size of node `n` (largest half extent): the larger node of a pair is split.
    fn size(&self, n: u32) -> Real {
        self.local(n).half_extents().max_element()
    }

    fn leaves_under(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        let tree = self.tree.map(|t| t.leaves_under(n));
        let single = self.tree.is_none().then_some(0);
        tree.into_iter().flatten().chain(single)
    }
}

/// Per-axis separation of two boxes: the gap along each axis where they are apart
/// there, minus the overlap where they overlap.
fn axis_gaps(x: &Aabb, y: &Aabb) -> Vector {
    (x.mins - y.maxs).max(y.mins - x.maxs)
}

/// Distance between the boxes (0 when they meet): a lower bound on the distance of any
/// two shapes inside them.
fn box_gap(x: &Aabb, y: &Aabb) -> Real {
    axis_gaps(x, y).max(Vector::ZERO).length()
}

/// How a query bounds the value of the part pairs under two boxes (see the module
/// notes).
#[derive(Debug, Clone, Copy)]
enum Bound {
    /// Intersection: 0 if the boxes come within the slack, else +∞ (no part pair below
    /// can intersect).
    Meet,
    /// Distance: the boxes' distance less the slack, not below 0.
    Gap,
    /// Signed distance: the boxes' distance when apart, minus their overlap (grown by
    /// the relative `depth_tolerance`) when they meet; less the slack.
    Signed {
        /// Relative error allowed on a penetration depth (EPA's tolerance, doubled).
        depth_tolerance: Real,
    },
}

/// The ranking key of an answer: value, then part pair.
type Key = (Real, (u32, u32));

/// No part pair yet.
const NO_PARTS: (u32, u32) = (u32::MAX, u32::MAX);

/// Whether `key` ranks before `best` (NaN values are ranked as +∞ by the caller).
fn ranks_before(key: Key, best: Key) -> bool {
    key.0 < best.0 || (key.0 == best.0 && key.1 < best.1)
}

/// A query being answered: the best part pair so far and how to answer one.
struct Search<T, F> {
    bound: Bound,
    /// What the convex queries may still call touching, plus rounding (length units):
    /// subtracted from every box bound.
    slack: Real,
    best: Key,
    answer: Option<T>,
    /// The value and answer of a part pair, `None` if it is no answer (a miss, for
    /// intersection).
    eval: F,
    /// Part pairs answered (read by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    visited: u32,
}

impl<T, F: FnMut((u32, u32)) -> Option<(Real, T)>> Search<T, F> {
    fn new(bound: Bound, slack: Real, eval: F) -> Self {
        let worst = match bound {
            // Only pairs that meet can intersect: a bound of +∞ never ranks before it.
            Bound::Meet => 0.0,
            Bound::Gap | Bound::Signed { .. } => Real::INFINITY,
        };
        Self {
            bound,
            slack,
            best: (worst, NO_PARTS),
            answer: None,
            eval,
            visited: 0,
        }
    }

    /// A lower bound on the value of every part pair whose parts lie in `x` and `y`
    /// (A's frame).
    fn bound(&self, x: &Aabb, y: &Aabb) -> Real {
        match self.bound {
            Bound::Meet => {
                if box_gap(x, y) <= self.slack {
                    0.0
                } else {
                    Real::INFINITY
                }
            }
            Bound::Gap => (box_gap(x, y) - self.slack).max(0.0),
            Bound::Signed { depth_tolerance } => {
                let g = axis_gaps(x, y);
                let signed = if g.max_element() > 0.0 {
                    g.max(Vector::ZERO).length()
                } else {
                    // Boxes overlapping by `−g` along each axis: separated by moving
                    // either along the axis of least overlap.
                    g.max_element() * (1.0 + depth_tolerance)
                };
                signed - self.slack
            }
        }
    }

    /// Whether a node pair with this bound and these smallest parts may hold an answer
    /// ranking before the best so far.
    fn hopeful(&self, bound: Real, first: (u32, u32)) -> bool {
        ranks_before((bound, first), self.best)
    }

    fn visit(&mut self, parts: (u32, u32)) {
        self.visited += 1;
        if let Some((value, answer)) = (self.eval)(parts) {
            let value = if value.is_nan() {
                Real::INFINITY
            } else {
                value
            };
            if ranks_before((value, parts), self.best) {
                self.best = (value, parts);
                self.answer = Some(answer);
            }
        }
    }
}

/// A node pair waiting in the descent: A's node, B's node, and the bound on the value of
/// the part pairs below them.
type Entry = (u32, u32, Real);

/// Room for the best-first frontier (node pairs waiting, ranked by bound). Pairs that do
/// not fit are descended depth first on the spot.
const FRONTIER: usize = 128;

/// Room for the depth-first stack: a pair of trees of depth `MAX_DEPTH` each has node
/// pairs `2 MAX_DEPTH` splits deep, and a depth-first walk keeps at most one pending
/// pair per level plus the two just pushed.
const STACK: usize = 2 * AabbTree::MAX_DEPTH as usize + 2;

/// The ranking key of a node pair: its bound, then the smallest part pair below it (no
/// part pair below ranks before it).
fn entry_key(a: &Side<'_>, b: &Side<'_>, e: &Entry) -> Key {
    (e.2, (a.first(e.0), b.first(e.1)))
}

/// One step of the descent at node pair `e`: nothing if it can no longer hold a better
/// answer; the part pair answered if both nodes are leaves; else the larger node split,
/// as the two child pairs with their bounds.
fn expand<T, F>(a: &Side<'_>, b: &Side<'_>, e: &Entry, s: &mut Search<T, F>) -> Option<[Entry; 2]>
where
    F: FnMut((u32, u32)) -> Option<(Real, T)>,
{
    let (na, nb, bound) = *e;
    // The best may have improved since this pair was queued.
    if !s.hopeful(bound, (a.first(na), b.first(nb))) {
        return None;
    }
    let (ca, cb) = (a.children(na), b.children(nb));
    let split_a = match (ca, cb) {
        (None, None) => {
            s.visit((a.first(na), b.first(nb)));
            return None;
        }
        (Some(_), None) => true,
        (None, Some(_)) => false,
        (Some(_), Some(_)) => a.size(na) >= b.size(nb),
    };
    // (The `?`s below never return: the side split has children.)
    Some(if split_a {
        let ((l, r), y) = (ca?, b.aabb(nb));
        [
            (l, nb, s.bound(&a.aabb(l), &y)),
            (r, nb, s.bound(&a.aabb(r), &y)),
        ]
    } else {
        let ((l, r), x) = (cb?, a.aabb(na));
        [
            (na, l, s.bound(&x, &b.aabb(l))),
            (na, r, s.bound(&x, &b.aabb(r))),
        ]
    })
}

/// The branch and bound descent of both trees (see the module notes): best first, the
/// node pair of least key taken next, from a frontier of `ROOM` pairs on the call stack
/// (a binary heap). It ends when the least key left cannot rank before the best answer,
/// so part pairs are answered in the order of their bounds, as a scan sorted by box
/// distance would, without sorting them all. A pair that does not fit is descended
/// depth first on the spot ([`depth_first`], with a stack of `DEPTH` pairs).
fn best_first<const ROOM: usize, const DEPTH: usize, T, F>(
    a: &Side<'_>,
    b: &Side<'_>,
    s: &mut Search<T, F>,
) where
    F: FnMut((u32, u32)) -> Option<(Real, T)>,
{
    let root = (0, 0, s.bound(&a.aabb(0), &b.aabb(0)));
    // Two leaves, or boxes too far apart: no frontier needed.
    let Some([p, q]) = expand(a, b, &root, s) else {
        return;
    };
    let mut heap = [(0u32, 0u32, 0.0 as Real); ROOM];
    let mut len = 0;
    let before = |x: &Entry, y: &Entry| ranks_before(entry_key(a, b, x), entry_key(a, b, y));
    let mut pending = [Some(p), Some(q)];
    loop {
        for e in pending.into_iter().flatten() {
            if !s.hopeful(e.2, (a.first(e.0), b.first(e.1))) {
                continue;
            }
            if len == ROOM {
                depth_first::<DEPTH, T, F>(a, b, e, s);
                continue;
            }
            // Sift up.
            let mut k = len;
            len += 1;
            while k > 0 && before(&e, &heap[(k - 1) / 2]) {
                heap[k] = heap[(k - 1) / 2];
                k = (k - 1) / 2;
            }
            heap[k] = e;
        }
        if len == 0 {
            return;
        }
        let top = heap[0];
        len -= 1;
        // Sift the last entry down from the root.
        let last = heap[len];
        let mut k = 0;
        loop {
            let (l, r) = (2 * k + 1, 2 * k + 2);
            if l >= len {
                break;
            }
            let c = if r < len && before(&heap[r], &heap[l]) {
                r
            } else {
                l
            };
            if !before(&heap[c], &last) {
                break;
            }
            heap[k] = heap[c];
            k = c;
        }
        heap[k] = last;
        // The least key left cannot rank before the best: neither can any other.
        if !s.hopeful(top.2, (a.first(top.0), b.first(top.1))) {
            return;
        }
        pending = expand(a, b, &top, s).map_or([None, None], |[p, q]| [Some(p), Some(q)]);
    }
}

/// The descent below node pair `start`, depth first with a stack of `ROOM` pairs, the
/// more promising child pair first; pairs that do not fit are scanned part pair by part
/// pair ([`scan`]). Not reached for a frontier that never fills; a tree pair of depth
/// `MAX_DEPTH` each fits in [`STACK`].
fn depth_first<const ROOM: usize, T, F>(
    a: &Side<'_>,
    b: &Side<'_>,
    start: Entry,
    s: &mut Search<T, F>,
) where
    F: FnMut((u32, u32)) -> Option<(Real, T)>,
{
    let mut stack = [(0u32, 0u32, 0.0 as Real); ROOM];
    let mut len = 0;
    let mut pending = [Some(start), None];
    loop {
        // Push what the last step produced, the more promising last (popped first).
        for e in pending.into_iter().flatten() {
            if !s.hopeful(e.2, (a.first(e.0), b.first(e.1))) {
                continue;
            }
            if len < ROOM {
                stack[len] = e;
                len += 1;
            } else {
                scan(a, b, e.0, e.1, s);
            }
        }
        let Some(top) = len.checked_sub(1) else {
            return;
        };
        len = top;
        pending = match expand(a, b, &stack[top], s) {
            Some([p, q]) if ranks_before(entry_key(a, b, &q), entry_key(a, b, &p)) => {
                [Some(p), Some(q)]
            }
            Some([p, q]) => [Some(q), Some(p)],
            None => [None, None],
        };
    }
}

/// The part pairs under node pair `(na, nb)` one by one (the descent's overflow path).
fn scan<T, F>(a: &Side<'_>, b: &Side<'_>, na: u32, nb: u32, s: &mut Search<T, F>)
where
    F: FnMut((u32, u32)) -> Option<(Real, T)>,
{
    for i in a.leaves_under(na) {
        let x = a.aabb(i);
        for j in b.leaves_under(nb) {
            let bound = s.bound(&x, &b.aabb(j));
            let parts = (a.first(i), b.first(j));
            if s.hopeful(bound, parts) {
                s.visit(parts);
            }
        }
    }
}

/// Runs the descent for A at `pa` and B at `pb`: B's boxes placed in A's frame, the
/// slack set from the scales of the part pairs and of the poses (see the module notes).
fn run<T, F>(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
    bound: Bound,
    eval: F,
) -> Search<T, F>
where
    F: FnMut((u32, u32)) -> Option<(Real, T)>,
{
    let rel = pa.inv_mul(pb);
    let tol = opts.gjk.touch_tolerance();
    // A part pair's GJK works at the scale of its parts and of their offset; the world
    // poses the part poses are made from round at theirs.
    let parts = rel.translation().length() + 2.0 * (a.reach() + b.reach());
    let world = pa.translation().length() + pb.translation().length();
    let slack = (tolerance::UNCERTIFIED_TOUCH + tolerance::SLACK * tol) * parts
        + tolerance::SLACK * tol * world
        + Real::MIN_POSITIVE;
    let mut s = Search::new(bound, slack, eval);
    let (sa, sb) = (Side::new(a, None), Side::new(b, Some(Placement::new(&rel))));
    best_first::<FRONTIER, STACK, T, F>(&sa, &sb, &mut s);
    s
}

/// The answer of a finished search, with its parts; `None` if no part pair answered
/// (for intersection: none intersects; for the other queries not reached, as the first
/// part pair the descent meets is always taken).
fn finish<T, F>(a: &Collider, b: &Collider, s: Search<T, F>) -> Option<PartAnswer<T>> {
    let (i, j) = s.best.1;
    s.answer.map(|answer| PartAnswer {
        answer,
        part_a: a.part_index(i),
        part_b: b.part_index(j),
    })
}

/// The evaluator of part pairs the four queries hand to [`run`]: starts a query on the
/// caches (if any), then answers part pair `(i, j)` with `query` on the two pieces at
/// their world poses and that pair's warm-start cache.
fn per_part<'q, T>(
    a: &'q Collider,
    pa: &'q Pose,
    b: &'q Collider,
    pb: &'q Pose,
    mut caches: Option<&'q mut PartCaches>,
    mut query: impl FnMut(&Shape, &Pose, &Shape, &Pose, Option<&mut GjkCache>) -> T + 'q,
) -> impl FnMut((u32, u32)) -> T + 'q {
    if let Some(c) = caches.as_deref_mut() {
        c.start_query();
    }
    move |(i, j)| {
        let ((sa, qa), (sb, qb)) = (a.piece(i, pa), b.piece(j, pb));
        query(sa, &qa, sb, &qb, cache_of(&mut caches, (i, j)))
    }
}

/// The answer of part pair (0, 0) with its parts: what a query falls back to should
/// [`finish`] find no answer, which is not reached for the queries that take the first
/// part pair the descent meets.
fn first_pair<T>(a: &Collider, b: &Collider, answer: T) -> PartAnswer<T> {
    PartAnswer {
        answer,
        part_a: a.part_index(0),
        part_b: b.part_index(0),
    }
}

/// Whether A and B overlap or touch. See [`intersects_with`].
pub fn intersects(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
) -> Option<PartAnswer<()>> {
    intersects_with(a, pa, b, pb, opts, None)
}

/// Whether A (at world pose `pa`) and B (at `pb`) overlap or touch, as
/// [`intersects_with`](super::intersects_with) decides it for each part pair:
/// `Some` with the smallest intersecting part pair `(part_a, part_b)` (lexicographic;
/// `None` parts for a convex collider), or `None` if no part pair intersects. Only part
/// pairs whose boxes meet are tested, and none after the smallest is certain. With
/// `caches`, GJK is warm-started per part pair (see [`PartCaches`]). No allocation
/// beyond the caches' first use; no failure case (a convex query that does not converge
/// answers as [`intersects_with`](super::intersects_with) does).
///
/// See also [`distance_with`], [`contact_with`].
pub fn intersects_with(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
    caches: Option<&mut PartCaches>,
) -> Option<PartAnswer<()>> {
    let eval = per_part(a, pa, b, pb, caches, |sa, qa, sb, qb, cache| {
        dispatch::intersects_with(sa, qa, sb, qb, opts, cache).then_some((0.0, ()))
    });
    let s = run(a, pa, b, pb, opts, Bound::Meet, eval);
    finish(a, b, s)
}

/// The closest points of A and B. See [`closest_points_with`].
pub fn closest_points(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
) -> PartAnswer<ClosestPoints> {
    closest_points_with(a, pa, b, pb, opts, None)
}

/// The closest points of A (at world pose `pa`) and B (at `pb`): the
/// [`closest_points_with`](super::closest_points_with) answer of the part pair at the
/// least distance (length units, ≥ 0; points in the world frame), ties to the smallest
/// `(part_a, part_b)`; with the parts (`None` for a convex collider). Part pairs are
/// visited by branch and bound over the two trees (see the module notes): the answer
/// equals a scan over all part pairs. With `caches`, GJK is warm-started per part pair
/// (see [`PartCaches`]). Status and iterations are the answering part pair's; no
/// allocation beyond the caches' first use.
///
/// See also [`distance_with`] (no witness points), [`contact_with`].
pub fn closest_points_with(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
    caches: Option<&mut PartCaches>,
) -> PartAnswer<ClosestPoints> {
    let mut eval = per_part(a, pa, b, pb, caches, |sa, qa, sb, qb, cache| {
        let c = dispatch::closest_points_with(sa, qa, sb, qb, opts, cache);
        (c.distance, c)
    });
    let s = run(a, pa, b, pb, opts, Bound::Gap, |p| Some(eval(p)));
    finish(a, b, s).unwrap_or_else(|| first_pair(a, b, eval((0, 0)).1))
}

/// The distance between A and B. See [`distance_with`].
pub fn distance(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
) -> PartAnswer<Real> {
    distance_with(a, pa, b, pb, opts, None)
}

/// The distance between A (at world pose `pa`) and B (at `pb`), length units, ≥ 0 (0
/// when they overlap or touch): the least [`distance_with`](super::distance_with) over
/// part pairs, ties to the smallest `(part_a, part_b)`; with the parts (`None` for a
/// convex collider). Part pairs are visited by branch and bound over the two trees (see
/// the module notes): the answer equals a scan over all part pairs. With `caches`, GJK
/// is warm-started per part pair (see [`PartCaches`]). No allocation beyond the caches'
/// first use.
///
/// See also [`closest_points_with`] (with witness points).
pub fn distance_with(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
    caches: Option<&mut PartCaches>,
) -> PartAnswer<Real> {
    let mut eval = per_part(a, pa, b, pb, caches, |sa, qa, sb, qb, cache| {
        dispatch::distance_with(sa, qa, sb, qb, opts, cache)
    });
    if let (Collider::Convex(_), Collider::Convex(_)) = (a, b) {
        return PartAnswer {
            answer: eval((0, 0)).distance,
            part_a: None,
            part_b: None,
        };
    }
    let s = run(a, pa, b, pb, opts, Bound::Gap, |p| {
        let d = eval(p).distance;
        Some((d, d))
    });
    finish(a, b, s).unwrap_or_else(|| first_pair(a, b, eval((0, 0)).distance))
}

/// The contact of A and B. See [`contact_with`].
pub fn contact(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
) -> PartAnswer<Contact> {
    contact_with(a, pa, b, pb, opts, None)
}

/// The contact of A (at world pose `pa`) and B (at `pb`): the
/// [`contact_with`](super::contact_with) answer (signed distance, normal from A's part
/// towards B's, world-frame points, status) of the part pair with the least signed
/// distance — the deepest overlapping pair, or when none overlaps the closest — ties to
/// the smallest `(part_a, part_b)`; with the parts (`None` for a convex collider). Part
/// pairs are visited by branch and bound over the two trees (see the module notes): the
/// answer equals a scan over all part pairs. With `caches`, GJK is warm-started per
/// part pair (see [`PartCaches`]). No allocation beyond the caches' first use (and
/// EPA's per-thread buffers, kept from query to query).
///
/// See also [`closest_points_with`], [`crate::query::manifold::manifold_compound`].
pub fn contact_with(
    a: &Collider,
    pa: &Pose,
    b: &Collider,
    pb: &Pose,
    opts: &QueryOptions,
    caches: Option<&mut PartCaches>,
) -> PartAnswer<Contact> {
    let mut eval = per_part(a, pa, b, pb, caches, |sa, qa, sb, qb, cache| {
        let c = dispatch::contact_with(sa, qa, sb, qb, opts, cache);
        (c.distance, c)
    });
    // EPA's depth is within its relative tolerance of the true one; a tolerance that is
    // not a usable number turns the depth bound off (any overlap may be deepest).
    let rel = opts.epa.rel_tolerance;
    let depth_tolerance = if rel.is_finite() && rel >= 0.0 {
        2.0 * rel + 16.0 * crate::math::EPSILON
    } else {
        Real::INFINITY
    };
    let bound = Bound::Signed { depth_tolerance };
    let s = run(a, pa, b, pb, opts, bound, |p| Some(eval(p)));
    finish(a, b, s).unwrap_or_else(|| first_pair(a, b, eval((0, 0)).1))
}

/// Casts `ray` (world frame) at a collider placed at `pose`: [`super::cast_ray`] on the
/// parts whose boxes the ray enters, found through the compound's part tree nearest
/// first and skipping every box entered after the best hit so far. For a compound,
/// `solid: false` reports the first part surface the ray crosses (parts' shared
/// interiors are not merged).
///
/// # Errors
/// As [`super::cast_ray`].
pub fn cast_ray(
    collider: &Collider,
    pose: &Pose,
    ray: &super::Ray,
    options: &super::RayOptions,
) -> Result<PartAnswer<super::RayCast>, super::CastError> {
    let compound = match collider {
        Collider::Convex(s) => {
            return Ok(PartAnswer {
                answer: super::cast_ray(s, pose, ray, options)?,
                part_a: None,
                part_b: None,
            })
        }
        Collider::Compound(c) => c,
    };
    // Check the input once, as the parts' casts would (a miss of every part's box
    // must not hide an invalid ray).
    ray.check()?;
    super::check_max_toi(options.max_toi)?;
    if super::ray::is_tiny(ray) {
        let mut part = None;
        let answer = super::ray::solve_at_unit_scale(ray, options, |r, o| {
            let scaled = cast_ray(collider, pose, r, o)?;
            part = scaled.part_a;
            Ok(scaled.answer)
        })?;
        return Ok(PartAnswer {
            part_a: answer.hit.and(part),
            answer,
            part_b: None,
        });
    }
    let mut best: Option<(u32, super::RayHit)> = None;
    let mut iterations = 0;
    let mut status = super::QueryStatus::Converged;
    let (o, d) = (
        pose.inverse_transform_point(ray.origin),
        pose.inverse_transform_vector(ray.dir),
    );
    let mut error = None;
    compound.tree().query_ray(o, d, options.max_toi, |i, _| {
        let (shape, at) = collider.piece(i, pose);
        let limit = best.map_or(options.max_toi, |(_, h)| h.toi);
        let opts = super::RayOptions {
            max_toi: limit,
            ..*options
        };
        match super::cast_ray(shape, &at, ray, &opts) {
            Ok(r) => {
                iterations += r.iterations;
                if r.status != super::QueryStatus::Converged {
                    status = r.status;
                }
                if let Some(h) = r.hit {
                    if best.is_none_or(|(j, b)| h.toi < b.toi || (h.toi == b.toi && i < j)) {
                        best = Some((i, h));
                    }
                }
            }
            Err(e) => error = Some(e),
        }
        best.map_or(options.max_toi, |(_, h)| h.toi)
    });
    if let Some(e) = error {
        return Err(e);
    }
    Ok(PartAnswer {
        answer: super::RayCast {
            hit: best.map(|(_, h)| h),
            status,
            iterations,
        },
        part_a: best.map(|(i, _)| i),
        part_b: None,
    })
}

/// A linear shape cast ([`super::cast_shapes`]) between two colliders: every part pair,
/// keeping the earliest hit (at time 0, the deepest overlap). Compounds may translate
/// only: a turning compound's parts do not move as a [`super::Motion`] of their own
/// ([`super::CastError::Unsupported`]; convex pairs turn through
/// [`super::cast_shapes`]).
///
/// # Errors
/// As [`super::cast_shapes`], and for a turning compound.
#[allow(clippy::too_many_arguments)]
pub fn cast_colliders(
    a: &Collider,
    pose_a: &Pose,
    motion_a: super::Motion,
    b: &Collider,
    pose_b: &Pose,
    motion_b: super::Motion,
    max_toi: Real,
    target_distance: Real,
    options: &QueryOptions,
) -> Result<PartAnswer<super::ShapeCast>, super::CastError> {
    let count = |c: &Collider| match c {
        Collider::Convex(_) => 1,
        Collider::Compound(c) => c.parts().len() as u32,
    };
    let compound = |c: &Collider| matches!(c, Collider::Compound(_));
    if (compound(a) && !motion_a.is_translation()) || (compound(b) && !motion_b.is_translation()) {
        return Err(super::CastError::Unsupported(
            "a compound can only translate in a cast",
        ));
    }
    let mut best: Option<PartAnswer<super::ShapeCast>> = None;
    let mut iterations = 0;
    for i in 0..count(a) {
        let (sa, pa) = a.piece(i, pose_a);
        for j in 0..count(b) {
            let (sb, pb) = b.piece(j, pose_b);
            let mut input =
                super::CastInput::new(super::ShapePair::new(sa, pa, sb, pb), motion_a, motion_b);
            input.max_toi = max_toi;
            input.target_distance = target_distance;
            let c = super::cast_shapes(&input, options)?;
            iterations += c.iterations;
            let key = |c: &super::ShapeCast| {
                (!c.hit, c.toi, c.initial_distance.unwrap_or(Real::INFINITY))
            };
            let better = match &best {
                None => true,
                Some(b) => key(&c) < key(&b.answer),
            };
            if better {
                best = Some(PartAnswer {
                    answer: c,
                    part_a: a.part_index(i),
                    part_b: b.part_index(j),
                });
            }
        }
    }
    // Every collider has a piece (a compound at least one part).
    let Some(mut out) = best else {
        return Err(super::CastError::Unsupported("a collider without parts"));
    };
    out.answer.iterations = iterations;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::{Cuboid, Sphere};

    fn random_compound(u: &mut impl FnMut() -> f64, n: usize) -> Collider {
        let mut next = || u() as Real;
        let parts = (0..n)
            .map(|k| {
                let t = Vector::new(next(), next(), next()) * 4.0 - Vector::splat(2.0);
                let axis = Vector::new(next(), next(), next()) - Vector::splat(0.5);
                let q = crate::math::Rotation::from_axis_angle(
                    axis.normalize_or(Vector::X),
                    6.0 * next(),
                );
                let s: Shape = if k % 2 == 0 {
                    Sphere::new(0.1 + 0.3 * next()).unwrap().into()
                } else {
                    Cuboid::new(Vector::new(next(), next(), next()) * 0.4 + Vector::splat(0.05))
                        .unwrap()
                        .into()
                };
                (Pose::new(q, t).unwrap(), s)
            })
            .collect();
        Compound::new(parts).unwrap().into()
    }

    /// The overflow paths (a full frontier descends depth first, a full stack scans)
    /// give the answers of the roomy descent: frontiers with room for 1 and 3 node pairs
    /// and stacks with room for 1 to 3, on compounds of 1 to 40 parts.
    #[test]
    fn full_frontiers_and_stacks_answer_the_same() {
        fn with_room<const HEAP: usize, const CAP: usize>(
            a: &Collider,
            b: &Collider,
            pb: &Pose,
            slack: Real,
            eval: impl FnMut((u32, u32)) -> Option<(Real, Real)>,
        ) -> (Key, u32) {
            let mut s = Search::new(Bound::Gap, slack, eval);
            let place = Some(Placement::new(pb));
            best_first::<HEAP, CAP, _, _>(&Side::new(a, None), &Side::new(b, place), &mut s);
            (s.best, s.visited)
        }
        let mut u = crate::testing::uniform(0x57ac);
        let opts = QueryOptions::default();
        let mut scanned = 0;
        for case in 0..200 {
            let a = random_compound(&mut u, 1 + case % 40);
            let b = random_compound(&mut u, 1 + (case * 7) % 23);
            let t = Vector::new(u() as Real, u() as Real, u() as Real) * 6.0;
            let (pa, pb) = (Pose::IDENTITY, Pose::from_translation(t).unwrap());
            let eval = |(i, j): (u32, u32)| {
                let ((sa, qa), (sb, qb)) = (a.piece(i, &pa), b.piece(j, &pb));
                let d = dispatch::distance_with(sa, &qa, sb, &qb, &opts, None).distance;
                Some((d, d))
            };
            let want = run(&a, &pa, &b, &pb, &opts, Bound::Gap, eval);
            let got = [
                with_room::<1, 1>(&a, &b, &pb, want.slack, eval),
                with_room::<1, 2>(&a, &b, &pb, want.slack, eval),
                with_room::<3, 3>(&a, &b, &pb, want.slack, eval),
                with_room::<1, STACK>(&a, &b, &pb, want.slack, eval),
            ];
            for (k, (best, visited)) in got.into_iter().enumerate() {
                assert_eq!(best, want.best, "case {case}, variant {k}");
                scanned += usize::from(visited > want.visited);
            }
        }
        // The small rooms really overflowed (they visit more part pairs).
        assert!(scanned > 100, "{scanned}");
    }

    /// The descent answers few part pairs: two compounds of 64 parts (4096 part pairs),
    /// overlapping (centres 1 apart), near (3) and apart (6), 20 placements each; on
    /// average at most 25 part pairs are answered per query of any kind (measured: 5 for
    /// distance, 5 to 19 for contact, under 5 for intersection; a scan sorted by box
    /// distance answered 5 to 147 for distance).
    #[test]
    fn the_descent_answers_few_part_pairs() {
        let mut u = crate::testing::uniform(0x3e);
        let opts = QueryOptions::default();
        for centres in [1.0, 3.0, 6.0] {
            let mut visited = [0; 4];
            for _ in 0..20 {
                let a = random_compound(&mut u, 64);
                let b = random_compound(&mut u, 64);
                let d = Vector::new(u() as Real, u() as Real, u() as Real) - Vector::splat(0.5);
                let pa = Pose::IDENTITY;
                let pb = Pose::from_translation(d.normalize_or(Vector::X) * centres).unwrap();
                let pieces = |(i, j): (u32, u32)| {
                    let ((sa, qa), (sb, qb)) = (a.piece(i, &pa), b.piece(j, &pb));
                    (sa, qa, sb, qb)
                };
                let meet = |p| {
                    let (sa, qa, sb, qb) = pieces(p);
                    dispatch::intersects_with(sa, &qa, sb, &qb, &opts, None).then_some((0.0, ()))
                };
                let gap = |p| {
                    let (sa, qa, sb, qb) = pieces(p);
                    Some((
                        dispatch::distance_with(sa, &qa, sb, &qb, &opts, None).distance,
                        (),
                    ))
                };
                let near = |p| {
                    let (sa, qa, sb, qb) = pieces(p);
                    Some((
                        dispatch::closest_points_with(sa, &qa, sb, &qb, &opts, None).distance,
                        (),
                    ))
                };
                let signed = |p| {
                    let (sa, qa, sb, qb) = pieces(p);
                    Some((
                        dispatch::contact_with(sa, &qa, sb, &qb, &opts, None).distance,
                        (),
                    ))
                };
                let depth = Bound::Signed {
                    depth_tolerance: 1e-4,
                };
                visited[0] += run(&a, &pa, &b, &pb, &opts, Bound::Meet, meet).visited;
                visited[1] += run(&a, &pa, &b, &pb, &opts, Bound::Gap, gap).visited;
                visited[2] += run(&a, &pa, &b, &pb, &opts, Bound::Gap, near).visited;
                visited[3] += run(&a, &pa, &b, &pb, &opts, depth, signed).visited;
            }
            for (kind, n) in ["intersects", "distance", "closest points", "contact"]
                .iter()
                .zip(visited)
            {
                assert!(
                    n <= 20 * 25,
                    "{kind} at {centres}: {n} part pairs in 20 queries"
                );
            }
        }
    }

    #[test]
    fn part_caches_keep_the_most_recent_pairs() {
        let mut c = PartCaches::new();
        for q in 0..3 * PartCaches::CAPACITY as u32 {
            c.start_query();
            c.get((q, 0));
            c.get((0, 0));
        }
        assert_eq!(c.len(), PartCaches::CAPACITY);
        // Pair (0, 0), used by every query, stayed; the oldest of the others went.
        assert!(c.entries.iter().any(|e| e.parts == (0, 0)));
        let oldest = 3 * PartCaches::CAPACITY as u32 - (PartCaches::CAPACITY as u32 - 1);
        assert!(c
            .entries
            .iter()
            .all(|e| e.parts.0 == 0 || e.parts.0 >= oldest));
        c.clear();
        assert!(c.is_empty());
    }
}
