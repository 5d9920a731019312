//! The mover cases of Box3D's `test_mover.c`, in this controller's terms: a sphere, a
//! capsule and a hull mover against a half-space floor and a box, separated, touching
//! (within the skin) and deeply overlapping (recovered to a skin away); the degenerate
//! overlaps where a core passes through the obstacle's centre; a mover between two
//! parallel planes. Every answer is checked against its analytic value.

mod character_support;

use character_support::*;
use minkowski::query::compound::Collider;
use minkowski::shape::{ConvexPolyhedron, HalfSpace, Shape, Sphere};
use minkowski::world::Target;
use minkowski::{Pose, Real, Rotation, Vector};
use minkowski_dynamics::character::{
    Character, CharacterConfig, CharacterContact, CharacterWorld, GroundState, WorldScene,
};

/// The movers and how far each reaches below its centre.
fn movers() -> Vec<(&'static str, Shape, Real)> {
    let octahedron = ConvexPolyhedron::new(vec![
        v(0.4, 0.0, 0.0),
        v(-0.4, 0.0, 0.0),
        v(0.0, 0.4, 0.0),
        v(0.0, -0.4, 0.0),
        v(0.0, 0.0, 0.4),
        v(0.0, 0.0, -0.4),
    ])
    .expect("hull");
    vec![
        (
            "sphere",
            Shape::from(Sphere::new(0.4).expect("sphere")),
            0.4,
        ),
        ("capsule", capsule(HALF, RADIUS), HALF + RADIUS),
        ("hull", Shape::from(octahedron), 0.4),
    ]
}

/// The obstacles, each with its top at y = 0: a half-space floor, a box object.
fn obstacles() -> Vec<(&'static str, minkowski::world::World)> {
    let mut plane = world();
    floor(&mut plane);
    let mut boxy = world();
    block(
        &mut boxy,
        v(0.0, -0.5, 0.0),
        v(2.0, 0.5, 2.0),
        Rotation::IDENTITY,
    );
    boxy.update();
    vec![("plane", plane), ("box", boxy)]
}

fn contacts(
    scene: &WorldScene<'_>,
    shape: &Shape,
    centre: Vector,
    margin: Real,
) -> Vec<CharacterContact<Target>> {
    let mut out = Vec::new();
    scene
        .contacts(
            &Collider::Convex(shape.clone()),
            &at(centre),
            margin,
            &mut out,
        )
        .expect("contacts");
    out
}

#[test]
fn separated_touching_and_deep_overlap() {
    let config = CharacterConfig::default();
    let skin = config.skin;
    let mut cases = 0;
    for (obstacle, w) in obstacles() {
        let scene = WorldScene::new(&w);
        for (mover, shape, below) in movers() {
            let name = format!("{mover} on {obstacle}");
            // Separated: half a unit above; nothing within twice the skin, no push.
            let c = v(0.3, below + 0.5, -0.2);
            assert!(contacts(&scene, &shape, c, 2.0 * skin).is_empty(), "{name}");
            let mut ch = Character::new(shape.clone(), at(c), config).unwrap();
            let out = ch.update(&scene, Vector::ZERO, DT).unwrap();
            assert_eq!(out.translation, Vector::ZERO, "{name}");
            assert!(matches!(out.ground, GroundState::InAir), "{name}");

            // Touching: three quarters of the skin above; one contact region with the
            // up normal at that distance, no push, on the ground.
            let c = v(0.3, below + 0.75 * skin, -0.2);
            let found = contacts(&scene, &shape, c, 2.0 * skin);
            assert!(!found.is_empty(), "{name}");
            for k in &found {
                assert!(k.normal.y > 0.999, "{name}: {k:?}");
                assert!((k.distance - 0.75 * skin).abs() < 1e-5, "{name}: {k:?}");
            }
            let mut ch = Character::new(shape.clone(), at(c), config).unwrap();
            let out = ch.update(&scene, Vector::ZERO, DT).unwrap();
            assert!(
                out.translation.length() < 1e-6,
                "{name}: {:?}",
                out.translation
            );
            let GroundState::OnGround(g) = out.ground else {
                panic!("{name}: {:?}", out.ground)
            };
            assert!(
                g.normal.y > 0.999 && (g.distance - 0.75 * skin).abs() < 1e-5,
                "{name}"
            );

            // Deep overlap: 0.3 into the obstacle; pushed straight up to a skin away.
            let c = v(0.3, below - 0.3, -0.2);
            let mut ch = Character::new(shape.clone(), at(c), config).unwrap();
            let out = ch.update(&scene, Vector::ZERO, DT).unwrap();
            assert!(out.recovery.resolved, "{name}");
            let want = v(0.3, below + skin, -0.2);
            assert!(
                (ch.position() - want).length() < 1e-4,
                "{name}: {:?}",
                ch.position()
            );
            assert!(out.ground.is_on_ground(), "{name}");
            cases += 3;
        }
    }
    assert_eq!(cases, 18);
}

/// The upright capsule's core passes through a ball's centre (Box3D's deep-overlap
/// case that gave GJK a zero normal): the push is perpendicular to the core, by the sum
/// of the radii plus the skin.
#[test]
fn core_through_the_centre_of_a_ball() {
    let mut w = world();
    let ball = w
        .insert(Shape::from(Sphere::new(0.5).unwrap()), at(v(0.0, 5.0, 0.0)))
        .unwrap();
    w.update();
    let scene = WorldScene::new(&w);
    let config = CharacterConfig::default();
    let mut ch = player(v(0.0, 5.0, 0.0), config);
    let out = ch.update(&scene, Vector::ZERO, DT).unwrap();
    assert!(out.recovery.resolved);
    let p = ch.position();
    assert!((p.y - 5.0).abs() < 1e-4, "{p:?}");
    let horizontal = (p.x * p.x + p.z * p.z).sqrt();
    assert!(
        (horizontal - (0.5 + RADIUS + config.skin)).abs() < 1e-4,
        "{p:?}"
    );
    let _ = ball;
}

/// Two crossing capsule cores (the obstacle along x, the mover along y, crossing at a
/// point): the push is along z, perpendicular to both, by the sum of the radii plus the
/// skin.
#[test]
fn crossing_capsule_cores() {
    let mut w = world();
    let lying = Pose::new(
        Rotation::from_rotation_z(std::f32::consts::FRAC_PI_2 as Real),
        v(0.0, 3.0, 0.0),
    )
    .unwrap();
    w.insert(capsule(1.0, 0.25), lying).unwrap();
    w.update();
    let scene = WorldScene::new(&w);
    let config = CharacterConfig::default();
    let mut ch = player(v(0.0, 3.0, 0.0), config);
    let out = ch.update(&scene, Vector::ZERO, DT).unwrap();
    assert!(out.recovery.resolved);
    let p = ch.position();
    assert!(p.x.abs() < 1e-4 && (p.y - 3.0).abs() < 1e-4, "{p:?}");
    assert!(
        (p.z.abs() - (0.25 + RADIUS + config.skin)).abs() < 1e-4,
        "{p:?}"
    );
}

/// A mover between a floor and a ceiling that fit it exactly (two skins of room):
/// pushing up or down leaves it where it is vertically, with no velocity into either
/// plane, while it walks on.
#[test]
fn parallel_planes_hold_the_mover() {
    let config = CharacterConfig::default();
    let skin = config.skin;
    let height = 2.0 * (HALF + RADIUS) + 2.0 * skin;
    let mut w = world();
    floor(&mut w);
    w.insert_static(HalfSpace::new(-Vector::Y, -height).unwrap(), Pose::IDENTITY)
        .unwrap();
    let scene = WorldScene::new(&w);
    let y = rest_height(0.0, &config);
    let mut ch = player(v(0.0, y, 0.0), config);
    for k in 0..60 {
        let vertical = if k % 2 == 0 { 3.0 } else { -3.0 };
        let out = ch.update(&scene, v(1.5, vertical, 0.0), DT).unwrap();
        assert!(out.velocity.y.abs() < 1e-5, "step {k}: {:?}", out.velocity);
        assert!(
            (ch.position().y - y).abs() < 1e-4,
            "step {k}: {:?}",
            ch.position()
        );
    }
    assert!((ch.position().x - 1.5).abs() < 1e-3, "{:?}", ch.position());
}

/// Squeezed: a ceiling lower than the mover. No position satisfies both planes; the
/// recovery says so and leaves the mover midway, finite.
#[test]
fn squeezed_between_floor_and_ceiling() {
    let config = CharacterConfig::default();
    let mut w = world();
    floor(&mut w);
    let height = 1.5; // the capsule is 1.6 tall
    w.insert_static(HalfSpace::new(-Vector::Y, -height).unwrap(), Pose::IDENTITY)
        .unwrap();
    let scene = WorldScene::new(&w);
    let mut ch = player(v(0.0, 0.8, 0.0), config);
    let out = ch.update(&scene, v(0.0, -1.0, 0.0), DT).unwrap();
    assert!(out.recovery.squeezed && !out.recovery.resolved);
    let p = ch.position();
    assert!(p.is_finite());
    assert!((p.y - height / 2.0).abs() < 1e-3, "{p:?}");
}

/// Seed 004's player, exactly: a capsule flying at a constant velocity into a plane
/// stops a skin short of it at the time of impact and glides along it for the rest of
/// the step with `v' = v − (v·n) n`. Random planes and velocities (seeded), slopes,
/// stepping and snapping turned off so that the seed's rule is the only one at work;
/// the end point is the closed form.
#[test]
fn seed_004_stop_and_glide_exactly() {
    use minkowski::shape::HalfSpace;
    let config = CharacterConfig {
        max_slope: 89.9_f32.to_radians() as Real,
        slide_on_walkable: true,
        step_height: 0.0,
        snap_distance: 0.0,
        ..Default::default()
    };
    let skin = config.skin;
    let mut rng = Rng::new(0x5EED_0004);
    let mut glided = 0;
    for case in 0..200 {
        let d = rng.dir();
        let n = v(d[0] as Real, d[1] as Real, d[2] as Real).normalize();
        let q = v(0.0, 0.0, 0.0);
        let mut w = world();
        w.insert_static(HalfSpace::through(q, n).unwrap(), Pose::IDENTITY)
            .unwrap();
        let scene = WorldScene::new(&w);
        // The capsule's reach along −n from its centre.
        let reach = RADIUS + HALF * n.y.abs();
        let gap = rng.range(0.1, 1.0) as Real;
        let tangent = {
            let t = rng.dir();
            let t = v(t[0] as Real, t[1] as Real, t[2] as Real);
            (t - n * t.dot(n)).normalize()
        };
        let c0 = q + n * (reach + skin + gap) + tangent * rng.range(-2.0, 2.0) as Real;
        let u = -n * rng.range(0.3, 2.0) as Real * gap + tangent * rng.range(0.0, 1.5) as Real;
        let mut ch = Character::new(capsule(HALF, RADIUS), at(c0), config).unwrap();
        let out = ch.update(&scene, u, 1.0).unwrap();
        let approach = -u.dot(n);
        let want = if approach <= gap {
            c0 + u
        } else {
            glided += 1;
            let t = gap / approach;
            c0 + u * t + (u - n * u.dot(n)) * (1.0 - t)
        };
        assert!(
            (ch.position() - want).length() < 2e-4,
            "case {case}: {:?} vs {want:?} (n {n:?})",
            ch.position()
        );
        assert!(
            n.dot(ch.position() - q) - reach > skin - 1e-4,
            "case {case}"
        );
        let _ = out;
    }
    assert!(glided > 60 && glided < 190, "{glided} of 200 cases glided");
}
