//! Stability, sleeping, determinism and continuous collision on the named scenes.

use minkowski::shape::{Shape, Sphere, StaticShape, TriMesh, TriMeshFlags};
use minkowski::{Pose, Real, Vector};
use minkowski_dynamics::scenes;
use minkowski_dynamics::{BodyDesc, World, WorldSettings};
use std::sync::Arc;

const DT: Real = 1.0 / 60.0;

fn awake_world() -> World {
    World::new(WorldSettings {
        enable_sleep: false,
        ..WorldSettings::default()
    })
}

/// Runs `steps` steps; the deepest penetration any step found and the top body's
/// horizontal drift from its start.
fn run(w: &mut World, steps: usize, top: usize) -> (Real, Real) {
    let start = w.bodies()[top].position();
    let mut pen: Real = 0.0;
    for _ in 0..steps {
        pen = pen.max(w.step(DT).unwrap().max_penetration);
    }
    let d = w.bodies()[top].position() - start;
    (pen, (d.x * d.x + d.z * d.z).sqrt())
}

/// A vertical stack of 20 unit boxes stands 1000 steps at 60 Hz, awake throughout: the
/// top box drifts less than 1 cm and no contact sinks deeper than the slop.
#[test]
fn stack_of_20_stands() {
    let mut w = awake_world();
    scenes::stack(&mut w, 20).unwrap();
    let (pen, drift) = run(&mut w, 1000, 19);
    assert!(drift < 0.01, "top drift {drift}");
    assert!(pen <= w.settings.linear_slop, "penetration {pen}");
    let top = w.bodies()[19].position().y;
    assert!((top - 19.5).abs() < 0.05, "top at {top}");
}

/// A pyramid of 20 rows (210 boxes) stands 1000 steps at 60 Hz, awake throughout.
#[test]
#[ignore = "heavy: 210 awake boxes for 1000 steps (about 10 s at opt-level 2)"]
fn pyramid_of_20_rows_stands() {
    let mut w = awake_world();
    scenes::pyramid(&mut w, 20).unwrap();
    let top = w.bodies().len() - 1;
    let (pen, drift) = run(&mut w, 1000, top);
    assert!(drift < 0.01, "top drift {drift}");
    assert!(pen <= w.settings.linear_slop, "penetration {pen}");
}

/// The card house: built touching, not overlapping (every pair's exact signed distance
/// at the start is within rounding of zero or positive; the first version crossed each
/// pair as an X 0.24 deep), then it stands 1000 steps awake.
#[test]
fn card_house_is_built_touching_and_stands() {
    use minkowski::query::compound::Collider;
    let mut scene = scenes::build("card_house", 1).unwrap();
    let bodies = scene.world.bodies();
    let mut touching = 0;
    for (i, a) in bodies.iter().enumerate() {
        for b in &bodies[i + 1..] {
            let (Collider::Convex(sa), Collider::Convex(sb)) = (a.collider(), b.collider()) else {
                continue;
            };
            let c = minkowski::query::contact(
                sa,
                &a.collider_pose().unwrap(),
                sb,
                &b.collider_pose().unwrap(),
            );
            assert!(c.distance > -1e-4, "overlap {}", c.distance);
            touching += usize::from(c.distance < 1e-4);
        }
    }
    // Each of the 6 pairs touches at its apex, each flat rests on 2 cards, each upper
    // card stands on a flat: 6 + 3·2 + 6 = 18 contacts among the 15 cards.
    assert!(touching >= 18, "{touching} touching pairs");
    scene.world.settings.enable_sleep = false;
    let mut pen: Real = 0.0;
    for _ in 0..1000 {
        pen = pen.max(scene.world.step(scene.dt).unwrap().max_penetration);
    }
    let drift = scene.max_drift();
    assert!(drift < 0.01, "drift {drift}");
    assert!(pen <= scene.world.settings.linear_slop, "penetration {pen}");
}

/// The same pyramid, shorter and with sleeping on: it stands and falls asleep.
#[test]
fn pyramid_of_20_rows_settles_and_sleeps() {
    let mut w = World::new(WorldSettings::default());
    scenes::pyramid(&mut w, 20).unwrap();
    let top = w.bodies().len() - 1;
    let start = w.bodies()[top].position();
    let mut asleep_at = None;
    for _ in 0..200 {
        let st = w.step(DT).unwrap();
        assert!(
            st.max_penetration <= w.settings.linear_slop,
            "{}",
            st.max_penetration
        );
        if st.awake == 0 && asleep_at.is_none() {
            asleep_at = Some(st.step);
        }
    }
    let d = w.bodies()[top].position() - start;
    assert!((d.x * d.x + d.z * d.z).sqrt() < 0.01);
    // Still for time_to_sleep = 0.5 s (30 steps) after settling.
    let at = asleep_at.expect("the pyramid fell asleep");
    assert!((30..=120).contains(&at), "asleep at step {at}");
}

/// The 20-box stack sleeps by a known step; a ball dropped on it wakes the whole island,
/// which sleeps again later.
#[test]
fn stack_sleeps_and_wakes() {
    let mut w = World::new(WorldSettings::default());
    scenes::stack(&mut w, 20).unwrap();
    let mut asleep_at = None;
    for _ in 0..150 {
        let st = w.step(DT).unwrap();
        if st.awake == 0 {
            asleep_at.get_or_insert(st.step);
        } else {
            assert!(asleep_at.is_none(), "woke up again at step {}", st.step);
        }
    }
    let at = asleep_at.expect("asleep");
    assert!((30..=100).contains(&at), "asleep at {at}");
    assert!(w.bodies().iter().all(|b| b.is_asleep()));
    // A sleeping body does not move at all.
    let h = w.state_hash();
    w.step(DT).unwrap();
    assert_eq!(h, w.state_hash());
    // Drop a ball on the top box.
    let ball = Shape::from(Sphere::new(0.3).unwrap());
    let mut d = BodyDesc::dynamic(
        ball,
        Pose::from_translation(Vector::new(0.0, 20.6, 0.0)).unwrap(),
    );
    d.linear_velocity = Vector::new(0.0, -3.0, 0.0);
    w.add_body(d).unwrap();
    let mut woke = false;
    for _ in 0..20 {
        let st = w.step(DT).unwrap();
        if st.awake >= 21 {
            woke = true;
        }
    }
    assert!(woke, "the island did not wake");
    for _ in 0..400 {
        w.step(DT).unwrap();
    }
    assert!(w.bodies().iter().all(|b| b.is_asleep()), "asleep again");
}

/// The same scene gives the same state hash at every step on every run, and the same
/// with one narrow-phase thread as with two.
#[test]
fn deterministic_hash() {
    let hashes = |threads: usize| -> Vec<u64> {
        let mut s = scenes::build("tumbler", threads).unwrap();
        (0..60)
            .map(|_| {
                s.before_step();
                s.world.step(s.dt).unwrap().hash
            })
            .collect()
    };
    let a = hashes(1);
    assert_eq!(a, hashes(1));
    assert_eq!(a, hashes(2));
    // The hash does change from step to step (the bodies move).
    assert!(a.windows(2).all(|w| w[0] != w[1]));
}

/// A small ball fired at 200 m/s (3.3 m per step, 16 diameters) at a thin one-sided
/// triangle-mesh floor does not pass through it.
#[test]
fn fast_ball_does_not_tunnel_through_thin_mesh() {
    for ccd in [true, false] {
        let mut w = World::new(WorldSettings {
            enable_ccd: ccd,
            ..WorldSettings::default()
        });
        let v = vec![
            Vector::new(-5.0, 0.0, -5.0),
            Vector::new(5.0, 0.0, -5.0),
            Vector::new(5.0, 0.0, 5.0),
            Vector::new(-5.0, 0.0, 5.0),
        ];
        let mesh = TriMesh::new(
            v,
            vec![[0, 2, 1], [0, 3, 2]],
            TriMeshFlags {
                one_sided: true,
                closed: false,
            },
        )
        .unwrap();
        w.add_static(
            StaticShape::TriMesh(Arc::new(mesh)),
            Pose::IDENTITY,
            0.5,
            0.0,
        )
        .unwrap();
        let ball = Shape::from(Sphere::new(0.1).unwrap());
        let mut d = BodyDesc::dynamic(
            ball,
            Pose::from_translation(Vector::new(0.3, 4.0, 0.2)).unwrap(),
        );
        d.linear_velocity = Vector::new(0.0, -200.0, 0.0);
        let id = w.add_body(d).unwrap();
        for _ in 0..30 {
            w.step(DT).unwrap();
            let y = w.body(id).unwrap().position().y;
            assert!(y > 0.0, "ccd {ccd}: the ball went through, y = {y}");
        }
    }
}

/// The same two stacks with box–box pairs answered by the closed form
/// (`WorldSettings::box_box_closed_form`): they stand as well.
#[test]
fn stack_and_pyramid_stand_with_the_box_box_closed_form() {
    let world = || {
        World::new(WorldSettings {
            enable_sleep: false,
            box_box_closed_form: true,
            ..WorldSettings::default()
        })
    };
    let mut w = world();
    scenes::stack(&mut w, 20).unwrap();
    let (pen, drift) = run(&mut w, 1000, 19);
    assert!(drift < 0.01, "stack top drift {drift}");
    assert!(pen <= w.settings.linear_slop, "stack penetration {pen}");
    let mut w = world();
    scenes::pyramid(&mut w, 10).unwrap();
    let top = w.bodies().len() - 1;
    let (pen, drift) = run(&mut w, 1000, top);
    assert!(drift < 0.01, "pyramid top drift {drift}");
    assert!(pen <= w.settings.linear_slop, "pyramid penetration {pen}");
}

/// Steps a pyramid of `rows` rows (sleeping on) until it falls asleep or `steps` pass:
/// the step it fell asleep at, the largest horizontal drift of any box from its start
/// and the deepest penetration.
fn settle(closed_form: bool, rows: usize, steps: usize) -> (Option<u64>, Real, Real) {
    let mut w = World::new(WorldSettings {
        box_box_closed_form: closed_form,
        threads: 1,
        ..WorldSettings::default()
    });
    scenes::pyramid(&mut w, rows).unwrap();
    let start: Vec<Vector> = w.bodies().iter().map(|b| b.position()).collect();
    let mut pen: Real = 0.0;
    let mut asleep = None;
    for _ in 0..steps {
        let st = w.step(DT).unwrap();
        pen = pen.max(st.max_penetration);
        if st.awake == 0 {
            asleep = Some(st.step);
            break;
        }
    }
    let drift = w
        .bodies()
        .iter()
        .zip(&start)
        .map(|(b, s)| {
            let d = b.position() - *s;
            (d.x * d.x + d.z * d.z).sqrt()
        })
        .fold(0.0, Real::max);
    (asleep, drift, pen)
}

/// A 10-row pyramid falls asleep by a known step with either box–box manifold (both
/// measured at steps 31–33), no box having moved 1 cm sideways.
#[test]
fn pyramid_of_10_rows_sleeps_with_either_box_box_manifold() {
    for closed_form in [true, false] {
        let (asleep, drift, pen) = settle(closed_form, 10, 1000);
        let at = asleep.expect("the pyramid fell asleep");
        assert!(
            (25..=60).contains(&at),
            "closed form {closed_form}: asleep at {at}"
        );
        assert!(drift < 0.01, "closed form {closed_form}: drift {drift}");
        assert!(pen <= 0.005, "closed form {closed_form}: penetration {pen}");
    }
}

/// The large pyramid (100 rows, 5050 boxes) falls asleep with the closed-form box–box
/// manifold. Regression: while the closed form gave its points in the clip's fixed
/// order (the general manifold gives them deepest first), every box was pushed to turn
/// the same way, and the pile never fell asleep and came apart after step 800; deepest
/// first it falls asleep at step 474 (the general manifold at 475), the widest drift
/// 9 cm (the bottom row's ends pushed out; 7.6 cm with the general manifold). The pile
/// is marginal with the closed form (module notes of `box_box_manifold`): a change of
/// the solver's rounding may break this test without a bug in the manifold.
#[test]
#[ignore = "heavy: 5050 boxes for about 500 steps (minutes at opt-level 2)"]
fn large_pyramid_falls_asleep_with_the_closed_form() {
    let (asleep, drift, _) = settle(true, 100, 1000);
    let at = asleep.expect("the large pyramid fell asleep");
    assert!(at <= 600, "asleep at {at}");
    assert!(drift < 0.15, "drift {drift}");
}

/// With the coloured sweeps (`SolverSettings::graph_colouring`) on a 40-row pyramid
/// (820 boxes: colour classes larger than the solver's parallel threshold, so the
/// classes are swept on rayon's pool), the state hash at every step is the same with
/// one thread as with two: a class's constraints share no moving body, so the sweep
/// equals the sequential one in class order whatever the split.
#[test]
fn coloured_sweeps_are_deterministic_across_threads() {
    let hashes = |threads: usize| -> Vec<u64> {
        let mut settings = WorldSettings {
            threads,
            enable_sleep: false,
            ..WorldSettings::default()
        };
        settings.solver.graph_colouring = true;
        let mut w = World::new(settings);
        scenes::pyramid(&mut w, 40).unwrap();
        (0..20).map(|_| w.step(DT).unwrap().hash).collect()
    };
    let a = hashes(1);
    assert_eq!(a, hashes(2));
    assert!(a.windows(2).all(|w| w[0] != w[1]));
}
