//! `query::gjk::distance_traced`: the recorded iterations of a GJK distance query.
//!
//! On seeded random pairs of every shape kind (apart, overlapping, and touching — B
//! placed so that the two supporting planes along a random normal meet at one point):
//!
//! * the traced run is the untraced one: its result equals `gjk::distance`'s field for
//!   field, and the last step's `v` and `|v|` are the final answer's;
//! * every recorded support point is the support point of `A ⊖ B` along the step's
//!   direction, checked against the f64 oracle shapes' support functions;
//! * every simplex has at most 4 vertices, each one of the support points found so
//!   far, and its `v` is the point of the simplex closest to the origin (brute force
//!   on the segment / triangle / tetrahedron in f64);
//! * `|v|` never increases (GJK's strict-progress rule; a restart starts over at ∞)
//!   and the lower bound never decreases and stays below `|v|`;
//! * an overlapping run ends with a tetrahedron enclosing the origin or with `|v|`
//!   within the touching floor.
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{
    closest_on_segment, closest_on_triangle, d3, random_pose, random_shape, Placed, Rng, ALL_KINDS,
    REL_TOL,
};
use glam::DVec3;
use minkowski::query::gjk::{self, GjkOptions, GjkTrace, GjkVariant};
use minkowski::{Pose, Vector};

/// Distance from the origin to the hull of up to four points (f64 oracle).
fn hull_distance(ps: &[DVec3]) -> f64 {
    let o = DVec3::ZERO;
    match ps.len() {
        1 => ps[0].length(),
        2 => closest_on_segment(o, ps[0], ps[1]).length(),
        3 => closest_on_triangle(o, ps[0], ps[1], ps[2]).length(),
        4 => {
            // Inside when the origin is on the inner side of every face, else the
            // nearest face.
            let faces = [(0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)];
            let inside = faces.iter().all(|&(i, j, k, l)| {
                let n = (ps[j] - ps[i]).cross(ps[k] - ps[i]);
                (n.dot(o - ps[i])) * (n.dot(ps[l] - ps[i])) >= 0.0
            });
            if inside {
                0.0
            } else {
                faces
                    .iter()
                    .map(|&(i, j, k, _)| closest_on_triangle(o, ps[i], ps[j], ps[k]).length())
                    .fold(f64::INFINITY, f64::min)
            }
        }
        _ => f64::INFINITY,
    }
}

struct Case {
    a: Placed,
    b: Placed,
    size: f64,
}

/// Every property of the module notes for one traced run.
fn check(trace: &GjkTrace, case: &Case, label: &str) {
    let tol = REL_TOL * case.size;
    assert!(!trace.steps.is_empty(), "{label}: no step recorded");
    let mut seen: Vec<Vector> = Vec::new();
    let mut prev_upper = f64::INFINITY;
    let mut prev_lower = 0.0f64;
    let mut pass = 0;
    for (k, s) in trace.steps.iter().enumerate() {
        let label = format!("{label} step {k}");
        if s.pass != pass {
            // The plain pass finishing a Nesterov run starts over.
            assert_eq!(s.pass, pass + 1, "{label}: pass");
            pass = s.pass;
            prev_upper = f64::INFINITY;
            prev_lower = 0.0;
        }
        assert_eq!(s.iteration as usize, k + 1, "{label}");
        // The support point: A's support along d minus B's along −d, within rounding.
        let d = d3(s.direction);
        let dl = d.length();
        assert!(dl > 0.0, "{label}: zero direction");
        let u = d / dl;
        let h = case.a.h(u) + case.b.h(-u);
        let got = d3(s.support).dot(u);
        assert!(
            (got - h).abs() <= tol,
            "{label}: support {got} vs oracle {h}"
        );
        assert!(
            (d3(s.support_a).dot(u) - case.a.h(u)).abs() <= tol,
            "{label}: a"
        );
        assert!(
            (d3(s.support_b).dot(-u) - case.b.h(-u)).abs() <= tol,
            "{label}: b"
        );
        assert!(
            (d3(s.support_a - s.support_b) - d3(s.support)).length() <= tol,
            "{label}: w = a - b"
        );
        seen.push(s.support);
        // The simplex: at most 4 of the points found, v its point nearest the origin.
        assert!(
            s.simplex.len() <= 4,
            "{label}: {} vertices",
            s.simplex.len()
        );
        for p in &s.simplex {
            assert!(seen.contains(p), "{label}: vertex {p} never found");
        }
        let upper = s.upper as f64;
        if s.simplex.is_empty() {
            // GJK's one restart.
            assert!(upper.is_infinite(), "{label}: empty simplex, |v| = {upper}");
            prev_upper = f64::INFINITY;
            continue;
        }
        let ps: Vec<DVec3> = s.simplex.iter().map(|p| d3(*p)).collect();
        let oracle = hull_distance(&ps);
        assert!(
            (d3(s.v).length() - oracle).abs() <= tol,
            "{label}: |v| {} vs hull {oracle}",
            d3(s.v).length()
        );
        assert!((d3(s.v).length() - upper).abs() <= tol, "{label}: upper");
        if s.simplex.len() == 4 {
            assert_eq!(
                s.v,
                Vector::ZERO,
                "{label}: a tetrahedron is kept only around 0"
            );
        }
        // Monotone bounds.
        assert!(
            upper <= prev_upper * (1.0 + 1e-6) + 1e-30,
            "{label}: |v| rose {prev_upper} -> {upper}"
        );
        prev_upper = upper;
        let lower = s.lower as f64;
        assert!(lower >= prev_lower, "{label}: lower fell");
        prev_lower = lower;
    }
    // The final answer is the run's.
    let last = &trace.steps[trace.steps.len() - 1];
    let r = &trace.result;
    assert_eq!(
        r.iterations as usize,
        trace.steps.len(),
        "{label}: step count"
    );
    if last.simplex == trace.final_simplex {
        assert_eq!(last.v, trace.final_v, "{label}: final v");
        if !r.intersecting {
            assert_eq!(last.upper, r.distance, "{label}: final |v|");
        }
    }
    if r.intersecting {
        let enclosed = trace.final_simplex.len() == 4 && trace.final_v == Vector::ZERO;
        assert!(
            enclosed || (d3(trace.final_v).length() <= tol),
            "{label}: intersecting but v = {}",
            trace.final_v
        );
    } else {
        assert!(r.lower_bound as f64 <= r.distance as f64 + tol, "{label}");
        let sep = d3(r.point_a - r.point_b);
        assert!(
            (sep - d3(trace.final_v)).length() <= tol,
            "{label}: witnesses {sep} vs v {}",
            trace.final_v
        );
    }
}

fn run_cases(seed: u64, per_kind: usize) -> (usize, usize, usize) {
    let kinds: Vec<&str> = ALL_KINDS.iter().copied().collect();
    let mut rng = Rng::new(seed);
    let (mut apart, mut overlapping, mut touching) = (0, 0, 0);
    for (ki, ka) in kinds.iter().enumerate() {
        for n in 0..per_kind {
            let kb = kinds[(ki + n) % kinds.len()];
            let size = 10f64.powf(rng.range(-1.0, 1.0));
            let (sa, oa) = random_shape(&mut rng, ka, size);
            let (sb, ob) = random_shape(&mut rng, kb, size);
            let pose_a = random_pose(&mut rng, 2.0 * size);
            let mut pose_b = random_pose(&mut rng, 3.0 * size);
            let mode = n % 3;
            if mode == 2 {
                // Touching: B's support along −n placed on A's support along n.
                let a = Placed::new(oa.clone(), &pose_a);
                let b = Placed::new(ob.clone(), &pose_b);
                let nrm = rng.dir();
                let shift = a.support(nrm) - b.support(-nrm);
                pose_b = pose_b
                    .translated(Vector::new(
                        shift.x as minkowski::Real,
                        shift.y as minkowski::Real,
                        shift.z as minkowski::Real,
                    ))
                    .unwrap();
            }
            let case = Case {
                a: Placed::new(oa, &pose_a),
                b: Placed::new(ob, &pose_b),
                size: size + d3(pose_a.translation()).length() + d3(pose_b.translation()).length(),
            };
            for variant in [GjkVariant::Plain, GjkVariant::Nesterov] {
                let opts = GjkOptions {
                    variant,
                    ..GjkOptions::default()
                };
                let trace = gjk::distance_traced(&sa, &pose_a, &sb, &pose_b, &opts);
                let plain = gjk::distance(&sa, &pose_a, &sb, &pose_b, &opts, None);
                let label = format!("seed {seed} {ka} vs {kb} #{n} mode {mode} {variant:?}");
                assert_eq!(trace.result, plain, "{label}: traced result differs");
                check(&trace, &case, &label);
                if variant == GjkVariant::Plain {
                    match (mode, trace.result.intersecting) {
                        (2, _) => touching += 1,
                        (_, true) => overlapping += 1,
                        (_, false) => apart += 1,
                    }
                }
            }
        }
    }
    (apart, overlapping, touching)
}

#[test]
fn traces_match_the_untraced_run_and_the_oracles() {
    let (apart, overlapping, touching) = run_cases(0x6a6b_7472, 12);
    println!("{apart} apart, {overlapping} overlapping, {touching} touching pairs");
    // The seeds must exercise every branch.
    assert!(apart >= 20, "only {apart} apart pairs");
    assert!(overlapping >= 20, "only {overlapping} overlapping pairs");
    assert!(touching >= 20, "only {touching} touching pairs");
}

/// Two unit boxes 1 apart along x, axis-aligned: the trace converges in a few steps to
/// `v = (−1, 0, 0)` (from B to A: the difference's points are `a − b`).
#[test]
fn boxes_side_by_side_end_at_the_gap() {
    let cube = minkowski::shape::Cuboid::new(Vector::splat(0.5)).unwrap();
    let pa = Pose::IDENTITY;
    let pb = Pose::from_translation(Vector::new(2.0, 0.0, 0.0)).unwrap();
    let t = gjk::distance_traced(&cube, &pa, &cube, &pb, &GjkOptions::default());
    assert!(!t.result.intersecting);
    assert!((t.result.distance - 1.0).abs() < 1e-5);
    assert!((t.final_v - Vector::new(-1.0, 0.0, 0.0)).length() < 1e-5);
    assert_eq!(t.initial_v, Vector::new(-2.0, 0.0, 0.0));
    assert!(t.steps.len() <= 8, "{} steps", t.steps.len());
    // The first search goes along −v₀ = +x... of the difference: the point of A ⊖ B
    // furthest towards +x is A's +x face minus B's −x face, −1 in x.
    assert!((t.steps[0].support.x + 1.0).abs() < 1e-6);
}

/// Overlapping spheres: the run ends enclosing the origin, and the trace says how.
#[test]
fn overlapping_spheres_end_overlapping() {
    let s = minkowski::shape::Sphere::new(1.0).unwrap();
    let pb = Pose::from_translation(Vector::new(0.5, 0.2, -0.1)).unwrap();
    let t = gjk::distance_traced(&s, &Pose::IDENTITY, &s, &pb, &GjkOptions::default());
    assert!(t.result.intersecting);
    let last = t.steps.last().unwrap();
    assert!(last.simplex.len() == 4 || last.upper <= 1e-4);
    assert_eq!(last.v, t.final_v);
}
