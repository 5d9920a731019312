//! Ray casts, point projections and shape casts against independent f64 oracles.
//!
//! The oracle for a ray (or for a sphere cast against any shape, which is a ray cast
//! against the shape inflated by the radius) is the exact f64 distance from a point to
//! the shape (`OShape::outside_distance`, tests/common): along a line it is a convex
//! function of time, so its first zero is found by a golden-section search for a zero
//! followed by bisection to 1e-12 of the interval. The oracle for polytope pairs is the
//! exact brute-force signed distance of their vertex sets (`poly_oracle`), bisected the
//! same way. Curved pairs without an exact distance are held to the properties the issue
//! names: at the time of impact the shapes are at the target distance, and no sampled
//! earlier time has them closer.
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::*;
use glam::DVec3;
use minkowski::query::{
    self, bisection, cast_ray, cast_shapes, project_point, CastInput, CastStart, Motion,
    QueryOptions, Ray, RayOptions, ShapePair,
};
use minkowski::shape::{Cuboid, PointShape, RoundedShape, Shape, Sphere};
use minkowski::{Pose, Real, Vector};

/// Length tolerance of the answers for a scene of size `scale`.
fn tol(scale: f64) -> f64 {
    REL_TOL * scale
}

/// The least `t` in `[0, t_max]` with `f(t) <= zero`, for a convex `f >= 0`; `None` when
/// `f` stays above `zero` (its minimum found by golden section).
fn first_zero(f: impl Fn(f64) -> f64, t_max: f64, zero: f64) -> Option<f64> {
    if f(0.0) <= zero {
        return Some(0.0);
    }
    let g = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (0.0, t_max);
    let mut m1 = hi - g * (hi - lo);
    let mut m2 = lo + g * (hi - lo);
    let (mut f1, mut f2) = (f(m1), f(m2));
    let mut found = None;
    for _ in 0..200 {
        if f1 <= zero {
            found = Some(m1);
            break;
        }
        if f2 <= zero {
            found = Some(m2);
            break;
        }
        if f1 < f2 {
            hi = m2;
            m2 = m1;
            f2 = f1;
            m1 = hi - g * (hi - lo);
            f1 = f(m1);
        } else {
            lo = m1;
            m1 = m2;
            f1 = f2;
            m2 = lo + g * (hi - lo);
            f2 = f(m2);
        }
    }
    let mut hi = found.or_else(|| (f(t_max) <= zero).then_some(t_max))?;
    let mut lo = 0.0;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) <= zero {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// The minimum of a convex `f` on `[0, t_max]` (golden section), as the least value
/// sampled: where `f` is zero on a chord, the search can walk off its end, and on a
/// needle the oracle's distance just beyond it carries the noise of the needle's sliver
/// triangles.
fn min_of(f: impl Fn(f64) -> f64, t_max: f64) -> f64 {
    let g = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (0.0, t_max);
    let mut least = f(0.0).min(f(t_max));
    for _ in 0..200 {
        let m1 = hi - g * (hi - lo);
        let m2 = lo + g * (hi - lo);
        let (f1, f2) = (f(m1), f(m2));
        least = least.min(f1).min(f2);
        if f1 < f2 {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    least.min(f(0.5 * (lo + hi)))
}

/// A random ray aimed near `shape` (placed at `placed`): from 2 to 4 sizes away,
/// towards a point of a box 1.3 times the shape's.
fn random_ray(rng: &mut Rng, placed: &Placed, size: f64) -> Ray {
    let origin = placed.pos + rng.dir() * size * rng.range(2.0, 4.0);
    let aim = placed.pos
        + DVec3::new(
            rng.range(-1.3, 1.3),
            rng.range(-1.3, 1.3),
            rng.range(-1.3, 1.3),
        ) * size;
    let dir = (aim - origin) * rng.range(0.3, 3.0);
    Ray::new(v3(origin), v3(dir))
}

/// Checks one ray answer against the oracle; `None` when the case is too close to
/// grazing to judge (the ray's chord shorter than 5% of the size, or a miss by less).
fn check_ray(
    shape: &Shape,
    placed: &Placed,
    pose: &Pose,
    ray: &Ray,
    size: f64,
    solid: bool,
) -> Option<bool> {
    let o = d3(ray.origin);
    let d = d3(ray.dir);
    let dl = d.length();
    let t_max = 8.0 * size / dl;
    let f = |t: f64| placed.outside_distance(o + d * t);
    let zero = 1e-13 * size;
    let hit = first_zero(f, t_max, zero);
    let got = cast_ray(
        shape,
        pose,
        ray,
        &RayOptions {
            solid,
            ..Default::default()
        },
    )
    .unwrap();
    let scale = 5.0 * size;
    match hit {
        None => {
            if min_of(f, t_max) < 0.05 * size {
                return None;
            }
            assert!(
                got.hit.is_none(),
                "{shape:?} {ray:?}: oracle misses, got {got:?}"
            );
        }
        Some(t_in) => {
            // The chord: the last zero, from the far end.
            let back = |t: f64| placed.outside_distance(o + d * (t_max - t));
            let t_out = t_max - first_zero(back, t_max, zero).unwrap();
            if (t_out - t_in) * dl < 0.05 * size && t_in > 0.0 {
                return None;
            }
            let h = got
                .hit
                .unwrap_or_else(|| panic!("{shape:?} {ray:?}: oracle hits at {t_in}, got a miss"));
            let n = d3(h.normal);
            assert!((n.length() - 1.0).abs() < 1e-4, "normal {n}");
            let inside = t_in == 0.0;
            assert_eq!(h.inside, inside, "{shape:?} {ray:?}");
            let expect = match (inside, solid) {
                (true, true) => 0.0,
                (true, false) => t_out,
                (false, _) => t_in,
            };
            let t = h.toi as f64;
            let p = o + d * t;
            if !(inside && solid) {
                // On the surface (within the tolerance), at the oracle's time, with a
                // supporting normal.
                assert!(
                    placed.outside_distance(p) <= tol(scale),
                    "{shape:?} {ray:?}: hit point {p} is {} outside",
                    placed.outside_distance(p)
                );
                assert!(
                    (t - expect).abs() * dl <= 50.0 * tol(scale),
                    "{shape:?} {ray:?} solid {solid}: toi {t}, oracle {expect}"
                );
                let gap = placed.h(n) - n.dot(p);
                assert!(
                    gap.abs() <= 10.0 * tol(scale),
                    "{shape:?} {ray:?}: normal {n} does not support the shape at the hit \
                     (h(n) − n·p = {gap})"
                );
                assert!((d3(h.point) - p).length() <= tol(scale));
            } else {
                assert_eq!(t, 0.0);
            }
        }
    }
    Some(hit.is_some())
}

#[test]
fn rays_against_every_shape_match_the_f64_oracle() {
    let mut rng = Rng::new(0x7a1);
    let mut kinds: Vec<&str> = ALL_KINDS.to_vec();
    // The sphere once more through GJK (a rounded point), beside its closed form.
    kinds.push("rounded_point");
    let mut counts = (0, 0, 0);
    for kind in &kinds {
        for case in 0..150 {
            let size = [1e-3, 1.0, 1e3][case % 3];
            let (shape, oshape) = if *kind == "rounded_point" {
                let r = r(size * rng.range(0.3, 1.0));
                (
                    Shape::from(RoundedShape::new(PointShape::ORIGIN.into(), r).unwrap()),
                    OShape::Ball(r as f64),
                )
            } else {
                random_shape(&mut rng, kind, size)
            };
            if matches!(oshape, OShape::Ellipsoid(_)) {
                // Its oracle distance is exact only at 0 (membership): fine for rays.
            }
            let pose = random_pose(&mut rng, 3.0 * size);
            let placed = Placed::new(oshape, &pose);
            let ray = if case % 5 == 4 {
                // From inside (or on) the shape: its centre region.
                let c = placed.pos + rng.dir() * size * 0.05;
                Ray::new(v3(c), v3(rng.dir() * rng.range(0.5, 2.0)))
            } else {
                random_ray(&mut rng, &placed, size)
            };
            for solid in [true, false] {
                match check_ray(&shape, &placed, &pose, &ray, size, solid) {
                    Some(true) => counts.0 += 1,
                    Some(false) => counts.1 += 1,
                    None => counts.2 += 1,
                }
            }
        }
    }
    // Enough of each outcome to mean something.
    assert!(counts.0 > 1200 && counts.1 > 1200, "{counts:?}");
}

#[test]
fn ray_max_toi_is_inclusive_and_bounds_the_search() {
    let b = Shape::from(Cuboid::new(Vector::splat(1.0)).unwrap());
    let ray = Ray::new(Vector::new(-3.0, 0.0, 0.0), Vector::X);
    let at = |max_toi: Real| {
        cast_ray(
            &b,
            &Pose::IDENTITY,
            &ray,
            &RayOptions {
                max_toi,
                solid: true,
            },
        )
        .unwrap()
        .hit
    };
    assert_eq!(at(2.0).unwrap().toi, 2.0);
    assert!(at(1.999).is_none());
    // Through GJK (a rounded box of radius 0 is not a closed form): same rule.
    let rb = Shape::from(RoundedShape::new(b.clone(), 0.5).unwrap());
    let hit = cast_ray(&rb, &Pose::IDENTITY, &ray, &RayOptions::default())
        .unwrap()
        .hit
        .unwrap();
    assert!((hit.toi - 1.5).abs() < 1e-5, "{hit:?}");
    let short = cast_ray(
        &rb,
        &Pose::IDENTITY,
        &ray,
        &RayOptions {
            max_toi: 1.49,
            solid: true,
        },
    )
    .unwrap();
    assert!(short.hit.is_none());
}

#[test]
fn ray_input_errors_are_typed() {
    let b = Shape::from(Sphere::new(1.0).unwrap());
    let ok = RayOptions::default();
    let bad = [
        Ray::new(Vector::ZERO, Vector::ZERO),
        Ray::new(Vector::new(Real::NAN, 0.0, 0.0), Vector::X),
        Ray::new(Vector::ZERO, Vector::new(0.0, Real::INFINITY, 0.0)),
        Ray::new(
            Vector::splat(minkowski::shape::MAX_MAGNITUDE * 2.0),
            Vector::X,
        ),
    ];
    for ray in bad {
        assert!(cast_ray(&b, &Pose::IDENTITY, &ray, &ok).is_err(), "{ray:?}");
    }
    let neg = RayOptions {
        max_toi: -1.0,
        solid: true,
    };
    assert!(cast_ray(
        &b,
        &Pose::IDENTITY,
        &Ray::new(Vector::ZERO, Vector::X),
        &neg
    )
    .is_err());
}

#[test]
fn projections_match_the_oracle_for_every_shape() {
    let mut rng = Rng::new(0x9e0);
    for kind in ALL_KINDS.iter() {
        for case in 0..120 {
            let size = [1e-2, 1.0, 1e2][case % 3];
            let (shape, oshape) = random_shape(&mut rng, kind, size);
            let pose = random_pose(&mut rng, 2.0 * size);
            let placed = Placed::new(oshape, &pose);
            let q = placed.pos + rng.dir() * size * rng.range(0.0, 2.5);
            let p = project_point(&shape, &pose, v3(q)).unwrap();
            let scale = 4.0 * size;
            let out = placed.outside_distance(q);
            let solid = !matches!(*kind, "point" | "segment" | "triangle");
            // (The oracle's ellipsoid distance is exact only at 0.)
            if out > tol(scale) && *kind != "ellipsoid" {
                assert!(!p.inside, "{kind} {q}: outside by {out}, said inside");
                assert!(
                    ((p.distance as f64) - out).abs() <= tol(scale),
                    "{kind}: distance {} vs oracle {out}",
                    p.distance
                );
            }
            // The projected point is on the surface: in the shape, and for a solid shape
            // not deeper than the tolerance (any inward step leaves the surface).
            let pp = d3(p.point);
            assert!(
                placed.outside_distance(pp) <= tol(scale),
                "{kind}: point off"
            );
            assert!(
                ((pp - q).length() - (p.distance as f64).abs()).abs() <= tol(scale),
                "{kind}: |point − q| {} vs distance {}",
                (pp - q).length(),
                p.distance
            );
            if p.inside {
                assert!(solid && p.distance <= 0.0);
                // No surface point is nearer than the reported depth: every supporting
                // plane is at least that far from q.
                for _ in 0..16 {
                    let n = rng.dir();
                    let room = placed.h(n) - n.dot(q);
                    assert!(
                        room >= -(p.distance as f64) - tol(scale),
                        "{kind}: a plane {room} from q, depth said {}",
                        -p.distance
                    );
                }
            }
            if !solid {
                assert!(!p.inside && p.distance >= 0.0);
            }
        }
    }
}

/// Oracle of a cast where B is a ball of radius `rb` (centre `c0` moving by `rel` per
/// unit time relative to A): the first time the centre is within `rb + s` of A.
fn ball_cast_oracle(a: &Placed, c0: DVec3, rel: DVec3, rb: f64, s: f64, t_max: f64) -> Option<f64> {
    let f = |t: f64| (a.outside_distance(c0 + rel * t) - rb - s).max(0.0);
    first_zero(f, t_max, 0.0)
}

#[test]
fn ball_casts_against_every_shape_match_the_oracle() {
    let mut rng = Rng::new(0xca57);
    let opts = QueryOptions::default();
    let mut hits = 0;
    for kind in ALL_KINDS.iter() {
        if *kind == "ellipsoid" {
            // The oracle's ellipsoid distance is exact only at 0.
            continue;
        }
        for case in 0..90 {
            let size = [1e-2, 1.0, 1e2][case % 3];
            let (a, oa) = random_shape(&mut rng, kind, size);
            let pose_a = random_pose(&mut rng, 2.0 * size);
            let pa = Placed::new(oa, &pose_a);
            let rb = r(size * rng.range(0.1, 0.6));
            let b = Shape::from(Sphere::new(rb).unwrap());
            let c0 = pa.pos + rng.dir() * size * rng.range(2.5, 4.0);
            let aim = pa.pos + rng.dir() * size * rng.range(0.0, 1.2);
            let vb = (aim - c0) * rng.range(0.5, 2.0);
            let va = rng.dir() * size * rng.range(0.0, 0.3);
            let s = [0.0, 0.05 * size][case % 2];
            let pose_b = Pose::from_translation(v3(c0)).unwrap();
            let mut input = CastInput::new(
                ShapePair::new(&a, pose_a, &b, pose_b),
                Motion::linear(v3(va)),
                Motion::linear(v3(vb)),
            );
            input.target_distance = r(s);
            let got = cast_shapes(&input, &opts).unwrap();
            let rel = d3(input.motion_b.linear) - d3(input.motion_a.linear);
            let t_max = 10.0;
            let want = ball_cast_oracle(&pa, d3(pose_b.translation()), rel, rb as f64, s, t_max);
            let scale = 5.0 * size;
            let speed = rel.length();
            match want {
                None => {
                    // Skip near misses (the minimum gap within 2% of the size).
                    let f = |t: f64| pa.outside_distance(c0 + rel * t) - rb as f64 - s;
                    if min_of(f, t_max) < 0.02 * size {
                        continue;
                    }
                    assert!(!got.hit, "{kind}: oracle misses, got {got:?}");
                }
                Some(t) => {
                    assert!(
                        got.hit,
                        "{kind} case {case}: oracle hits at {t}, got {got:?}"
                    );
                    hits += 1;
                    let toi = got.toi as f64;
                    // Never after the oracle (beyond the tolerance), never short of the
                    // skin by more than the tolerance.
                    let late = (toi - t) * speed;
                    assert!(late <= 50.0 * tol(scale), "{kind}: toi {toi} vs {t}");
                    let c_at = c0 + rel * toi;
                    let gap = pa.outside_distance(c_at) - rb as f64 - s;
                    assert!(
                        gap <= 2.0 * tol(scale),
                        "{kind}: {gap} short of the skin at toi"
                    );
                    // The witnesses: A's on A, B's at the ball's surface, s apart along n.
                    let n = d3(got.normal);
                    assert!((n.length() - 1.0).abs() < 1e-4);
                    let a_at = Placed {
                        pos: pa.pos + d3(input.motion_a.linear) * toi,
                        ..pa.clone()
                    };
                    let pa_w = d3(got.point_a);
                    let pb_w = d3(got.point_b);
                    assert!(
                        a_at.outside_distance(pa_w) <= 2.0 * tol(scale),
                        "{kind}: point_a off A"
                    );
                    let centre = d3(pose_b.translation()) + d3(input.motion_b.linear) * toi;
                    assert!(
                        ((pb_w - centre).length() - rb as f64).abs() <= 2.0 * tol(scale),
                        "{kind}: point_b off the ball"
                    );
                    assert!(
                        (pb_w - pa_w - n * s).length() <= 4.0 * tol(scale),
                        "{kind}: point_b − point_a = {} vs s·n = {}",
                        pb_w - pa_w,
                        n * s
                    );
                }
            }
        }
    }
    assert!(hits > 400, "{hits}");
}

#[test]
fn polytope_casts_match_the_exact_oracle() {
    let mut rng = Rng::new(0x9017);
    let opts = QueryOptions::default();
    let kinds = POLY_KINDS.clone();
    let mut hits = 0;
    for (i, ka) in kinds.iter().enumerate() {
        for kb in &kinds[i..] {
            for case in 0..12 {
                let size = [1e-2, 1.0, 1e2][case % 3];
                let (a, oa) = random_shape(&mut rng, ka, size);
                let (b, ob) = random_shape(&mut rng, kb, size);
                let pose_a = random_pose(&mut rng, size);
                let pa = Placed::new(oa, &pose_a);
                let pos_b = pa.pos + rng.dir() * size * rng.range(3.0, 4.5);
                let pose_b = Pose::new(rng.rotation(), v3(pos_b)).unwrap();
                let pb = Placed::new(ob, &pose_b);
                let aim = pa.pos + rng.dir() * size * rng.range(0.0, 1.0);
                let vb = (aim - pos_b) * rng.range(0.5, 2.0);
                let s = [0.0, 0.05 * size][case % 2];
                let mut input = CastInput::new(
                    ShapePair::new(&a, pose_a, &b, pose_b),
                    Motion::ZERO,
                    Motion::linear(v3(vb)),
                );
                input.target_distance = r(s);
                let got = cast_shapes(&input, &opts).unwrap();
                let va = pa.world_vertices().unwrap();
                let vb0 = pb.world_vertices().unwrap();
                let rel = d3(input.motion_b.linear);
                let f = |t: f64| {
                    let moved: Vec<DVec3> = vb0.iter().map(|p| *p + rel * t).collect();
                    let d = poly_oracle(&va, &moved).0.max(0.0);
                    let d = if d > 0.0 {
                        poly_distance(&va, &moved).0
                    } else {
                        0.0
                    };
                    (d - s).max(0.0)
                };
                let t_max = 10.0;
                let scale = 6.0 * size;
                match first_zero(f, t_max, 0.0) {
                    None => {
                        if min_of(f, t_max) < 0.02 * size {
                            continue;
                        }
                        assert!(!got.hit, "{ka}–{kb}: oracle misses, got {got:?}");
                    }
                    Some(t) => {
                        assert!(got.hit, "{ka}–{kb}: oracle hits at {t}, got {got:?}");
                        hits += 1;
                        let toi = got.toi as f64;
                        let speed = rel.length();
                        assert!(
                            (toi - t) * speed <= 50.0 * tol(scale),
                            "{ka}–{kb}: toi {toi} after the oracle's {t}"
                        );
                        assert!(f(toi) <= 2.0 * tol(scale), "{ka}–{kb}: short of the skin");
                        // The normal separates the shapes at toi by s.
                        let n = d3(got.normal);
                        let moved: Vec<DVec3> = vb0.iter().map(|p| *p + rel * toi).collect();
                        let h = |vs: &[DVec3], n: DVec3| {
                            vs.iter().map(|p| p.dot(n)).fold(f64::MIN, f64::max)
                        };
                        let g = -h(&va, n) - h(&moved, -n);
                        assert!(
                            (g - s).abs() <= 4.0 * tol(scale),
                            "{ka}–{kb}: gap along n {g}"
                        );
                    }
                }
            }
        }
    }
    assert!(hits > 120, "{hits}");
}

/// The library's distance between A and B at time `t` of a cast.
fn distance_at(input: &CastInput<'_>, t: Real) -> Real {
    let pa = input.motion_a.pose_at(&input.pair.pose_a, t);
    let pb = input.motion_b.pose_at(&input.pair.pose_b, t);
    query::contact(input.pair.a, &pa, input.pair.b, &pb).distance
}

#[test]
fn casts_of_every_pair_never_pass_a_sampled_contact() {
    // Every pair kind, translating and rotating: at the reported time the shapes are at
    // the target distance, and no sampled earlier time has them closer than the target.
    let mut rng = Rng::new(0x5a31);
    let opts = QueryOptions::default();
    let kinds = ALL_KINDS.clone();
    let mut hits = [0; 2];
    for ka in &kinds {
        for kb in &kinds {
            for case in 0..4 {
                let size = 1.0;
                let (a, _) = random_shape(&mut rng, ka, size);
                let (b, _) = random_shape(&mut rng, kb, size);
                let pose_a = random_pose(&mut rng, size);
                let pos_b = d3(pose_a.translation()) + rng.dir() * rng.range(3.5, 5.0);
                let pose_b = Pose::new(rng.rotation(), v3(pos_b)).unwrap();
                let vb = (d3(pose_a.translation()) + rng.dir() * 0.5 - pos_b) * rng.range(0.5, 1.5);
                let rotating = case % 2 == 1;
                let spin = |rng: &mut Rng| {
                    if rotating {
                        v3(rng.dir() * rng.range(0.5, 3.0))
                    } else {
                        Vector::ZERO
                    }
                };
                let motion_a = Motion::new(Vector::ZERO, spin(&mut rng));
                let motion_b = Motion::new(v3(vb), spin(&mut rng));
                let mut input =
                    CastInput::new(ShapePair::new(&a, pose_a, &b, pose_b), motion_a, motion_b);
                input.max_toi = 3.0;
                input.target_distance = [0.0, 0.05][case / 2] as Real;
                let got = cast_shapes(&input, &opts).unwrap();
                let s = input.target_distance;
                let t_end = if got.hit { got.toi } else { input.max_toi };
                let slack = 1e-3 as Real;
                for k in 0..64 {
                    let t = t_end * k as Real / 64.0;
                    let d = distance_at(&input, t);
                    assert!(
                        d >= s - slack,
                        "{ka}–{kb} rotating {rotating}: distance {d} at t = {t} before the \
                         reported {got:?}"
                    );
                }
                if got.hit && got.start == CastStart::Separated {
                    hits[rotating as usize] += 1;
                    let d = distance_at(&input, got.toi);
                    assert!(
                        (d - s).abs() <= slack,
                        "{ka}–{kb} rotating {rotating}: distance {d} at the toi, target {s}"
                    );
                    assert_eq!(
                        got.status,
                        query::QueryStatus::Converged,
                        "{ka}–{kb} rotating {rotating}: {got:?}"
                    );
                }
            }
        }
    }
    assert!(hits[0] > 60 && hits[1] > 60, "{hits:?}");
}

#[test]
fn start_rules_overlap_slide_approach_separate() {
    let opts = QueryOptions::default();
    let ground = Shape::from(Cuboid::new(Vector::new(10.0, 1.0, 10.0)).unwrap());
    let crate_ = Shape::from(Cuboid::new(Vector::splat(0.5)).unwrap());
    let on_top = Pose::from_translation(Vector::new(0.0, 1.5, 0.0)).unwrap();
    let cast = |pose_b: Pose, vb: Vector, s: Real| {
        let mut input = CastInput::new(
            ShapePair::new(&ground, Pose::IDENTITY, &crate_, pose_b),
            Motion::ZERO,
            Motion::linear(vb),
        );
        input.target_distance = s;
        cast_shapes(&input, &opts).unwrap()
    };
    // Resting and sliding along the ground: the cast slides (no hit).
    let slide = cast(on_top, Vector::new(3.0, 0.0, 1.0), 0.0);
    assert!(
        !slide.hit && slide.start == CastStart::WithinTarget,
        "{slide:?}"
    );
    // Resting and pushed down: a hit at 0.
    let push = cast(on_top, Vector::new(1.0, -1.0, 0.0), 0.0);
    assert!(
        push.hit && push.toi == 0.0 && push.start == CastStart::WithinTarget,
        "{push:?}"
    );
    // Lifting off: no hit.
    let lift = cast(on_top, Vector::new(0.0, 1.0, 0.0), 0.0);
    assert!(!lift.hit, "{lift:?}");
    // Sunk by 0.2: overlapping, with the depth.
    let sunk = Pose::from_translation(Vector::new(0.0, 1.3, 0.0)).unwrap();
    let over = cast(sunk, Vector::new(1.0, 0.0, 0.0), 0.0);
    assert!(over.hit && over.toi == 0.0 && over.start == CastStart::Overlapping);
    assert!(
        (over.initial_distance.unwrap() + 0.2).abs() < 1e-5,
        "{over:?}"
    );
    // Within a skin of 0.1 at 0.05 above and approaching: a hit at 0; sliding: none.
    let near = Pose::from_translation(Vector::new(0.0, 1.55, 0.0)).unwrap();
    assert!(cast(near, Vector::new(0.0, -1.0, 0.0), 0.1).hit);
    assert!(!cast(near, Vector::new(1.0, 0.0, 0.0), 0.1).hit);
    // From 1 above, falling at 2: the skin of 0.1 is reached at (1 − 0.1)/2.
    let high = Pose::from_translation(Vector::new(0.0, 2.5, 0.0)).unwrap();
    let fall = cast(high, Vector::new(0.0, -2.0, 0.0), 0.1);
    assert!(fall.hit && (fall.toi - 0.45).abs() < 1e-5, "{fall:?}");
    assert!((fall.point_b - fall.point_a - fall.normal * 0.1).length() < 1e-4);
    assert!((fall.normal - Vector::Y).length() < 1e-5);
}

#[test]
fn peer_regressions_translated() {
    let opts = QueryOptions::default();
    let ball = Shape::from(Sphere::new(0.5).unwrap());
    // parry's `ball_ball_toi` in our numbers: two balls 10 apart closing at 20.
    let input = CastInput::new(
        ShapePair::new(
            &ball,
            Pose::IDENTITY,
            &ball,
            Pose::from_translation(Vector::new(0.0, 10.0, 0.0)).unwrap(),
        ),
        Motion::linear(Vector::new(0.0, 10.0, 0.0)),
        Motion::linear(Vector::new(0.0, -10.0, 0.0)),
    );
    let hit = cast_shapes(&input, &opts).unwrap();
    assert!((hit.toi - 0.45).abs() < 1e-6, "{hit:?}");
    // parry's `still_objects_toi`: nothing moves, apart: no hit; overlapping: a hit at 0.
    let still = CastInput::new(
        ShapePair::new(
            &ball,
            Pose::IDENTITY,
            &ball,
            Pose::from_translation(Vector::new(0.0, 2.0, 0.0)).unwrap(),
        ),
        Motion::ZERO,
        Motion::ZERO,
    );
    assert!(!cast_shapes(&still, &opts).unwrap().hit);
    // parry #429: accuracy must not depend on where the scene is. A ball falling on a
    // box 500 m from the origin meets it at exactly the same time as at the origin.
    let floor = Shape::from(Cuboid::new(Vector::new(5.0, 0.5, 5.0)).unwrap());
    for far in [0.0, 500.0, 5000.0] {
        let at = Vector::new(far, 0.0, -far);
        let input = CastInput::new(
            ShapePair::new(
                &floor,
                Pose::from_translation(at).unwrap(),
                &ball,
                Pose::from_translation(at + Vector::new(0.3, 3.0, 0.2)).unwrap(),
            ),
            Motion::ZERO,
            Motion::linear(Vector::new(0.0, -4.0, 0.0)),
        );
        let hit = cast_shapes(&input, &opts).unwrap();
        // Falls 2 m (from 3 to the surface 0.5 plus the radius 0.5) at 4 m/s.
        let err = (hit.toi - 0.5).abs() * 4.0;
        let allowed = 1e-5 * (1.0 + far); // the spacing of f32 coordinates there
        assert!(
            err <= allowed as Real,
            "at {far}: toi {} ({err} m off)",
            hit.toi
        );
    }
    // parry's `ball_triangle_toi` in our numbers: a ball falling onto a triangle's face,
    // and one falling past its edge.
    let tri = Shape::from(
        minkowski::shape::Triangle::new(
            Vector::new(-1.0, 0.0, -1.0),
            Vector::new(1.0, 0.0, -1.0),
            Vector::new(0.0, 0.0, 1.0),
        )
        .unwrap(),
    );
    let fall = |x: Real| {
        CastInput::new(
            ShapePair::new(
                &tri,
                Pose::IDENTITY,
                &ball,
                Pose::from_translation(Vector::new(x, 3.0, 0.0)).unwrap(),
            ),
            Motion::ZERO,
            Motion::linear(Vector::new(0.0, -1.0, 0.0)),
        )
    };
    let onto = cast_shapes(&fall(0.0), &opts).unwrap();
    assert!(onto.hit && (onto.toi - 2.5).abs() < 1e-5 && (onto.normal - Vector::Y).length() < 1e-5);
    assert!(!cast_shapes(&fall(2.0), &opts).unwrap().hit);
    // parry's `cuboid_ray_cast` in our numbers: a unit box hit from each of its six sides
    // and along a diagonal, with the exact entry times and face normals.
    let cube = Shape::from(Cuboid::new(Vector::splat(1.0)).unwrap());
    for axis in 0..3 {
        for sign in [-1.0 as Real, 1.0] {
            let mut n = Vector::ZERO;
            n[axis] = sign;
            let ray = Ray::new(n * 4.0, -n * 2.0);
            let h = cast_ray(&cube, &Pose::IDENTITY, &ray, &RayOptions::default())
                .unwrap()
                .hit
                .unwrap();
            assert_eq!((h.toi, h.normal), (1.5, n));
        }
    }
    let diag = Ray::new(Vector::splat(3.0), Vector::splat(-1.0));
    let h = cast_ray(&cube, &Pose::IDENTITY, &diag, &RayOptions::default())
        .unwrap()
        .hit
        .unwrap();
    assert!((h.toi - 2.0).abs() < 1e-6 && (h.point - Vector::splat(1.0)).length() < 1e-5);
    // Jolt's ray tests in our numbers: a ray from inside a solid box hits at 0, a
    // hollow one where it leaves.
    let b = Shape::from(Cuboid::new(Vector::new(1.0, 2.0, 3.0)).unwrap());
    let ray = Ray::new(Vector::new(0.5, 0.0, 0.0), Vector::new(0.0, 0.0, 2.0));
    let solid = cast_ray(&b, &Pose::IDENTITY, &ray, &RayOptions::default())
        .unwrap()
        .hit
        .unwrap();
    assert!(solid.inside && solid.toi == 0.0);
    let hollow = cast_ray(
        &b,
        &Pose::IDENTITY,
        &ray,
        &RayOptions {
            solid: false,
            ..Default::default()
        },
    )
    .unwrap()
    .hit
    .unwrap();
    assert!(
        (hollow.toi - 1.5).abs() < 1e-6 && hollow.normal == Vector::Z,
        "{hollow:?}"
    );
    // Box2D's time-of-impact test at fraction 0.5 in our numbers: a box turning as it
    // moves, placed so that its corner meets the wall exactly at t = 0.5.
    let wall = Shape::from(Cuboid::new(Vector::new(0.1, 5.0, 5.0)).unwrap());
    let stick = Shape::from(Cuboid::new(Vector::new(1.0, 0.1, 0.1)).unwrap());
    let spin = std::f64::consts::FRAC_PI_2 as Real; // a quarter turn per unit time
                                                    // At t = 0.5 the stick has turned by π/4 about z: its reach along x is
                                                    // cos(π/4) + 0.1 sin(π/4) from its centre; the centre is at x0 + 2t.
    let reach =
        (std::f64::consts::FRAC_PI_4.cos() * 1.0 + std::f64::consts::FRAC_PI_4.sin() * 0.1) as Real;
    let x0 = -0.1 - reach - 1.0;
    let input = CastInput::new(
        ShapePair::new(
            &wall,
            Pose::IDENTITY,
            &stick,
            Pose::from_translation(Vector::new(x0, 0.0, 0.0)).unwrap(),
        ),
        Motion::ZERO,
        Motion::new(Vector::new(2.0, 0.0, 0.0), Vector::new(0.0, 0.0, spin)),
    );
    let hit = cast_shapes(&input, &opts).unwrap();
    assert!(hit.hit && (hit.toi - 0.5).abs() < 0.005, "{hit:?}");
}

#[test]
fn conservative_advancement_agrees_with_the_linear_cast() {
    // The nonlinear routine on translations (an angular velocity below any effect)
    // against the GJK ray cast, and seed 004's bisection bracketing both.
    let mut rng = Rng::new(0xadf);
    let opts = QueryOptions::default();
    for kind in ALL_KINDS.iter() {
        for _ in 0..12 {
            let (a, _) = random_shape(&mut rng, kind, 1.0);
            let (b, _) = random_shape(&mut rng, "capsule", 1.0);
            let pose_a = random_pose(&mut rng, 1.0);
            let pos_b = d3(pose_a.translation()) + rng.dir() * 4.0;
            let pose_b = Pose::new(rng.rotation(), v3(pos_b)).unwrap();
            let vb = v3((d3(pose_a.translation()) + rng.dir() * 0.3 - pos_b) * 0.7);
            let mut input = CastInput::new(
                ShapePair::new(&a, pose_a, &b, pose_b),
                Motion::ZERO,
                Motion::linear(vb),
            );
            input.max_toi = 4.0;
            let lin = cast_shapes(&input, &opts).unwrap();
            let mut rot = input;
            rot.motion_b.angular = Vector::new(0.0, 1e-30 as Real, 0.0);
            let ca = cast_shapes(&rot, &opts).unwrap();
            assert_eq!(lin.hit, ca.hit, "{kind}: {lin:?} vs {ca:?}");
            let bis = bisection::toi_bisection(&input, &opts, 40).unwrap();
            assert_eq!(bis.hit, lin.hit, "{kind}");
            if lin.hit {
                assert!(
                    (lin.toi - ca.toi).abs() < 1e-3,
                    "{kind}: {} vs {}",
                    lin.toi,
                    ca.toi
                );
                assert!(
                    lin.toi >= bis.lower - 1e-4 && lin.toi <= bis.upper + 1e-4,
                    "{kind}: {lin:?} {bis:?}"
                );
            }
        }
    }
}

/// The normal at a linear cast's time of impact is the cores' closest-point direction,
/// not the direction of the simplex GJK stopped on: two cases of the side-by-side report
/// (f32) where it was 1.8e-4 rad (sphere–box) and 6e-3 rad (two capsules) off, the gap
/// along it 1.5e-4 and 4.9e-3 short of the distance.
#[test]
fn cast_normals_are_the_closest_points_direction() {
    use minkowski::shape::Capsule;
    let q = |v: [f64; 7]| {
        Pose::new(
            minkowski::Rotation::from_xyzw(v[3] as Real, v[4] as Real, v[5] as Real, v[6] as Real),
            Vector::new(v[0] as Real, v[1] as Real, v[2] as Real),
        )
        .unwrap()
    };
    // (A, its oracle twin, B, its twin, pose of A, pose of B, B's velocity)
    type Case = (Shape, OShape, Shape, OShape, [f64; 7], [f64; 7], [f64; 3]);
    let cases: [Case; 2] = [
        (
            Shape::from(Sphere::new(0.5).unwrap()),
            OShape::Ball(0.5),
            Shape::from(Cuboid::new(Vector::new(0.5, 0.4, 0.3)).unwrap()),
            {
                let c = Cuboid::new(Vector::new(0.5, 0.4, 0.3)).unwrap();
                OShape::Points(c.vertices().iter().map(|v| d3(*v)).collect())
            },
            [
                0.0,
                0.0,
                0.0,
                -0.11779208,
                -0.010567802,
                -0.6236369,
                0.7727162,
            ],
            [
                -2.521398,
                -1.6089673,
                -0.23189661,
                -0.32644463,
                -0.8088843,
                -0.48430613,
                -0.06773229,
            ],
            [5.5004373, 2.2567124, 0.8077376],
        ),
        (
            Shape::from(Capsule::new(0.4, 0.25).unwrap()),
            OShape::Capsule(0.4, 0.25),
            Shape::from(Capsule::new(0.3, 0.3).unwrap()),
            OShape::Capsule(0.3, 0.3),
            [
                0.0,
                0.0,
                0.0,
                -0.39468044,
                0.36471134,
                0.36291322,
                0.76125354,
            ],
            [
                2.5760186,
                1.1734374,
                0.9935659,
                0.6941823,
                0.43615213,
                -0.21277891,
                -0.5316082,
            ],
            [-5.32074, -2.1572883, -1.742362],
        ),
    ];
    for (a, oa, b, ob, pa, pb, vb) in cases {
        let (pose_a, pose_b) = (q(pa), q(pb));
        let vel = Vector::new(vb[0] as Real, vb[1] as Real, vb[2] as Real);
        let mut input = CastInput::new(
            ShapePair::new(&a, pose_a, &b, pose_b),
            Motion::ZERO,
            Motion::linear(vel),
        );
        input.max_toi = 1.0;
        let c = cast_shapes(&input, &QueryOptions::default()).unwrap();
        assert!(c.hit, "{c:?}");
        let moved = Pose::new(pose_b.rotation(), pose_b.translation() + vel * c.toi).unwrap();
        let (ga, gb) = (Placed::new(oa, &pose_a), Placed::new(ob, &moved));
        let n = d3(c.normal);
        let along = gap(&ga, &gb, n);
        // At the time of impact the gap along the normal is the distance (0) within the
        // tolerance of the report (1e-4 of the size in f32, 1e-6 in f64).
        let tol = if cfg!(minkowski_f64) { 1e-6 } else { 1e-4 };
        assert!(along.abs() <= tol, "gap along the normal {along}: {c:?}");
    }
}

/// A compound's ray cast (through its part tree, nearest box first, pruned by the best
/// hit) equals the nearest hit of every part cast on its own.
#[test]
fn compound_rays_equal_the_nearest_part() {
    use minkowski::query::compound::{self, Collider};
    use minkowski::shape::Compound;
    let mut rng = Rng::new(0xc0b);
    let kinds = ALL_KINDS.clone();
    let mut hits = 0;
    for case in 0..40 {
        let parts: Vec<(Pose, Shape)> = (0..(4 + case % 29))
            .map(|k| {
                let (s, _) = random_shape(&mut rng, kinds[(case + k) % kinds.len()], 0.4);
                (random_pose(&mut rng, 3.0), s)
            })
            .collect();
        let collider = Collider::from(Compound::new(parts.clone()).unwrap());
        let pose = random_pose(&mut rng, 2.0);
        for _ in 0..10 {
            let origin = d3(pose.translation()) + rng.dir() * 8.0;
            let aim = d3(pose.translation()) + rng.dir() * rng.range(0.0, 3.0);
            let ray = Ray::new(v3(origin), v3((aim - origin) * 0.2));
            for solid in [true, false] {
                let opts = RayOptions {
                    max_toi: 10.0,
                    solid,
                };
                let got = compound::cast_ray(&collider, &pose, &ray, &opts).unwrap();
                let mut want: Option<(usize, Real)> = None;
                for (i, (p, s)) in parts.iter().enumerate() {
                    let at = pose.mul(p);
                    if let Some(h) = cast_ray(s, &at, &ray, &opts).unwrap().hit {
                        if want.is_none_or(|(_, t)| h.toi < t) {
                            want = Some((i, h.toi));
                        }
                    }
                }
                match (got.answer.hit, want) {
                    (Some(h), Some((_, t))) => {
                        hits += 1;
                        assert_eq!(h.toi, t, "case {case}");
                    }
                    (None, None) => {}
                    (g, w) => panic!("case {case}: compound {g:?}, parts {w:?}"),
                }
            }
        }
    }
    assert!(hits > 100, "{hits}");
}

/// One ray with both `solid` values against the oracle ([`check_ray`]); when the case is
/// too close to grazing for the time to be judged, the answer must still be consistent:
/// a hit lies on the shape within the tolerance, and a ray the oracle keeps clear of the
/// shape by more than the tolerance misses. Rays named "touching…" (lying in a face's
/// plane) get only these checks. Returns whether `check_ray` judged both answers.
fn check_special_ray(
    shape: &Shape,
    placed: &Placed,
    pose: &Pose,
    ray: &Ray,
    size: f64,
    what: &str,
) -> bool {
    let mut judged = true;
    for solid in [true, false] {
        // A ray touching the shape along a face is decided by rounding: either answer.
        let touching = what.starts_with("touching");
        if !touching && check_ray(shape, placed, pose, ray, size, solid).is_some() {
            continue;
        }
        judged = false;
        let opts = RayOptions {
            solid,
            ..Default::default()
        };
        let got = cast_ray(shape, pose, ray, &opts).unwrap();
        let (o, d) = (d3(ray.origin), d3(ray.dir));
        let t_max = 8.0 * size / d.length();
        let clear = min_of(|t| placed.outside_distance(o + d * t), t_max);
        let scale = 5.0 * size;
        if let Some(h) = got.hit {
            let p = o + d * h.toi as f64;
            assert!(
                placed.outside_distance(p) <= tol(scale),
                "{what} {shape:?} {ray:?} solid {solid}: grazing hit {p} is {} outside",
                placed.outside_distance(p)
            );
        }
        if clear > tol(scale) {
            assert!(
                got.hit.is_none(),
                "{what} {pose:?} {shape:?} {ray:?}: the oracle stays {clear} away, got {got:?}"
            );
        }
    }
    judged
}

/// [`check_special_ray`] on each named ray; the number judged.
fn check_special_rays(
    shape: &Shape,
    placed: &Placed,
    pose: &Pose,
    rays: &[(&str, Ray)],
    size: f64,
) -> usize {
    rays.iter()
        .filter(|(what, ray)| check_special_ray(shape, placed, pose, ray, size, what))
        .count()
}

/// The world ray of the ray from `o` along `d` in the frame of `pose`.
fn local_ray(pose: &Pose, o: DVec3, d: DVec3) -> Ray {
    Ray::new(pose.transform_point(v3(o)), pose.transform_vector(v3(d)))
}

/// The cone's closed form (query/ray_cone.rs) on the rays that exercise its branches,
/// at three scales, against the f64 distance oracle: along the axis from above (the
/// apex), from below (the base's centre) and from inside; parallel to a generator
/// (`a = 0` in the quadric) outside and inside the side; steeper and flatter than the
/// side (`a < 0`, `a > 0`); parallel to the base, just inside and just outside it;
/// through the base's rim; tangent to the side; from inside in random directions.
#[test]
fn cone_rays_match_the_oracle_on_every_branch() {
    let mut rng = Rng::new(0xc0e);
    let mut judged = 0;
    let mut total = 0;
    for case in 0..60 {
        let size = [1e-3, 1.0, 1e3][case % 3];
        let (h, rad) = (r(size * rng.range(0.3, 1.0)), r(size * rng.range(0.3, 1.0)));
        let shape = Shape::from(minkowski::shape::Cone::new(h, rad).unwrap());
        let pose = random_pose(&mut rng, 3.0 * size);
        let placed = Placed::new(OShape::Cone(h as f64, rad as f64), &pose);
        let (hd, rd) = (h as f64, rad as f64);
        let ray = |o: DVec3, d: DVec3| local_ray(&pose, o, d);
        let phi = rng.range(0.0, std::f64::consts::TAU);
        let radial = DVec3::new(phi.cos(), 0.0, phi.sin());
        // The generator through the rim point at angle phi, from the rim to the apex.
        let gen = DVec3::new(0.0, hd, 0.0) - (radial * rd - DVec3::new(0.0, hd, 0.0));
        let gen = gen.normalize();
        let side_out = DVec3::new(2.0 * hd * radial.x, rd, 2.0 * hd * radial.z).normalize();
        let mid_side = radial * (0.5 * rd);
        let tangent = DVec3::new(-radial.z, 0.0, radial.x);
        let s = rng.range(0.5, 2.0);
        let mut rays = vec![
            (
                "axis from above",
                ray(DVec3::new(0.0, 3.0 * hd, 0.0), -DVec3::Y * s),
            ),
            (
                "axis from below",
                ray(DVec3::new(0.0, -3.0 * hd, 0.0), DVec3::Y * s),
            ),
            (
                "axis from inside up",
                ray(DVec3::new(0.0, -0.2 * hd, 0.0), DVec3::Y * s),
            ),
            (
                "axis from inside down",
                ray(DVec3::new(0.0, 0.2 * hd, 0.0), -DVec3::Y * s),
            ),
            (
                "parallel to a generator, outside",
                ray(
                    mid_side + side_out * 0.05 * size - gen * 3.0 * size,
                    gen * s,
                ),
            ),
            (
                "parallel to a generator, inside",
                ray(
                    mid_side - side_out * 0.05 * size - gen * 3.0 * size,
                    gen * s,
                ),
            ),
            (
                "parallel to the base, inside",
                ray(
                    DVec3::new(0.0, -hd + 0.05 * size, 0.0) - radial * 3.0 * size,
                    radial * s,
                ),
            ),
            (
                "parallel to the base, outside",
                ray(
                    DVec3::new(0.0, -hd - 0.05 * size, 0.0) - radial * 3.0 * size,
                    radial * s,
                ),
            ),
            (
                "through the rim",
                ray(radial * rd * 3.0 + DVec3::new(0.0, 0.5 * size, 0.0), {
                    let to = radial * rd - DVec3::new(0.0, hd, 0.0);
                    (to - (radial * rd * 3.0 + DVec3::new(0.0, 0.5 * size, 0.0))) * s
                }),
            ),
            (
                "tangent to the side",
                ray(
                    mid_side + DVec3::new(0.0, 0.0, 0.0) - tangent * 3.0 * size,
                    tangent * s,
                ),
            ),
        ];
        // Steep and flat rays at a random point of the side.
        for slope in [0.2, 5.0] {
            let aim = radial * rng.range(0.0, 0.9) * rd + DVec3::new(0.0, rng.range(-hd, 0.0), 0.0);
            let dir = (DVec3::new(radial.z, -slope, -radial.x) + radial * 0.3).normalize();
            rays.push(("steep or flat", ray(aim - dir * 3.0 * size, dir * s)));
        }
        for _ in 0..3 {
            let c = DVec3::new(0.0, -0.3 * hd, 0.0) + rng.dir() * 0.1 * size.min(hd);
            rays.push(("from inside", ray(c, rng.dir() * s)));
        }
        total += rays.len();
        judged += check_special_rays(&shape, &placed, &pose, &rays, size);
    }
    // Most special rays are judged on time (the tangent ones are not).
    assert!(judged * 10 > total * 7, "{judged} of {total}");
    // Needles and discs beyond CONE_RAY_MAX_SLOPE go to the GJK ray cast: same rules.
    for case in 0..12 {
        let size = [1e-3, 1.0, 1e3][case % 3];
        let (h, rad) = if case % 2 == 0 {
            (r(size * 0.8), r(size * 1e-7))
        } else {
            (r(size * 1e-7), r(size * 0.8))
        };
        let shape = Shape::from(minkowski::shape::Cone::new(h, rad).unwrap());
        let pose = random_pose(&mut rng, 3.0 * size);
        let placed = Placed::new(OShape::Cone(h as f64, rad as f64), &pose);
        for _ in 0..4 {
            let ray = random_ray(&mut rng, &placed, size);
            check_special_ray(&shape, &placed, &pose, &ray, size, "needle or disc");
        }
    }
}

/// Discs and needles inside the cone's closed-form range (slopes `r / 2h` from 1e-5 to
/// 1e5), rays from a few sizes away: steep ones (across the slab), flat ones (along
/// it) and random ones. Found by fuzzing (f32; seed `ray-far-hit-point-off-gjk-ray`,
/// slope 7700): on the whole line a disc's `k² (h − y)²` dwarfs `x² + z²`, and a
/// steep ray 3300 from a cone of radius 108 "hit" it at a point 3211 away. Steep rays
/// are now solved on their chord through the slab. Oracle: the f64 distance along the
/// ray, as for every ray here.
#[test]
fn rays_at_discs_and_needles_match_the_oracle() {
    let mut rng = Rng::new(0xd15c);
    let mut judged = 0;
    let mut total = 0;
    for case in 0..160 {
        let size = [1e-3, 1.0, 1e3, 108.0][case % 4];
        let slope = [1e2, 1e3, 1e4, 1e5, 1e-2, 1e-3, 1e-4, 1e-5][case / 4 % 8];
        // r / 2h = slope, the larger of r and 2h equal to the size.
        let (h, rad) = if slope >= 1.0 {
            (size / (2.0 * slope), size)
        } else {
            (0.5 * size, size * slope)
        };
        let shape = Shape::from(minkowski::shape::Cone::new(r(h), r(rad)).unwrap());
        let pose = random_pose(&mut rng, 3.0 * size);
        let (h, rad) = (r(h) as f64, r(rad) as f64);
        let placed = Placed::new(OShape::Cone(h, rad), &pose);
        let axis = d3(pose.transform_vector(Vector::Y));
        for k in 0..6 {
            let ray = match k {
                // Along the axis's direction, or across it, from 3 sizes away.
                0 | 1 => {
                    let along = if k == 0 {
                        axis
                    } else {
                        axis.any_orthonormal_vector()
                    };
                    let aim = placed.pos + rng.dir() * rng.range(0.0, 1.2) * size;
                    let dir = (along + rng.dir() * 0.05).normalize() * rng.range(0.5, 2.0);
                    Ray::new(v3(aim - dir * 3.0 * size), v3(dir))
                }
                _ => random_ray(&mut rng, &placed, size),
            };
            total += 1;
            if check_special_ray(&shape, &placed, &pose, &ray, size, "disc or needle") {
                judged += 1;
            }
        }
    }
    assert!(judged * 10 > total * 5, "{judged} of {total}");
}

/// The hull's plane clipping (query/cyrus_beck.rs) on the rays that exercise it, at
/// three scales, against the f64 distance oracle (exact for polytopes): through
/// vertices, through edge midpoints, at face centres along the normal, parallel to a
/// face just inside and just outside it, from inside; on a box's hull (parallel faces,
/// axis-aligned rays after the pose) and on random hulls.
#[test]
fn hull_rays_match_the_oracle_on_vertices_edges_and_faces() {
    let mut rng = Rng::new(0xcb91);
    let mut judged = 0;
    let mut total = 0;
    for case in 0..60 {
        let size = [1e-3, 1.0, 1e3][case % 3];
        let pts: Vec<Vector> = if case % 2 == 0 {
            let e = DVec3::new(
                rng.range(0.3, 1.0),
                rng.range(0.3, 1.0),
                rng.range(0.3, 1.0),
            );
            (0..8)
                .map(|i| {
                    let s = |b: usize| if i >> b & 1 == 1 { 1.0 } else { -1.0 };
                    v3(DVec3::new(s(0) * e.x, s(1) * e.y, s(2) * e.z) * size)
                })
                .collect()
        } else {
            (0..4 + rng.below(20))
                .map(|_| v3(rng.dir() * rng.range(0.5, 1.0) * size))
                .collect()
        };
        let hull = minkowski::shape::ConvexPolyhedron::new(pts).unwrap();
        let verts: Vec<DVec3> = hull.points().iter().map(|p| d3(*p)).collect();
        let faces: Vec<Vec<DVec3>> = hull
            .hull()
            .faces()
            .map(|f| f.iter().map(|&i| verts[i as usize]).collect())
            .collect();
        let shape = Shape::from(hull);
        // Identity poses too: axis-aligned rays hit the box's faces exactly parallel.
        let pose = if case % 4 == 0 {
            Pose::IDENTITY
        } else {
            random_pose(&mut rng, 3.0 * size)
        };
        let placed = Placed::new(OShape::Points(verts.clone()), &pose);
        let ray = |o: DVec3, d: DVec3| local_ray(&pose, o, d);
        let centre = verts.iter().copied().sum::<DVec3>() / verts.len() as f64;
        let s = rng.range(0.5, 2.0);
        let mut rays = Vec::new();
        let v = verts[rng.below(verts.len())];
        let from = centre + (v - centre) * 3.0 + rng.dir() * 0.3 * size;
        rays.push(("through a vertex", ray(from, (v - from) * s)));
        let f = &faces[rng.below(faces.len())];
        let (a, b) = (f[0], f[1]);
        let m = 0.5 * (a + b);
        let from = centre + (m - centre) * 3.0 + rng.dir() * 0.3 * size;
        rays.push(("through an edge", ray(from, (m - from) * s)));
        let fc = f.iter().copied().sum::<DVec3>() / f.len() as f64;
        let n = (f[1] - f[0]).cross(f[2] - f[0]).normalize();
        rays.push(("at a face centre", ray(fc + n * 2.0 * size, -n * s)));
        let along = (f[1] - f[0]).normalize();
        for (what, off) in [("parallel to a face, inside", -0.05), ("outside", 0.05)] {
            let o = fc + n * off * size - along * 3.0 * size;
            rays.push((what, ray(o, along * s)));
        }
        rays.push((
            "touching: in a face's plane",
            ray(fc - along * 3.0 * size, along * s),
        ));
        for _ in 0..3 {
            rays.push((
                "from inside",
                ray(centre + rng.dir() * 0.05 * size, rng.dir() * s),
            ));
        }
        for _ in 0..3 {
            rays.push(("random", random_ray(&mut rng, &placed, size)));
        }
        total += rays.len();
        judged += check_special_rays(&shape, &placed, &pose, &rays, size);
    }
    assert!(judged * 10 > total * 7, "{judged} of {total}");
}

/// Hulls whose faces fold back on each other, where the rounded face planes bound much
/// more than the hull (query/cyrus_beck.rs; found by fuzzing: a tetrahedron flat to
/// f32 rounding was "hit" 447 away from it): polygons lifted out of their plane by
/// 0 to 1e-1 of their size (rounding to `Real` lifts even the exact ones), knife-edged
/// tetrahedra of sharpness 0 to 1e-1 and needle pyramids of 1e-9 to 1e-1, at three
/// scales, against
/// the f64 distance oracle. Rays: random; aimed at a vertex; in the sliver's plane, or
/// crossing it, beside the hull (missing it); across it through its centre.
#[test]
fn hull_rays_on_flat_knife_and_needle_hulls_match_the_oracle() {
    let mut rng = Rng::new(0x5117e7);
    let mut judged = 0;
    let mut total = 0;
    for case in 0..90 {
        let size = [1e-3, 1.0, 1e3][case % 3];
        let thin = [0.0, 1e-7, 1e-5, 1e-3, 1e-1][case / 3 % 5];
        let kind = case / 15 % 3;
        // Local points (units of the size); the sliver's plane is z = 0 for the flat
        // polygons and the knife, the needle runs along z.
        let local: Vec<DVec3> = match kind {
            0 => (0..4 + rng.below(8))
                .map(|_| {
                    let a = rng.range(0.0, std::f64::consts::TAU);
                    let r = rng.range(0.3, 1.0);
                    DVec3::new(r * a.cos(), r * a.sin(), rng.range(-1.0, 1.0) * thin)
                })
                .collect(),
            1 => vec![
                DVec3::new(-1.0, 0.0, 0.0),
                DVec3::new(1.0, 0.0, 0.0),
                DVec3::new(0.0, 1.0, thin),
                DVec3::new(0.0, 1.0, -thin),
            ],
            _ => {
                let w = thin.max(1e-9);
                vec![
                    DVec3::new(-w, -w, -1.0),
                    DVec3::new(w, -w, -1.0),
                    DVec3::new(w, w, -1.0),
                    DVec3::new(-w, w, -1.0),
                    DVec3::new(0.0, 0.0, 1.0),
                ]
            }
        };
        // Off the origin, as the fuzzed hull was: planes' offsets carry rounding too.
        let shift = rng.dir() * 2.0;
        let pts: Vec<Vector> = local.iter().map(|p| v3((*p + shift) * size)).collect();
        let Ok(hull) = minkowski::shape::ConvexPolyhedron::new(pts) else {
            continue;
        };
        let verts: Vec<DVec3> = hull.points().iter().map(|p| d3(*p)).collect();
        let shape = Shape::from(hull);
        let pose = random_pose(&mut rng, 3.0 * size);
        let placed = Placed::new(OShape::Points(verts.clone()), &pose);
        let ray = |o: DVec3, d: DVec3| local_ray(&pose, o, d);
        let centre = verts.iter().copied().sum::<DVec3>() / verts.len() as f64;
        let s = rng.range(0.5, 2.0);
        let mut rays = Vec::new();
        let v = verts[rng.below(verts.len())];
        let from = centre + rng.dir() * 3.0 * size;
        rays.push(("through a vertex", ray(from, (v - from) * s)));
        // In the sliver's plane (z), passing 2 to 6 sizes beside it.
        let (a, b) = (DVec3::X, DVec3::Y);
        let beside = centre + (a * rng.range(-1.0, 1.0) + b * rng.range(2.0, 6.0)) * size;
        rays.push((
            "in its plane, beside it",
            ray(beside - a * 4.0 * size, (a + b * rng.range(-0.2, 0.2)) * s),
        ));
        // Crossing the sliver's plane 2 to 6 sizes beside it, at a random angle.
        for _ in 0..2 {
            let angle = rng.range(0.0, std::f64::consts::TAU);
            let at = centre + (a * angle.cos() + b * angle.sin()) * rng.range(2.0, 6.0) * size;
            let dir = (DVec3::Z * rng.range(0.2, 1.0) + rng.dir() * 0.5).normalize();
            rays.push((
                "crossing its plane beside it",
                ray(at - dir * 3.0 * size, dir * s),
            ));
        }
        // Across the flat sliver's plane; across the needle (along it, where it enters
        // is decided by rounding).
        let across = if kind == 2 { DVec3::X } else { DVec3::Z };
        rays.push((
            "across it, through its centre",
            ray(centre + across * 3.0 * size, -across * s),
        ));
        for _ in 0..3 {
            rays.push(("random", random_ray(&mut rng, &placed, size)));
        }
        total += rays.len();
        judged += check_special_rays(&shape, &placed, &pose, &rays, size);
    }
    assert!(judged * 10 > total * 3, "{judged} of {total}");
}

/// The other side of the test above: hulls whose faces meet at clear angles keep the
/// plane clipping (a ray answered without GJK iterations) — random hulls of 4 to 200
/// points on a sphere, boxes of aspect up to 1000, far from the origin as well.
#[test]
fn ordinary_hulls_keep_their_plane_clipping() {
    let mut rng = Rng::new(0xc11b);
    for case in 0..60 {
        let size = [1e-3, 1.0, 1e3][case % 3];
        let shift = rng.dir() * [0.0, 10.0, 1000.0][case / 3 % 3] * size;
        let local: Vec<DVec3> = if case % 2 == 0 {
            (0..4 + rng.below(197)).map(|_| rng.dir()).collect()
        } else {
            let e = DVec3::new(1.0, rng.range(1e-3, 1.0), rng.range(1e-3, 1.0));
            (0..8)
                .map(|i| {
                    let s = |b: usize| if i >> b & 1 == 1 { 1.0 } else { -1.0 };
                    DVec3::new(s(0) * e.x, s(1) * e.y, s(2) * e.z)
                })
                .collect()
        };
        let pts: Vec<Vector> = local.iter().map(|p| v3(*p * size + shift)).collect();
        let hull = minkowski::shape::ConvexPolyhedron::new(pts).unwrap();
        let n = hull.points().len();
        let shape = Shape::from(hull);
        let pose = random_pose(&mut rng, 3.0 * size);
        let ray = Ray::new(
            pose.transform_point(v3(shift + DVec3::X * 5.0 * size)),
            pose.transform_vector(-Vector::X),
        );
        let got = cast_ray(&shape, &pose, &ray, &RayOptions::default()).unwrap();
        assert_eq!(
            got.iterations, 0,
            "case {case}: a hull of {n} vertices went to GJK: {got:?}"
        );
    }
}

/// The closed forms `cast_ray` sends spheres, boxes and capsules to directly (the
/// world-frame sphere and capsule, the box in its frame; query/ray.rs) on the rays that
/// exercise their branches, at five scales from 1e-4 to 1e4 and with directions of length
/// 1e-5 to 1e5, against the f64 distance oracle (exact for all three): random rays;
/// from inside; grazing the surface (tangent at a support point, just outside and just
/// inside it); parallel to each box face and to the capsule's axis, just inside and just
/// outside the side, and along the axis itself; a zero direction (a typed error) for
/// each shape. Every answer is held to the oracle where the chord is long enough to
/// judge, and to consistency (a hit on the surface, a miss when the ray stays clear)
/// where it is not.
#[test]
fn sphere_box_capsule_closed_forms_match_the_oracle_on_hard_branches() {
    let mut rng = Rng::new(0x5bc);
    let (mut judged, mut total, mut hits) = (0, 0, 0);
    for kind in ["sphere", "cuboid", "capsule"] {
        for case in 0..120 {
            let size = [1e-4, 1e-2, 1.0, 1e2, 1e4][case % 5];
            let (shape, oshape) = random_shape(&mut rng, kind, size);
            let pose = random_pose(&mut rng, 3.0 * size);
            let placed = Placed::new(oshape.clone(), &pose);
            let zero = Ray::new(v3(placed.pos), Vector::ZERO);
            assert!(matches!(
                cast_ray(&shape, &pose, &zero, &RayOptions::default()),
                Err(query::CastError::ZeroDirection)
            ));
            let local = |v: DVec3| placed.rot * v;
            // The shape's extent along its local axes (box half extents; the capsule's
            // radius across and half height plus radius along y; the ball's radius).
            let (ext, rad) = match &oshape {
                OShape::Ball(r) => (DVec3::splat(*r), *r),
                OShape::Capsule(h, r) => (DVec3::new(*r, h + r, *r), *r),
                OShape::Points(p) => {
                    let e = p.iter().fold(DVec3::ZERO, |m, v| m.max(v.abs()));
                    (e, e.min_element())
                }
                _ => unreachable!("only the three closed forms here"),
            };
            let scale_dir = [1e-5, 1.0, 1e5][case / 5 % 3];
            for k in 0..6 {
                let (ray, what) = match k {
                    0 => (random_ray(&mut rng, &placed, size), "random"),
                    1 => {
                        let c = placed.pos + local(rng.dir() * rad * 0.5);
                        (Ray::new(v3(c), v3(rng.dir())), "inside")
                    }
                    2 | 3 => {
                        // Tangent at a support point, moved off the surface by ±1%.
                        let n = rng.dir();
                        let s = if k == 2 { 0.01 } else { -0.01 };
                        let p = placed.support(n) + n * s * rad;
                        let t = n.cross(rng.dir()).normalize();
                        (Ray::new(v3(p - t * 3.0 * size), v3(t)), "grazing")
                    }
                    _ => {
                        // Parallel to a local axis (the capsule's: its own), offset
                        // across it to just inside or just outside the side, or on it.
                        let i = if kind == "capsule" { 1 } else { case % 3 };
                        let (j, l) = ((i + 1) % 3, (i + 2) % 3);
                        let mut o = DVec3::ZERO;
                        o[i] = -3.0 * size;
                        let off = [0.99, 1.01, 0.0, 0.5][(case + k) % 4];
                        o[j] = ext[j] * off * if rng.range(0.0, 1.0) < 0.5 { -1.0 } else { 1.0 };
                        o[l] = if kind == "cuboid" {
                            ext[l] * rng.range(-0.9, 0.9)
                        } else {
                            0.0
                        };
                        let mut d = DVec3::ZERO;
                        d[i] = 1.0;
                        let o = placed.pos + local(o);
                        (Ray::new(v3(o), v3(local(d))), "parallel")
                    }
                };
                let ray = Ray::new(ray.origin, ray.dir.normalize() * r(scale_dir));
                total += 1;
                if check_special_ray(&shape, &placed, &pose, &ray, size, what) {
                    judged += 1;
                }
                let got = cast_ray(&shape, &pose, &ray, &RayOptions::default()).unwrap();
                hits += got.hit.is_some() as usize;
                if let Some(h) = got.hit {
                    let n = d3(h.normal);
                    assert!(
                        (n.length() - 1.0).abs() < 1e-4,
                        "{kind} {ray:?}: normal {n}"
                    );
                }
            }
        }
    }
    // Most cases judged against the oracle, and a fair share of both outcomes.
    assert!(judged * 10 > total * 6, "{judged} of {total} judged");
    assert!(
        hits * 10 > total * 3 && hits * 10 < total * 9,
        "{hits} hits of {total}"
    );
}
