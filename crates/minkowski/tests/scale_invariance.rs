//! Problems of every legal size answer as their unit-size versions do (issue 17, class
//! 4): every kind pair at unit size, then the same problem scaled by powers of two from
//! far below the arithmetic's comfortable range (f32: 2⁻¹²⁰; f64: 2⁻¹⁰⁰⁰), where the
//! squares and cubes GJK forms would underflow, up to near the largest legal size.
//! `--nocapture` prints the sweep table (largest error per scale). Scaling by a power of two is exact, so
//! the unit-size answer, scaled, is the oracle (itself held to the exact and searched
//! oracles by `oracle_pairs.rs`).

// Conversions to f64 are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::{random_pose, random_shape, Rng, ALL_KINDS, REL_TOL};
use minkowski::query;
use minkowski::shape::Shape;
use minkowski::{Pose, Real};

fn scaled_pose(p: &Pose, f: Real) -> Pose {
    Pose::new(p.rotation(), p.translation() * f).unwrap()
}

#[test]
fn problems_of_every_scale_answer_as_their_unit_versions() {
    // From far below the rescaling threshold to near the largest legal size
    // (`shape::MAX_MAGNITUDE`: 1e8 ≈ 2^26.6 in f32, 1e60 ≈ 2^199 in f64).
    let exponents: &[i32] = if cfg!(minkowski_f64) {
        &[-1000, -900, -300, -100, -40, 50, 150, 190]
    } else {
        &[-120, -100, -60, -40, -20, 10, 22]
    };
    // The largest error per scale, relative to the scene: the sweep table.
    let mut worst = vec![0.0f64; exponents.len()];
    let mut rng = Rng::new(0x5CA1E);
    let (mut cases, mut units, mut apart, mut deep) = (0, 0, 0, 0);
    for &ka in ALL_KINDS.iter() {
        for &kb in ALL_KINDS.iter() {
            for _ in 0..4 {
                let (a, _) = random_shape(&mut rng, ka, 1.0);
                let (b, _) = random_shape(&mut rng, kb, 1.0);
                let pa = random_pose(&mut rng, 1.0);
                let extent = [0.3, 1.5, 3.0][rng.below(3)];
                let pb = random_pose(&mut rng, extent);
                let unit = query::contact(&a, &pa, &b, &pb);
                let unit_d = query::distance(&a, &pa, &b, &pb);
                let scene = 2.0 + (pa.translation() - pb.translation()).length() as f64;
                let tol = 4.0 * REL_TOL * scene;
                for (slot, &e) in exponents.iter().enumerate() {
                    let f = (2.0 as Real).powi(e);
                    let (sa, sb): (Shape, Shape) = (a.scaled(f).unwrap(), b.scaled(f).unwrap());
                    let (qa, qb) = (scaled_pose(&pa, f), scaled_pose(&pb, f));
                    let c = query::contact(&sa, &qa, &sb, &qb);
                    let label = format!("{ka}-{kb} at 2^{e}: unit {unit:?}, tiny {c:?}");
                    let back = |x: Real| x as f64 / f as f64;
                    let err = (back(c.distance) - unit.distance as f64).abs() / scene;
                    worst[slot] = worst[slot].max(err);
                    assert!(
                        (back(c.distance) - unit.distance as f64).abs() <= tol,
                        "{label}"
                    );
                    assert!(
                        back(c.lower_bound) <= back(c.distance)
                            && back(c.distance) <= back(c.upper_bound),
                        "{label}"
                    );
                    // The protocol identity and the points, back at unit size.
                    let (pa_s, pb_s) = (c.point_a / f, c.point_b / f);
                    assert!(
                        ((pb_s - pa_s) - c.normal * (c.distance / f)).length() as f64 <= tol,
                        "{label}"
                    );
                    // Normals agree where the unit answer's normal is unique (clearly
                    // apart or clearly penetrating by more than a tolerance).
                    if unit.distance.abs() as f64 > 100.0 * tol
                        && unit.status == query::QueryStatus::Converged
                    {
                        assert!(c.normal.dot(unit.normal) > 0.99, "{label}");
                    }
                    let d = query::distance(&sa, &qa, &sb, &qb);
                    assert!(
                        (back(d.distance) - unit_d.distance as f64).abs() <= tol,
                        "{label}: distance {d:?} vs {unit_d:?}"
                    );
                    if unit.distance.abs() as f64 > tol {
                        assert_eq!(
                            query::intersects(&sa, &qa, &sb, &qb),
                            unit.distance < 0.0,
                            "{label}"
                        );
                    }
                    // Manifolds: the same number of points, each with the protocol
                    // identity, and depths as at unit size.
                    let m = query::manifold(&sa, &qa, &sb, &qb, 0.0);
                    let unit_m = query::manifold(&a, &pa, &b, &pb, 0.0);
                    if unit.distance.abs() as f64 > 100.0 * tol {
                        assert_eq!(m.len(), unit_m.len(), "{label}: manifold {m:?}");
                    }
                    for p in m.points() {
                        let (p_a, p_b) = (p.point_a / f, p.point_b / f);
                        assert!(
                            ((p_b - p_a) - m.normal * (p.distance / f)).length() as f64 <= tol,
                            "{label}: manifold point {p:?}"
                        );
                        assert!(
                            back(p.distance)
                                <= unit_m
                                    .points()
                                    .iter()
                                    .map(|q| q.distance as f64)
                                    .fold(f64::NEG_INFINITY, f64::max)
                                    + tol,
                            "{label}: manifold point {p:?} vs {unit_m:?}"
                        );
                    }
                    let cp = query::closest_points(&sa, &qa, &sb, &qb);
                    assert!(
                        (back(cp.distance) - unit_d.distance as f64).abs() <= tol,
                        "{label}: closest points {cp:?}"
                    );
                    cases += 1;
                }
                units += 1;
                if unit.distance as f64 > tol {
                    apart += 1;
                } else if (unit.distance as f64) < -tol {
                    deep += 1;
                }
            }
        }
    }
    eprintln!(
        "scale sweep ({} precision): largest |distance error| / scene size per scale",
        if cfg!(minkowski_f64) { "f64" } else { "f32" }
    );
    for (e, w) in exponents.iter().zip(&worst) {
        eprintln!("  2^{e:<6} {w:.2e}");
    }
    // Both sides of contact are reached.
    assert!(
        apart > units / 10 && deep > units / 10,
        "{apart} apart, {deep} deep of {units}"
    );
    assert_eq!(cases, units * exponents.len());
}

/// Rays at convex shapes of every legal size hit them as at unit size: the shape, its
/// pose and the ray's origin scaled by `2^e`, the direction kept, so the time scales by
/// `2^e` too. Rays from outside aimed at a point near the shape's centre (a hit) and
/// directly away from it (a miss). Measured before `ray::solve_small`, in f32: a pyramid
/// of 2⁻⁴⁰ hit at the wrong time, one of 2⁻⁸⁰ (and an ellipsoid) at time 0 from outside,
/// a cylinder of 2⁻⁸⁰ at the wrong time.
#[test]
fn rays_at_every_scale_hit_as_at_unit_size() {
    use minkowski::query::{cast_ray, Ray, RayOptions};
    use minkowski::support::SupportMap;
    let exponents: &[i32] = if cfg!(minkowski_f64) {
        &[-1000, -600, -300, -100, -40, 50, 150, 190]
    } else {
        &[-120, -100, -80, -60, -40, -35, -20, 10, 22]
    };
    let mut rng = Rng::new(0x5CA1E + 1);
    let (mut hits, mut checked) = (0, 0);
    for &kind in ALL_KINDS.iter() {
        for _ in 0..6 {
            let (shape, _) = random_shape(&mut rng, kind, 1.0);
            let pose = random_pose(&mut rng, 1.0);
            let centre = pose.transform_point(shape.local_center());
            let aim = centre + unit_dir(&mut rng) * (0.05 * shape.bounding_radius());
            let origin = centre + unit_dir(&mut rng) * (3.0 * shape.bounding_radius() + 0.5);
            for (toward, dir) in [(true, aim - origin), (false, origin - aim)] {
                let dir = dir.normalize();
                let unit = cast_ray(
                    &shape,
                    &pose,
                    &Ray::new(origin, dir),
                    &RayOptions::default(),
                )
                .unwrap()
                .hit;
                // (A flat or point shape — a segment, a point — is missed by a ray aimed
                // beside its centre: nothing to compare but a miss, which rounding may not
                // keep.)
                if toward && unit.is_none() {
                    continue;
                }
                assert!(toward || unit.is_none(), "{kind} at unit size: {unit:?}");
                hits += usize::from(unit.is_some());
                for &e in exponents {
                    let f = (2.0 as Real).powi(e);
                    let (s, p) = (shape.scaled(f).unwrap(), scaled_pose(&pose, f));
                    let ray = Ray::new(origin * f, dir);
                    let got = cast_ray(&s, &p, &ray, &RayOptions::default()).unwrap().hit;
                    let label = format!("{kind} at 2^{e}: unit {unit:?}, scaled {got:?}");
                    checked += 1;
                    match (unit, got) {
                        (None, None) => {}
                        (Some(u), Some(g)) => {
                            let toi = g.toi as f64 / f as f64;
                            let scene = 4.0 + 4.0 * shape.bounding_radius() as f64;
                            assert!(
                                (toi - u.toi as f64).abs() <= 4.0 * REL_TOL * scene,
                                "{label}"
                            );
                            assert!(!g.inside, "{label}");
                            assert!((g.normal - u.normal).length() <= 1e-3, "{label}");
                        }
                        _ => panic!("{label}"),
                    }
                }
            }
        }
    }
    assert!(hits >= 4 * ALL_KINDS.len(), "{hits} hits");
    assert!(checked > 100);
}

/// A random unit vector.
fn unit_dir(rng: &mut Rng) -> minkowski::Vector {
    let d = rng.dir();
    minkowski::Vector::new(d.x as Real, d.y as Real, d.z as Real).normalize()
}

/// Linear casts of every kind pair at every legal size hit as at unit size: shapes,
/// poses and velocities scaled by `2^e`, so the times do not change. B starts 5 apart and
/// moves towards A's centre. Measured before the general path kept the motion when it
/// rescales a tiny problem, in f32: sphere–sphere and sphere–point casts of 2⁻⁸⁰ and
/// below never met.
#[test]
fn linear_casts_at_every_scale_hit_as_at_unit_size() {
    use minkowski::query::{cast_shapes, CastInput, Motion, QueryOptions, ShapePair};
    use minkowski::support::SupportMap;
    let exponents: &[i32] = if cfg!(minkowski_f64) {
        &[-1000, -600, -300, -100, -40, 50, 150]
    } else {
        &[-120, -100, -80, -60, -40, -35, -20, 10, 20]
    };
    let opts = QueryOptions::default();
    let mut rng = Rng::new(0x5CA1E + 2);
    let (mut hits, mut checked) = (0, 0);
    for &ka in ALL_KINDS.iter() {
        for &kb in ALL_KINDS.iter() {
            let (a, _) = random_shape(&mut rng, ka, 1.0);
            let (b, _) = random_shape(&mut rng, kb, 1.0);
            let pa = random_pose(&mut rng, 0.3);
            let near = random_pose(&mut rng, 0.3);
            let away = minkowski::Vector::new(5.0, 0.3, 0.1);
            let pb = Pose::new(near.rotation(), near.translation() + away).unwrap();
            let ca = pa.transform_point(a.local_center());
            let v = (ca - pb.transform_point(b.local_center())) * 0.5;
            let cast = |a: &Shape, pa: Pose, b: &Shape, pb: Pose, v| {
                let pair = ShapePair::new(a, pa, b, pb);
                cast_shapes(
                    &CastInput::new(pair, Motion::ZERO, Motion::linear(v)),
                    &opts,
                )
                .unwrap()
            };
            let unit = cast(&a, pa, &b, pb, v);
            hits += usize::from(unit.hit);
            for &e in exponents {
                let f = (2.0 as Real).powi(e);
                let (sa, sb) = (a.scaled(f).unwrap(), b.scaled(f).unwrap());
                let got = cast(&sa, scaled_pose(&pa, f), &sb, scaled_pose(&pb, f), v * f);
                let label = format!("{ka}-{kb} at 2^{e}: unit {unit:?}, scaled {got:?}");
                checked += 1;
                assert_eq!(got.hit, unit.hit, "{label}");
                if unit.hit {
                    let err = (got.toi - unit.toi).abs() as f64;
                    assert!(err <= 8.0 * REL_TOL * (1.0 + unit.toi as f64), "{label}");
                    assert!((got.normal - unit.normal).length() <= 1e-2, "{label}");
                }
            }
        }
    }
    assert!(hits * 2 >= ALL_KINDS.len() * ALL_KINDS.len(), "{hits} hits");
    assert!(checked > 500);
}
