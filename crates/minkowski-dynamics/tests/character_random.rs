//! Seeded random walks through cluttered rooms: after every update the character
//! overlaps nothing (checked by the library's contact query against every object and
//! the floor, independently of the controller's own contacts), its position is finite,
//! and its casts stay within their bound. The walks are checked to hit things, step up
//! and land, so that the branches under test are really taken.

mod character_support;

use character_support::*;
use minkowski::query::contact;
use minkowski::{Real, Rotation};
use minkowski_dynamics::character::{CharacterConfig, WorldScene};

#[test]
fn random_walks_never_tunnel() {
    let config = CharacterConfig::default();
    let (mut hits, mut steps, mut landings, mut updates) = (0usize, 0usize, 0usize, 0usize);
    let mut busy = std::time::Duration::ZERO;
    for seed in 0..6u64 {
        let mut rng = Rng::new(0x5EED_C4A2 + seed);
        let mut w = world();
        floor(&mut w);
        let mut boxes = Vec::new();
        for k in 0..20 {
            // Low slabs (steppable), crates, and tilted blocks (slopes and walls).
            let (half, tilt) = match k % 4 {
                0 | 1 => (
                    v(
                        rng.range(0.4, 1.2) as Real,
                        rng.range(0.04, 0.13) as Real,
                        rng.range(0.4, 1.2) as Real,
                    ),
                    0.0,
                ),
                2 => (
                    v(
                        rng.range(0.2, 0.8) as Real,
                        rng.range(0.3, 1.0) as Real,
                        rng.range(0.2, 0.8) as Real,
                    ),
                    0.0,
                ),
                _ => (
                    v(
                        rng.range(0.5, 1.5) as Real,
                        rng.range(0.2, 0.6) as Real,
                        rng.range(0.5, 1.5) as Real,
                    ),
                    rng.range(0.1, 1.2) as Real,
                ),
            };
            let centre = v(
                rng.range(-6.0, 6.0) as Real,
                half.y * 0.5,
                rng.range(-6.0, 6.0) as Real,
            );
            let rotation = Rotation::from_rotation_y(rng.range(0.0, std::f64::consts::TAU) as Real)
                * Rotation::from_rotation_x(tilt);
            let h = block(&mut w, centre, half, rotation);
            boxes.push(h);
        }
        w.update();
        let scene = WorldScene::new(&w);
        // Dropped from above the clutter.
        let mut ch = player(v(0.0, 4.0, 0.0), config);
        let mut d = Driver::new(v(0.0, 0.0, 0.0));
        for k in 0..400 {
            if k % 40 == 0 {
                let a = rng.range(0.0, std::f64::consts::TAU) as Real;
                let speed = rng.range(1.0, 5.0) as Real;
                d.walk = v(a.cos() * speed, 0.0, a.sin() * speed);
                // Walk back towards the middle when far out.
                let p = ch.position();
                if p.x.abs() > 7.0 || p.z.abs() > 7.0 {
                    d.walk = v(-p.x, 0.0, -p.z).normalize() * speed;
                }
            }
            if k % 97 == 50 {
                d.jump = 4.0;
            }
            let was_in_air = !ch.ground().is_on_ground();
            let clock = std::time::Instant::now();
            let out = d.step(&mut ch, &scene);
            busy += clock.elapsed();
            updates += 1;
            hits += out.collisions.len();
            steps += (out.stepped > 0.0) as usize;
            landings += (was_in_air && out.ground.is_on_ground()) as usize;
            let p = ch.position();
            assert!(p.is_finite(), "seed {seed} step {k}");
            assert!(
                out.iterations <= 64,
                "seed {seed} step {k}: {}",
                out.iterations
            );
            // The floor: the capsule's bottom above y = 0.
            assert!(
                p.y - HALF - RADIUS > -1e-3,
                "seed {seed} step {k}: into the floor {p:?}"
            );
            let me = ch.shape().clone();
            let minkowski::query::compound::Collider::Convex(me) = me else {
                unreachable!()
            };
            for h in &boxes {
                let (other, at) = w.get(*h).unwrap();
                let minkowski::query::compound::Collider::Convex(other) = other else {
                    unreachable!()
                };
                let c = contact(other, at, &me, &ch.pose());
                assert!(
                    c.distance > -1e-3,
                    "seed {seed} step {k}: {} into a box at {p:?}",
                    -c.distance
                );
            }
        }
    }
    eprintln!(
        "{updates} updates: {hits} hits, {steps} step ups, {landings} landings, {:.1} µs per update",
        busy.as_secs_f64() * 1e6 / updates as f64
    );
    assert!(hits > 100, "only {hits} hits in {updates} updates");
    assert!(steps > 5, "only {steps} step ups");
    assert!(landings > 6, "only {landings} landings");
}

/// Seeded random walks over rough terrain: a heightfield of random samples (0 to 1
/// on cells 0.7 apart: walkable stretches, steep faces, steppable ledges). After every
/// update the character is not under the surface (the library's static contact), its
/// position is finite, and its casts stay within their bound.
#[test]
fn random_walks_over_rough_terrain() {
    use minkowski::query::static_dispatch;
    use minkowski::shape::{HeightField, StaticShape};
    let config = CharacterConfig::default();
    let mut steep = 0usize;
    for seed in 0..3u64 {
        let mut rng = Rng::new(0x7E88_A1A0 + seed);
        let (rows, cols, cell) = (33, 33, 0.7 as Real);
        let samples: Vec<Option<Real>> = (0..rows * cols)
            .map(|_| Some(rng.range(0.0, 1.0) as Real))
            .collect();
        let origin = v(-11.2, 0.0, -11.2);
        let field = HeightField::new(rows, cols, &samples, [cell, cell], origin).unwrap();
        let fixed = StaticShape::from(field.clone());
        let mut w = world();
        w.insert_static(field, minkowski::Pose::IDENTITY).unwrap();
        let scene = WorldScene::new(&w);
        let mut ch = player(v(0.0, 2.5, 0.0), config);
        let mut d = Driver::new(v(0.0, 0.0, 0.0));
        let me = capsule(HALF, RADIUS).into();
        for k in 0..300 {
            if k % 30 == 0 {
                let a = rng.range(0.0, std::f64::consts::TAU) as Real;
                d.walk = v(a.cos(), 0.0, a.sin()) * 3.0;
                let p = ch.position();
                if p.x.abs() > 7.0 || p.z.abs() > 7.0 {
                    d.walk = v(-p.x, 0.0, -p.z).normalize() * 3.0;
                }
            }
            let out = d.step(&mut ch, &scene);
            steep += matches!(
                out.ground,
                minkowski_dynamics::character::GroundState::OnSteepGround(_)
            ) as usize;
            let p = ch.position();
            assert!(p.is_finite(), "seed {seed} step {k}");
            assert!(out.iterations <= 64, "seed {seed} step {k}");
            let c = static_dispatch::contact(
                &fixed,
                &minkowski::Pose::IDENTITY,
                &me,
                &ch.pose(),
                &Default::default(),
            );
            assert!(
                c.distance > -1e-3,
                "seed {seed} step {k}: {} under the surface at {p:?}",
                -c.distance
            );
        }
    }
    eprintln!("{steep} updates on steep ground");
    assert!(steep > 0, "the walks never stood on steep ground");
}
