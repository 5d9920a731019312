//! Greedy colouring of the contact graph, so that the constraints of one colour share no
//! body the solver moves and can be solved at the same time.
//!
//! # The colouring
//!
//! The constraint graph has a vertex per constraint and an edge between two constraints
//! that act on the same *moving* body (dynamic and awake; static geometry, static,
//! kinematic and sleeping bodies are never written by the solver, so they join nothing).
//! A proper colouring of it splits one Gauss–Seidel sweep into colour classes whose
//! constraints are independent: within a class, solving them in any order, or all at
//! once, gives bit-identical results. This is how Box2D v3 (Catto, "Solver2D" and
//! `constraint_graph.c`) and rapier parallelise a single large island.
//!
//! Each body keeps a bit mask of the colours that already hold one of its constraints;
//! a constraint takes the lowest colour free in both of its bodies' masks,
//! `trailing_zeros(!(mask_A | mask_B))`, in constraint order (first fit, as Box2D's
//! `b2AssignJointColor`/`b2AddContactToGraph`). A graph of maximum degree `Δ` needs at
//! most `Δ + 1` colours this way (each constraint sees at most `Δ` used colours); past
//! 63 colours (the masks are 64-bit) a constraint goes to the overflow class, solved
//! alone in order.
//! The colouring depends only on the constraint order, never on the thread count.

/// Colours available before the overflow class (the masks are `u64`).
pub(crate) const MAX_COLOURS: usize = 63;

/// The colour of every constraint (`0..MAX_COLOURS`, or `MAX_COLOURS` for the overflow
/// class) given each constraint's two solver bodies and whether the solver moves body
/// `i` (`moving(i)`); bodies the solver does not move never conflict.
pub(crate) fn colour_constraints(
    bodies: &[(usize, usize)],
    body_count: usize,
    moving: impl Fn(usize) -> bool,
) -> Vec<u8> {
    let mut masks = vec![0u64; body_count];
    bodies
        .iter()
        .map(|&(a, b)| {
            let ma = if moving(a) { masks[a] } else { 0 };
            let mb = if moving(b) { masks[b] } else { 0 };
            let free = !(ma | mb) & ((1u64 << MAX_COLOURS) - 1);
            if free == 0 {
                return MAX_COLOURS as u8;
            }
            let c = free.trailing_zeros();
            for (i, m) in [(a, ma), (b, mb)] {
                if moving(i) {
                    masks[i] = m | (1u64 << c);
                }
            }
            c as u8
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On seeded random graphs: no two constraints of one colour (below the overflow)
    /// share a moving body, fixed bodies are shared freely, and the number of colours is
    /// at most the maximum degree plus one (brute-force check of every pair).
    #[test]
    fn colouring_is_proper_and_within_degree_bound() {
        let mut s: u64 = 3;
        let mut next = move |n: usize| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) as usize) % n
        };
        let mut overflowed = 0;
        for trial in 0..60 {
            let n = 5 + next(40);
            let fixed = n; // one shared fixed body, as the ground
            let m = if trial % 10 == 0 { 400 } else { 10 + next(120) };
            let pairs: Vec<(usize, usize)> = (0..m)
                .map(|_| {
                    let a = if next(4) == 0 { fixed } else { next(n) };
                    let mut b = next(n);
                    if b == a {
                        b = (b + 1) % n;
                    }
                    (a, b)
                })
                .collect();
            let moving = |i: usize| i < n;
            let colours = colour_constraints(&pairs, n + 1, moving);
            let mut degree = vec![0usize; n + 1];
            for &(a, b) in &pairs {
                degree[a] += 1;
                degree[b] += 1;
            }
            let max_degree = pairs
                .iter()
                .map(|&(a, b)| {
                    (if moving(a) { degree[a] - 1 } else { 0 })
                        + (if moving(b) { degree[b] - 1 } else { 0 })
                })
                .max()
                .unwrap_or(0);
            for i in 0..m {
                let ci = colours[i] as usize;
                if ci == MAX_COLOURS {
                    overflowed += 1;
                    continue;
                }
                assert!(ci <= max_degree, "colour {ci} above degree {max_degree}");
                for j in i + 1..m {
                    if colours[j] != colours[i] {
                        continue;
                    }
                    let (x, y) = (pairs[i], pairs[j]);
                    for u in [x.0, x.1] {
                        assert!(
                            !(moving(u) && (u == y.0 || u == y.1)),
                            "constraints {i} and {j} share body {u} in colour {ci}"
                        );
                    }
                }
            }
        }
        // The dense graphs (400 constraints on at most 45 bodies) do overflow.
        assert!(overflowed > 0);
    }
}
