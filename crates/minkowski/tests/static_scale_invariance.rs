//! Static geometry at every legal size answers as its unit-size version does (issue 17,
//! class 4, for the static queries): shapes of every kind against a heightfield, a
//! triangle mesh and a half-space at unit size, then the same scene scaled by powers of
//! two from far below the arithmetic's comfortable range (f32: 2⁻¹²⁰; f64: 2⁻¹⁰⁰⁰),
//! where the squared lengths the contact paths form underflow, up to near the largest
//! legal size. Scaling by a power of two is exact, so the unit-size answer, scaled, is the
//! oracle (itself held to brute force by `static_geometry.rs` and `static_ball.rs`).
//! `--nocapture` prints the sweep table (largest error per scale).

// Conversions to f64 are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::static_sets::{grid_field, grid_mesh, Cells};
use common::{random_shape, Rng, ALL_KINDS};
use minkowski::query::compound::Collider;
use minkowski::query::manifold::Manifold;
use minkowski::query::static_dispatch as sd;
use minkowski::query::Motion;
use minkowski::query::QueryOptions;
use minkowski::query::{Ray, RayOptions};
use minkowski::shape::{HalfSpace, Shape, StaticShape, TriMesh, TriMeshFlags};
use minkowski::{Pose, Real, Rotation, Vector};

/// The heights of the test ground at unit scale: a gentle, exactly representable relief.
fn relief(i: usize, j: usize) -> Option<Real> {
    Some([0.0, 0.25, 0.125, 0.375][(i * 3 + j) % 4])
}

/// A closed box mesh of half extents (1.5, 0.5, 1.5) · `f` centred on the origin, its
/// twelve triangles oriented outwards.
fn box_mesh(f: Real) -> TriMesh {
    // (The orientation is decided at unit size: its products underflow at tiny `f`.)
    let h = Vector::new(1.5, 0.5, 1.5);
    let v: Vec<Vector> = (0..8)
        .map(|k| {
            let s = |bit: usize| if k & bit != 0 { 1.0 } else { -1.0 };
            Vector::new(s(1) * h.x, s(2) * h.y, s(4) * h.z)
        })
        .collect();
    // Each face's four corners in order around it.
    let faces = [
        [0, 2, 6, 4],
        [1, 3, 7, 5],
        [0, 1, 5, 4],
        [2, 3, 7, 6],
        [0, 1, 3, 2],
        [4, 5, 7, 6],
    ];
    let mut t = Vec::new();
    for q in faces {
        for tri in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
            let [a, b, c] = tri.map(|i| v[i as usize]);
            // Outwards: the normal along the centroid's direction.
            let out = (b - a).cross(c - a).dot(a + b + c) > 0.0;
            t.push(if out { tri } else { [tri[0], tri[2], tri[1]] });
        }
    }
    let v = v.into_iter().map(|x| x * f).collect();
    TriMesh::new(v, t, TriMeshFlags::CLOSED).unwrap()
}

/// The statics at scale `f`: a 6 × 6 field, a 6 × 6 mesh of the same relief
/// (alternating diagonals), a tilted half-space and a closed box mesh.
fn statics(f: Real) -> [(&'static str, StaticShape); 4] {
    let n = 6;
    let field = grid_field(n, f, relief);
    // The mesh's heights from its own (scaled) coordinates, exactly as the field's.
    let mesh = grid_mesh(n, f, Cells::Alternating, |x, z| {
        let (j, i) = ((x / f + 3.0) as usize, (z / f + 3.0) as usize);
        relief(i, j).unwrap() * f
    });
    let plane = HalfSpace::new(Vector::new(0.0, 1.0, 0.0), 0.125 * f).unwrap();
    [
        ("field", field.into()),
        ("mesh", mesh.into()),
        ("halfspace", plane.into()),
        ("closed box", box_mesh(f).into()),
    ]
}

fn scaled_pose(p: &Pose, f: Real) -> Pose {
    Pose::new(p.rotation(), p.translation() * f).unwrap()
}

#[test]
fn static_scenes_of_every_scale_answer_as_their_unit_versions() {
    let exponents: &[i32] = if cfg!(minkowski_f64) {
        &[
            -1000, -900, -530, -520, -300, -262, -258, -100, -40, 50, 150, 190,
        ]
    } else {
        &[
            -120, -100, -80, -74, -72, -68, -60, -40, -35, -33, -20, 10, 22,
        ]
    };
    let tol = if cfg!(minkowski_f64) { 1e-9 } else { 2e-4 };
    // An error above `k` tolerances, or NaN.
    let beyond = |e: f64, k: f64| e.is_nan() || e > k * tol;
    let mut worst = vec![0.0f64; exponents.len()];
    let mut failures = Vec::new();
    let mut rng = Rng::new(0x0057_A71C);
    let opts = QueryOptions::default();
    let units = statics(1.0);
    // The statics at the origin, and placed (turned and moved; the move scaled with
    // the scene).
    let turned = Rotation::from_axis_angle(Vector::new(0.6, 0.0, 0.8), 0.3);
    let placements = [
        Pose::IDENTITY,
        Pose::new(turned, Vector::new(0.5, -0.25, 1.0)).unwrap(),
    ];
    // Within a margin, so that near misses have manifolds too.
    let margin = 0.05;
    let mut cases = 0;
    for &kind in ALL_KINDS.iter() {
        for _ in 0..6 {
            let (b, _) = random_shape(&mut rng, kind, 0.6);
            let t = Vector::new(
                rng.range(-2.0, 2.0) as Real,
                rng.range(-0.3, 1.2) as Real,
                rng.range(-2.0, 2.0) as Real,
            );
            let pose = Pose::new(rng.rotation(), t).unwrap();
            for (si, (name, s)) in units.iter().enumerate() {
                let cb: Collider = b.clone().into();
                let ps = &placements[cases % 2];
                let unit_c = sd::contact(s, ps, &cb, &pose, &opts);
                let unit_d = sd::closest_points(s, ps, &cb, &pose, &opts).distance;
                let unit_i = sd::intersects(s, ps, &cb, &pose, &opts);
                let unit_m = sd::manifolds(s, ps, &cb, &pose, margin, &opts);
                // A ray down through B's position, and B cast down and sideways (the
                // velocity scales with the scene, so times do not).
                let down = [Vector::new(0.0, -1.0, 0.0), Vector::new(0.3, -1.0, 0.2)][cases % 2];
                let ray = Ray::new(pose.translation() - down * 2.0, down);
                // B's centre projected on the static.
                let centre = pose.translation();
                let unit_p = sd::project_point(s, ps, centre, &opts).unwrap();
                let rays = RayOptions::default();
                let unit_r = sd::cast_ray(s, ps, &ray, &rays).unwrap().hit;
                let v = Vector::new(0.5, -1.0, 0.25);
                let cast = |s: &StaticShape, ps: &Pose, b: &Collider, q: &Pose, f: Real| {
                    let (z, m) = (Motion::ZERO, Motion::linear(v * f));
                    sd::cast(s, ps, z, b, q, m, 4.0, 0.0, &opts).unwrap()
                };
                let unit_k = cast(s, ps, &cb, &pose, 1.0);
                cases += 1;
                for (slot, &e) in exponents.iter().enumerate() {
                    let f = (2.0 as Real).powi(e);
                    let scaled = statics(f);
                    let ss = &scaled[si].1;
                    let bs: Collider = Shape::scaled(&b, f).unwrap().into();
                    let qs = scaled_pose(&pose, f);
                    let at = scaled_pose(ps, f);
                    let c = sd::contact(ss, &at, &bs, &qs, &opts);
                    let d = sd::closest_points(ss, &at, &bs, &qs, &opts).distance;
                    let i = sd::intersects(ss, &at, &bs, &qs, &opts);
                    let m = sd::manifolds(ss, &at, &bs, &qs, margin * f, &opts);
                    let back = |x: Real| x as f64 / f as f64;
                    let label = format!("{kind} on {name} at 2^{e}");
                    let ray_s = Ray::new(ray.origin * f, ray.dir);
                    let r = sd::cast_ray(ss, &at, &ray_s, &rays).unwrap().hit;
                    match (r, unit_r) {
                        (None, None) => {}
                        (Some(r), Some(u)) => {
                            let terr = (back(r.toi) - u.toi as f64).abs();
                            worst[slot] = worst[slot].max(terr);
                            if beyond(terr, 4.0) || (r.normal - u.normal).length() > 1e-3 {
                                failures.push(format!("{label}: ray {r:?} vs unit {u:?}"));
                            }
                        }
                        (r, u) => failures.push(format!("{label}: ray {r:?} vs unit {u:?}")),
                    }
                    let p = sd::project_point(ss, &at, centre * f, &opts).unwrap();
                    let perr = (back(p.distance) - unit_p.distance as f64).abs();
                    worst[slot] = worst[slot].max(perr);
                    if p.inside != unit_p.inside || beyond(perr, 4.0) {
                        failures.push(format!("{label}: projection {p:?} vs unit {unit_p:?}"));
                    }
                    let k = cast(ss, &at, &bs, &qs, f);
                    // Times are in the velocity's unit: the same at every scale.
                    let terr = ((k.toi - unit_k.toi) as f64).abs();
                    if k.hit != unit_k.hit || (k.hit && beyond(terr, 16.0)) {
                        failures.push(format!("{label}: cast {k:?} vs unit {unit_k:?}"));
                    }
                    let err = (back(c.distance) - unit_c.distance as f64)
                        .abs()
                        .max((back(d) - unit_d as f64).abs());
                    let nerr = (c.normal - unit_c.normal).length() as f64;
                    worst[slot] = worst[slot].max(err);
                    if beyond(err, 4.0) || (unit_c.distance < -0.01 && nerr > 1e-2) {
                        failures.push(format!(
                            "{label}: contact {:?}/{:?} vs unit {:?}/{:?}",
                            back(c.distance),
                            c.normal,
                            unit_c.distance,
                            unit_c.normal
                        ));
                    }
                    if i != unit_i && unit_c.distance.abs() > 1e-3 {
                        failures.push(format!("{label}: intersects {i} vs unit {unit_i}"));
                    }
                    if m.len() != unit_m.len() {
                        failures.push(format!(
                            "{label}: {} manifolds vs unit {}",
                            m.len(),
                            unit_m.len()
                        ));
                    }
                    // Each manifold: its normal and its deepest point's distance.
                    let deepest = |m: &Manifold| {
                        m.points()
                            .iter()
                            .map(|p| p.distance)
                            .fold(Real::INFINITY, Real::min)
                    };
                    for (x, y) in m.iter().zip(&unit_m) {
                        if x.points().len() != y.points().len() {
                            failures.push(format!("{label}: manifold {x:?} vs unit {y:?}"));
                        }
                        let derr = (back(deepest(x)) - deepest(y) as f64).abs();
                        worst[slot] = worst[slot].max(derr);
                        if (x.normal - y.normal).length() > 1e-3 || beyond(derr, 4.0) {
                            failures.push(format!("{label}: manifold {x:?} vs unit {y:?}"));
                        }
                    }
                }
            }
        }
    }
    println!("static scale sweep: largest |distance error| (contact, distance, manifolds; unit lengths) per scale");
    for (e, w) in exponents.iter().zip(&worst) {
        println!("  2^{e}: {w:.3e}");
    }
    println!("{cases} cases, {} failures", failures.len());
    for f in failures.iter().take(3000) {
        println!("{f}");
    }
    assert!(failures.is_empty());
}
