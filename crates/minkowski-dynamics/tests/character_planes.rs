//! The plane solver of the character controller against independent oracles: closed
//! forms for one, two and three planes, and Dykstra's alternating projections (in f64)
//! for random plane sets.

mod character_support;

use character_support::Rng;
use minkowski::{Real, Vector};
use minkowski_dynamics::character::{
    clip_velocity, solve_planes, CollisionPlane, PlaneError, PlaneStatus,
};

fn plane(n: Vector, d: Real) -> CollisionPlane {
    CollisionPlane {
        normal: n.normalize(),
        offset: d,
    }
}

/// Two planes with the same normal and different offsets (Box3D's parallel-planes
/// case): the farther one decides, alone.
#[test]
fn parallel_planes_take_the_larger_push() {
    let planes = [plane(Vector::Z, 0.5), plane(Vector::Z, 1.0)];
    let s = solve_planes(Vector::ZERO, &planes).unwrap();
    assert_eq!(s.status, PlaneStatus::Solved);
    assert!(
        (s.delta - Vector::new(0.0, 0.0, 1.0)).length() < 1e-6,
        "{:?}",
        s.delta
    );
    assert_eq!(s.active, [Some(1), None, None]);
}

/// A target deep behind two planes meeting at a shallow angle (as in Box3D's "game
/// planes" case, which projected Gauss–Seidel needs its full 20 sweeps for): the answer
/// equals Dykstra's projection, and lies on the plane the target is deepest behind.
#[test]
fn deep_target_behind_a_shallow_crease() {
    let n0 = Vector::new(0.0, -0.25, 0.97).normalize();
    let n1 = Vector::Z;
    let t = Vector::new(-2.5, 0.0, -70.0);
    let planes = [plane(n0, 0.4), plane(n1, 1.5)];
    let s = solve_planes(t, &planes).unwrap();
    assert_eq!(s.status, PlaneStatus::Solved);
    let d = |v: Vector| [v.x as f64, v.y as f64, v.z as f64];
    let oracle = [(d(n0), 0.4_f32 as f64), (d(n1), 1.5)];
    let want = dykstra(d(t), &oracle, 20_000);
    let got = d(s.delta);
    let err = (0..3)
        .map(|k| (got[k] - want[k]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(err < 1e-3 * 70.0 * 1e-2, "{got:?} vs {want:?}");
    for p in &planes {
        assert!(p.separation(s.delta) > -1e-4);
    }
}

/// Opposing planes asking for more than the room between them: no feasible point; the
/// compromise is the midpoint, and the status says so.
#[test]
fn squeezed_between_opposing_planes() {
    let planes = [plane(Vector::Y, 0.3), plane(-Vector::Y, 0.3)];
    let s = solve_planes(Vector::new(1.0, 0.0, 0.0), &planes).unwrap();
    assert_eq!(s.status, PlaneStatus::Infeasible);
    assert!(
        s.delta.y.abs() < 1e-5 && (s.delta.x - 1.0).abs() < 1e-5,
        "{:?}",
        s.delta
    );
}

/// Seed 004's glide: one plane removes the part into it; two planes leave the crease;
/// three independent planes stop; a velocity leaving every plane is untouched.
#[test]
fn clip_velocity_one_two_three_planes() {
    let v = Vector::new(1.0, -2.0, 0.5);
    let n = Vector::new(0.0, 1.0, 0.0);
    assert!((clip_velocity(v, &[n]) - (v - n * v.dot(n))).length() < 1e-6);
    // Floor and a wall x <= 0 (normal -x): the crease is the z axis.
    let w = -Vector::X;
    let c = clip_velocity(v, &[n, w]);
    assert!((c - Vector::new(0.0, 0.0, 0.5)).length() < 1e-6, "{c:?}");
    // Plus a wall z <= 0 (normal -z): stopped.
    let c = clip_velocity(v, &[n, w, -Vector::Z]);
    assert!(c.length() < 1e-6, "{c:?}");
    // Leaving all of them.
    let away = Vector::new(-1.0, 1.0, -1.0);
    assert_eq!(clip_velocity(away, &[n, w, -Vector::Z]), away);
    // Two walls at an acute angle, walking into the wedge: stopped (a sequential clip
    // would push it back into the first wall).
    let a = 20.0_f32.to_radians() as Real;
    let w1 = Vector::new(a.cos(), 0.0, a.sin());
    let w2 = Vector::new(a.cos(), 0.0, -a.sin());
    let c = clip_velocity(Vector::new(-1.0, 0.0, 0.1), &[w1, w2]);
    assert!(c.length() < 1e-6, "{c:?}");
}

#[test]
fn bad_planes_are_refused() {
    assert_eq!(
        solve_planes(Vector::ZERO, &[plane(Vector::Y, 0.0); 17]),
        Err(PlaneError::TooManyPlanes { got: 17 })
    );
    let bad = CollisionPlane {
        normal: Vector::new(0.0, 2.0, 0.0),
        offset: 0.0,
    };
    assert_eq!(
        solve_planes(Vector::ZERO, &[bad]),
        Err(PlaneError::BadPlane { index: 0 })
    );
    let nan = CollisionPlane {
        normal: Vector::Y,
        offset: Real::NAN,
    };
    assert_eq!(
        solve_planes(Vector::ZERO, &[nan]),
        Err(PlaneError::BadPlane { index: 0 })
    );
    assert_eq!(
        solve_planes(Vector::new(Real::NAN, 0.0, 0.0), &[]),
        Err(PlaneError::BadTarget)
    );
}

type D3 = [f64; 3];

fn dot(a: D3, b: D3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Dykstra's alternating projections onto the half-spaces (f64): converges to the
/// projection of `t` onto their intersection (Boyle & Dykstra 1986).
fn dykstra(t: D3, planes: &[(D3, f64)], sweeps: usize) -> D3 {
    let mut x = t;
    let mut inc = vec![[0.0; 3]; planes.len()];
    for _ in 0..sweeps {
        for (k, (n, d)) in planes.iter().enumerate() {
            let y = [x[0] + inc[k][0], x[1] + inc[k][1], x[2] + inc[k][2]];
            let s = dot(*n, y) - d;
            let p = if s < 0.0 {
                [y[0] - s * n[0], y[1] - s * n[1], y[2] - s * n[2]]
            } else {
                y
            };
            inc[k] = [y[0] - p[0], y[1] - p[1], y[2] - p[2]];
            x = p;
        }
    }
    x
}

/// Random feasible plane sets (1 to 6 planes, all through points a known feasible
/// point satisfies): the solver's answer equals Dykstra's, and satisfies every plane.
/// Counts that the interesting active-set sizes (1, 2, 3) all occur.
#[test]
fn random_plane_sets_match_dykstra() {
    let mut rng = Rng::new(0xC4A2_0001);
    let mut by_active = [0usize; 4];
    for case in 0..400 {
        let m = 1 + (rng.next_u64() % 6) as usize;
        // A feasible point f; each plane passes at a random distance below it.
        let f = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        ];
        let mut planes = Vec::new();
        let mut oracle = Vec::new();
        for _ in 0..m {
            let n = rng.dir();
            let d = dot(n, f) - rng.range(0.0, 0.5);
            let nr = Vector::new(n[0] as Real, n[1] as Real, n[2] as Real);
            // The oracle uses the plane exactly as the solver sees it (rounded).
            let nd = [nr.x as f64, nr.y as f64, nr.z as f64];
            let l = dot(nd, nd).sqrt();
            oracle.push(([nd[0] / l, nd[1] / l, nd[2] / l], d as Real as f64));
            planes.push(plane(nr, d as Real));
        }
        let t = [
            rng.range(-3.0, 3.0),
            rng.range(-3.0, 3.0),
            rng.range(-3.0, 3.0),
        ];
        let s = solve_planes(
            Vector::new(t[0] as Real, t[1] as Real, t[2] as Real),
            &planes,
        )
        .unwrap();
        assert_ne!(s.status, PlaneStatus::Infeasible, "case {case}");
        let want = dykstra(t, &oracle, 20_000);
        let got = [s.delta.x as f64, s.delta.y as f64, s.delta.z as f64];
        let err =
            ((got[0] - want[0]).powi(2) + (got[1] - want[1]).powi(2) + (got[2] - want[2]).powi(2))
                .sqrt();
        assert!(err < 2e-4, "case {case}: {got:?} vs {want:?} ({m} planes)");
        for (n, d) in &oracle {
            assert!(dot(*n, got) - d > -1e-4, "case {case}: violates a plane");
        }
        by_active[s.active.iter().filter(|a| a.is_some()).count()] += 1;
    }
    // Every active-set size is exercised.
    for (k, count) in by_active.iter().enumerate() {
        assert!(
            *count >= 10,
            "active sets of size {k}: only {count} cases ({by_active:?})"
        );
    }
}
