//! A static bounding-volume tree over a fixed list of boxes (a compound's parts): built
//! once, top down, never changed.
//!
//! # Build
//!
//! Top-down median split: the items' box centres are bounded, the longest axis of that
//! bound is chosen, and the items are split at the median centre along it (ties by item
//! index, so the tree is a function of the boxes alone). Both halves have at most
//! `⌈n / 2⌉` items, so the depth is `⌈log₂ n⌉`: at most [`AabbTree::MAX_DEPTH`] for the
//! largest tree allowed ([`AabbTree::MAX_ITEMS`] items). The
//! dynamic tree of the broad phase ([`crate::broadphase::DynamicTree`]) can give no such
//! bound cheaply; a compound's parts never move, so the static build fits them better.
//!
//! # Layout
//!
//! Nodes are stored in depth-first pre-order: an internal node's left child is the node
//! right after it, and every subtree is one contiguous run of nodes. Each node keeps the
//! end of its run, and the smallest item index below it (queries that break ties by
//! index prune with it).
//!
//! # Traversal
//!
//! Depth-first with a stack on the call stack, sized for [`AabbTree::MAX_DEPTH`]: no
//! allocation. Should a push ever not fit (it cannot for a tree this module built), the
//! subtree at hand is scanned leaf by leaf instead, which gives the same answers.

use super::Aabb;
use crate::math::{Real, Vector};

/// A node of an [`AabbTree`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Node {
    /// Box of the item (leaf), or the union of the children's boxes.
    pub(crate) aabb: Aabb,
    /// One past the last node of this node's subtree (`self + 1` for a leaf).
    pub(crate) end: u32,
    /// The item (leaf), or the smallest item below.
    pub(crate) first: u32,
}

/// Why an [`AabbTree`] could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// No boxes were given.
    #[error("a tree needs at least one box")]
    Empty,
    /// More than [`AabbTree::MAX_ITEMS`] boxes were given.
    #[error("a tree holds at most {max} boxes, got {got}")]
    TooMany {
        /// Boxes given.
        got: usize,
        /// The limit, [`AabbTree::MAX_ITEMS`].
        max: usize,
    },
    /// A box has a NaN or infinite coordinate, or `mins > maxs` on some axis.
    #[error("box {index} is not finite or not ordered")]
    BadBox {
        /// Index of the box.
        index: usize,
    },
}

/// A static binary tree of axis-aligned boxes: item `i` is the `i`-th box given to
/// [`AabbTree::new`]; every internal node's box is the union of its children's. Frames
/// and units are those of the boxes. See the module notes.
#[derive(Debug, Clone, PartialEq)]
pub struct AabbTree {
    nodes: Vec<Node>,
    depth: u32,
}

/// Room on the stack of a single-tree walk: one pending sibling per level below the
/// root, plus the node at hand.
const WALK_STACK: usize = AabbTree::MAX_DEPTH as usize + 1;

impl AabbTree {
    /// The most items a tree holds (2³¹): the nodes, `2n − 1` of them, are then
    /// numbered by `u32`.
    pub const MAX_ITEMS: usize = 1 << 31;

    /// The largest depth of a tree this module builds: `⌈log₂ MAX_ITEMS⌉` (edges from
    /// the root to the deepest leaf).
    pub const MAX_DEPTH: u32 = 31;

    /// The tree over `boxes` (item `i` is `boxes[i]`).
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
        let mut items: Vec<u32> = (0..boxes.len() as u32).collect();
        let mut nodes = Vec::with_capacity(2 * boxes.len() - 1);
        let depth = build(&mut nodes, &mut items, boxes);
        Ok(Self { nodes, depth })
    }

    /// Number of items (leaves).
    pub fn len(&self) -> usize {
        self.nodes.len().div_ceil(2)
    }

    /// Always false: a tree has at least one item.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Edges from the root to the deepest leaf (0 for one item); at most
    /// [`MAX_DEPTH`](Self::MAX_DEPTH).
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The box of the whole tree (the union of the items' boxes).
    pub fn root_aabb(&self) -> Aabb {
        self.nodes[0].aabb
    }

    /// Node `n`.
    pub(crate) fn node(&self, n: u32) -> &Node {
        &self.nodes[n as usize]
    }

    /// The children of node `n` (left, right), or `None` for a leaf.
    #[inline]
    pub(crate) fn children(&self, n: u32) -> Option<(u32, u32)> {
        let node = &self.nodes[n as usize];
        if node.end == n + 1 {
            None
        } else {
            Some((n + 1, self.nodes[n as usize + 1].end))
        }
    }

    /// The leaves of node `n`'s subtree, as node indices.
    pub(crate) fn leaves_under(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        (n..self.nodes[n as usize].end).filter(move |&i| self.nodes[i as usize].end == i + 1)
    }

    /// Calls `f(i)` for every item whose box overlaps `aabb` (closed boxes: touching
    /// counts), in depth-first order. No allocation.
    pub fn query_aabb(&self, aabb: &Aabb, mut f: impl FnMut(u32)) {
        let mut stack = [0u32; WALK_STACK];
        let mut len = 1;
        while len > 0 {
            len -= 1;
            let n = stack[len];
            let node = &self.nodes[n as usize];
            if !node.aabb.intersects(aabb) {
                continue;
            }
            match self.children(n) {
                None => f(node.first),
                Some((l, r)) if len + 2 <= WALK_STACK => {
                    stack[len] = r;
                    stack[len + 1] = l;
                    len += 2;
                }
                // Cannot happen for a tree of depth ≤ MAX_DEPTH; scan instead.
                Some(_) => {
                    for leaf in self.leaves_under(n) {
                        let node = &self.nodes[leaf as usize];
                        if node.aabb.intersects(aabb) {
                            f(node.first);
                        }
                    }
                }
            }
        }
    }

    /// Calls `f(i, t)` for the items whose box the ray `origin + t · dir` enters within
    /// `[0, limit]` (`t` its entry time, units of `dir`), nearer child first, where
    /// `limit` starts at `max_t` and becomes each call's return value: a closest-hit
    /// search returns its best time so far and the walk skips every box entered later.
    /// No allocation.
    pub fn query_ray(
        &self,
        origin: Vector,
        dir: Vector,
        max_t: Real,
        mut f: impl FnMut(u32, Real) -> Real,
    ) {
        let mut limit = max_t;
        let mut stack = [(0u32, 0.0 as Real); WALK_STACK];
        let Some(t_root) = self.nodes[0].aabb.ray_entry(origin, dir, limit) else {
            return;
        };
        stack[0] = (0, t_root);
        let mut len = 1;
        while len > 0 {
            len -= 1;
            let (n, t) = stack[len];
            if t > limit {
                continue;
            }
            let node = &self.nodes[n as usize];
            match self.children(n) {
                None => limit = f(node.first, t).min(limit),
                Some((l, r)) if len + 2 <= WALK_STACK => {
                    let tl = self.nodes[l as usize].aabb.ray_entry(origin, dir, limit);
                    let tr = self.nodes[r as usize].aabb.ray_entry(origin, dir, limit);
                    // Push the farther first, so that the nearer pops first.
                    let mut push = |c: u32, tc: Option<Real>| {
                        if let Some(tc) = tc {
                            stack[len] = (c, tc);
                            len += 1;
                        }
                    };
                    if tl.unwrap_or(Real::INFINITY) <= tr.unwrap_or(Real::INFINITY) {
                        push(r, tr);
                        push(l, tl);
                    } else {
                        push(l, tl);
                        push(r, tr);
                    }
                }
                // Cannot happen for a tree of depth ≤ MAX_DEPTH; scan instead.
                Some(_) => {
                    for leaf in self.leaves_under(n) {
                        let node = &self.nodes[leaf as usize];
                        if let Some(t) = node.aabb.ray_entry(origin, dir, limit) {
                            limit = f(node.first, t).min(limit);
                        }
                    }
                }
            }
        }
    }

    /// Checks every invariant: pre-order layout (a left child follows its parent, the
    /// right child starts where the left subtree ends, the subtrees tile the parent's
    /// run), each item in exactly one leaf, internal boxes equal to the union of their
    /// children's, each node's `first` the smallest item below it, and the depth within
    /// `⌈log₂ n⌉`.
    ///
    /// # Errors
    /// A description of the first broken invariant.
    pub fn assert_well_formed(&self) -> Result<(), String> {
        let n = self.nodes.len();
        if n == 0 || n % 2 == 0 {
            return Err(format!(
                "{n} nodes: a binary tree has an odd, positive count"
            ));
        }
        let mut seen = vec![false; self.len()];
        let mut deepest = 0u32;
        let mut stack = vec![(0u32, 0u32)];
        while let Some((i, level)) = stack.pop() {
            let node = &self.nodes[i as usize];
            if node.end <= i || node.end as usize > n {
                return Err(format!("node {i}: end {} out of range", node.end));
            }
            match self.children(i) {
                None => {
                    deepest = deepest.max(level);
                    let item = node.first as usize;
                    if item >= seen.len() || std::mem::replace(&mut seen[item], true) {
                        return Err(format!("leaf {i}: item {item} missing or repeated"));
                    }
                }
                Some((l, r)) => {
                    let (nl, nr) = (&self.nodes[l as usize], self.nodes.get(r as usize));
                    let Some(nr) = nr.filter(|_| r < node.end) else {
                        return Err(format!("node {i}: right child {r} outside its run"));
                    };
                    if nr.end != node.end {
                        return Err(format!("node {i}: children do not tile its run"));
                    }
                    if node.aabb != nl.aabb.merged(&nr.aabb) {
                        return Err(format!("node {i}: box is not its children's union"));
                    }
                    if node.first != nl.first.min(nr.first) {
                        return Err(format!("node {i}: first item {} is wrong", node.first));
                    }
                    stack.push((l, level + 1));
                    stack.push((r, level + 1));
                }
            }
        }
        if seen.iter().any(|s| !s) {
            return Err("an item has no leaf".into());
        }
        let bound = self.len().next_power_of_two().trailing_zeros();
        if deepest != self.depth || self.depth > bound {
            return Err(format!(
                "depth {} (measured {deepest}), bound {bound}",
                self.depth
            ));
        }
        Ok(())
    }
}

/// Appends the subtree over `items` (item indices into `boxes`, at least one) to
/// `nodes` in pre-order; returns its depth.
fn build(nodes: &mut Vec<Node>, items: &mut [u32], boxes: &[Aabb]) -> u32 {
    let at = nodes.len();
    if let [item] = items {
        nodes.push(Node {
            aabb: boxes[*item as usize],
            end: at as u32 + 1,
            first: *item,
        });
        return 0;
    }
    // Placeholder, filled once the children are built.
    nodes.push(Node {
        aabb: boxes[items[0] as usize],
        end: 0,
        first: 0,
    });
    let centre = |i: u32| boxes[i as usize].center();
    let (lo, hi) = items[1..]
        .iter()
        .fold((centre(items[0]), centre(items[0])), |(lo, hi), &i| {
            (lo.min(centre(i)), hi.max(centre(i)))
        });
    let spread = hi - lo;
    let axis = if spread.x >= spread.y && spread.x >= spread.z {
        0
    } else if spread.y >= spread.z {
        1
    } else {
        2
    };
    let mid = items.len() / 2;
    items.select_nth_unstable_by(mid, |&x, &y| {
        centre(x)[axis].total_cmp(&centre(y)[axis]).then(x.cmp(&y))
    });
    let (left, right) = items.split_at_mut(mid);
    let dl = build(nodes, left, boxes);
    let r = nodes.len();
    let dr = build(nodes, right, boxes);
    let (nl, nr) = (nodes[at + 1], nodes[r]);
    nodes[at] = Node {
        aabb: nl.aabb.merged(&nr.aabb),
        end: nodes.len() as u32,
        first: nl.first.min(nr.first),
    };
    1 + dl.max(dr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Real, Vector};

    fn random_boxes(seed: u64, n: usize) -> Vec<Aabb> {
        let mut u = crate::testing::uniform(seed);
        let mut next = move || u() as Real;
        (0..n)
            .map(|_| {
                let c = Vector::new(next(), next(), next()) * 10.0;
                let h = Vector::new(next(), next(), next()) * 0.5;
                Aabb::new(c - h, c + h)
            })
            .collect()
    }

    /// Every size from 1 to 300, plus coincident boxes: well formed, depth ⌈log₂ n⌉,
    /// and box queries equal a scan over the items.
    #[test]
    fn trees_are_well_formed_and_queries_equal_a_scan() {
        let mut u = crate::testing::uniform(0x7ee);
        for n in (1..=300).chain([1000, 4097]) {
            let mut boxes = random_boxes(n as u64, n);
            if n % 7 == 0 {
                // Coincident boxes: the median split still halves the items.
                for b in boxes.iter_mut().step_by(2) {
                    *b = Aabb::new(Vector::ZERO, Vector::ONE);
                }
            }
            let t = AabbTree::new(&boxes).unwrap();
            t.assert_well_formed().unwrap();
            assert_eq!(t.len(), n);
            assert_eq!(t.depth(), n.next_power_of_two().trailing_zeros(), "n = {n}");
            for _ in 0..10 {
                let c = Vector::new(u() as Real, u() as Real, u() as Real) * 10.0;
                let q = Aabb::new(c, c).loosened(2.0 * u() as Real);
                let mut got = Vec::new();
                t.query_aabb(&q, |i| got.push(i));
                got.sort_unstable();
                let want: Vec<u32> = (0..n as u32)
                    .filter(|&i| boxes[i as usize].intersects(&q))
                    .collect();
                assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn bad_input_is_refused() {
        assert_eq!(AabbTree::new(&[]), Err(TreeError::Empty));
        let ok = Aabb::new(Vector::ZERO, Vector::ONE);
        let nan = Aabb::new(Vector::new(Real::NAN, 0.0, 0.0), Vector::ONE);
        let flipped = Aabb::new(Vector::ONE, Vector::ZERO);
        assert_eq!(
            AabbTree::new(&[ok, nan]),
            Err(TreeError::BadBox { index: 1 })
        );
        assert_eq!(
            AabbTree::new(&[flipped]),
            Err(TreeError::BadBox { index: 0 })
        );
    }
}
