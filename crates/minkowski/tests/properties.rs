//! Properties every answer must have, over seeded random pairs of every shape kind:
//! symmetry, invariance under a common rigid motion, agreement between query kinds,
//! and agreement of the warm-started and accelerated GJK variants with plain GJK.

// Conversions to f64 are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{d3, random_shape, v3, Rng, ALL_KINDS, REL_TOL};
use glam::DVec3;
use minkowski::query::{self, gjk};
use minkowski::shape::Shape;
use minkowski::{Pose, Real, Vector};
use proptest::prelude::{any, prop_assert, prop_assert_eq, proptest};
use proptest::test_runner::{Config, RngSeed};

/// A random pair, between separated and deeply overlapping, from one seed.
fn pair(seed: u64) -> (Shape, Pose, Shape, Pose, f64) {
    let mut rng = Rng::new(seed);
    let scale = 10f64.powf(rng.range(-2.0, 3.0));
    let (ka, kb) = (
        ALL_KINDS[rng.below(ALL_KINDS.len())],
        ALL_KINDS[rng.below(ALL_KINDS.len())],
    );
    let (a, _) = random_shape(&mut rng, ka, scale);
    let (b, _) = random_shape(&mut rng, kb, scale);
    let pa = Pose::new(rng.rotation(), v3(rng.dir() * scale * rng.range(0.0, 3.0))).unwrap();
    let pb = Pose::new(
        rng.rotation(),
        pa.translation() + v3(rng.dir() * scale * rng.range(0.0, 2.5)),
    )
    .unwrap();
    (a, pa, b, pb, scale)
}

fn config() -> Config {
    Config {
        cases: 2000,
        rng_seed: RngSeed::Fixed(0x5eed),
        failure_persistence: None,
        ..Config::default()
    }
}

fn tol(scale: f64) -> f64 {
    REL_TOL * 8.0 * scale
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn contact_is_symmetric(seed in any::<u64>()) {
        let (a, pa, b, pb, scale) = pair(seed);
        let ab = query::contact(&a, &pa, &b, &pb);
        let ba = query::contact(&b, &pb, &a, &pa);
        prop_assert!(
            (ab.distance as f64 - ba.distance as f64).abs() <= tol(scale),
            "{ab:?} vs {ba:?}"
        );
        // Normals are opposite unless the answer is degenerate (several valid normals)
        // or the depth is ambiguous between faces (ties): compare the realised gaps.
        let dist = query::distance(&a, &pa, &b, &pb);
        let dist_ba = query::distance(&b, &pb, &a, &pa);
        prop_assert!((dist.distance as f64 - dist_ba.distance as f64).abs() <= tol(scale));
        prop_assert_eq!(
            query::intersects(&a, &pa, &b, &pb) || ab.distance as f64 > tol(scale),
            query::intersects(&b, &pb, &a, &pa) || ba.distance as f64 > tol(scale)
        );
    }

    #[test]
    fn answers_move_with_a_common_rigid_motion(seed in any::<u64>()) {
        let (a, pa, b, pb, scale) = pair(seed);
        let mut rng = Rng::new(seed ^ 0xABCDEF);
        let motion = Pose::new(rng.rotation(), v3(rng.dir() * scale * rng.range(0.0, 5.0))).unwrap();
        let (qa, qb) = (motion.mul(&pa), motion.mul(&pb));
        let c0 = query::contact(&a, &pa, &b, &pb);
        let c1 = query::contact(&a, &qa, &b, &qb);
        prop_assert!(
            (c0.distance as f64 - c1.distance as f64).abs() <= tol(scale * 3.0),
            "{c0:?} vs {c1:?}"
        );
        // For separated shapes the normal is unique (the closest point of A ⊖ B to the
        // origin is), so it moves with the motion; the witness points need not be
        // (parallel faces have many closest pairs).
        if c0.distance as f64 > tol(scale) * 10.0 {
            let n = d3(motion.transform_vector(c0.normal));
            prop_assert!((n - d3(c1.normal)).length() <= 1e-2, "{c0:?} vs {c1:?}");
        }
    }

    #[test]
    fn query_kinds_agree(seed in any::<u64>()) {
        let (a, pa, b, pb, scale) = pair(seed);
        let c = query::contact(&a, &pa, &b, &pb);
        let d = query::distance(&a, &pa, &b, &pb);
        let p = query::closest_points(&a, &pa, &b, &pb);
        let hit = query::intersects(&a, &pa, &b, &pb);
        let t = tol(scale);
        prop_assert!((d.distance as f64 - (c.distance as f64).max(0.0)).abs() <= t, "{c:?} {d:?}");
        prop_assert!((p.distance as f64 - d.distance as f64).abs() <= t);
        prop_assert_eq!(d.intersecting, d.distance <= 0.0);
        if d.distance as f64 > t {
            prop_assert!(!hit);
            prop_assert!(((d3(p.point_a) - d3(p.point_b)).length() - p.distance as f64).abs() <= t);
        }
        if (c.distance as f64) < -t {
            prop_assert!(hit);
        }
    }

    #[test]
    fn accelerated_gjk_agrees_with_plain(seed in any::<u64>()) {
        let (a, pa, b, pb, scale) = pair(seed);
        let plain = gjk::distance(&a, &pa, &b, &pb, &gjk::GjkOptions::default(), None);
        let opts = gjk::GjkOptions { variant: gjk::GjkVariant::Nesterov, ..Default::default() };
        let fast = gjk::distance(&a, &pa, &b, &pb, &opts, None);
        prop_assert!(
            (plain.distance as f64 - fast.distance as f64).abs() <= tol(scale),
            "{plain:?} vs {fast:?}"
        );
        prop_assert_eq!(plain.intersecting || plain.distance as f64 <= tol(scale),
                        fast.intersecting || fast.distance as f64 <= tol(scale));
    }
}

/// Warm start: a pair moving a little each frame, queried with and without the cache.
/// The answers must agree every frame, and the cache must save iterations overall.
#[test]
fn warm_start_agrees_and_saves_iterations() {
    let mut rng = Rng::new(99);
    let (mut cold_it, mut warm_it) = (0u64, 0u64);
    for kind_pair in 0..40 {
        let ka = ALL_KINDS[kind_pair % ALL_KINDS.len()];
        let kb = ALL_KINDS[(kind_pair * 7 + 3) % ALL_KINDS.len()];
        let (a, _) = random_shape(&mut rng, ka, 1.0);
        let (b, _) = random_shape(&mut rng, kb, 1.0);
        let mut pose_b = Pose::new(rng.rotation(), v3(DVec3::new(2.5, 0.3, -0.2))).unwrap();
        let spin =
            minkowski::Rotation::from_axis_angle(Vector::new(0.3, 1.0, 0.2).normalize(), 0.01);
        let mut cache = gjk::GjkCache::new();
        for frame in 0..120 {
            let t = frame as Real * 0.02;
            pose_b = Pose::new(
                (spin * pose_b.rotation()).normalize(),
                Vector::new(2.5 - t, 0.3 * t.sin(), -0.2),
            )
            .unwrap();
            let opts = gjk::GjkOptions::default();
            let cold = gjk::distance(&a, &Pose::IDENTITY, &b, &pose_b, &opts, None);
            let warm = gjk::distance(&a, &Pose::IDENTITY, &b, &pose_b, &opts, Some(&mut cache));
            assert!(
                (cold.distance - warm.distance).abs() as f64 <= tol(1.0),
                "{ka}-{kb} frame {frame}: {cold:?} vs {warm:?}"
            );
            assert_eq!(
                cold.intersecting, warm.intersecting,
                "{ka}-{kb} frame {frame}"
            );
            cold_it += cold.iterations as u64;
            warm_it += warm.iterations as u64;
        }
    }
    eprintln!("GJK iterations over 4800 coherent frames: cold {cold_it}, warm {warm_it}");
    assert!(warm_it * 10 < cold_it * 8, "cold {cold_it} warm {warm_it}");
}

/// Warm intersection tests (the world's narrow phase: the cached separating axis first,
/// then the cached simplex), sharing their cache with distance queries as the world's
/// contact step does, on pairs that approach, pass through each other and separate.
/// Every answer must match the cold distance wherever it is decided beyond the
/// tolerance, and the cached axis must save iterations.
#[test]
fn warm_intersection_tests_agree_with_cold_distance() {
    let mut rng = Rng::new(7);
    let (mut cold_it, mut warm_it, mut decided) = (0u64, 0u64, 0u64);
    for kind_pair in 0..60 {
        let ka = ALL_KINDS[kind_pair % ALL_KINDS.len()];
        let kb = ALL_KINDS[(kind_pair * 5 + 1) % ALL_KINDS.len()];
        let (a, _) = random_shape(&mut rng, ka, 1.0);
        let (b, _) = random_shape(&mut rng, kb, 1.0);
        let pose_a = Pose::new(rng.rotation(), v3(rng.dir() * (0.5 * rng.unit()))).unwrap();
        let mut pose_b = Pose::new(rng.rotation(), Vector::ZERO).unwrap();
        let spin = minkowski::Rotation::from_axis_angle(v3(rng.dir()), 0.03);
        let path = v3(rng.dir());
        let margin = if kind_pair % 3 == 0 { 0.1 } else { 0.0 };
        let opts = gjk::GjkOptions::default();
        let mut cache = gjk::GjkCache::new();
        for frame in 0..200 {
            let s = 4.0 - frame as Real * 0.04;
            pose_b = Pose::new((spin * pose_b.rotation()).normalize(), path * s).unwrap();
            let cold = gjk::distance(&a, &pose_a, &b, &pose_b, &opts, None);
            let warm = gjk::intersects(&a, &pose_a, &b, &pose_b, margin, &opts, Some(&mut cache));
            if frame % 7 == 3 {
                gjk::distance(&a, &pose_a, &b, &pose_b, &opts, Some(&mut cache));
            }
            // Signed: EPA's depth when the shapes overlap.
            let gap = if cold.intersecting {
                query::contact(&a, &pose_a, &b, &pose_b).distance.min(0.0)
            } else {
                cold.distance
            };
            let d = gap as f64 - margin as f64;
            if d.abs() > tol(4.0) {
                decided += 1;
                assert_eq!(
                    warm.intersecting,
                    d < 0.0,
                    "{ka}-{kb} frame {frame}: cold {cold:?}, warm {warm:?}"
                );
            }
            let cold_test = gjk::intersects(&a, &pose_a, &b, &pose_b, margin, &opts, None);
            cold_it += cold_test.iterations as u64;
            warm_it += warm.iterations as u64;
        }
    }
    eprintln!("intersection tests over 12000 frames ({decided} decided beyond the tolerance): cold {cold_it} iterations, warm {warm_it}");
    assert!(decided > 10_000, "{decided}");
    assert!(warm_it * 10 < cold_it * 6, "cold {cold_it} warm {warm_it}");
}
