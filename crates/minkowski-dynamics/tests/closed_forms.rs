//! The dynamics against closed forms: free fall, projectile, collisions of given
//! restitution, friction on a ramp, and a free spinning asymmetric body.

use minkowski::shape::{Cuboid, HalfSpace, Shape, Sphere, StaticShape};
use minkowski::{Pose, Real, Rotation, Vector};
use minkowski_dynamics::{BodyDesc, World, WorldSettings};

fn settings(gravity: Vector) -> WorldSettings {
    WorldSettings {
        gravity,
        enable_sleep: false,
        ..WorldSettings::default()
    }
}

fn ball(r: Real) -> Shape {
    Sphere::new(r).unwrap().into()
}

/// Semi-implicit Euler with `n` substeps per step is exact for the discrete sums:
/// after `k` substeps of `h`, `v = v₀ − g k h` and `y = y₀ + v₀ k h − g h² k(k+1)/2`; both
/// tend to the continuous `½ g t²` as `h → 0`.
#[test]
fn free_fall_and_projectile() {
    let g = 9.81;
    let mut w = World::new(settings(Vector::new(0.0, -g, 0.0)));
    let v0 = Vector::new(3.0, 5.0, -1.0);
    let mut d = BodyDesc::dynamic(
        ball(0.5),
        Pose::from_translation(Vector::new(0.0, 100.0, 0.0)).unwrap(),
    );
    d.linear_velocity = v0;
    let id = w.add_body(d).unwrap();
    let dt = 1.0 / 60.0;
    let steps = 120;
    for _ in 0..steps {
        w.step(dt).unwrap();
    }
    let b = w.body(id).unwrap();
    let n = w.settings.solver.substeps as f64;
    let h = dt as f64 / n;
    let k = steps as f64 * n;
    let t = steps as f64 * dt as f64;
    let y = 100.0 + v0.y as f64 * t - g as f64 * h * h * k * (k + 1.0) / 2.0;
    assert!(
        (b.position().y as f64 - y).abs() < 2e-3,
        "{} vs {y}",
        b.position().y
    );
    assert!((b.position().x as f64 - v0.x as f64 * t).abs() < 1e-3);
    assert!((b.position().z as f64 - v0.z as f64 * t).abs() < 1e-3);
    assert!((b.linear_velocity().y as f64 - (v0.y as f64 - g as f64 * t)).abs() < 1e-3);
    // Against the continuous parabola, within the scheme's O(h) error g·t·h/2.
    let yc = 100.0 + v0.y as f64 * t - 0.5 * g as f64 * t * t;
    assert!((b.position().y as f64 - yc).abs() < g as f64 * t * h);
}

/// Two balls head on (no gravity): the velocities after impact follow Newton's
/// restitution law and conserve momentum:
/// `v₁' = (m₁v₁ + m₂v₂ + m₂ e (v₂ − v₁)) / (m₁ + m₂)`.
#[test]
fn elastic_inelastic_and_partial_collisions() {
    for (e, m2_density) in [(1.0, 1.0), (0.0, 1.0), (0.5, 1.0), (1.0, 3.0), (0.5, 2.0)] {
        let mut w = World::new(settings(Vector::ZERO));
        let mut a = BodyDesc::dynamic(
            ball(0.5),
            Pose::from_translation(Vector::new(-2.0, 0.0, 0.0)).unwrap(),
        );
        a.linear_velocity = Vector::new(4.0, 0.0, 0.0);
        a.restitution = e;
        let mut b = BodyDesc::dynamic(
            ball(0.5),
            Pose::from_translation(Vector::new(2.0, 0.0, 0.0)).unwrap(),
        );
        b.linear_velocity = Vector::new(-2.0, 0.0, 0.0);
        b.restitution = e;
        b.density = m2_density;
        let (ia, ib) = (w.add_body(a).unwrap(), w.add_body(b).unwrap());
        for _ in 0..120 {
            w.step(1.0 / 60.0).unwrap();
        }
        let (ba, bb) = (w.body(ia).unwrap(), w.body(ib).unwrap());
        let (m1, m2) = (ba.mass() as f64, bb.mass() as f64);
        let (v1, v2) = (4.0, -2.0);
        let want1 = (m1 * v1 + m2 * v2 + m2 * e as f64 * (v2 - v1)) / (m1 + m2);
        let want2 = (m1 * v1 + m2 * v2 + m1 * e as f64 * (v1 - v2)) / (m1 + m2);
        let (g1, g2) = (ba.linear_velocity().x as f64, bb.linear_velocity().x as f64);
        assert!((g1 - want1).abs() < 2e-2 * 6.0, "e={e}: v1 {g1} vs {want1}");
        assert!((g2 - want2).abs() < 2e-2 * 6.0, "e={e}: v2 {g2} vs {want2}");
        // Momentum to rounding.
        assert!((m1 * g1 + m2 * g2 - (m1 * v1 + m2 * v2)).abs() < 1e-3 * (m1 + m2));
    }
}

/// A ball dropped on the ground bounces back with `e` times its impact speed; below
/// the restitution threshold it does not bounce.
#[test]
fn bounce_on_ground() {
    for e in [1.0, 0.5, 0.0] {
        let mut w = World::new(settings(Vector::new(0.0, -10.0, 0.0)));
        w.add_static(
            StaticShape::HalfSpace(HalfSpace::new(Vector::Y, 0.0).unwrap()),
            Pose::IDENTITY,
            0.5,
            e,
        )
        .unwrap();
        let mut d = BodyDesc::dynamic(
            ball(0.25),
            Pose::from_translation(Vector::new(0.0, 1.25, 0.0)).unwrap(),
        );
        d.restitution = e;
        let id = w.add_body(d).unwrap();
        // Falls 1 m: impact speed √(2·10·1) ≈ 4.47 m/s.
        let mut best_up: Real = 0.0;
        let mut impact: Real = 0.0;
        for _ in 0..60 {
            let before = w.body(id).unwrap().linear_velocity().y;
            w.step(1.0 / 60.0).unwrap();
            let after = w.body(id).unwrap().linear_velocity().y;
            if before < 0.0 && after >= -1e-3 && impact == 0.0 {
                impact = -before;
                best_up = after;
            }
        }
        assert!(impact > 4.0, "impact {impact}");
        let want = e * impact;
        assert!(
            (best_up - want).abs() < 0.05 * impact + 0.2,
            "e={e}: {best_up} vs {want}"
        );
    }
}

/// A box sliding down a ramp of angle θ with friction μ accelerates at
/// `g (sin θ − μ cos θ)` (to 1 %); with `μ > tan θ` it stays put.
#[test]
fn friction_ramp_mu_g() {
    let g: Real = 9.81;
    for (theta_deg, mu) in [(30.0 as Real, 0.2 as Real), (20.0, 0.1), (30.0, 0.8)] {
        let theta = theta_deg.to_radians();
        let mut w = World::new(settings(Vector::new(0.0, -g, 0.0)));
        let n = Vector::new(-theta.sin(), theta.cos(), 0.0);
        w.add_static(
            StaticShape::HalfSpace(HalfSpace::new(n, 0.0).unwrap()),
            Pose::IDENTITY,
            mu,
            0.0,
        )
        .unwrap();
        let rot = Rotation::from_rotation_z(theta);
        let center = n * 0.25;
        let mut d = BodyDesc::dynamic(
            Shape::from(Cuboid::new(Vector::new(0.5, 0.25, 0.5)).unwrap()),
            Pose::new(rot, center).unwrap(),
        );
        d.friction = mu;
        let id = w.add_body(d).unwrap();
        // The acceleration is measured after the soft contact has settled (the first
        // steps take the box's weight gradually): from t = 0.5 s to t = 1.5 s.
        let dt = 1.0 / 60.0;
        let down = Vector::new(-theta.cos(), -theta.sin(), 0.0);
        for _ in 0..30 {
            w.step(dt).unwrap();
        }
        let v_half = w.body(id).unwrap().linear_velocity().dot(down);
        let steps = 60;
        for _ in 0..steps {
            w.step(dt).unwrap();
        }
        let v = w.body(id).unwrap().linear_velocity().dot(down) - v_half;
        let a = (g * (theta.sin() - mu * theta.cos())).max(0.0);
        let want = a * steps as Real * dt;
        if a > 0.0 {
            assert!(
                (v - want).abs() < 1e-2 * want,
                "θ={theta_deg} μ={mu}: v {v} vs {want}"
            );
        } else {
            assert!(v.abs() < 1e-2, "θ={theta_deg} μ={mu}: sliding at {v}");
        }
    }
}

/// A free asymmetric box spinning near its major axis with a wobble: the angular
/// momentum (world) is kept, the energy never grows and drifts by little.
#[test]
fn free_spin_conserves_angular_momentum() {
    let mut w = World::new(settings(Vector::ZERO));
    let mut d = BodyDesc::dynamic(
        Shape::from(Cuboid::new(Vector::new(0.5, 1.0, 1.5)).unwrap()),
        Pose::IDENTITY,
    );
    d.angular_velocity = Vector::new(4.0, 0.3, 0.2);
    let id = w.add_body(d).unwrap();
    let (l0, e0) = {
        let b = w.body(id).unwrap();
        (b.angular_momentum(), b.kinetic_energy())
    };
    let mut e_prev = e0;
    for _ in 0..1000 {
        w.step(1.0 / 60.0).unwrap();
        let b = w.body(id).unwrap();
        let l = b.angular_momentum();
        assert!((l - l0).length() < 1e-2 * l0.length(), "L {l} vs {l0}");
        let e = b.kinetic_energy();
        assert!(
            e <= e_prev * (1.0 + 1e-4),
            "energy grew: {e} after {e_prev}"
        );
        e_prev = e;
        assert!((b.rotation().length() - 1.0).abs() < 1e-5);
    }
    assert!(
        (e0 - e_prev) / e0 < 0.05,
        "energy drift {}",
        (e0 - e_prev) / e0
    );
    // The body did turn: the wobble moved the spin axis in the body frame.
    let b = w.body(id).unwrap();
    assert!(b.rotation().angle_between(Rotation::IDENTITY) > 0.1);
}
