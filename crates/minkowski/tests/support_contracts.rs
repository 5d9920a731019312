//! Two promises every shape makes to the collision world, checked against the f64
//! oracle shapes of `common` for every kind at sizes 10^-2 … 10^2:
//!
//! - `Shape::bounding_radius` holds the whole shape (no oracle support point in 2,000
//!   directions is farther from the origin), and for the kinds with an exact radius it is
//!   tight (within 1% of the farthest sampled support point; exactly the farthest vertex
//!   for polytopes);
//! - `SupportMap::hinted_point` names only points of the shape, whatever the hint
//!   (random, stale, out of range), and gives back exactly the point a hinted support
//!   call left its hint at. GJK's warm start builds simplices from these points and
//!   trusts them to lie in `A ⊖ B`: a point outside would make it report overlaps that do
//!   not exist.

#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{d3, fibonacci, random_shape, v3, Rng, ALL_KINDS};
use glam::DVec3;
use minkowski::query::compound::Collider;
use minkowski::shape::{Compound, Shape};
use minkowski::support::SupportMap;
use minkowski::Pose;

/// Relative slack of the f32 build's rounding of the shapes' own numbers.
fn rel() -> f64 {
    if cfg!(minkowski_f64) {
        1e-12
    } else {
        1e-6
    }
}

/// `rounds` random shapes of every kind, sizes cycling through 10^-2 … 10^2: kind, size,
/// the shape and its oracle.
fn every_kind(seed: u64, rounds: usize) -> Vec<(&'static str, f64, Shape, common::OShape)> {
    let mut rng = Rng::new(seed);
    (0..ALL_KINDS.len() * rounds)
        .map(|k| {
            let kind = ALL_KINDS[k % ALL_KINDS.len()];
            let size = 10f64.powi((k % 5) as i32 - 2);
            let (shape, oracle) = random_shape(&mut rng, kind, size);
            (kind, size, shape, oracle)
        })
        .collect()
}

#[test]
fn bounding_radius_holds_the_shape_and_is_tight() {
    let dirs = fibonacci(2000);
    let mut tight = 0;
    for (kind, _, shape, oracle) in every_kind(0xba11, 12) {
        let r = shape.bounding_radius() as f64;
        let far = match oracle.vertices() {
            Some(vs) => vs.iter().map(|v| v.length()).fold(0.0, f64::max),
            None => dirs
                .iter()
                .map(|&d| oracle.support(d).length())
                .fold(0.0, f64::max),
        };
        assert!(
            far <= r * (1.0 + rel()),
            "{kind}: radius {r}, a point at {far}"
        );
        let box_corner = shape.local_aabb().origin_radius() as f64;
        assert!(
            r <= box_corner,
            "{kind}: radius {r} above the box's {box_corner}"
        );
        {
            // Sampled curved surfaces miss the farthest point by at most the sampling's
            // angle (2,000 directions: about 0.05 rad, a 0.15% shortfall).
            let within = if oracle.vertices().is_some() {
                8.0 * rel()
            } else {
                0.01
            };
            assert!(
                r <= far * (1.0 + within),
                "{kind}: radius {r}, farthest point {far}"
            );
            tight += 1;
        }
    }
    assert_eq!(tight, ALL_KINDS.len() * 12);
}

#[test]
fn compound_bounding_radius_holds_every_part() {
    let mut rng = Rng::new(0xc0b);
    for case in 0..200 {
        let size = 10f64.powi(case % 5 - 2);
        let mut parts = Vec::new();
        let mut oracles = Vec::new();
        for p in 0..1 + case % 4 {
            let kind = ALL_KINDS[(case as usize * 3 + p as usize) % ALL_KINDS.len()];
            let (shape, oracle) = random_shape(&mut rng, kind, size);
            let pose =
                Pose::new(rng.rotation(), v3(rng.dir() * (size * 3.0 * rng.unit()))).unwrap();
            parts.push((pose, shape));
            oracles.push((pose, oracle));
        }
        let collider = Collider::Compound(std::sync::Arc::new(Compound::new(parts).unwrap()));
        let r = collider.bounding_radius() as f64;
        for (pose, oracle) in &oracles {
            for d in fibonacci(400) {
                // The part's support point, placed in the compound's frame.
                let local = d3(pose.rotation().inverse() * v3(d));
                let p = d3(pose.transform_point(v3(oracle.support(local))));
                assert!(
                    p.length() <= r * (1.0 + 4.0 * rel()),
                    "case {case}: {p} beyond {r}"
                );
            }
        }
    }
}

/// Whether `p` is in the shape: no oracle support value in `dirs` is exceeded.
fn in_shape(p: DVec3, oracle: &common::OShape, dirs: &[DVec3], size: f64) -> bool {
    dirs.iter()
        .all(|&d| p.dot(d) <= oracle.support(d).dot(d) + 8.0 * rel() * size)
}

#[test]
fn hinted_points_are_points_of_the_shape() {
    let mut rng = Rng::new(0x41e7);
    let dirs = fibonacci(500);
    let mut named = 0;
    for (kind, size, shape, oracle) in every_kind(0x5eed, 8) {
        let mut hints: Vec<u32> = vec![0, 1, 2, 7, 8, 9, 63, 64, 1000, u32::MAX - 1, u32::MAX];
        hints.extend((0..50).map(|_| rng.next_u64() as u32));
        hints.extend((0..50).map(|_| rng.below(600) as u32));
        for h in hints {
            if let Some(p) = shape.hinted_point(h) {
                assert!(
                    in_shape(d3(p), &oracle, &dirs, size),
                    "{kind}: hint {h} names {p}, not a point of the shape"
                );
            }
        }
        // A hinted support call's hint names its answer.
        let mut hint = u32::MAX;
        for _ in 0..200 {
            let d = v3(rng.dir());
            let p = shape.local_support_hinted(d, &mut hint);
            if let Some(q) = shape.hinted_point(hint) {
                assert_eq!(p, q, "{kind}: direction {d}, hint {hint}");
                named += 1;
            }
        }
        // The core of a rounded shape has points of its own, not of the shape: a rounded
        // shape names none.
        if kind.starts_with("rounded") || kind == "sphere" || kind == "capsule" {
            assert!((0..64).all(|h| shape.hinted_point(h).is_none()), "{kind}");
        }
    }
    // Boxes, segments and polyhedra name theirs: 3 kinds × 8 shapes × 200 calls.
    assert!(named >= 4800, "{named}");
}

#[test]
fn the_shapes_of_the_moving_scene_name_their_support_points() {
    // The narrow phase's fast path needs polyhedra (scanned and climbed), boxes and the
    // capsule's segment core to name their points.
    let scene =
        minkowski::scene::Scene::new(minkowski::scene::SceneLayout::Random { objects: 5 }, 1)
            .unwrap();
    let mut shapes: Vec<Shape> = scene.shapes.iter().map(|(_, s)| s.clone()).collect();
    shapes.push(Shape::from(
        minkowski::shape::Cuboid::new(minkowski::Vector::ONE).unwrap(),
    ));
    let mut rng = Rng::new(5);
    for s in &shapes {
        let (core, _) = s.core();
        let mut hint = u32::MAX;
        let d = v3(rng.dir());
        let p = core.local_support_hinted(d, &mut hint);
        assert_eq!(core.hinted_point(hint), Some(p), "{}", s.type_name());
    }
}
