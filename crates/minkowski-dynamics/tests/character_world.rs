//! The character in scenes: corners (90° and acute: it settles where it touches both
//! walls, with no jitter and no tunnelling), a walk over a heightfield (on the ground
//! at every step, no ghost bumps), moving platforms, pushing a dynamic body, and the
//! typed errors for bad parameters and inputs.

mod character_support;

use character_support::*;
use minkowski::shape::{HalfSpace, HeightField};
use minkowski::world::Target;
use minkowski::{Pose, Real, Rotation, Vector};
use minkowski_dynamics::character::{
    BodyState, Character, CharacterConfig, CharacterError, GroundState, WorldScene,
};

fn wall(w: &mut minkowski::world::World, normal: Vector) {
    w.insert_static(HalfSpace::new(normal, 0.0).unwrap(), Pose::IDENTITY)
        .unwrap();
}

/// Walking into a corner of two walls (x ≤ 0 and z ≤ 0): the character ends a radius
/// and a skin from each, and stays there to the last bit while still pushing.
#[test]
fn square_corner_no_jitter() {
    let config = CharacterConfig::default();
    let mut w = world();
    floor(&mut w);
    wall(&mut w, Vector::X);
    wall(&mut w, Vector::Z);
    let scene = WorldScene::new(&w);
    let y = rest_height(0.0, &config);
    let mut ch = player(v(2.0, y, 3.0), config);
    let mut d = Driver::new(v(-3.0, 0.0, -3.0));
    let gap = RADIUS + config.skin;
    let mut settled = Vec::new();
    for k in 0..120 {
        d.step(&mut ch, &scene);
        let p = ch.position();
        assert!(p.x >= gap - 1e-4 && p.z >= gap - 1e-4, "step {k}: {p:?}");
        if k >= 90 {
            settled.push(p);
        }
    }
    let want = v(gap, y, gap);
    assert!(
        (ch.position() - want).length() < 1e-3,
        "{:?}",
        ch.position()
    );
    for p in &settled {
        assert!(
            (*p - settled[0]).length() < 1e-5,
            "jitter: {p:?} vs {:?}",
            settled[0]
        );
    }
}

/// The same corner made of one compound object (two wall boxes as parts of an L): the
/// character settles in the inner corner a radius and a skin from each part's face.
#[test]
fn compound_corner_settles() {
    use minkowski::shape::Compound;
    let config = CharacterConfig::default();
    let mut w = world();
    floor(&mut w);
    // Faces at x = 0 (a box spanning x in [-1, 0]) and z = 0 (z in [-1, 0]).
    let l_shape = Compound::new(vec![
        (at(v(-0.5, 1.0, 2.0)), cuboid(v(0.5, 1.0, 3.0))),
        (at(v(2.0, 1.0, -0.5)), cuboid(v(3.0, 1.0, 0.5))),
    ])
    .unwrap();
    w.insert(l_shape, Pose::IDENTITY).unwrap();
    w.update();
    let scene = WorldScene::new(&w);
    let y = rest_height(0.0, &config);
    let mut ch = player(v(2.0, y, 3.0), config);
    let mut d = Driver::new(v(-3.0, 0.0, -3.0));
    for _ in 0..120 {
        d.step(&mut ch, &scene);
    }
    let gap = RADIUS + config.skin;
    assert!(
        (ch.position() - v(gap, y, gap)).length() < 1e-3,
        "{:?}",
        ch.position()
    );
}

/// A wedge of two vertical walls meeting at 2α (α = 10°, 15°, 30°), open towards +x:
/// walking into it, the character's circle of radius r + skin settles on the bisector
/// at (r + skin) / sin α from the apex; it never crosses either wall and does not jitter.
#[test]
fn acute_corners_settle_on_the_bisector() {
    let config = CharacterConfig::default();
    for degrees in [10.0, 15.0, 30.0] {
        let a = (degrees as Real).to_radians();
        let n1 = v(a.sin(), 0.0, -a.cos());
        let n2 = v(a.sin(), 0.0, a.cos());
        let mut w = world();
        floor(&mut w);
        wall(&mut w, n1);
        wall(&mut w, n2);
        let scene = WorldScene::new(&w);
        let y = rest_height(0.0, &config);
        let mut ch = player(v(6.0, y, 0.3), config);
        let mut d = Driver::new(v(-3.0, 0.0, -0.2));
        let gap = RADIUS + config.skin;
        let mut settled = Vec::new();
        for k in 0..240 {
            d.step(&mut ch, &scene);
            let p = ch.position();
            for n in [n1, n2] {
                assert!(
                    n.dot(p) >= gap - 1e-4,
                    "{degrees}° step {k}: through a wall {p:?}"
                );
            }
            if k >= 200 {
                settled.push(p);
            }
        }
        let want = v(gap / a.sin(), y, 0.0);
        assert!(
            (ch.position() - want).length() < 2e-3,
            "{degrees}°: {:?} vs {want:?}",
            ch.position()
        );
        for p in &settled {
            assert!(
                (*p - settled[0]).length() < 1e-5,
                "{degrees}°: jitter {p:?}"
            );
        }
    }
}

/// A heightfield sampling the plane y = 0.1 x + 0.05 z (65 × 65 samples, 0.5 apart):
/// walking across 40 cells, the character is on the ground at every step, its height
/// is the plane's plus the analytic offset, and its steps are all the same length (a
/// ghost collision on an inner edge would shorten one).
#[test]
fn heightfield_walk_has_no_ghost_bumps() {
    let config = CharacterConfig::default();
    let (rows, cols, cell) = (65, 65, 0.5 as Real);
    let origin = v(-16.0, 0.0, -16.0);
    let height = |x: Real, z: Real| 0.1 * x + 0.05 * z;
    let mut samples = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            let (x, z) = (origin.x + j as Real * cell, origin.z + i as Real * cell);
            samples.push(Some(height(x, z)));
        }
    }
    let field = HeightField::new(rows, cols, &samples, [cell, cell], origin).unwrap();
    let mut w = world();
    w.insert_static(field, Pose::IDENTITY).unwrap();
    let scene = WorldScene::new(&w);
    let n = v(-0.1, 1.0, -0.05).normalize();
    let offset = (HALF * n.y + RADIUS + config.skin) / n.y;
    let (x0, z0) = (-10.0, 0.3);
    let mut ch = player(v(x0, height(x0, z0) + offset, z0), config);
    let mut d = Driver::new(v(4.0, 0.0, 0.0));
    let mut last = ch.position();
    let mut lengths = Vec::new();
    for k in 0..300 {
        let out = d.step(&mut ch, &scene);
        assert!(out.ground.is_on_ground(), "step {k}: {:?}", out.ground);
        let p = ch.position();
        let want = height(p.x, p.z) + offset;
        assert!(
            (p.y - want).abs() < 1e-3,
            "step {k}: height {} vs {want}",
            p.y
        );
        lengths.push((p - last).length());
        last = p;
    }
    assert!(ch.position().x - x0 > 19.0, "{:?}", ch.position());
    let (lo, hi) = lengths[1..]
        .iter()
        .fold((Real::MAX, 0.0 as Real), |(lo, hi), &l| {
            (lo.min(l), hi.max(l))
        });
    assert!(hi - lo < 1e-3, "step lengths vary from {lo} to {hi}");
}

/// Rolling hills (a heightfield of y = 0.3 sin(0.4 x) cos(0.3 z), slopes under 12°,
/// 129 × 129 samples 0.25 apart): walking across 60 cells the character is on the
/// ground at every step, never below the surface (the library's contact query), and
/// never slowed below the glide's least horizontal speed on such slopes (cos² 12° of
/// the walking speed): an inner edge met as a wall would stop it.
///
/// Regression: the slide merged normals within 0.8° as one plane, so the next
/// triangle's (0.65° off the last) was never clipped against; the character met it at
/// time 0 in every cast and stood still at x = −4.
#[test]
fn rolling_heightfield_walk_is_smooth() {
    use minkowski::query::static_dispatch;
    let config = CharacterConfig::default();
    let (rows, cols, cell) = (129, 129, 0.25 as Real);
    let origin = v(-16.0, 0.0, -16.0);
    let height = |x: Real, z: Real| 0.3 * (0.4 * x).sin() * (0.3 * z).cos();
    let mut samples = Vec::with_capacity(rows * cols);
    for i in 0..rows {
        for j in 0..cols {
            let (x, z) = (origin.x + j as Real * cell, origin.z + i as Real * cell);
            samples.push(Some(height(x, z)));
        }
    }
    let field = HeightField::new(rows, cols, &samples, [cell, cell], origin).unwrap();
    let fixed = minkowski::shape::StaticShape::from(field.clone());
    let mut w = world();
    w.insert_static(field, Pose::IDENTITY).unwrap();
    let scene = WorldScene::new(&w);
    let (x0, z0) = (-8.0, 1.1);
    let mut ch = player(v(x0, height(x0, z0) + 1.5, z0), config);
    let speed = 3.0;
    let mut d = Driver::new(v(speed, 0.0, 0.0));
    // Land first.
    for _ in 0..30 {
        d.step(&mut ch, &scene);
    }
    assert!(ch.ground().is_on_ground());
    let slowest = speed * DT * (12.0 as Real).to_radians().cos().powi(2);
    let me = capsule(HALF, RADIUS).into();
    for k in 0..300 {
        let before = ch.position();
        let out = d.step(&mut ch, &scene);
        assert!(out.ground.is_on_ground(), "step {k}: {:?}", out.ground);
        let p = ch.position();
        assert!(
            p.x - before.x > slowest - 1e-4,
            "step {k}: only {} along x",
            p.x - before.x
        );
        let c = static_dispatch::contact(
            &fixed,
            &Pose::IDENTITY,
            &me,
            &ch.pose(),
            &Default::default(),
        );
        assert!(
            c.distance > -1e-4,
            "step {k}: {} under the surface",
            -c.distance
        );
    }
    assert!(ch.position().x - x0 > 14.0, "{:?}", ch.position());
}

/// A platform (a box object moved every step) carries the character standing on it:
/// horizontally by exactly its motion; rising and sinking, the character stays within
/// the skin band above its top.
#[test]
fn moving_platform_carries_the_character() {
    let config = CharacterConfig::default();
    for u in [v(1.5, 0.0, 0.5), v(0.0, 0.5, 0.0), v(0.3, -0.4, 0.0)] {
        let mut w = world();
        let half = v(3.0, 0.25, 3.0);
        let mut centre = v(0.0, 0.25, 0.0);
        let platform = block(&mut w, centre, half, Rotation::IDENTITY);
        w.update();
        let start = v(0.5, rest_height(0.5, &config), -0.5);
        let mut ch = player(start, config);
        let mut d = Driver::new(Vector::ZERO);
        let state = BodyState::translating(u, 0.0);
        let steps = 60;
        for k in 0..steps {
            centre += u * DT;
            w.set_pose(platform, at(centre)).unwrap();
            let lookup = one_body(platform, state);
            let scene = WorldScene::new(&w).with_bodies(&lookup);
            let out = d.step(&mut ch, &scene);
            assert!(
                out.ground.is_on_ground(),
                "{u:?} step {k}: {:?}",
                out.ground
            );
            let gap = ch.position().y - (centre.y + half.y) - (HALF + RADIUS);
            let band = config.skin * 1.5 + u.y.abs() * DT + 1e-4;
            assert!(gap > -1e-4 && gap <= band, "{u:?} step {k}: gap {gap}");
        }
        let moved = ch.position() - start;
        let carried = u * (steps as Real * DT);
        assert!(
            (moved.x - carried.x).abs() < 1e-3 && (moved.z - carried.z).abs() < 1e-3,
            "{u:?}: moved {moved:?}"
        );
    }
}

/// A platform turning about the vertical axis at half a turn per second (Jolt's
/// rotating-platform test, in other numbers) carries a character standing 2 from its
/// axis round a circle: at every step it is where the platform's turn puts its
/// starting point, at the same radius (no outward drift), and on the ground.
#[test]
fn turning_platform_carries_the_character_round() {
    let config = CharacterConfig::default();
    let omega = std::f32::consts::PI as Real;
    let mut w = world();
    let half = v(4.0, 0.25, 4.0);
    let centre = v(0.0, 0.25, 0.0);
    let platform = block(&mut w, centre, half, Rotation::IDENTITY);
    w.update();
    let y = rest_height(0.5, &config);
    let mut ch = player(v(2.0, y, 0.0), config);
    let mut d = Driver::new(Vector::ZERO);
    let state = BodyState {
        center: centre,
        angular_velocity: v(0.0, omega, 0.0),
        ..BodyState::FIXED
    };
    for k in 1..=60 {
        let angle = omega * k as Real * DT;
        let pose = Pose::new(Rotation::from_rotation_y(angle), centre).unwrap();
        w.set_pose(platform, pose).unwrap();
        let lookup = one_body(platform, state);
        let scene = WorldScene::new(&w).with_bodies(&lookup);
        let out = d.step(&mut ch, &scene);
        assert!(out.ground.is_on_ground(), "step {k}: {:?}", out.ground);
        let want = v(2.0 * angle.cos(), y, -2.0 * angle.sin());
        assert!(
            (ch.position() - want).length() < 1e-3,
            "step {k}: {:?} vs {want:?}",
            ch.position()
        );
    }
    let p = ch.position();
    assert!((p.x + 2.0).abs() < 1e-3 && p.z.abs() < 1e-3, "{p:?}");
}

/// Walking into a dynamic crate (mass 20): the character stops against it, and each
/// hit is reported with the impulse that gives the crate the character's speed into it
/// (20 × 2 along +x); a static wall's hit carries none.
#[test]
fn pushing_a_dynamic_body_reports_the_impulse() {
    let config = CharacterConfig::default();
    let mut w = world();
    floor(&mut w);
    let crate_ = block(
        &mut w,
        v(2.0, 0.5, 0.0),
        v(0.5, 0.5, 0.5),
        Rotation::IDENTITY,
    );
    w.update();
    let lookup = one_body(crate_, BodyState::translating(Vector::ZERO, 1.0 / 20.0));
    let scene = WorldScene::new(&w).with_bodies(&lookup);
    let mut ch = player(v(0.0, rest_height(0.0, &config), 0.0), config);
    let mut pushes = 0;
    for _ in 0..60 {
        let out = ch.update(&scene, v(2.0, GRAVITY * DT, 0.0), DT).unwrap();
        for c in &out.collisions {
            assert_eq!(c.target, Target::Object(crate_));
            assert!((c.normal - v(-1.0, 0.0, 0.0)).length() < 1e-4, "{c:?}");
            assert!((c.impulse - v(40.0, 0.0, 0.0)).length() < 1e-2, "{c:?}");
            assert!((c.point.x - 1.5).abs() < 1e-4, "{c:?}");
            pushes += 1;
        }
    }
    assert!(pushes > 0);
    assert!((ch.position().x - (1.5 - RADIUS - config.skin)).abs() < 1e-3);

    // The same crate as a static obstacle: hits, no impulse.
    let scene = WorldScene::new(&w);
    let mut ch = player(v(0.0, rest_height(0.0, &config), 0.0), config);
    let mut hits = 0;
    for _ in 0..60 {
        let out = ch.update(&scene, v(2.0, 0.0, 0.0), DT).unwrap();
        for c in &out.collisions {
            assert_eq!(c.impulse, Vector::ZERO);
            hits += 1;
        }
    }
    assert!(hits > 0);
}

#[test]
fn bad_parameters_are_typed_errors() {
    let shape = capsule(HALF, RADIUS);
    let bad_configs: Vec<(&str, CharacterConfig)> = vec![
        (
            "skin",
            CharacterConfig {
                skin: -0.01,
                ..Default::default()
            },
        ),
        (
            "skin",
            CharacterConfig {
                skin: 0.0,
                ..Default::default()
            },
        ),
        (
            "skin",
            CharacterConfig {
                skin: Real::NAN,
                ..Default::default()
            },
        ),
        (
            "up",
            CharacterConfig {
                up: v(0.0, 2.0, 0.0),
                ..Default::default()
            },
        ),
        (
            "up",
            CharacterConfig {
                up: v(Real::NAN, 1.0, 0.0),
                ..Default::default()
            },
        ),
        (
            "max_slope",
            CharacterConfig {
                max_slope: 1.6,
                ..Default::default()
            },
        ),
        (
            "max_slope",
            CharacterConfig {
                max_slope: -0.1,
                ..Default::default()
            },
        ),
        (
            "step_height",
            CharacterConfig {
                step_height: Real::INFINITY,
                ..Default::default()
            },
        ),
        (
            "snap_distance",
            CharacterConfig {
                snap_distance: -1.0,
                ..Default::default()
            },
        ),
        (
            "max_iterations",
            CharacterConfig {
                max_iterations: 0,
                ..Default::default()
            },
        ),
        (
            "max_recovery_iterations",
            CharacterConfig {
                max_recovery_iterations: 100,
                ..Default::default()
            },
        ),
    ];
    for (field, config) in bad_configs {
        match Character::<Target>::new(shape.clone(), Pose::IDENTITY, config) {
            Err(CharacterError::InvalidConfig { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{field}: {other:?}"),
        }
    }
    let mut w = world();
    floor(&mut w);
    let scene = WorldScene::new(&w);
    let config = CharacterConfig::default();
    let start = v(0.0, rest_height(0.0, &config), 0.0);
    let mut ch = player(start, config);
    for (vel, dt) in [
        (v(Real::NAN, 0.0, 0.0), DT),
        (v(Real::INFINITY, 0.0, 0.0), DT),
        (Vector::X, 0.0),
        (Vector::X, -DT),
        (Vector::X, Real::NAN),
        (Vector::X, Real::INFINITY),
    ] {
        assert!(matches!(
            ch.update(&scene, vel, dt),
            Err(CharacterError::InvalidInput { .. })
        ));
        assert_eq!(ch.position(), start);
    }
    // A motion out of the magnitude limit is refused by the cast, not carried out.
    let huge = v(1e30, 0.0, 0.0);
    assert!(ch.update(&scene, huge, 1.0).is_err());
    assert_eq!(ch.position(), start);
    assert!(ch.set_position(v(Real::NAN, 0.0, 0.0)).is_err());
    assert!(matches!(
        ch.ground(),
        GroundState::InAir | GroundState::OnGround(_)
    ));
}
