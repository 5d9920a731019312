//! The separating-axis contact path for small hulls (`query/pair/polytope_polytope.rs`)
//! against the exact brute-force polytope signed distance (`poly_oracle`: every triangle
//! normal and edge-pair cross product of the vertex sets, in f64).
//!
//! Every case checks the contact invariants: the distance equals the exact signed
//! distance; `point_b − point_a = distance × normal`; both witnesses lie on their
//! shapes (not outside, and on the supporting plane along the normal: `n·point_a =
//! h_A(n)`, `n·point_b = −h_B(−n)`); the separation along the normal is the distance.
//! The hard branches: touching hulls, parallel faces (non-unique witnesses: handed to
//! EPA), coincident hulls, and an edge–edge deepest axis; the random batch also checks
//! that most of its cases really take the new path.

// Conversions to f64 are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::*;
use glam::DVec3;
use minkowski::query::{self, ContactMethod};
use minkowski::shape::{ConvexPolyhedron, Shape, SAT_CONTACT_MAX_VERTICES};
use minkowski::{Pose, Rotation, Vector};

/// Agreement asked of the answers, relative to the scene's size.
const REL_TOL: f64 = if cfg!(minkowski_f64) { 1e-9 } else { 2e-5 };

fn hull(points: &[DVec3]) -> (Shape, OShape) {
    let pts: Vec<Vector> = points.iter().map(|p| v3(*p)).collect();
    let shape: Shape = ConvexPolyhedron::new(pts.clone()).unwrap().into();
    // The oracle uses the same rounded points as the library.
    (shape, OShape::Points(pts.iter().map(|v| d3(*v)).collect()))
}

fn cube(h: f64) -> Vec<DVec3> {
    let mut v = Vec::new();
    for x in [-h, h] {
        for y in [-h, h] {
            for z in [-h, h] {
                v.push(DVec3::new(x, y, z));
            }
        }
    }
    v
}

/// Checks `contact` on A and B at their poses against the exact signed distance and the
/// invariants; returns the contact's method and the exact distance.
fn check(
    a: &(Shape, OShape),
    pa: &Pose,
    b: &(Shape, OShape),
    pb: &Pose,
    label: &str,
) -> (ContactMethod, f64) {
    let (oa, ob) = (Placed::new(a.1.clone(), pa), Placed::new(b.1.clone(), pb));
    let (va, vb) = (oa.world_vertices().unwrap(), ob.world_vertices().unwrap());
    let scene = [&oa, &ob]
        .iter()
        .map(|p| p.pos.length() + p.shape.size())
        .fold(0.0, f64::max);
    let tol = REL_TOL * scene;
    let (exact, _) = poly_oracle(&va, &vb);
    let c = query::contact(&a.0, pa, &b.0, pb);
    let n = d3(c.normal);
    let (wa, wb) = (d3(c.point_a), d3(c.point_b));
    let d = c.distance as f64;
    assert!((n.length() - 1.0).abs() < 1e-3, "{label}: normal {c:?}");
    assert!(
        (d - exact).abs() <= tol,
        "{label}: distance {d} vs exact {exact} (tol {tol}) {c:?}"
    );
    assert!(
        ((wb - wa) - n * d).length() <= tol,
        "{label}: point_b − point_a ≠ distance × normal {c:?}"
    );
    assert!(
        oa.outside_distance(wa) <= tol,
        "{label}: point_a off A {c:?}"
    );
    assert!(
        ob.outside_distance(wb) <= tol,
        "{label}: point_b off B {c:?}"
    );
    assert!(
        (n.dot(wa) - oa.h(n)).abs() <= tol,
        "{label}: point_a not on A's supporting plane {c:?}"
    );
    assert!(
        (n.dot(wb) + ob.h(-n)).abs() <= tol,
        "{label}: point_b not on B's supporting plane {c:?}"
    );
    assert!(
        (gap(&oa, &ob, n) - d).abs() <= tol,
        "{label}: separation along the normal {} vs {d} {c:?}",
        gap(&oa, &ob, n)
    );
    assert!(
        c.lower_bound <= c.distance && c.distance <= c.upper_bound,
        "{label}: bounds {c:?}"
    );
    (c.method, exact)
}

fn pose(rot: Rotation, t: DVec3) -> Pose {
    Pose::new(rot, v3(t)).unwrap()
}

#[test]
fn threshold_covers_eight_vertex_hulls() {
    // The benchmark's smallest hulls and box-like hulls take the path.
    const { assert!(SAT_CONTACT_MAX_VERTICES >= 8) };
}

/// Random hulls of 4 to 8 points at random overlapping poses: every answer exact, and
/// most of them from the separating axis test (the rest, touching or with tied
/// witnesses, from GJK/EPA).
#[test]
fn random_small_hulls_match_the_exact_depth() {
    let mut rng = Rng::new(16);
    let (mut sat, mut overlapping, mut cases) = (0, 0, 0);
    for i in 0..3000 {
        let pts = |rng: &mut Rng| {
            let n = 4 + rng.below(5);
            (0..n)
                .map(|_| rng.dir() * rng.range(0.2, 1.0))
                .collect::<Vec<_>>()
        };
        let (a, b) = (hull(&pts(&mut rng)), hull(&pts(&mut rng)));
        let (pa, pb) = (random_pose(&mut rng, 0.5), random_pose(&mut rng, 0.8));
        let (method, exact) = check(&a, &pa, &b, &pb, &format!("case {i}"));
        cases += 1;
        if exact < 0.0 {
            overlapping += 1;
            sat += usize::from(method == ContactMethod::Sat);
        }
    }
    eprintln!("{cases} cases, {overlapping} overlapping, {sat} by SAT");
    assert!(overlapping >= cases / 2, "{overlapping} of {cases}");
    assert!(sat * 10 >= overlapping * 9, "{sat} of {overlapping}");
}

/// Cubes face to face at distance 0 (touching) and slightly overlapping with parallel
/// faces (B's deepest feature is a face: the witnesses are not unique, EPA answers), in
/// many sizes.
#[test]
fn touching_and_parallel_faces() {
    for scale in [1e-3, 1.0, 1e3] {
        let c = hull(&cube(0.5 * scale));
        for (gap_, label) in [(0.0, "touching"), (-0.1 * scale, "parallel overlap")] {
            let pb = pose(
                Rotation::IDENTITY,
                DVec3::new(scale + gap_, 0.2 * scale, -0.1 * scale),
            );
            let (_, exact) = check(&c, &Pose::IDENTITY, &c, &pb, &format!("{label} at {scale}"));
            assert!((exact - gap_).abs() <= 1e-6 * scale, "{exact} vs {gap_}");
        }
    }
}

/// The same hull at the same pose: the depth is the hull's smallest width.
#[test]
fn coincident_hulls() {
    let mut rng = Rng::new(161);
    for i in 0..200 {
        let n = 4 + rng.below(5);
        let pts: Vec<DVec3> = (0..n).map(|_| rng.dir() * rng.range(0.2, 1.0)).collect();
        let a = hull(&pts);
        let p = random_pose(&mut rng, 2.0);
        let (_, exact) = check(&a, &p, &a, &p, &format!("coincident {i}"));
        assert!(exact < 0.0);
    }
}

/// Two cubes turned 45° about crossing axes, edge onto edge: the deepest axis is the
/// cross product of the two edges (no face normal), and the test must find it.
#[test]
fn edge_edge_deepest_axis() {
    let c = hull(&cube(0.5));
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let ra = Rotation::from_axis_angle(Vector::Z, std::f32::consts::FRAC_PI_4 as _);
    let rb = Rotation::from_axis_angle(Vector::X, std::f32::consts::FRAC_PI_4 as _);
    // A's top edge runs along z at height h·1, B's bottom edge along x at −h.
    for (k, overlap) in [0.01, 0.05, 0.2].into_iter().enumerate() {
        for shift in [-0.1, 0.0, 0.13] {
            let pb = pose(rb, DVec3::new(shift, 2.0 * h - overlap, 0.07));
            let (method, exact) = check(
                &c,
                &pose(ra, DVec3::ZERO),
                &c,
                &pb,
                &format!("edge–edge {k} {shift}"),
            );
            assert!((exact + overlap).abs() <= 1e-5, "{exact} vs {overlap}");
            assert_eq!(method, ContactMethod::Sat, "edge–edge {k} {shift}");
            let n = d3(query::contact(&c.0, &pose(ra, DVec3::ZERO), &c.0, &pb).normal);
            assert!((n - DVec3::Y).length() <= 1e-4, "{n}");
        }
    }
}
