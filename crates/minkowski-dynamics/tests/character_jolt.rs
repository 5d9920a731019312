//! The situations of Jolt's character tests, in this controller's terms and numbers:
//! falling and landing, walking on a slope under the limit, blocked by one over it,
//! stairs climbed by stepping and a riser too high to step, sticking to the floor
//! walking down a slope, walking along a wall beside stairs, starting inside a box.
//! Positions are checked against their analytic values.

mod character_support;

use character_support::*;
use minkowski::shape::HalfSpace;
use minkowski::world::World;
use minkowski::{Pose, Real, Rotation, Vector};
use minkowski_dynamics::character::{CharacterConfig, GroundState, WorldScene};

/// A slope through the origin rising along +x at `angle` (radians): the half-space
/// below the plane with normal (−sin, cos, 0).
fn slope(angle: Real) -> (World, Vector) {
    let n = v(-angle.sin(), angle.cos(), 0.0);
    let mut w = world();
    w.insert_static(HalfSpace::new(n, 0.0).unwrap(), Pose::IDENTITY)
        .unwrap();
    (w, n)
}

/// The standard player's centre resting on the slope of normal `n` above the origin:
/// a skin away along the normal from its lowest point.
fn on_slope(n: Vector, config: &CharacterConfig) -> Vector {
    // The lowest point of the capsule along −n is the lower cap's centre minus r n;
    // the capsule's centre is HALF above the lower cap's centre.
    let d = RADIUS + config.skin;
    // Centre c with (c − HALF·up − d·n)... lies on the plane: n·c = HALF n·up + d.
    let h = (HALF * n.y + d) / n.y;
    v(0.0, h, 0.0)
}

#[test]
fn falls_lands_and_jumps() {
    let config = CharacterConfig::default();
    let mut w = world();
    floor(&mut w);
    let scene = WorldScene::new(&w);
    let mut ch = player(v(0.0, 2.0, 0.0), config);
    let mut d = Driver::new(Vector::ZERO);
    let out = d.step(&mut ch, &scene);
    assert!(matches!(out.ground, GroundState::InAir));
    for _ in 0..60 {
        d.step(&mut ch, &scene);
    }
    assert!(ch.ground().is_on_ground());
    let rest = rest_height(0.0, &config);
    assert!((ch.position().y - rest).abs() < 1e-4, "{:?}", ch.position());
    assert!(d.velocity.length() < 1e-4, "{:?}", d.velocity);
    // At rest: another step moves nothing.
    let out = d.step(&mut ch, &scene);
    assert!(out.translation.length() < 1e-5);
    // Jump at 3 per second: after one step, up by (3 + g dt) dt, in the air.
    d.jump = 3.0;
    let out = d.step(&mut ch, &scene);
    let rise = (3.0 + GRAVITY * DT) * DT;
    assert!(
        (out.translation.y - rise).abs() < 1e-5,
        "{:?}",
        out.translation
    );
    assert!(matches!(out.ground, GroundState::InAir));
    for _ in 0..90 {
        d.step(&mut ch, &scene);
    }
    assert!(ch.ground().is_on_ground());
    assert!((ch.position().y - rest).abs() < 1e-4);
}

/// Walking into slopes of 5° to 40° (under the 45° limit): every step moves by the
/// walking motion projected on the slope plane (the glide), gravity dropped on walkable
/// ground, and the character stays on the ground.
#[test]
fn walks_up_slopes_under_the_limit() {
    let config = CharacterConfig::default();
    for degrees in [5.0, 15.0, 25.0, 35.0, 40.0] {
        let angle = (degrees as Real).to_radians();
        let (w, n) = slope(angle);
        let scene = WorldScene::new(&w);
        let start = on_slope(n, &config);
        let mut ch = player(start, config);
        let walk = v(2.0, 0.0, 0.0);
        let mut d = Driver::new(walk);
        let steps = 60;
        for k in 0..steps {
            let out = d.step(&mut ch, &scene);
            assert!(
                out.ground.is_on_ground(),
                "{degrees}° step {k}: {:?}",
                out.ground
            );
        }
        let glide = walk - n * walk.dot(n);
        let want = start + glide * (steps as Real * DT);
        assert!(
            (ch.position() - want).length() < 2e-3,
            "{degrees}°: {:?} vs {want:?}",
            ch.position()
        );
        // Climbing: the height gained is tan(angle) times the way along x.
        let p = ch.position() - start;
        assert!((p.y - p.x * angle.tan()).abs() < 1e-3, "{degrees}°: {p:?}");
    }
}

/// Standing still on a walkable slope with gravity: no creeping down.
#[test]
fn stands_still_on_a_walkable_slope() {
    let config = CharacterConfig::default();
    let (w, n) = slope(30.0_f32.to_radians() as Real);
    let scene = WorldScene::new(&w);
    let start = on_slope(n, &config);
    let mut ch = player(start, config);
    let mut d = Driver::new(Vector::ZERO);
    for _ in 0..120 {
        d.step(&mut ch, &scene);
    }
    assert!(
        (ch.position() - start).length() < 1e-4,
        "{:?}",
        ch.position()
    );
    // With Jolt's plain projection the same character slides.
    let mut sliding = config;
    sliding.slide_on_walkable = true;
    let mut ch = player(start, sliding);
    let out = ch.update(&scene, v(0.0, GRAVITY * DT, 0.0), DT).unwrap();
    let g = v(0.0, GRAVITY * DT, 0.0);
    let want = (g - n * g.dot(n)) * DT;
    assert!(
        (out.translation - want).length() < 1e-6,
        "{:?} vs {want:?}",
        out.translation
    );
}

/// Slopes of 50° to 80° (over the limit): walking into them never climbs; gravity slides
/// the character down along the slope, the walking part into the slope removed. One
/// step from rest is the glide of gravity alone; over a second the character only goes
/// down and back.
#[test]
fn blocked_by_slopes_over_the_limit() {
    let config = CharacterConfig::default();
    for degrees in [50.0, 60.0, 70.0, 80.0] {
        let angle = (degrees as Real).to_radians();
        let (w, n) = slope(angle);
        let scene = WorldScene::new(&w);
        let start = on_slope(n, &config);
        let mut ch = player(start, config);
        let walk = v(2.0, 0.0, 0.0);
        let g = v(0.0, GRAVITY * DT, 0.0);
        let out = ch.update(&scene, walk + g, DT).unwrap();
        assert!(
            matches!(out.ground, GroundState::OnSteepGround(_)),
            "{degrees}°"
        );
        let want = (g - n * g.dot(n)) * DT;
        assert!(
            (out.translation - want).length() < 1e-5,
            "{degrees}°: {:?} vs {want:?}",
            out.translation
        );
        let mut d = Driver::new(walk);
        d.velocity = out.velocity;
        let mut last = ch.position();
        for k in 0..60 {
            d.step(&mut ch, &scene);
            let p = ch.position();
            assert!(p.y <= last.y + 1e-5, "{degrees}° step {k}: climbed {p:?}");
            assert!(
                p.x <= last.x + 1e-5,
                "{degrees}° step {k}: went uphill {p:?}"
            );
            // Never into the slope.
            assert!(
                n.dot(p) >= n.dot(start) - 1e-4,
                "{degrees}° step {k}: {p:?}"
            );
            last = p;
        }
        assert!(ch.position().y < start.y - 0.1, "{degrees}°: did not slide");

        // Walking diagonally into it: the part along the slope's level lines is kept
        // in full (the slope is a wall for walking), the part into it is gone.
        let mut ch = player(start, config);
        let mut d = Driver::new(v(2.0, 0.0, 1.0));
        for k in 0..60 {
            d.step(&mut ch, &scene);
            let p = ch.position();
            assert!(
                (p.z - (k + 1) as Real * DT).abs() < 1e-4,
                "{degrees}° step {k}: {p:?}"
            );
            assert!(p.x <= start.x + 1e-5, "{degrees}° step {k}: {p:?}");
        }
    }
}

/// Stairs of `count` steps, each `rise` high and `run` deep, climbing along +z from
/// z = 0, as box objects (step k spans z in [k run, count run + 1], y in [0, (k+1) rise]),
/// 4 wide in x.
fn stairs(w: &mut World, count: usize, rise: Real, run: Real) {
    let end = count as Real * run + 1.0;
    for k in 0..count {
        let z0 = k as Real * run;
        let top = (k + 1) as Real * rise;
        block(
            w,
            v(0.0, top / 2.0, (z0 + end) / 2.0),
            v(2.0, top / 2.0, (end - z0) / 2.0),
            Rotation::IDENTITY,
        );
    }
    w.update();
}

/// Steps of 0.2 under the 0.3 step height: walking at 3 per second the character
/// climbs all eight, always on the ground after its first contact, always moving
/// forward, never sideways, and ends resting on the top.
#[test]
fn climbs_stairs_lower_than_the_step_height() {
    let config = CharacterConfig::default();
    let (count, rise, run) = (8, 0.2, 0.4);
    for hz in [60.0, 120.0, 240.0] {
        let dt = 1.0 / hz as Real;
        let mut w = world();
        floor(&mut w);
        stairs(&mut w, count, rise, run);
        let scene = WorldScene::new(&w);
        let start = v(0.0, rest_height(0.0, &config), -1.0);
        let mut ch = player(start, config);
        let top = count as Real * rise;
        let mut last = ch.position();
        let mut reached = false;
        let limit = (2.0 * (count as Real * run + 1.0) / 3.0 / dt) as usize;
        for k in 0..limit {
            let out = ch.update(&scene, v(0.0, GRAVITY * dt, 3.0), dt).unwrap();
            assert!(
                out.ground.is_on_ground(),
                "{hz} Hz step {k}: {:?}",
                out.ground
            );
            let p = ch.position();
            assert!(p.x.abs() < 1e-4, "{hz} Hz step {k}: {p:?}");
            assert!(p.z > last.z, "{hz} Hz step {k}: stuck at {p:?}");
            last = p;
            if (p.y - rest_height(top, &config)).abs() < 1e-3 && p.z > (count as Real - 1.0) * run {
                reached = true;
                break;
            }
        }
        assert!(reached, "{hz} Hz: ended at {last:?}");
    }
}

/// A riser of 0.5 (above the 0.3 step height): the character stops against it a skin
/// away (radius + skin before it), at floor level; and with stepping off, even a 0.2
/// riser stops it.
#[test]
fn blocked_by_a_step_higher_than_the_step_height() {
    let mut config = CharacterConfig::default();
    for (rise, step_height) in [(0.5, 0.3), (0.2, 0.0)] {
        config.step_height = step_height;
        let mut w = world();
        floor(&mut w);
        stairs(&mut w, 1, rise, 1.0);
        let scene = WorldScene::new(&w);
        let y = rest_height(0.0, &config);
        let mut ch = player(v(0.0, y, -1.0), config);
        for _ in 0..60 {
            ch.update(&scene, v(0.0, GRAVITY * DT, 3.0), DT).unwrap();
        }
        let p = ch.position();
        // Against the riser: a capsule under a 0.5 riser touches it with its side,
        // under a 0.2 riser with its rounded bottom on the edge.
        let want_z = if rise > RADIUS {
            -(RADIUS + config.skin)
        } else {
            // The cap's centre is at height RADIUS + skin, the edge at `rise`: they
            // are RADIUS + skin apart.
            let dy = RADIUS + config.skin - rise;
            -((RADIUS + config.skin).powi(2) - dy * dy).sqrt()
        };
        assert!((p.y - y).abs() < 1e-4, "rise {rise}: {p:?}");
        assert!(
            (p.z - want_z).abs() < 2e-3,
            "rise {rise}: {p:?} vs z {want_z}"
        );
    }
}

/// Walking down a 30° slope faster than gravity can follow: with the snap, the
/// character follows the slope exactly (height = tan 30° times the way) and stays on the
/// ground; without it, it leaves the ground on the first step and flies.
#[test]
fn sticks_to_the_floor_walking_down_a_slope() {
    let angle = 30.0_f32.to_radians() as Real;
    for snap in [0.5, 0.0] {
        let config = CharacterConfig {
            snap_distance: snap,
            ..Default::default()
        };
        let (w, n) = slope(angle);
        let scene = WorldScene::new(&w);
        let start = on_slope(n, &config);
        let mut ch = player(start, config);
        let mut d = Driver::new(v(-8.0, 0.0, 0.0));
        d.step(&mut ch, &scene);
        let mut on_ground = 0;
        for _ in 0..30 {
            if d.step(&mut ch, &scene).ground.is_on_ground() {
                on_ground += 1;
            }
        }
        let p = ch.position() - start;
        if snap > 0.0 {
            assert_eq!(on_ground, 30);
            assert!((p.x - (-8.0 * 31.0 * DT)).abs() < 1e-3, "{p:?}");
            assert!((p.y - p.x * angle.tan()).abs() < 1e-3, "{p:?}");
        } else {
            assert!(on_ground < 30, "never left the slope");
            assert!(p.y > p.x * angle.tan() + 0.05, "{p:?}");
        }
    }
}

/// Stairs down with the snap: the character walks off each tread and is put back on
/// the next one, on the ground at every step, and ends at floor level.
#[test]
fn sticks_to_stairs_walking_down() {
    let config = CharacterConfig::default();
    let (count, rise, run) = (5, 0.2, 0.5);
    let mut w = world();
    floor(&mut w);
    stairs(&mut w, count, rise, run);
    let scene = WorldScene::new(&w);
    let top = count as Real * rise;
    let mut ch = player(
        v(0.0, rest_height(top, &config), count as Real * run + 0.5),
        config,
    );
    let mut grounded = 0;
    let steps = 120;
    for _ in 0..steps {
        let out = ch.update(&scene, v(0.0, GRAVITY * DT, -2.0), DT).unwrap();
        grounded += out.ground.is_on_ground() as usize;
    }
    assert!(ch.position().z < -0.5, "{:?}", ch.position());
    assert!((ch.position().y - rest_height(0.0, &config)).abs() < 1e-4);
    assert!(
        grounded >= steps - 2,
        "on the ground {grounded} of {steps} steps"
    );
}

/// Stairs with a wall along their side (x = 1.0): walking diagonally into the wall
/// and up the stairs, the character slides along the wall (a skin and a radius from
/// it) while stepping, and reaches the top.
#[test]
fn walks_along_a_wall_beside_stairs() {
    let config = CharacterConfig::default();
    let (count, rise, run) = (6, 0.15, 0.4);
    let mut w = world();
    floor(&mut w);
    stairs(&mut w, count, rise, run);
    block(
        &mut w,
        v(1.5, 2.0, 0.0),
        v(0.5, 2.0, 10.0),
        Rotation::IDENTITY,
    );
    w.update();
    let scene = WorldScene::new(&w);
    let mut ch = player(v(0.0, rest_height(0.0, &config), -1.0), config);
    let top = count as Real * rise;
    let mut reached = false;
    for k in 0..240 {
        let out = ch.update(&scene, v(2.0, GRAVITY * DT, 2.0), DT).unwrap();
        assert!(out.ground.is_on_ground(), "step {k}: {:?}", out.ground);
        let p = ch.position();
        assert!(p.x <= 1.0 - RADIUS - config.skin + 1e-4, "step {k}: {p:?}");
        if (p.y - rest_height(top, &config)).abs() < 1e-3 && p.z > count as Real * run {
            reached = true;
            break;
        }
    }
    assert!(reached, "{:?}", ch.position());
    assert!((ch.position().x - (1.0 - RADIUS - config.skin)).abs() < 1e-3);
}

/// Starting half inside a box resting on the floor (the box's side at x = 0, the
/// capsule's centre 0.1 inside): recovery pushes it out sideways to a skin away, on
/// the floor.
#[test]
fn initially_intersecting_a_box_recovers() {
    let config = CharacterConfig::default();
    let mut w = world();
    floor(&mut w);
    block(
        &mut w,
        v(1.0, 1.0, 0.0),
        v(1.0, 1.0, 1.0),
        Rotation::IDENTITY,
    );
    w.update();
    let scene = WorldScene::new(&w);
    let y = rest_height(0.0, &config);
    let mut ch = player(v(0.1, y, 0.0), config);
    let out = ch.update(&scene, v(0.0, GRAVITY * DT, 0.0), DT).unwrap();
    assert!(out.recovery.resolved);
    let p = ch.position();
    assert!((p.x - (-(RADIUS + config.skin))).abs() < 1e-4, "{p:?}");
    assert!((p.y - y).abs() < 1e-4, "{p:?}");
    assert!(out.ground.is_on_ground());
}

/// Stairs as one triangle mesh (Jolt builds its stairs from triangles): a profile of
/// risers and treads swept 4 wide along x, welded, two-sided. The character climbs
/// them as it climbs the box stairs: on the ground, forward at every step, to the top.
#[test]
fn climbs_triangle_mesh_stairs() {
    use minkowski::shape::{TriMesh, TriMeshFlags};
    let config = CharacterConfig::default();
    let (count, rise, run) = (6, 0.2 as Real, 0.4 as Real);
    // The profile in (z, y): up a riser, along a tread, ..., then a landing 1 deep.
    let mut profile = vec![(0.0 as Real, 0.0 as Real)];
    for k in 0..count {
        let (z, y) = (k as Real * run, k as Real * rise);
        profile.push((z, y + rise));
        let next = if k + 1 == count {
            z + 1.0 + run
        } else {
            z + run
        };
        profile.push((next, y + rise));
    }
    let mut vertices = Vec::new();
    for &(z, y) in &profile {
        vertices.push(v(-2.0, y, z));
        vertices.push(v(2.0, y, z));
    }
    let mut indices = Vec::new();
    for k in 0..profile.len() as u32 - 1 {
        let (a, b, c, d) = (2 * k, 2 * k + 1, 2 * k + 2, 2 * k + 3);
        indices.push([a, c, b]);
        indices.push([b, c, d]);
    }
    let mesh = TriMesh::new(vertices, indices, TriMeshFlags::NONE).unwrap();
    let mut w = world();
    floor(&mut w);
    w.insert_static(mesh, Pose::IDENTITY).unwrap();
    let scene = WorldScene::new(&w);
    let mut ch = player(v(0.0, rest_height(0.0, &config), -1.0), config);
    let top = count as Real * rise;
    let mut last = ch.position();
    let mut reached = false;
    for k in 0..200 {
        let out = ch.update(&scene, v(0.0, GRAVITY * DT, 3.0), DT).unwrap();
        assert!(out.ground.is_on_ground(), "step {k}: {:?}", out.ground);
        let p = ch.position();
        assert!(p.x.abs() < 1e-4, "step {k}: {p:?}");
        assert!(p.z > last.z, "step {k}: stuck at {p:?}");
        last = p;
        if (p.y - rest_height(top, &config)).abs() < 1e-3 && p.z > (count as Real - 1.0) * run {
            reached = true;
            break;
        }
    }
    assert!(reached, "ended at {last:?}");
}

/// Any convex shape moves the same way: a box character (half extents 0.3, 0.8, 0.3)
/// climbs the 0.2 stairs with its flat bottom (every landing is on a tread), and an
/// octahedral hull walks up a 20° slope by the glide.
#[test]
fn other_convex_characters() {
    use minkowski::shape::ConvexPolyhedron;
    use minkowski_dynamics::character::Character;
    let config = CharacterConfig::default();
    let mut w = world();
    floor(&mut w);
    stairs(&mut w, 5, 0.2, 0.5);
    let scene = WorldScene::new(&w);
    let half = v(0.3, 0.8, 0.3);
    let mut ch: Character<minkowski::world::Target> =
        Character::new(cuboid(half), at(v(0.0, 0.8 + config.skin, -1.0)), config).unwrap();
    let mut top = false;
    for k in 0..150 {
        let out = ch.update(&scene, v(0.0, GRAVITY * DT, 2.0), DT).unwrap();
        assert!(out.ground.is_on_ground(), "box step {k}: {:?}", out.ground);
        if (ch.position().y - (1.0 + 0.8 + config.skin)).abs() < 1e-3 && ch.position().z > 2.5 {
            top = true;
            break;
        }
    }
    assert!(top, "box ended at {:?}", ch.position());

    let angle = (20.0 as Real).to_radians();
    let n = v(-angle.sin(), angle.cos(), 0.0);
    let mut w = world();
    w.insert_static(HalfSpace::new(n, 0.0).unwrap(), Pose::IDENTITY)
        .unwrap();
    let scene = WorldScene::new(&w);
    let r = 0.4;
    let hull = ConvexPolyhedron::new(vec![
        v(r, 0.0, 0.0),
        v(-r, 0.0, 0.0),
        v(0.0, r, 0.0),
        v(0.0, -r, 0.0),
        v(0.0, 0.0, r),
        v(0.0, 0.0, -r),
    ])
    .unwrap();
    // The octahedron's reach along −n is its support there: r · max(|n_x|, |n_y|,
    // |n_z|) = r cos(angle) (its bottom vertex).
    let reach = r * angle.cos();
    let start = v(0.0, (reach + config.skin) / n.y, 0.0);
    let mut ch: Character<minkowski::world::Target> =
        Character::new(minkowski::shape::Shape::from(hull), at(start), config).unwrap();
    let walk = v(1.5, 0.0, 0.0);
    for k in 0..60 {
        let out = ch
            .update(&scene, walk + v(0.0, GRAVITY * DT, 0.0), DT)
            .unwrap();
        assert!(out.ground.is_on_ground(), "hull step {k}");
    }
    let want = start + (walk - n * walk.dot(n)) * (60.0 * DT);
    assert!(
        (ch.position() - want).length() < 2e-3,
        "{:?} vs {want:?}",
        ch.position()
    );
}

/// Jumping under a ceiling 2.2 above the floor: the head stops a skin below it, the
/// answered velocity has lost its upward part at once (no sticking to the ceiling), and
/// the character falls back to the floor.
#[test]
fn jump_into_a_ceiling() {
    let config = CharacterConfig::default();
    let mut w = world();
    floor(&mut w);
    let ceiling = 2.2;
    w.insert_static(
        HalfSpace::new(-Vector::Y, -ceiling).unwrap(),
        Pose::IDENTITY,
    )
    .unwrap();
    let scene = WorldScene::new(&w);
    let rest = rest_height(0.0, &config);
    let mut ch = player(v(0.0, rest, 0.0), config);
    let mut d = Driver::new(v(1.0, 0.0, 0.0));
    d.step(&mut ch, &scene);
    d.jump = 8.0;
    let mut top: Real = 0.0;
    let mut hit_at = None;
    for k in 0..120 {
        let out = d.step(&mut ch, &scene);
        top = top.max(ch.position().y);
        if hit_at.is_none() && out.collisions.iter().any(|c| c.normal.y < -0.999) {
            hit_at = Some(k);
            assert!(out.velocity.y <= 1e-5, "step {k}: {:?}", out.velocity);
        }
    }
    let head = ceiling - HALF - RADIUS - config.skin;
    assert!(hit_at.is_some(), "never reached the ceiling");
    assert!((top - head).abs() < 1e-4, "top {top} vs {head}");
    assert!(ch.ground().is_on_ground());
    assert!((ch.position().y - rest).abs() < 1e-4);
}
