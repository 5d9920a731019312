//! A dynamic AABB tree: the structure of Box2D's and Bullet's broad phases (Bullet's
//! `btDbvt`; E. Catto, "Dynamic AABB tree", GDC 2019), written from the description.
//!
//! Leaves hold *fat* boxes: each object's box grown by a margin proportional to its size,
//! so an object that moves a little stays inside its fat box and costs nothing; only when
//! it leaves it is the leaf removed and reinserted. Internal nodes hold the union of their
//! children.
//!
//! * **Insert** descends from the root towards the cheaper child by the surface-area
//!   heuristic (the cost of a node is its area; descending into a child adds the growth of
//!   every ancestor, the "inherited" cost), stops where making a new parent of the
//!   current node is cheaper, and then walks back up refitting boxes.
//! * **Remove** replaces the leaf's parent by the leaf's sibling and refits upwards.
//! * **Balance**: on the way up, a node whose two subtrees differ in height by more than
//!   two is rotated (the taller child moves up, and of its two children the taller stays
//!   with it), which keeps the height logarithmic under insert/remove sequences.
//!
//! * **Area rotations**: also on the way up, a child of a node may trade places with a
//!   grandchild on the other side when that shrinks the box that changes (Catto's tree
//!   rotations), so that spatially close leaves stay together.
//!
//! Pairs: one simultaneous descent of the tree against itself, testing every node's two
//! subtrees against each other; leaves are compared with their true boxes. The tree also answers box, point and ray queries.
//! [`DynamicTree::assert_well_formed`] checks every invariant; the tests call it after every
//! mutation.

use super::{check_aabb, BroadPhase, BroadPhaseError};
use crate::bounding::Aabb;
use crate::math::{Real, Vector};

const NULL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    /// Fat box for a leaf, union of the children otherwise.
    aabb: Aabb,
    parent: u32,
    left: u32,
    right: u32,
    /// 0 for a leaf.
    height: i32,
    /// Object id for a leaf, `NULL` otherwise.
    id: u32,
}

impl Node {
    fn is_leaf(&self) -> bool {
        self.left == NULL
    }
}

/// A dynamic AABB tree broad phase. See the module notes.
#[derive(Debug, Clone)]
pub struct DynamicTree {
    nodes: Vec<Node>,
    free: Vec<u32>,
    root: u32,
    /// Object id → leaf node.
    leaf_of: Vec<u32>,
    /// Object id → its true box.
    boxes: Vec<Aabb>,
    fat_factor: Real,
    fat_min: Real,
    len: usize,
}

impl Default for DynamicTree {
    fn default() -> Self {
        Self::new(0.1, 0.0)
    }
}

impl DynamicTree {
    /// An empty tree whose leaves are the objects' boxes grown on every side by
    /// `fat_factor` times their largest half extent plus `fat_min` (length units). Larger
    /// margins mean fewer reinsertions under motion and looser boxes to test.
    pub fn new(fat_factor: Real, fat_min: Real) -> Self {
        Self {
            nodes: Vec::new(),
            free: Vec::new(),
            root: NULL,
            leaf_of: Vec::new(),
            boxes: Vec::new(),
            fat_factor: if fat_factor.is_finite() {
                fat_factor.max(0.0)
            } else {
                0.1
            },
            fat_min: if fat_min.is_finite() {
                fat_min.max(0.0)
            } else {
                0.0
            },
            len: 0,
        }
    }

    fn fatten(&self, b: &Aabb) -> Aabb {
        let h = b.half_extents().max_element();
        b.loosened(self.fat_factor * h + self.fat_min)
    }

    fn alloc(&mut self, node: Node) -> u32 {
        if let Some(i) = self.free.pop() {
            self.nodes[i as usize] = node;
            i
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    fn leaf(&self, id: u32) -> Option<u32> {
        self.leaf_of
            .get(id as usize)
            .copied()
            .filter(|&n| n != NULL)
    }

    /// Height of the tree (0 for a single leaf or an empty tree).
    pub fn height(&self) -> i32 {
        if self.root == NULL {
            0
        } else {
            self.nodes[self.root as usize].height
        }
    }

    fn refit(&mut self, i: u32) {
        let n = self.nodes[i as usize];
        let (l, r) = (self.nodes[n.left as usize], self.nodes[n.right as usize]);
        let node = &mut self.nodes[i as usize];
        node.aabb = l.aabb.merged(&r.aabb);
        node.height = 1 + l.height.max(r.height);
    }

    fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
        if parent == NULL {
            self.root = new;
        } else if self.nodes[parent as usize].left == old {
            self.nodes[parent as usize].left = new;
        } else {
            self.nodes[parent as usize].right = new;
        }
    }

    /// Rotates node `a` if its subtrees' heights differ by more than two (one would keep
    /// the tree shallower but fights the area rotations; measured on 10^4 random boxes,
    /// the pair pass is fastest with two); returns the node now at `a`'s place.
    fn balance(&mut self, a: u32) -> u32 {
        let na = self.nodes[a as usize];
        if na.is_leaf() || na.height < 2 {
            return a;
        }
        let (b, c) = (na.left, na.right);
        let diff = self.nodes[c as usize].height - self.nodes[b as usize].height;
        if diff.abs() <= 2 {
            return a;
        }
        // The taller child `up` rises; `stay` is a's other child.
        let (up, stay, up_is_right) = if diff > 0 {
            (c, b, true)
        } else {
            (b, c, false)
        };
        let nu = self.nodes[up as usize];
        let (f, g) = (nu.left, nu.right);
        // Of up's children, the taller stays with up; the shorter goes down to a.
        let (keep, give) = if self.nodes[f as usize].height > self.nodes[g as usize].height {
            (f, g)
        } else {
            (g, f)
        };
        // up takes a's place.
        let parent = na.parent;
        self.replace_child(parent, a, up);
        self.nodes[up as usize].parent = parent;
        // up's children: a and keep.
        self.nodes[up as usize].left = a;
        self.nodes[up as usize].right = keep;
        self.nodes[a as usize].parent = up;
        self.nodes[keep as usize].parent = up;
        // a's children: stay and give, in their old sides.
        if up_is_right {
            self.nodes[a as usize].left = stay;
            self.nodes[a as usize].right = give;
        } else {
            self.nodes[a as usize].left = give;
            self.nodes[a as usize].right = stay;
        }
        self.nodes[give as usize].parent = a;
        self.refit(a);
        self.refit(up);
        up
    }

    /// Refits and balances from node `i` to the root.
    fn fix_upwards(&mut self, mut i: u32) {
        while i != NULL {
            i = self.balance(i);
            self.rotate_for_area(i);
            self.refit(i);
            i = self.nodes[i as usize].parent;
        }
    }

    /// Surface-area rotation at node `a` (children `b`, `c`): swapping one child of `a`
    /// with a grandchild on the other side keeps `a`'s leaves but changes the box of the
    /// child that receives the grandchild's sibling. Of the four possible swaps, the one
    /// that shrinks that box most is made (if any shrinks it), among swaps that keep the
    /// heights within one. Unlike the height rotation, this keeps spatially close leaves
    /// together.
    fn rotate_for_area(&mut self, a: u32) {
        let na = self.nodes[a as usize];
        if na.is_leaf() {
            return;
        }
        let (b, c) = (na.left, na.right);
        let (nb, nc) = (self.nodes[b as usize], self.nodes[c as usize]);
        // (gain, moving-up grandchild, its parent, the child of `a` that moves down)
        let mut best: Option<(Real, u32, u32, u32)> = None;
        let mut consider = |gain: Real, up: u32, parent: u32, down: u32| {
            if gain > 0.0 && best.is_none_or(|x| gain > x.0) {
                best = Some((gain, up, parent, down));
            }
        };
        let height = |i: u32| self.nodes[i as usize].height;
        if !nb.is_leaf()
            && (height(nb.left) - height(c)).abs() <= 1
            && (height(nb.right) - height(c)).abs() <= 1
        {
            let (d, e) = (self.nodes[nb.left as usize], self.nodes[nb.right as usize]);
            let old = nb.aabb.surface_area();
            // c goes down in place of d (b becomes c ∪ e), or in place of e.
            consider(old - nc.aabb.merged(&e.aabb).surface_area(), nb.left, b, c);
            consider(old - nc.aabb.merged(&d.aabb).surface_area(), nb.right, b, c);
        }
        if !nc.is_leaf()
            && (height(nc.left) - height(b)).abs() <= 1
            && (height(nc.right) - height(b)).abs() <= 1
        {
            let (f, g) = (self.nodes[nc.left as usize], self.nodes[nc.right as usize]);
            let old = nc.aabb.surface_area();
            consider(old - nb.aabb.merged(&g.aabb).surface_area(), nc.left, c, b);
            consider(old - nb.aabb.merged(&f.aabb).surface_area(), nc.right, c, b);
        }
        let Some((_, up, parent, down)) = best else {
            return;
        };
        // `up` (a child of `parent`) and `down` (a's other child) trade places.
        if self.nodes[parent as usize].left == up {
            self.nodes[parent as usize].left = down;
        } else {
            self.nodes[parent as usize].right = down;
        }
        self.nodes[down as usize].parent = parent;
        if self.nodes[a as usize].left == down {
            self.nodes[a as usize].left = up;
        } else {
            self.nodes[a as usize].right = up;
        }
        self.nodes[up as usize].parent = a;
        self.refit(parent);
    }

    fn insert_leaf(&mut self, leaf: u32) {
        if self.root == NULL {
            self.root = leaf;
            self.nodes[leaf as usize].parent = NULL;
            return;
        }
        let lb = self.nodes[leaf as usize].aabb;
        let mut index = self.root;
        while !self.nodes[index as usize].is_leaf() {
            let n = self.nodes[index as usize];
            let area = n.aabb.surface_area();
            let combined = n.aabb.merged(&lb).surface_area();
            // Cost of a new parent here, and the growth every node below inherits.
            let here = 2.0 * combined;
            let inherited = 2.0 * (combined - area);
            let descend = |child: u32| {
                let c = &self.nodes[child as usize];
                let grown = c.aabb.merged(&lb).surface_area();
                if c.is_leaf() {
                    grown + inherited
                } else {
                    grown - c.aabb.surface_area() + inherited
                }
            };
            let (cl, cr) = (descend(n.left), descend(n.right));
            if here < cl && here < cr {
                break;
            }
            index = if cl < cr { n.left } else { n.right };
        }
        let sibling = index;
        let old_parent = self.nodes[sibling as usize].parent;
        let sb = self.nodes[sibling as usize];
        let new_parent = self.alloc(Node {
            aabb: lb.merged(&sb.aabb),
            parent: old_parent,
            left: sibling,
            right: leaf,
            height: sb.height + 1,
            id: NULL,
        });
        self.replace_child(old_parent, sibling, new_parent);
        self.nodes[sibling as usize].parent = new_parent;
        self.nodes[leaf as usize].parent = new_parent;
        self.fix_upwards(new_parent);
    }

    fn remove_leaf(&mut self, leaf: u32) {
        if leaf == self.root {
            self.root = NULL;
            return;
        }
        let parent = self.nodes[leaf as usize].parent;
        let np = self.nodes[parent as usize];
        let sibling = if np.left == leaf { np.right } else { np.left };
        let grand = np.parent;
        self.replace_child(grand, parent, sibling);
        self.nodes[sibling as usize].parent = grand;
        self.free.push(parent);
        if grand != NULL {
            self.fix_upwards(grand);
        }
    }

    /// Calls `f(id)` for every object whose true box overlaps `aabb`.
    pub fn query_aabb(&self, aabb: &Aabb, mut f: impl FnMut(u32)) {
        if self.root == NULL {
            return;
        }
        let mut stack = vec![self.root];
        while let Some(i) = stack.pop() {
            let n = &self.nodes[i as usize];
            if !n.aabb.intersects(aabb) {
                continue;
            }
            if n.is_leaf() {
                if self.boxes[n.id as usize].intersects(aabb) {
                    f(n.id);
                }
            } else {
                stack.push(n.left);
                stack.push(n.right);
            }
        }
    }

    /// Calls `f(id)` for every object whose true box contains `p`.
    pub fn query_point(&self, p: Vector, f: impl FnMut(u32)) {
        self.query_aabb(&Aabb::new(p, p), f);
    }

    /// Every object whose true box the ray `origin + t · dir`, `t ∈ [0, max_t]`, enters,
    /// as `(id, t_entry)` sorted by entry (`t` in units of `dir`).
    pub fn ray_cast(&self, origin: Vector, dir: Vector, max_t: Real) -> Vec<(u32, Real)> {
        let mut hits = Vec::new();
        if self.root == NULL {
            return hits;
        }
        let mut stack = vec![self.root];
        while let Some(i) = stack.pop() {
            let n = &self.nodes[i as usize];
            if n.aabb.ray_entry(origin, dir, max_t).is_none() {
                continue;
            }
            if n.is_leaf() {
                if let Some(t) = self.boxes[n.id as usize].ray_entry(origin, dir, max_t) {
                    hits.push((n.id, t));
                }
            } else {
                stack.push(n.left);
                stack.push(n.right);
            }
        }
        hits.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        hits
    }

    /// Checks every invariant: parent/child links, leaf heights 0 and internal heights
    /// `1 + max(children)`, internal boxes contain their children, fat boxes contain the
    /// true boxes, the id→leaf map, and that every node is either reachable or free.
    ///
    /// # Errors
    /// A description of the first broken invariant.
    pub fn assert_well_formed(&self) -> Result<(), String> {
        let mut reachable = 0usize;
        let mut leaves = 0usize;
        if self.root != NULL {
            if self.nodes[self.root as usize].parent != NULL {
                return Err("root has a parent".into());
            }
            let mut stack = vec![self.root];
            while let Some(i) = stack.pop() {
                reachable += 1;
                if reachable > self.nodes.len() {
                    return Err("cycle in the tree".into());
                }
                let n = self.nodes[i as usize];
                if n.is_leaf() {
                    leaves += 1;
                    if n.height != 0 || n.right != NULL {
                        return Err(format!("leaf {i} malformed"));
                    }
                    if self.leaf(n.id) != Some(i) {
                        return Err(format!("leaf {i} not mapped from its id {}", n.id));
                    }
                    if !n.aabb.contains(&self.boxes[n.id as usize]) {
                        return Err(format!("leaf {i}: fat box does not contain the object"));
                    }
                    continue;
                }
                for c in [n.left, n.right] {
                    if c == NULL || c as usize >= self.nodes.len() {
                        return Err(format!("node {i} has a bad child"));
                    }
                    let nc = self.nodes[c as usize];
                    if nc.parent != i {
                        return Err(format!("child {c} does not point back to {i}"));
                    }
                    if !n.aabb.contains(&nc.aabb) {
                        return Err(format!("node {i} does not contain child {c}"));
                    }
                    stack.push(c);
                }
                let h = 1 + self.nodes[n.left as usize]
                    .height
                    .max(self.nodes[n.right as usize].height);
                if n.height != h {
                    return Err(format!("node {i} height {} != {h}", n.height));
                }
            }
        }
        if leaves != self.len {
            return Err(format!("{leaves} leaves for {} objects", self.len));
        }
        if reachable + self.free.len() != self.nodes.len() {
            return Err("nodes leak: neither reachable nor free".into());
        }
        Ok(())
    }
}

impl BroadPhase for DynamicTree {
    fn insert(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError> {
        check_aabb(id, &aabb)?;
        if self.leaf(id).is_some() {
            return Err(BroadPhaseError::Duplicate(id));
        }
        // The larger table first: if memory runs out, it does before anything grew.
        super::grow_to(&mut self.boxes, id, aabb)?;
        super::grow_to(&mut self.leaf_of, id, NULL)?;
        self.boxes[id as usize] = aabb;
        let leaf = self.alloc(Node {
            aabb: self.fatten(&aabb),
            parent: NULL,
            left: NULL,
            right: NULL,
            height: 0,
            id,
        });
        self.leaf_of[id as usize] = leaf;
        self.insert_leaf(leaf);
        self.len += 1;
        Ok(())
    }

    fn update(&mut self, id: u32, aabb: Aabb) -> Result<(), BroadPhaseError> {
        let leaf = self.leaf(id).ok_or(BroadPhaseError::Missing(id))?;
        check_aabb(id, &aabb)?;
        self.boxes[id as usize] = aabb;
        if self.nodes[leaf as usize].aabb.contains(&aabb) {
            return Ok(());
        }
        self.remove_leaf(leaf);
        self.nodes[leaf as usize].aabb = self.fatten(&aabb);
        self.nodes[leaf as usize].parent = NULL;
        self.insert_leaf(leaf);
        Ok(())
    }

    fn remove(&mut self, id: u32) -> Result<(), BroadPhaseError> {
        let leaf = self.leaf(id).ok_or(BroadPhaseError::Missing(id))?;
        self.remove_leaf(leaf);
        self.free.push(leaf);
        self.leaf_of[id as usize] = NULL;
        self.len -= 1;
        Ok(())
    }

    fn overlapping_pairs(&mut self, out: &mut Vec<(u32, u32)>) {
        out.clear();
        if self.root == NULL {
            return;
        }
        // One simultaneous descent of the tree against itself: every node's two subtrees
        // are tested against each other, descending into the larger box of a pair while
        // the boxes overlap. Each pair of leaves is met at most once.
        let nodes = &self.nodes;
        let mut singles = vec![self.root];
        let mut cross: Vec<(u32, u32)> = Vec::new();
        while let Some(n) = singles.pop() {
            let node = nodes[n as usize];
            if node.is_leaf() {
                continue;
            }
            singles.push(node.left);
            singles.push(node.right);
            cross.push((node.left, node.right));
            while let Some((x, y)) = cross.pop() {
                let (nx, ny) = (&nodes[x as usize], &nodes[y as usize]);
                if !nx.aabb.intersects(&ny.aabb) {
                    continue;
                }
                match (nx.is_leaf(), ny.is_leaf()) {
                    (true, true) => {
                        let (a, b) = (nx.id, ny.id);
                        if self.boxes[a as usize].intersects(&self.boxes[b as usize]) {
                            out.push((a.min(b), a.max(b)));
                        }
                    }
                    (false, true) => {
                        cross.push((nx.left, y));
                        cross.push((nx.right, y));
                    }
                    (true, false) => {
                        cross.push((x, ny.left));
                        cross.push((x, ny.right));
                    }
                    (false, false) => {
                        if nx.aabb.surface_area() >= ny.aabb.surface_area() {
                            cross.push((nx.left, y));
                            cross.push((nx.right, y));
                        } else {
                            cross.push((x, ny.left));
                            cross.push((x, ny.right));
                        }
                    }
                }
            }
        }
        out.sort_unstable();
    }

    fn len(&self) -> usize {
        self.len
    }

    fn aabb(&self, id: u32) -> Option<Aabb> {
        self.leaf(id).map(|_| self.boxes[id as usize])
    }

    fn query_aabb(&self, aabb: &Aabb, f: &mut dyn FnMut(u32)) {
        DynamicTree::query_aabb(self, aabb, f);
    }

    /// A descent that takes the nearer child first and skips nodes entered after the
    /// time bound.
    fn query_ray(&self, sweep: &super::BoxSweep, f: &mut dyn FnMut(u32, Real) -> Real) {
        if self.root == NULL {
            return;
        }
        let mut limit = sweep.max_t;
        let Some(t) = sweep.entry(&self.nodes[self.root as usize].aabb) else {
            return;
        };
        let mut stack = vec![(self.root, t)];
        while let Some((i, t)) = stack.pop() {
            if t > limit {
                continue;
            }
            let n = &self.nodes[i as usize];
            if n.is_leaf() {
                if let Some(t) = sweep.entry(&self.boxes[n.id as usize]) {
                    if t <= limit {
                        limit = limit.min(f(n.id, t));
                    }
                }
                continue;
            }
            let enter = |c: u32| sweep.entry(&self.nodes[c as usize].aabb).map(|t| (c, t));
            match (enter(n.left), enter(n.right)) {
                (Some(l), Some(r)) => {
                    // The nearer one on top.
                    let (near, far) = if l.1 <= r.1 { (l, r) } else { (r, l) };
                    stack.push(far);
                    stack.push(near);
                }
                (Some(c), None) | (None, Some(c)) => stack.push(c),
                (None, None) => {}
            }
        }
    }

    /// The root's box (fat: it holds every object's box).
    fn bounds(&self) -> Option<Aabb> {
        (self.root != NULL).then(|| self.nodes[self.root as usize].aabb)
    }
}
