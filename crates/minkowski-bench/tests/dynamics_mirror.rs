//! The rigid-body peer table's fairness checks (`src/peers/dynamics.rs`): the spec read
//! back from minkowski's scenes against closed-form masses, every peer's freshly built
//! world against the spec (same body count, same total mass, same centres of mass to
//! 1e-6), and the shared metric and run loop against hand-made configurations.
#![cfg(not(feature = "f64"))]

use minkowski::Real;
use minkowski_bench::peers::dynamics::{self, describe, mirror_error, Engine, SceneSpec};
use minkowski_bench::peers::dynamics_ours::Ours;
use minkowski_bench::peers::PoseArray;
use minkowski_dynamics::scenes::SCENE_NAMES;
use std::f64::consts::PI;

fn spec(name: &str) -> Result<SceneSpec, String> {
    let ours = Ours::new(name, 1)?;
    describe(ours.scene())
}

/// The dynamic mass of each scene from its geometry (scenes.rs), not from the world.
fn closed_form_mass(name: &str) -> f64 {
    let ball = |r: f64| 4.0 / 3.0 * PI * r * r * r;
    match name {
        "free_fall" => 10.0 * ball(0.25),
        "stack" => 20.0,
        "pyramid" => 210.0,
        "large_pyramid" => 5050.0,
        // 12 leaning cards and 3 flat ones, each 0.04 × 1 × 0.7.
        "card_house" => 15.0 * 0.04 * 0.7,
        "mass_ratio" => 1.0 + 10.0 + 100.0,
        "friction_ramp" => 6.0 * 0.5,
        "tumbler" => 100.0 * 0.4f64.powi(3) + 100.0 * ball(0.2),
        other => panic!("no closed form for {other}"),
    }
}

#[test]
fn every_scene_but_the_terrain_is_described_with_its_closed_form_mass() {
    let mut described = 0;
    for &name in SCENE_NAMES {
        match spec(name) {
            Ok(s) => {
                let want = closed_form_mass(name);
                assert!(
                    (s.total_mass() - want).abs() <= 1e-5 * want,
                    "{name}: {} vs {want}",
                    s.total_mass()
                );
                // Every scene but the tumbler (a closed turning box) has a ground.
                assert_eq!(s.planes.is_empty(), name == "tumbler", "{name}: planes");
                assert_eq!(s.bodies.len(), s.colliders.len());
                described += 1;
            }
            Err(why) => {
                assert_eq!(name, "terrain_character", "{name} refused: {why}");
                assert!(why.contains("scripted") || why.contains("heightfield"));
            }
        }
    }
    assert_eq!(described, SCENE_NAMES.len() - 1);
}

fn assert_mirrors(e: &dyn Engine, s: &SceneSpec) {
    let (count, mass, pos) = mirror_error(e, s);
    assert!(count, "{} on {}: body count", e.name(), s.name);
    assert!(
        mass <= 1e-6,
        "{} on {}: total mass off by {mass:e}",
        e.name(),
        s.name
    );
    assert!(
        pos <= 1e-6,
        "{} on {}: a centre off by {pos:e}",
        e.name(),
        s.name
    );
}

/// Each engine of this build (minkowski, and rapier3d / Bullet with their features) on
/// every described scene: same body count, total mass and centres as the spec; the
/// count of peers is checked so that a feature build cannot silently drop one.
#[test]
fn every_peer_world_mirrors_the_scene() {
    for &name in SCENE_NAMES {
        let Ok((s, engines)) = dynamics::engines(name, 1) else {
            continue;
        };
        let want =
            1 + usize::from(cfg!(feature = "rapier")) + usize::from(cfg!(feature = "bullet"));
        assert_eq!(engines.len(), want);
        for e in &engines {
            assert_mirrors(e.as_ref(), &s);
        }
        // Bullet is single-threaded: not offered at 2 threads.
        let (_, two) = dynamics::engines(name, 2).unwrap();
        assert_eq!(two.len(), 1 + usize::from(cfg!(feature = "rapier")));
    }
}

/// A stack's poses with one box moved: the metric's penetration is the overlap made.
#[test]
fn metric_penetration_is_the_overlap_made() {
    let s = spec("stack").unwrap();
    let metric = dynamics::Metric::new(&s);
    let start: Vec<PoseArray> = s.bodies.iter().map(|b| b.pose).collect();
    assert!(metric.max_penetration(&start).unwrap() < 1e-5);
    for (k, depth) in [(5usize, 0.1 as Real), (12, 0.013), (19, 0.3)] {
        let mut p = start.clone();
        p[k][1] -= depth;
        let got = metric.max_penetration(&p).unwrap();
        assert!((got - depth).abs() < 1e-5, "box {k}: {got} vs {depth}");
    }
    // The bottom box into the ground, turned 90° about Y (a face still down).
    let mut p = start.clone();
    p[0][1] -= 0.05;
    let h = (0.5 as Real).sqrt();
    p[0][4] = h;
    p[0][6] = h;
    assert!((metric.max_penetration(&p).unwrap() - 0.05).abs() < 1e-5);
    // A blown-up pose is reported, not measured.
    p[3][0] = Real::NAN;
    assert!(metric.max_penetration(&p).is_none());
}

/// An engine that moves body 3 of a stack by a known amount per step and reports a
/// scripted number of awake bodies.
struct Scripted {
    poses: Vec<PoseArray>,
    awake: Vec<usize>,
    k: usize,
}

impl Engine for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }
    fn threads(&self) -> usize {
        1
    }
    fn step(&mut self) -> Result<(), String> {
        self.k += 1;
        self.poses[3][0] += 0.03;
        self.poses[3][2] -= 0.04;
        if self.k == 7 {
            return Err("scripted failure".into());
        }
        Ok(())
    }
    fn poses(&self) -> Vec<PoseArray> {
        self.poses.clone()
    }
    fn centers(&self) -> Vec<[Real; 3]> {
        self.poses.iter().map(|p| [p[0], p[1], p[2]]).collect()
    }
    fn masses(&self) -> Vec<Real> {
        vec![1.0; self.poses.len()]
    }
    fn awake(&self) -> usize {
        // Before the first step: everything awake.
        self.k.checked_sub(1).map_or(5, |i| self.awake[i])
    }
}

#[test]
fn run_measures_drift_sleep_and_stops_at_a_failure() {
    let s = spec("stack").unwrap();
    let mut e = Scripted {
        poses: s.bodies.iter().map(|b| b.pose).collect(),
        // Asleep at 2, woken at 3, asleep again from 4 on.
        awake: vec![5, 0, 1, 0, 0, 0, 0, 0],
        k: 0,
    };
    let f = dynamics::run(&mut e, &s, 5);
    assert_eq!(f.steps, 5);
    assert!(
        (f.max_drift.unwrap() - 0.25).abs() < 1e-5,
        "{:?}",
        f.max_drift
    );
    assert_eq!(f.asleep_at, Some(4));
    assert!(f.failure.is_none());
    // Box 3 slid sideways off the stack: no overlap, and the run's penetration is 0.
    assert!(f.max_penetration < 1e-5);
    let f = dynamics::run(&mut e, &s, 5);
    assert_eq!(f.steps, 1, "stops at the engine's 7th step");
    assert!(f.failure.unwrap().contains("scripted failure"));
}

/// A short stack run in every engine of this build: no failure, finite figures; and
/// minkowski's stack still standing (drift < 1 cm, penetration < 1 cm). The peers'
/// stability is what the table reports, not a pass condition (Bullet's 20-box stack
/// leans 10 cm within these 60 steps).
#[test]
fn a_short_stack_run_is_sane_in_every_engine() {
    let (s, mut engines) = dynamics::engines("stack", 1).unwrap();
    for e in engines.iter_mut() {
        let f = dynamics::run(e.as_mut(), &s, 60);
        assert!(f.failure.is_none(), "{}: {:?}", f.engine, f.failure);
        assert_eq!(f.steps, 60);
        let drift = f.max_drift.unwrap();
        assert!(drift.is_finite() && f.max_penetration.is_finite());
        assert!(f.median_ms > 0.0 && f.median_awake_ms > 0.0);
        if f.engine == "minkowski" {
            assert!(drift < 0.01, "drift {drift}");
            assert!(f.max_penetration < 0.01, "{}", f.max_penetration);
        }
    }
}
