//! The scene queries of the three broad phases against brute force over every box: one
//! suite, run on each, after inserts, moves and removals both before and after a pair
//! pass (so the grid's unfiled moves and sweep and prune's pending insertions are
//! covered).

use super::{BoxSweep, BroadPhase, DynamicTree, Grid, SweepAndPrune};
use crate::bounding::Aabb;
use crate::math::{Real, Vector};
use crate::testing::uniform;

/// Boxes of sizes 10^-2..10^1.5 (a few far larger) in a cube of side 80.
fn random_box(next: &mut impl FnMut() -> f64) -> Aabb {
    let mut r = || next() as Real;
    let c = (Vector::new(r(), r(), r()) - Vector::splat(0.5)) * 80.0;
    let size = (10.0 as Real).powf(-2.0 + 3.5 * r());
    let size = if r() < 0.02 { size * 10.0 } else { size };
    let h = Vector::new(r(), r(), r()) * size;
    Aabb::new(c - h, c + h)
}

/// Every query of `bp` against brute force over `live`.
fn check_queries(
    bp: &dyn BroadPhase,
    live: &[(u32, Aabb)],
    next: &mut impl FnMut() -> f64,
    label: &str,
) -> (usize, usize) {
    let mut found = (0, 0);
    for q in 0..40 {
        // Boxes from a point to a third of the scene.
        let mut probe = random_box(next);
        if q % 5 == 0 {
            probe = Aabb::new(probe.center(), probe.center());
        }
        let mut got = Vec::new();
        bp.query_aabb(&probe, &mut |id| got.push(id));
        got.sort_unstable();
        let mut want: Vec<u32> = live
            .iter()
            .filter(|(_, b)| b.intersects(&probe))
            .map(|p| p.0)
            .collect();
        want.sort_unstable();
        assert_eq!(got, want, "{label}: box query {q}");
        found.0 += want.len();

        // Rays and moving boxes, bounded or not, through the scene or from inside it.
        let mut r = || next() as Real;
        let origin = (Vector::new(r(), r(), r()) - Vector::splat(0.5)) * 120.0;
        let mut dir = (Vector::new(r(), r(), r()) - Vector::splat(0.5)) * 10.0;
        if q % 7 == 0 {
            dir.y = 0.0;
        }
        let half = if q % 2 == 0 {
            Vector::ZERO
        } else {
            Vector::new(r(), r(), r()) * 3.0
        };
        let max_t = if q % 3 == 0 {
            Real::INFINITY
        } else {
            30.0 * r()
        };
        let sweep = BoxSweep {
            origin,
            dir,
            half_extents: half,
            max_t,
        };
        let mut want: Vec<(u32, Real)> = live
            .iter()
            .filter_map(|(id, b)| sweep.entry(b).map(|t| (*id, t)))
            .collect();
        want.sort_by_key(|p| p.0);
        // Every object entered, each once, with its entry time.
        let mut all = Vec::new();
        bp.query_ray(&sweep, &mut |id, t| {
            all.push((id, t));
            Real::INFINITY
        });
        all.sort_by_key(|p| p.0);
        assert_eq!(all, want, "{label}: sweep {q}, all");
        // The nearest, with the bound lowered at each hit: the least entry time is
        // still met.
        let mut best = Real::INFINITY;
        bp.query_ray(&sweep, &mut |_, t| {
            best = best.min(t);
            best
        });
        let least = want.iter().map(|p| p.1).fold(Real::INFINITY, Real::min);
        assert_eq!(best, least, "{label}: sweep {q}, nearest");
        found.1 += want.len();
    }
    found
}

fn exercise(bp: &mut dyn BroadPhase, seed: u64, label: &str) {
    let mut next = uniform(seed);
    let mut live: Vec<(u32, Aabb)> = Vec::new();
    let mut next_id = 0;
    let mut pairs = Vec::new();
    let mut found = (0, 0);
    for round in 0..12 {
        // Inserts, moves (small and jumps), removals; a pair pass on every other round.
        for _ in 0..60 {
            let b = random_box(&mut next);
            bp.insert(next_id, b).expect("valid box");
            live.push((next_id, b));
            next_id += 1;
        }
        for _ in 0..40 {
            let k = (next() * live.len() as f64) as usize;
            let b = if next() < 0.5 {
                let step = (Vector::new(next() as Real, next() as Real, next() as Real)
                    - Vector::splat(0.5))
                    * 2.0;
                Aabb::new(live[k].1.mins + step, live[k].1.maxs + step)
            } else {
                random_box(&mut next)
            };
            bp.update(live[k].0, b).expect("live object");
            live[k].1 = b;
        }
        for _ in 0..15 {
            let k = (next() * live.len() as f64) as usize;
            let (id, _) = live.swap_remove(k);
            bp.remove(id).expect("live object");
        }
        if round % 2 == 1 {
            bp.overlapping_pairs(&mut pairs);
        }
        let f = check_queries(bp, &live, &mut next, &format!("{label} round {round}"));
        found = (found.0 + f.0, found.1 + f.1);
        let bounds = bp.bounds().expect("objects");
        assert!(live.iter().all(|(_, b)| bounds.contains(b)), "{label}");
    }
    // The queries met objects (hundreds of boxes and entries).
    assert!(found.0 > 200 && found.1 > 200, "{label}: {found:?}");
}

#[test]
fn scene_queries_equal_brute_force_on_every_broad_phase() {
    for seed in [1, 2, 3] {
        exercise(&mut Grid::new(2.0), seed, "grid 2");
        exercise(&mut Grid::new(0.05), seed, "grid 0.05");
        exercise(&mut SweepAndPrune::new(), seed, "sap");
        exercise(&mut DynamicTree::new(0.1, 0.0), seed, "tree");
    }
}

#[test]
fn empty_broad_phases_answer_nothing() {
    let sweep = BoxSweep::ray(Vector::ZERO, Vector::X, Real::INFINITY);
    let everything = Aabb::new(Vector::splat(-1e6), Vector::splat(1e6));
    let phases: [Box<dyn BroadPhase>; 3] = [
        Box::new(Grid::new(1.0)),
        Box::new(SweepAndPrune::new()),
        Box::new(DynamicTree::default()),
    ];
    for bp in phases {
        bp.query_aabb(&everything, &mut |id| panic!("{id}"));
        bp.query_ray(&sweep, &mut |id, _| panic!("{id}"));
        assert!(bp.bounds().is_none());
    }
}
