//! Islands: the connected components of the graph whose nodes are dynamic bodies and
//! whose edges are contacts between two dynamic bodies (static and kinematic bodies do
//! not join islands, as in Box2D and Bullet). An island sleeps as a whole when every
//! body in it has been slow for the sleep time, and wakes as a whole when any body in
//! it is woken or touched by an awake body.
//!
//! Union–find with path halving and union by index (the smaller root wins), so that the
//! islands and their order depend only on the body indices and the contact list.

/// A disjoint-set forest over `n` nodes.
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    /// `n` singleton sets.
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n as u32).collect(),
        }
    }
    /// The root of `i`'s set.
    pub fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] as usize != i {
            let g = self.parent[self.parent[i] as usize];
            self.parent[i] = g;
            i = g as usize;
        }
        i
    }
    /// Joins the sets of `a` and `b` (the smaller root becomes the root).
    pub fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi] = lo as u32;
        }
    }
}

/// The islands of `n` bodies joined by `edges` (pairs of body indices; pairs naming a
/// body that `is_member` rejects are ignored): each island a list of body indices in
/// increasing order, islands ordered by their smallest body; bodies that `is_member`
/// rejects belong to none.
pub fn islands(
    n: usize,
    edges: impl IntoIterator<Item = (usize, usize)>,
    is_member: impl Fn(usize) -> bool,
) -> Vec<Vec<usize>> {
    let mut uf = UnionFind::new(n);
    for (a, b) in edges {
        if a < n && b < n && is_member(a) && is_member(b) {
            uf.union(a, b);
        }
    }
    let mut slot = vec![u32::MAX; n];
    let mut out: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        if !is_member(i) {
            continue;
        }
        let r = uf.find(i);
        if slot[r] == u32::MAX {
            slot[r] = out.len() as u32;
            out.push(Vec::new());
        }
        out[slot[r] as usize].push(i);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a brute-force flood fill on random graphs (seeded LCG).
    #[test]
    fn islands_match_flood_fill() {
        let mut s: u64 = 0x1234_5678;
        let mut next = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) as usize
        };
        for _ in 0..200 {
            let n = 1 + next() % 40;
            let edges: Vec<(usize, usize)> =
                (0..next() % 50).map(|_| (next() % n, next() % n)).collect();
            let member = |i: usize| i % 7 != 3;
            let got = islands(n, edges.iter().copied(), member);
            // Flood fill.
            let mut label = vec![usize::MAX; n];
            let mut expect: Vec<Vec<usize>> = Vec::new();
            for i in 0..n {
                if !member(i) || label[i] != usize::MAX {
                    continue;
                }
                let id = expect.len();
                let mut stack = vec![i];
                label[i] = id;
                let mut comp = vec![];
                while let Some(u) = stack.pop() {
                    comp.push(u);
                    for &(a, b) in &edges {
                        if !(member(a) && member(b)) {
                            continue;
                        }
                        for (x, y) in [(a, b), (b, a)] {
                            if x == u && label[y] == usize::MAX {
                                label[y] = id;
                                stack.push(y);
                            }
                        }
                    }
                }
                comp.sort_unstable();
                expect.push(comp);
            }
            assert_eq!(got, expect);
        }
    }
}
