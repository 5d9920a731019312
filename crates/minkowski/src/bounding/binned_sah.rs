//! A static bounding-volume tree built by the binned surface area heuristic (SAH), for
//! large sets of small boxes (a triangle mesh's triangles): built once, never changed.
//!
//! # The surface area heuristic
//!
//! For a random ray that meets a node's box `P`, the chance that it also meets a child's
//! box `C` is about `area(C) / area(P)` (MacDonald and Booth, "Heuristics for ray
//! tracing using space subdivision", *The Visual Computer* 6, 1990). Splitting the `n`
//! items of `P` into `L` and `R` therefore costs, per ray that reaches `P`,
//!
//! ```text
//! cost(L, R) = C_trav + (area(L) |L| + area(R) |R|) / area(P) · C_item,
//! ```
//!
//! against `n · C_item` for a leaf. The builder picks, top down, the split of least cost.
//!
//! # Binning
//!
//! Evaluating every split of every axis is `O(n log n)` per node. Wald ("On fast
//! construction of SAH-based bounding volume hierarchies", IEEE Symposium on Interactive
//! Ray Tracing, 2007) bins the items' box centres instead: the centres' bound is cut
//! into [`SahTree::BINS`] equal slabs along its longest axis, each item is dropped into
//! the slab of its centre (one pass), and only the `BINS − 1` planes between slabs are
//! costed, from prefix and suffix sweeps of the slabs' boxes and counts. As in Wald's
//! builder only the longest axis is binned: binning all three lowered the tree's SAH cost
//! ([`SahTree::sah_cost`]) by 1% on a 1M-triangle terrain and 4% on a 2M-triangle soup,
//! with no measurable change in ray time, for 2 to 3 times the build time; the partition of the chosen
//! plane is done in place, and each child's box and centre bounds come from its slabs,
//! so no pass over the items is spent on them. A node becomes a leaf when it holds at most [`SahTree::MAX_LEAF_ITEMS`] items
//! and no split is cheaper than the leaf; a node whose centres all coincide is split at
//! its median item (by index, so the tree is a function of the boxes alone).
//!
//! Costs here: `C_trav = 1`, `C_item = 1` (a box test and a triangle test are of the same
//! order).
//!
//! # The depth bound
//!
//! SAH alone can build a tree as deep as its item count (a sequence of ever smaller
//! boxes, each split off one at a time). The builder keeps the invariant
//! `depth + ⌈log₂ n⌉ ≤ MAX_DEPTH` for every node of `n` items: a node that meets it with
//! equality is split at its median centre along its centres' longest axis, which gives
//! children of at most `⌈n / 2⌉` items and keeps the invariant; every other node may take
//! any SAH split. The root (`n ≤ 2³¹`) starts with `⌈log₂ n⌉ ≤ 31`, so every tree has
//! depth at most [`SahTree::MAX_DEPTH`] = 64, and the traversals walk it with a fixed
//! stack of 65 entries: no allocation and no fallback.
//!
//! # Layout
//!
//! Nodes in depth-first pre-order: an internal node's left child is the node right after
//! it and it stores its right child's index; a leaf stores a run of the item list, which
//! is the input order permuted so that each leaf's items are contiguous.
//!
//! # Traversals
//!
//! [`SahTree::query_aabb`] visits every leaf whose box meets a box. The two closest-item
//! searches, [`SahTree::query_ray`] and [`SahTree::query_nearest`], are ordered
//! depth-first branch and bound: at each node the nearer child (by ray entry time, or
//! by distance from the point to the box) is visited first, and a node is skipped when
//! its key exceeds the best answer found so far. This visits the same nodes as a
//! best-first search with a priority queue except where a far subtree is entered before
//! a nearer one elsewhere is finished, and needs no heap.

use super::{Aabb, TreeError};
use crate::math::{Real, Vector};
use std::ops::ControlFlow;

/// A node of a [`SahTree`].
#[derive(Debug, Clone, Copy, PartialEq)]
struct Node {
    /// The union of the boxes below.
    aabb: Aabb,
    /// Leaf: the first slot of its run in `items`; internal: its right child's index
    /// (the left child is the next node).
    index: u32,
    /// Leaf: the length of its run (`1..=MAX_LEAF_ITEMS`); internal: 0.
    count: u32,
}

/// A static bounding-volume tree over a fixed list of boxes, built by the binned surface
/// area heuristic (see the module notes). Item `i` is the `i`-th box given to
/// [`SahTree::new`]; frames and units are those of the boxes.
///
/// See also [`super::AabbTree`], the median-split tree of a compound's parts (one item
/// per leaf, depth `⌈log₂ n⌉`), which suits a few hundred parts better.
#[derive(Debug, Clone, PartialEq)]
pub struct SahTree {
    nodes: Vec<Node>,
    /// The items, permuted so that each leaf's are one run.
    items: Vec<u32>,
    depth: u32,
}

/// Room on the stack of a walk: one pending sibling per level, plus the node at hand.
const WALK_STACK: usize = SahTree::MAX_DEPTH as usize + 1;

/// Relative cost of visiting a node, against testing one item (both 1: see the module
/// notes).
const TRAVERSAL_COST: Real = 1.0;

impl SahTree {
    /// The most items a tree holds (2³¹).
    pub const MAX_ITEMS: usize = 1 << 31;

    /// The largest depth (edges from the root to the deepest leaf) of a tree this module
    /// builds, whatever its boxes (see the module notes).
    pub const MAX_DEPTH: u32 = 64;

    /// The most items in one leaf.
    pub const MAX_LEAF_ITEMS: usize = 4;

    /// The number of slabs the centres are binned into, per axis (Wald uses 8 to 32).
    pub const BINS: usize = 16;

    /// The tree over `boxes` (item `i` is `boxes[i]`). Time `O(n log n)`, memory about
    /// `n` nodes plus `n` item slots.
    ///
    /// # Errors
    /// [`TreeError::Empty`] for no boxes, [`TreeError::TooMany`] beyond
    /// [`MAX_ITEMS`](Self::MAX_ITEMS), [`TreeError::BadBox`] for a box with a non-finite
    /// coordinate or `mins > maxs`.
    pub fn new(boxes: &[Aabb]) -> Result<Self, TreeError> {
        if boxes.is_empty() {
            return Err(TreeError::Empty);
        }
        if boxes.len() > Self::MAX_ITEMS {
            return Err(TreeError::TooMany {
                got: boxes.len(),
                max: Self::MAX_ITEMS,
            });
        }
        if let Some(index) = boxes
            .iter()
            .position(|b| !(b.mins.is_finite() && b.maxs.is_finite() && b.mins.cmple(b.maxs).all()))
        {
            return Err(TreeError::BadBox { index });
        }
        let mut builder = Builder {
            boxes,
            centres: boxes.iter().map(Aabb::center).collect(),
            items: (0..boxes.len() as u32).collect(),
            nodes: Vec::with_capacity(boxes.len().div_ceil(2) * 2),
        };
        let root = builder.bounds_of(0, boxes.len());
        let depth = builder.build(0, boxes.len(), 0, root);
        let Builder {
            items, mut nodes, ..
        } = builder;
        nodes.shrink_to_fit();
        Ok(Self {
            nodes,
            items,
            depth,
        })
    }

    /// The number of items (boxes given to [`SahTree::new`]).
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Always false: a tree has at least one item.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The number of nodes (internal and leaves).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Edges from the root to the deepest leaf (0 for a single leaf); at most
    /// [`MAX_DEPTH`](Self::MAX_DEPTH).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The box of the whole tree (the union of the items' boxes).
    pub fn root_aabb(&self) -> Aabb {
        self.nodes[0].aabb
    }

    /// The heap memory the tree holds (bytes).
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.items.capacity() * std::mem::size_of::<u32>()
    }

    /// The tree's surface area heuristic cost: the expected number of node visits plus
    /// item tests of a random ray that meets the root box (see the module notes), summed
    /// over the nodes as `area(node) / area(root)` times 1 per internal node and the item
    /// count per leaf. Lower is better; for comparing builds.
    pub fn sah_cost(&self) -> Real {
        let root = self.nodes[0].aabb.surface_area();
        if root.is_nan() || root <= 0.0 {
            return Real::NAN;
        }
        self.nodes
            .iter()
            .map(|n| {
                let w = if n.count > 0 {
                    n.count as Real
                } else {
                    TRAVERSAL_COST
                };
                w * n.aabb.surface_area() / root
            })
            .sum()
    }

    /// The items of leaf `node`.
    #[inline]
    fn leaf_items(&self, node: &Node) -> &[u32] {
        &self.items[node.index as usize..(node.index + node.count) as usize]
    }

    /// Calls `f(i)` for every item of every leaf whose box meets `aabb` (closed boxes:
    /// touching counts) — every item whose own box meets it, and perhaps a few more of
    /// the same leaves — until `f` breaks; returns whether it did. No allocation.
    pub fn query_aabb(
        &self,
        aabb: &Aabb,
        f: impl FnMut(u32) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        self.query_aabb_where(aabb, |_| true, f)
    }

    /// [`SahTree::query_aabb`] with a second test of the nodes: a node (inner or leaf)
    /// whose box meets `aabb` is entered only when `keep_node` also accepts its box, so a
    /// caller with a tighter shape than a box (a ball: its distance to the node's box)
    /// skips the subtrees it cannot reach. `keep_node` must accept every box that holds an
    /// item the caller needs: the walk does not second-guess it. No allocation.
    pub fn query_aabb_where(
        &self,
        aabb: &Aabb,
        mut keep_node: impl FnMut(&Aabb) -> bool,
        mut f: impl FnMut(u32) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut stack = [0u32; WALK_STACK];
        let mut len = 1;
        while len > 0 {
            len -= 1;
            let n = stack[len];
            let node = &self.nodes[n as usize];
            if !node.aabb.intersects(aabb) || !keep_node(&node.aabb) {
                continue;
            }
            if node.count > 0 {
                for &i in self.leaf_items(node) {
                    f(i)?;
                }
            } else {
                // At most one pending sibling per level: `len + 2 ≤ WALK_STACK` holds for
                // a tree of depth ≤ MAX_DEPTH.
                stack[len] = node.index;
                stack[len + 1] = n + 1;
                len += 2;
            }
        }
        ControlFlow::Continue(())
    }

    /// Calls `f(i, t)` for the items of the leaves whose box the ray `origin + t · dir`
    /// enters within `[0, limit]` (`t` the leaf's entry time, units of `dir`), nearer
    /// child first, where `limit` starts at `max_t` and becomes the least of the calls'
    /// return values: a closest-hit search returns its best time so far, and the walk
    /// skips every box entered later. The slab test is conservative (each exit time is
    /// widened by a few units of rounding, as in Pharr, Jakob and Humphreys, *Physically
    /// Based Rendering*, 3rd ed., §3.9.2), so an item on a box's boundary is not lost to
    /// rounding. No allocation.
    pub fn query_ray(
        &self,
        origin: Vector,
        dir: Vector,
        max_t: Real,
        f: impl FnMut(u32, Real) -> Real,
    ) {
        let slab = RaySlab::new(origin, dir);
        self.walk_ordered(max_t, |b, limit| slab.entry(b, limit), f);
    }

    /// Calls `f(i, d²)` for the items of the leaves whose box lies within squared
    /// distance `limit` of `point` (`d²` the squared distance from the point to the leaf's
    /// box, square length units), nearer child first, where `limit` starts at `max_d2`
    /// and becomes the least of the calls' return values: a closest-point search returns
    /// its best squared distance so far, and the walk skips every box farther away. No
    /// allocation.
    pub fn query_nearest(&self, point: Vector, max_d2: Real, f: impl FnMut(u32, Real) -> Real) {
        self.walk_ordered(
            max_d2,
            |b, limit| {
                let d = (b.mins - point).max(point - b.maxs).max(Vector::ZERO);
                let d2 = d.length_squared();
                (d2 <= limit).then_some(d2)
            },
            f,
        );
    }

    /// The ordered branch-and-bound walk of [`query_ray`](Self::query_ray) and
    /// [`query_nearest`](Self::query_nearest): `key(box, limit)` is a node's key when it
    /// is at most `limit`.
    fn walk_ordered(
        &self,
        max_key: Real,
        key: impl Fn(&Aabb, Real) -> Option<Real>,
        mut f: impl FnMut(u32, Real) -> Real,
    ) {
        let mut limit = max_key;
        let Some(k_root) = key(&self.nodes[0].aabb, limit) else {
            return;
        };
        let mut stack = [(0u32, 0.0 as Real); WALK_STACK];
        stack[0] = (0, k_root);
        let mut len = 1;
        while len > 0 {
            len -= 1;
            let (n, k) = stack[len];
            if k > limit {
                continue;
            }
            let node = &self.nodes[n as usize];
            if node.count > 0 {
                for &i in self.leaf_items(node) {
                    limit = f(i, k).min(limit);
                }
                continue;
            }
            let (l, r) = (n + 1, node.index);
            let kl = key(&self.nodes[l as usize].aabb, limit);
            let kr = key(&self.nodes[r as usize].aabb, limit);
            // The farther first, so that the nearer pops first. `len + 2 ≤ WALK_STACK`
            // for a tree of depth ≤ MAX_DEPTH (one pending sibling per level).
            let (first, second) = match (kl, kr) {
                (Some(a), Some(b)) if a <= b => ((r, kr), (l, kl)),
                _ => ((l, kl), (r, kr)),
            };
            for (c, kc) in [first, second] {
                if let Some(kc) = kc {
                    stack[len] = (c, kc);
                    len += 1;
                }
            }
        }
    }

    /// Checks every invariant against the boxes the tree was built from: pre-order layout
    /// (a left child follows its parent, the right child starts where the left subtree
    /// ends), each item in exactly one leaf, leaves of `1..=MAX_LEAF_ITEMS` items, every
    /// node's box exactly the union of its items' (leaf) or children's (internal) boxes,
    /// and the depth within [`MAX_DEPTH`](Self::MAX_DEPTH).
    ///
    /// # Errors
    /// A description of the first broken invariant.
    pub fn assert_well_formed(&self, boxes: &[Aabb]) -> Result<(), String> {
        if boxes.len() != self.items.len() {
            return Err(format!(
                "{} boxes for a tree of {} items",
                boxes.len(),
                self.items.len()
            ));
        }
        let mut seen = vec![false; boxes.len()];
        let mut deepest = 0u32;
        // (node, depth); returns the end of the node's subtree.
        fn check(
            t: &SahTree,
            boxes: &[Aabb],
            seen: &mut [bool],
            deepest: &mut u32,
            n: usize,
            depth: u32,
        ) -> Result<usize, String> {
            let Some(node) = t.nodes.get(n) else {
                return Err(format!("node {n} out of range"));
            };
            if depth > SahTree::MAX_DEPTH {
                return Err(format!("node {n} at depth {depth}"));
            }
            if node.count > 0 {
                *deepest = (*deepest).max(depth);
                if node.count as usize > SahTree::MAX_LEAF_ITEMS {
                    return Err(format!("leaf {n} holds {} items", node.count));
                }
                let end = node.index as usize + node.count as usize;
                let Some(run) = t.items.get(node.index as usize..end) else {
                    return Err(format!("leaf {n}: run out of range"));
                };
                let mut union: Option<Aabb> = None;
                for &i in run {
                    let i = i as usize;
                    if i >= seen.len() || std::mem::replace(&mut seen[i], true) {
                        return Err(format!("leaf {n}: item {i} missing or repeated"));
                    }
                    union = Some(union.map_or(boxes[i], |u| u.merged(&boxes[i])));
                }
                if union != Some(node.aabb) {
                    return Err(format!("leaf {n}: box is not its items' union"));
                }
                return Ok(n + 1);
            }
            let l = n + 1;
            let r = node.index as usize;
            let end_l = check(t, boxes, seen, deepest, l, depth + 1)?;
            if end_l != r {
                return Err(format!(
                    "node {n}: right child {r}, left subtree ends at {end_l}"
                ));
            }
            let end = check(t, boxes, seen, deepest, r, depth + 1)?;
            if node.aabb != t.nodes[l].aabb.merged(&t.nodes[r].aabb) {
                return Err(format!("node {n}: box is not its children's union"));
            }
            Ok(end)
        }
        let end = check(self, boxes, &mut seen, &mut deepest, 0, 0)?;
        if end != self.nodes.len() {
            return Err(format!(
                "the root's subtree ends at {end} of {}",
                self.nodes.len()
            ));
        }
        if seen.iter().any(|s| !s) {
            return Err("an item has no leaf".into());
        }
        if deepest != self.depth {
            return Err(format!("depth {} (measured {deepest})", self.depth));
        }
        Ok(())
    }
}

/// A ray prepared for slab tests: its origin, and per axis the reciprocal of its
/// direction or, for a direction (nearly) parallel to the axis's slabs, none.
struct RaySlab {
    origin: Vector,
    inv: Vector,
    parallel: [bool; 3],
}

/// How far a slab's exit time is widened: `1 + 2 γ₃` with `γ₃ = 3 ε / (1 − 3 ε)`, the
/// bound on the rounding of `(b − o) · (1/d)` (PBRT §3.9.2).
const SLAB_WIDEN: Real =
    1.0 + 2.0 * (3.0 * crate::math::EPSILON / (1.0 - 3.0 * crate::math::EPSILON));

impl RaySlab {
    fn new(origin: Vector, dir: Vector) -> Self {
        let inv = dir.recip();
        // A component whose reciprocal overflows moves the ray by less than the largest
        // coordinate's rounding over any finite time: parallel.
        let parallel = [!inv.x.is_finite(), !inv.y.is_finite(), !inv.z.is_finite()];
        Self {
            origin,
            inv,
            parallel,
        }
    }

    /// The time the ray enters the closed box, if it does within `[0, limit]`.
    #[inline]
    fn entry(&self, b: &Aabb, limit: Real) -> Option<Real> {
        let (mut t0, mut t1) = (0.0 as Real, limit);
        for k in 0..3 {
            let o = self.origin[k];
            if self.parallel[k] {
                if o < b.mins[k] || o > b.maxs[k] {
                    return None;
                }
                continue;
            }
            let inv = self.inv[k];
            let (near, far) = if inv >= 0.0 {
                (b.mins[k], b.maxs[k])
            } else {
                (b.maxs[k], b.mins[k])
            };
            let a = (near - o) * inv;
            let z = (far - o) * inv * SLAB_WIDEN;
            t0 = t0.max(a);
            t1 = t1.min(z);
            if t0.is_nan() || t1.is_nan() || t0 > t1 {
                return None;
            }
        }
        Some(t0)
    }
}

/// The build state.
struct Builder<'a> {
    boxes: &'a [Aabb],
    centres: Vec<Vector>,
    items: Vec<u32>,
    nodes: Vec<Node>,
}

/// The bounds of a run of items: the union of their boxes, and the box of their centres.
#[derive(Clone, Copy)]
struct Bounds {
    lo: Vector,
    hi: Vector,
    clo: Vector,
    chi: Vector,
}

impl Bounds {
    const EMPTY: Bounds = Bounds {
        lo: Vector::INFINITY,
        hi: Vector::NEG_INFINITY,
        clo: Vector::INFINITY,
        chi: Vector::NEG_INFINITY,
    };

    #[inline]
    fn add(&mut self, b: &Aabb, c: Vector) {
        self.lo = self.lo.min(b.mins);
        self.hi = self.hi.max(b.maxs);
        self.clo = self.clo.min(c);
        self.chi = self.chi.max(c);
    }

    #[inline]
    fn union(&self, o: &Bounds) -> Bounds {
        Bounds {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            clo: self.clo.min(o.clo),
            chi: self.chi.max(o.chi),
        }
    }

    fn aabb(&self) -> Aabb {
        Aabb::new(self.lo, self.hi)
    }

    /// Surface area of the items' box (not called on an empty run).
    #[inline]
    fn area(&self) -> Real {
        let d = self.hi - self.lo;
        2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
    }
}

/// One slab of the binning: its items' bounds and count.
#[derive(Clone, Copy)]
struct Bin {
    bounds: Bounds,
    count: u32,
}

/// The chosen binned split.
struct Split {
    /// In units of one item test, `C_trav` included.
    cost: Real,
    axis: usize,
    /// The binning scale along `axis` (bins per unit length).
    scale: Real,
    /// The first bin on the right.
    plane: usize,
    left: Bounds,
    right: Bounds,
}

/// `⌈log₂ n⌉` for `n ≥ 1`.
fn ceil_log2(n: usize) -> u32 {
    n.next_power_of_two().trailing_zeros()
}

/// The bin of a centre coordinate `c` along an axis whose centres start at `lo`, with
/// `scale` bins per unit length. The builder's binning and partition both call this, so
/// they agree on every item.
#[inline]
fn bin(c: Real, lo: Real, scale: Real) -> usize {
    (((c - lo) * scale) as usize).min(SahTree::BINS - 1)
}

impl Builder<'_> {
    /// The bounds of `items[lo..hi]`.
    fn bounds_of(&self, lo: usize, hi: usize) -> Bounds {
        let mut b = Bounds::EMPTY;
        for &i in &self.items[lo..hi] {
            b.add(&self.boxes[i as usize], self.centres[i as usize]);
        }
        b
    }

    /// Appends the subtree over `items[lo..hi]` (at least one item, of bounds `b`), whose
    /// root is at `depth`, in pre-order; returns the depth of its deepest leaf.
    fn build(&mut self, lo: usize, hi: usize, depth: u32, b: Bounds) -> u32 {
        let n = hi - lo;
        let at = self.nodes.len();
        let leaf = Node {
            aabb: b.aabb(),
            index: lo as u32,
            count: n as u32,
        };
        if n == 1 {
            self.nodes.push(leaf);
            return depth;
        }
        let spread = b.chi - b.clo;
        // Median split when the depth budget is spent (see the module notes) or the
        // centres coincide.
        let budget_left = depth + ceil_log2(n) < SahTree::MAX_DEPTH;
        let split = if budget_left && spread.max_element() > 0.0 {
            self.sah_split(lo, hi, &b, spread)
        } else {
            None
        };
        let (mid, left, right) = match split {
            Some(s) => {
                if n <= SahTree::MAX_LEAF_ITEMS && n as Real <= s.cost {
                    self.nodes.push(leaf);
                    return depth;
                }
                let mid = self.partition(lo, hi, &s, b.clo);
                (mid, s.left, s.right)
            }
            None => {
                if n <= SahTree::MAX_LEAF_ITEMS {
                    self.nodes.push(leaf);
                    return depth;
                }
                let mid = self.median(lo, hi, spread);
                (mid, self.bounds_of(lo, mid), self.bounds_of(mid, hi))
            }
        };
        // Placeholder, its right child filled in once the left subtree is built.
        self.nodes.push(Node {
            aabb: leaf.aabb,
            index: 0,
            count: 0,
        });
        let dl = self.build(lo, mid, depth + 1, left);
        let r = self.nodes.len();
        let dr = self.build(mid, hi, depth + 1, right);
        self.nodes[at].index = r as u32;
        dl.max(dr)
    }

    /// The cheapest binned split of `items[lo..hi]` (of bounds `b`, centres spread over
    /// `spread`). `None` when the node's box has no area (every plane then costs the
    /// same).
    fn sah_split(&self, lo: usize, hi: usize, b: &Bounds, spread: Vector) -> Option<Split> {
        let parent_area = b.area();
        if parent_area.is_nan() || parent_area <= 0.0 {
            return None;
        }
        const B: usize = SahTree::BINS;
        let empty = Bin {
            bounds: Bounds::EMPTY,
            count: 0,
        };
        // Wald's choice: bin along the centres' longest axis only.
        let axis = if spread.x >= spread.y && spread.x >= spread.z {
            0
        } else if spread.y >= spread.z {
            1
        } else {
            2
        };
        let scale = B as Real / spread[axis];
        if !scale.is_finite() {
            return None;
        }
        let mut bins = [empty; B];
        for &i in &self.items[lo..hi] {
            let c = self.centres[i as usize];
            let bin = &mut bins[bin(c[axis], b.clo[axis], scale)];
            bin.bounds.add(&self.boxes[i as usize], c);
            bin.count += 1;
        }
        let total = (hi - lo) as u32;
        // Right sweep: the bounds and count of bins[k..].
        let mut right = [empty; B];
        let mut acc = empty;
        for k in (1..B).rev() {
            acc.bounds = acc.bounds.union(&bins[k].bounds);
            acc.count += bins[k].count;
            right[k] = acc;
        }
        let mut best: Option<Split> = None;
        let mut left = empty;
        for k in 1..B {
            left.bounds = left.bounds.union(&bins[k - 1].bounds);
            left.count += bins[k - 1].count;
            if left.count == 0 || left.count == total {
                continue;
            }
            let r = &right[k];
            let cost = TRAVERSAL_COST
                + (left.bounds.area() * left.count as Real + r.bounds.area() * r.count as Real)
                    / parent_area;
            if best.as_ref().is_none_or(|s| cost < s.cost) {
                best = Some(Split {
                    cost,
                    axis,
                    scale,
                    plane: k,
                    left: left.bounds,
                    right: r.bounds,
                });
            }
        }
        best
    }

    /// Moves the items of `items[lo..hi]` whose centre falls in a bin below the split's
    /// plane to the front; returns where the rest starts.
    fn partition(&mut self, lo: usize, hi: usize, s: &Split, clo: Vector) -> usize {
        let (mut i, mut j) = (lo, hi);
        while i < j {
            let c = self.centres[self.items[i] as usize][s.axis];
            if bin(c, clo[s.axis], s.scale) < s.plane {
                i += 1;
            } else {
                j -= 1;
                self.items.swap(i, j);
            }
        }
        i
    }

    /// Splits `items[lo..hi]` at its median centre along the centres' longest axis (ties
    /// by item index); returns where the right half starts.
    fn median(&mut self, lo: usize, hi: usize, spread: Vector) -> usize {
        let axis = if spread.x >= spread.y && spread.x >= spread.z {
            0
        } else if spread.y >= spread.z {
            1
        } else {
            2
        };
        let mid = (hi - lo) / 2;
        let centres = &self.centres;
        self.items[lo..hi].select_nth_unstable_by(mid, |&x, &y| {
            centres[x as usize][axis]
                .total_cmp(&centres[y as usize][axis])
                .then(x.cmp(&y))
        });
        lo + mid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_boxes(seed: u64, n: usize, size: Real) -> Vec<Aabb> {
        let mut u = crate::testing::uniform(seed);
        let mut next = move || u() as Real;
        (0..n)
            .map(|_| {
                let c = Vector::new(next(), next(), next()) * 10.0;
                let h = Vector::new(next(), next(), next()) * size;
                Aabb::new(c - h, c + h)
            })
            .collect()
    }

    /// Many sizes, coincident boxes and a chain of nested boxes (SAH's deep case): well
    /// formed, and box, ray and nearest queries equal a scan over the items.
    #[test]
    fn trees_are_well_formed_and_queries_equal_a_scan() {
        let mut u = crate::testing::uniform(0x5a4);
        let mut cases: Vec<Vec<Aabb>> = (1..=200)
            .chain([1000, 4097])
            .map(|n| random_boxes(n as u64, n, 0.3))
            .collect();
        cases.push(vec![Aabb::new(Vector::ZERO, Vector::ONE); 37]);
        // Ever smaller boxes in a corner: each split peels off one.
        cases.push(
            (0..3000)
                .map(|k| {
                    let s = (0.99 as Real).powi(k);
                    Aabb::new(Vector::ZERO, Vector::splat(s))
                })
                .collect(),
        );
        for boxes in &cases {
            let n = boxes.len();
            let t = SahTree::new(boxes).unwrap();
            t.assert_well_formed(boxes).unwrap();
            assert_eq!(t.len(), n);
            assert!(t.depth() <= SahTree::MAX_DEPTH);
            for _ in 0..10 {
                let c = Vector::new(u() as Real, u() as Real, u() as Real) * 10.0;
                let q = Aabb::new(c, c).loosened(2.0 * u() as Real);
                let mut got = Vec::new();
                let _ = t.query_aabb(&q, |i| {
                    got.push(i);
                    ControlFlow::Continue(())
                });
                got.sort_unstable();
                got.dedup();
                for i in 0..n as u32 {
                    if boxes[i as usize].intersects(&q) {
                        assert!(got.binary_search(&i).is_ok(), "box {i} missed");
                    }
                }
                // Nearest box to a point: the walk finds the scan's distance.
                let d2 = |b: &Aabb| {
                    (b.mins - c)
                        .max(c - b.maxs)
                        .max(Vector::ZERO)
                        .length_squared()
                };
                let want = boxes.iter().map(d2).fold(Real::INFINITY, Real::min);
                let mut best = Real::INFINITY;
                t.query_nearest(c, Real::INFINITY, |i, _| {
                    best = best.min(d2(&boxes[i as usize]));
                    best
                });
                assert_eq!(best, want);
                // First box along a ray.
                let dir = Vector::new(u() as Real - 0.5, u() as Real - 0.5, u() as Real - 0.5);
                let o = c - dir * 20.0;
                let want = boxes
                    .iter()
                    .filter_map(|b| b.ray_entry(o, dir, Real::INFINITY))
                    .fold(Real::INFINITY, Real::min);
                let mut best = Real::INFINITY;
                t.query_ray(o, dir, Real::INFINITY, |i, _| {
                    if let Some(e) = boxes[i as usize].ray_entry(o, dir, Real::INFINITY) {
                        best = best.min(e);
                    }
                    best
                });
                assert_eq!(best, want);
            }
        }
    }

    #[test]
    fn breaking_stops_the_box_query() {
        let boxes = random_boxes(3, 500, 0.5);
        let t = SahTree::new(&boxes).unwrap();
        let everything = Aabb::new(Vector::splat(-100.0), Vector::splat(100.0));
        let mut calls = 0;
        let flow = t.query_aabb(&everything, |_| {
            calls += 1;
            if calls == 7 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(flow, ControlFlow::Break(()));
        assert_eq!(calls, 7);
    }

    #[test]
    fn bad_input_is_refused() {
        assert_eq!(SahTree::new(&[]), Err(TreeError::Empty));
        let ok = Aabb::new(Vector::ZERO, Vector::ONE);
        let nan = Aabb::new(Vector::new(Real::NAN, 0.0, 0.0), Vector::ONE);
        let flipped = Aabb::new(Vector::ONE, Vector::ZERO);
        assert_eq!(
            SahTree::new(&[ok, nan]),
            Err(TreeError::BadBox { index: 1 })
        );
        assert_eq!(
            SahTree::new(&[flipped]),
            Err(TreeError::BadBox { index: 0 })
        );
    }
}
