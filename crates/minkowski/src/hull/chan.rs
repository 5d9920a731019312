//! Chan's algorithm (T. M. Chan, "Optimal output-sensitive convex hull algorithms in two
//! and three dimensions", Discrete Comput. Geom. 16, 1996).
//!
//! Guess a bound `m` on the number of hull vertices. Split the points into ⌈n/m⌉ groups
//! of at most `m`, hull each group in O(m log m) (monotone chain), then gift-wrap the
//! whole set for at most `m` steps, finding each group's candidate for the next vertex by
//! binary search on the group's hull in O(log m). If the wrap closes within `m` steps it
//! is the hull; otherwise square the guess (`m = 2^(2^t)`) and start again. Each round
//! costs O(n log m) and the rounds' costs grow doubly exponentially, so the total is
//! O(n log h).
//!
//! The wrap runs twice, over the top and under the bottom: for the top, from the
//! lexicographically smallest point, the next vertex is, among the points after the
//! current one `p` in lexicographic order, the one whose direction from `p` turns most
//! counter-clockwise (ties: the furthest). On a group's upper chain `c₀ … c_k` (sorted,
//! strictly concave), once `c_{i+1}` lies strictly right of `p → c_i` every later vertex
//! does too (the chain's slopes decrease and `p` is to the left of the chain), so the
//! group's candidate is found by binary search for the first such `i`. The bottom is the
//! same walk on the point set turned by 180°, which reverses lexicographic order and
//! keeps orientations: it is done by reading the lower chains backwards.

use glam::DVec2;

use super::graham::farther_on_ray;
use super::predicates::{lex_cmp, orient2, prepare2};
use super::{join_chains, monotone_chains, Hull2d, HullError};
use crate::math::Vector2;

/// The convex hull of `points` by Chan's algorithm.
///
/// Same answer, convention and errors as [`super::monotone_chain`].
pub fn chan(points: &[Vector2]) -> Result<Hull2d, HullError> {
    chan_prepared(prepare2(points)?)
}

/// The algorithm on validated points rescaled to `f64`.
pub(crate) fn chan_prepared(p: Vec<DVec2>) -> Result<Hull2d, HullError> {
    let n = p.len();
    let first = (0..n)
        .min_by(|&a, &b| lex_cmp(p[a], p[b]))
        .expect("prepare2 refuses empty input");
    let last = (0..n)
        .max_by(|&a, &b| lex_cmp(p[a], p[b]))
        .expect("prepare2 refuses empty input");
    let mut t = 0u32;
    loop {
        // m = 2^(2^t), at least 4; from t = 5 on (m would pass 2^32) one group of all.
        let m = if t >= 5 {
            n
        } else {
            (1usize << (1u32 << t)).max(4).min(n)
        };
        if let Some(hull) = attempt(&p, m, first, last) {
            return Ok(hull);
        }
        t += 1;
    }
}

/// One round with group size `m`: the hull, or `None` when one side of it has more than
/// `m` vertices.
fn attempt(p: &[DVec2], m: usize, first: usize, last: usize) -> Option<Hull2d> {
    let n = p.len();
    let groups = n.div_ceil(m);
    let mut uppers = Vec::with_capacity(groups);
    let mut lowers = Vec::with_capacity(groups);
    let mut buf: Vec<usize> = Vec::with_capacity(m);
    for g in 0..groups {
        // Groups are consecutive runs of the input; each is sorted on its own, which is
        // the O(n log m) of the round.
        buf.clear();
        buf.extend(g * m..((g + 1) * m).min(n));
        buf.sort_unstable_by(|&i, &j| lex_cmp(p[i], p[j]));
        buf.dedup_by(|a, b| p[*a] == p[*b]);
        let (mut lower, upper) = monotone_chains(p, &buf);
        lower.reverse();
        uppers.push(upper);
        lowers.push(lower);
    }
    let bound = if m >= n { n + 1 } else { m };
    let upper = wrap(p, &uppers, first, 1.0, bound)?;
    let mut lower = wrap(p, &lowers, last, -1.0, bound)?;
    lower.reverse();
    Some(join_chains(p, &lower, &upper))
}

/// Whether `a` comes after `b` in lexicographic order (`dir = 1`) or in reversed order
/// (`dir = -1`).
#[inline]
fn after(a: DVec2, b: DVec2, dir: f64) -> bool {
    let o = lex_cmp(a, b);
    if dir > 0.0 {
        o.is_gt()
    } else {
        o.is_lt()
    }
}

/// Gift wrapping over the group chains from `start`, walking forward in the order given
/// by `dir`; `None` after `bound` steps.
fn wrap(
    p: &[DVec2],
    chains: &[Vec<usize>],
    start: usize,
    dir: f64,
    bound: usize,
) -> Option<Vec<usize>> {
    let mut out = vec![start];
    let mut cur = start;
    loop {
        let mut best: Option<usize> = None;
        for chain in chains {
            let Some(c) = candidate(p, chain, p[cur], dir) else {
                continue;
            };
            best = Some(match best {
                None => c,
                Some(b) => {
                    let s = orient2(p[cur], p[b], p[c]);
                    if s > 0.0 || (s == 0.0 && farther_on_ray(p[cur], p[c], p[b]).is_gt()) {
                        c
                    } else {
                        b
                    }
                }
            });
        }
        // Nothing comes after `cur`: the walk is complete.
        let Some(next) = best else {
            return Some(out);
        };
        out.push(next);
        cur = next;
        if out.len() > bound {
            return None;
        }
    }
}

/// The vertex of one group's chain (sorted in the order `dir`, strictly convex) that
/// turns most counter-clockwise from `o`, among the vertices after `o`; `None` when no
/// vertex comes after `o`.
fn candidate(p: &[DVec2], chain: &[usize], o: DVec2, dir: f64) -> Option<usize> {
    // First index after `o`.
    let j = chain.partition_point(|&i| !after(p[i], o, dir));
    if j == chain.len() {
        return None;
    }
    // Smallest i in [j, len-1) with chain[i+1] strictly right of o → chain[i]; the
    // predicate is monotone on that range.
    let (mut lo, mut hi) = (j, chain.len() - 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if orient2(o, p[chain[mid]], p[chain[mid + 1]]) < 0.0 {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(chain[lo])
}
