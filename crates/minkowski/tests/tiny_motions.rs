//! Shape casts whose velocity is tiny: times are in units of the velocity, so a motion
//! scaled by `2^-k` must give the same hit at `2^k` times the time (the same normal
//! and witnesses), for every pair kind, every path (the ball and box closed forms, the
//! GJK ray cast, conservative advancement for a turning motion scaled with it, the
//! half-space and triangle-mesh casts), down to eight binades above the smallest normal
//! number of the precision.

#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{random_shape, v3, Rng, ALL_KINDS};
use minkowski::query::compound::Collider;
use minkowski::query::{
    cast_shapes, static_dispatch, CastInput, Motion, QueryOptions, ShapeCast, ShapePair,
};
use minkowski::shape::{HalfSpace, StaticShape};
use minkowski::{Pose, Real, Vector};

fn exponents() -> [i32; 4] {
    [-33, -66, -100, -(Real::MIN_EXP.unsigned_abs() as i32 - 8)]
}

fn tol() -> Real {
    if Real::EPSILON > 1e-10 {
        2e-3
    } else {
        1e-7
    }
}

/// The scaled cast against the unit one: same hit, time scaled, same geometry.
fn compare(case: &str, unit: &ShapeCast, tiny: &ShapeCast, s: Real) -> bool {
    assert_eq!(unit.hit, tiny.hit, "{case}: {unit:?} vs {tiny:?}");
    if !unit.hit {
        return false;
    }
    let t = tol();
    assert!(
        tiny.toi.is_finite() && tiny.point_a.is_finite() && tiny.point_b.is_finite(),
        "{case}: {tiny:?}"
    );
    assert!((tiny.normal.length() - 1.0).abs() < t, "{case}: {tiny:?}");
    assert!(
        (tiny.toi * s - unit.toi).abs() <= t * (1.0 + unit.toi),
        "{case}: {unit:?} vs {tiny:?}"
    );
    assert!(
        (tiny.point_a - unit.point_a).length() <= 10.0 * t * (1.0 + unit.point_a.length()),
        "{case}: {unit:?} vs {tiny:?}"
    );
    assert!(
        (tiny.normal - unit.normal).length() <= 10.0 * t,
        "{case}: {unit:?} vs {tiny:?}"
    );
    true
}

#[test]
fn a_tiny_velocity_scales_the_time_of_impact() {
    let mut rng = Rng::new(0x71_7e);
    let options = QueryOptions::default();
    let mut hits = 0;
    for &ka in ALL_KINDS.iter() {
        for &kb in ALL_KINDS.iter() {
            let (a, _) = random_shape(&mut rng, ka, 0.5);
            let (b, _) = random_shape(&mut rng, kb, 0.5);
            let pose_a = Pose::new(rng.rotation(), Vector::ZERO).unwrap();
            let from = v3(rng.dir() * 3.0);
            let pose_b = Pose::new(rng.rotation(), from).unwrap();
            let aim = v3(rng.dir() * 0.2);
            let v = (aim - from) * 2.0;
            let turning = rng.unit() < 0.25;
            let w = if turning { v3(rng.dir()) } else { Vector::ZERO };
            let pair = ShapePair::new(&a, pose_a, &b, pose_b);
            let unit = cast_shapes(
                &CastInput::new(pair, Motion::ZERO, Motion::new(v, w)),
                &options,
            )
            .unwrap();
            for k in exponents() {
                let s = (2.0 as Real).powi(k);
                let input = CastInput::new(pair, Motion::ZERO, Motion::new(v * s, w * s));
                let tiny = cast_shapes(&input, &options).unwrap();
                let case = format!("{ka}-{kb} turning {turning} 2^{k}");
                hits += compare(&case, &unit, &tiny, s) as usize;
            }
        }
    }
    assert!(hits > 100, "{hits} hits compared");
}

#[test]
fn a_tiny_velocity_against_static_shapes_scales_the_time_of_impact() {
    let mut rng = Rng::new(0x57a7);
    let options = QueryOptions::default();
    let octahedron = common::static_sets::octahedron();
    let statics: [(&str, StaticShape); 2] = [
        ("halfspace", HalfSpace::new(Vector::Y, 0.0).unwrap().into()),
        ("trimesh", octahedron.into()),
    ];
    let mut hits = 0;
    for (name, s) in &statics {
        for &kb in ALL_KINDS.iter() {
            let (b, _) = random_shape(&mut rng, kb, 0.3);
            let b: Collider = b.into();
            let from = v3(rng.dir() * 3.0).abs() + Vector::Y;
            let pose_b = Pose::new(rng.rotation(), from).unwrap();
            let aim = v3(rng.dir() * 0.2);
            let v = (aim - from) * 2.0;
            let cast = |m: Motion| {
                static_dispatch::cast(
                    s,
                    &Pose::IDENTITY,
                    Motion::ZERO,
                    &b,
                    &pose_b,
                    m,
                    Real::INFINITY,
                    0.0,
                    &options,
                )
                .unwrap()
            };
            // Turning against the half-space (triangle geometry takes translations).
            let w = match *name {
                "halfspace" => v3(rng.dir()),
                _ => Vector::ZERO,
            };
            let unit = cast(Motion::new(v, w));
            for k in exponents() {
                let sc = (2.0 as Real).powi(k);
                let tiny = cast(Motion::new(v * sc, w * sc));
                hits += compare(&format!("{name}-{kb} 2^{k}"), &unit, &tiny, sc) as usize;
            }
        }
    }
    assert!(hits > 20, "{hits} hits compared");
}
