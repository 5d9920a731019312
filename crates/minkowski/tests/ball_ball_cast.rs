//! The closed-form linear cast of two spheres (`query/ball_ball_cast.rs`) against a brute
//! force: the exact f64 gap `‖d₀ + t r‖ − R` (centres' offset `d₀`, relative velocity
//! `r`, `R` the radii plus the target distance), convex in time, sampled at 512 times
//! and bisected to 1e-15 of the interval for its first root, its minimum bracketed by a
//! golden-section search. The cases are seeded and built for the hard branches:
//! touching at the start (approaching and separating), motion parallel to the offset,
//! grazing and missing by a hair, starting overlapped, zero motion, both shapes moving,
//! a target distance, and scales from 1e-6 to 1e4 with the pair far from the origin.
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::*;
use glam::DVec3;
use minkowski::query::{cast_shapes, CastInput, CastStart, Motion, QueryOptions, ShapePair};
use minkowski::shape::{Shape, Sphere};
use minkowski::{Pose, Real, Vector};

/// The gap at time `t` (length): negative once the balls are closer than the target.
fn gap(d0: DVec3, rel: DVec3, big_r: f64, t: f64) -> f64 {
    (d0 + rel * t).length() - big_r
}

/// The first `t` in `[0, t_max]` with `gap ≤ level`, by sampling then bisection (the gap
/// is convex, so the first sample at or below `level` brackets the first root with the
/// sample before it).
fn first_at_or_below(d0: DVec3, rel: DVec3, big_r: f64, t_max: f64, level: f64) -> Option<f64> {
    let f = |t: f64| gap(d0, rel, big_r, t) - level;
    if f(0.0) <= 0.0 {
        return Some(0.0);
    }
    let n = 512;
    let mut prev = 0.0;
    let mut found = None;
    for i in 1..=n {
        let t = t_max * i as f64 / n as f64;
        if f(t) <= 0.0 {
            found = Some(t);
            break;
        }
        prev = t;
    }
    // Between samples a convex gap can dip below and come back: look at its minimum too.
    let hi = match found {
        Some(t) => t,
        None => {
            let t = argmin(&f, t_max);
            if f(t) > 0.0 {
                return None;
            }
            // The root lies before the minimum, after the last sample above it.
            prev = t_max * ((t / t_max * n as f64).floor() / n as f64);
            t
        }
    };
    let (mut lo, mut hi) = (prev, hi);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) <= 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

/// Where a convex `f` is least on `[0, t_max]` (golden section).
fn argmin(f: &impl Fn(f64) -> f64, t_max: f64) -> f64 {
    let g = 0.5 * (5f64.sqrt() - 1.0);
    let (mut lo, mut hi) = (0.0, t_max);
    for _ in 0..200 {
        let m1 = hi - g * (hi - lo);
        let m2 = lo + g * (hi - lo);
        if f(m1) < f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let m = 0.5 * (lo + hi);
    [0.0, m, t_max]
        .into_iter()
        .min_by(|a, b| f(*a).total_cmp(&f(*b)))
        .unwrap_or(m)
}

/// The kinds of case, each aimed at one branch.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Random,
    TouchingApproach,
    TouchingSeparate,
    Parallel,
    Grazing,
    HairMiss,
    Overlapping,
    ZeroMotion,
    ZeroMotionOverlap,
}

const KINDS: [Kind; 9] = [
    Kind::Random,
    Kind::TouchingApproach,
    Kind::TouchingSeparate,
    Kind::Parallel,
    Kind::Grazing,
    Kind::HairMiss,
    Kind::Overlapping,
    Kind::ZeroMotion,
    Kind::ZeroMotionOverlap,
];

struct Case {
    ra: Real,
    rb: Real,
    ca: Vector,
    cb: Vector,
    va: Vector,
    vb: Vector,
    s: Real,
}

/// A case of `kind` at `size`, around `origin`.
fn make(rng: &mut Rng, kind: Kind, size: f64, origin: DVec3) -> Case {
    let ra = size * rng.range(0.2, 1.0);
    let rb = size * rng.range(0.2, 1.0);
    let s = if rng.below(3) == 0 {
        size * rng.range(0.0, 0.3)
    } else {
        0.0
    };
    let big_r = ra + rb + s;
    let u = rng.dir();
    let w = u.any_orthonormal_vector();
    let speed = size * rng.range(1.0, 8.0);
    let va = if rng.below(2) == 0 {
        rng.dir() * size * rng.range(0.0, 2.0)
    } else {
        DVec3::ZERO
    };
    // `d0`: B's centre relative to A's; `rel`: B's velocity relative to A's.
    let (d0, rel) = match kind {
        Kind::Random => {
            let d0 = u * big_r * rng.range(1.5, 4.0);
            let aim = rng.dir() * big_r * rng.range(0.0, 1.5);
            (d0, (aim - d0).normalize() * speed)
        }
        Kind::TouchingApproach => (u * big_r, -(u + w * rng.range(-0.9, 0.9)) * speed),
        Kind::TouchingSeparate => (u * big_r, (u + w * rng.range(-0.9, 0.9)) * speed),
        Kind::Parallel => (u * big_r * rng.range(1.5, 4.0), -u * speed),
        Kind::Grazing | Kind::HairMiss => {
            // Closest approach 1e-3 inside or outside `R`, passing mid-interval.
            let miss = big_r
                * if kind == Kind::Grazing {
                    1.0 - 1e-3
                } else {
                    1.0 + 1e-3
                };
            let along = big_r * rng.range(1.5, 3.0);
            (w * miss + u * along, -u * (along / 0.5))
        }
        Kind::Overlapping => (u * (ra + rb) * rng.range(0.0, 0.9), rng.dir() * speed),
        Kind::ZeroMotion => (u * big_r * rng.range(1.01, 3.0), DVec3::ZERO),
        Kind::ZeroMotionOverlap => (u * (ra + rb) * rng.range(0.1, 0.9), DVec3::ZERO),
    };
    let ca = origin + rng.dir() * size * rng.range(0.0, 2.0);
    Case {
        ra: r(ra),
        rb: r(rb),
        ca: v3(ca),
        cb: v3(ca + d0),
        va: v3(va),
        vb: v3(va + rel),
        s: r(s),
    }
}

#[test]
fn ball_ball_casts_match_the_brute_force_on_every_branch() {
    let mut rng = Rng::new(0xba11_ba11);
    let opts = QueryOptions::default();
    let eps = Real::EPSILON as f64;
    let mut seen = [[0usize; 3]; 9]; // per kind: hits after 0, misses, hits at 0
    for (case_no, kind) in KINDS.iter().cycle().take(9 * 300).enumerate() {
        let size = [1e-6, 1e-2, 1.0, 1e2, 1e4][case_no % 5];
        let origin = if case_no % 7 == 0 {
            rng.dir() * size * 100.0
        } else {
            DVec3::ZERO
        };
        let c = make(&mut rng, *kind, size, origin);
        let a = Shape::from(Sphere::new(c.ra).unwrap());
        let b = Shape::from(Sphere::new(c.rb).unwrap());
        let pair = ShapePair::new(
            &a,
            Pose::new(rng.rotation(), c.ca).unwrap(),
            &b,
            Pose::new(rng.rotation(), c.cb).unwrap(),
        );
        let mut input = CastInput::new(pair, Motion::linear(c.va), Motion::linear(c.vb));
        input.max_toi = 1.0;
        input.target_distance = c.s;
        let got = cast_shapes(&input, &opts).unwrap();

        // The oracle, in f64 on the rounded inputs.
        let (ca, cb) = (d3(c.ca), d3(c.cb));
        let (d0, rel) = (cb - ca, d3(c.vb) - d3(c.va));
        let big_r = c.ra as f64 + c.rb as f64 + c.s as f64;
        let sigma = ca.abs().max_element().max(cb.abs().max_element()) + big_r;
        let tol = 1024.0 * eps * sigma;
        let what = format!("{kind:?} case {case_no} size {size}: {got:?}");
        let k = KINDS.iter().position(|x| x == kind).unwrap_or(0);
        let within_at_start = gap(d0, rel, big_r, 0.0) <= tol;
        if within_at_start {
            // Start rules: a hit at 0 when overlapping or approaching, else no hit.
            let d = gap(d0, rel, big_r - c.s as f64, 0.0);
            let approach = rel.dot(d0.normalize_or_zero());
            if d < -tol {
                assert!(got.hit && got.toi == 0.0, "{what}");
                assert_eq!(got.start, CastStart::Overlapping, "{what}");
                let depth = got.initial_distance.map_or(f64::NAN, |x| x as f64);
                assert!(
                    (depth - d).abs() <= 4.0 * tol,
                    "{what}: depth {depth} vs {d}"
                );
                seen[k][2] += 1;
            } else if approach < -1e-3 * rel.length() {
                // A hit at once (at 0, or after a step that rounding alone allows).
                assert!(got.hit, "{what}");
                assert!(got.toi as f64 * rel.length() <= 4.0 * tol, "{what}");
                seen[k][2] += 1;
            } else if approach > 1e-3 * rel.length() || rel == DVec3::ZERO {
                // No hit (the cast slides or separates), unless rounding put them a
                // hair inside: then overlapping by no more than the tolerance.
                if got.hit {
                    assert_eq!(got.start, CastStart::Overlapping, "{what}");
                    let depth = got.initial_distance.map_or(f64::NAN, |x| x as f64);
                    assert!(depth >= -tol, "{what}");
                }
                seen[k][1] += 1;
            }
            if got.hit {
                let n = d3(got.normal);
                assert!((n.length() - 1.0).abs() < 1e3 * eps, "{what}");
                assert!(n.dot(d0.normalize()) > 1.0 - 1e-3, "{what}: normal");
            }
            continue;
        }
        // Hit if the gap ever gets below −tol; no hit if it stays above +tol; between
        // the two (grazing within rounding) either answer is right.
        let t_deep = first_at_or_below(d0, rel, big_r, 1.0, -tol);
        let t_near = first_at_or_below(d0, rel, big_r, 1.0, tol);
        if !got.hit {
            // A miss from apart has its other fields zero, as `ShapeCast` documents (the
            // closed form builds hits and misses in one expression, zeroing the points).
            let zero = (0.0, Vector::ZERO, Vector::ZERO, Vector::ZERO, None);
            let fields = (
                got.toi,
                got.normal,
                got.point_a,
                got.point_b,
                got.initial_distance,
            );
            assert_eq!(fields, zero, "{what}: a miss's fields");
            assert_eq!(got.start, CastStart::Separated, "{what}");
        }
        match (t_near, got.hit) {
            (None, true) => panic!("{what}: the gap stays above {tol}, got a hit"),
            (Some(_), false) => assert!(t_deep.is_none(), "{what}: missed a hit at {t_deep:?}"),
            (None, false) => seen[k][1] += 1,
            (Some(t_near), true) => {
                let toi = got.toi as f64;
                assert!(got.start == CastStart::Separated, "{what}");
                assert!(
                    toi >= t_near * (1.0 - 1e-12) - 1e-300,
                    "{what}: early, band starts at {t_near}"
                );
                if let Some(t_deep) = t_deep {
                    assert!(
                        toi <= t_deep,
                        "{what}: late, the gap is below −tol at {t_deep}"
                    );
                }
                // The normal: from A's centre towards B's at the time of impact.
                let n = d3(got.normal);
                let dir = (d0 + rel * toi).normalize();
                assert!((n.length() - 1.0).abs() < 1e3 * eps, "{what}: |n|");
                assert!(
                    (n - dir).length() < 1e3 * eps * sigma / big_r,
                    "{what}: normal"
                );
                // The witnesses on their spheres, moved to `toi`, `s` apart along n.
                let pa = d3(got.point_a);
                let pb = d3(got.point_b);
                let ca_t = ca + d3(c.va) * toi;
                let cb_t = cb + d3(c.vb) * toi;
                assert!(
                    ((pa - ca_t).length() - c.ra as f64).abs() <= 4.0 * tol,
                    "{what}: point_a"
                );
                assert!(
                    ((pb - cb_t).length() - c.rb as f64).abs() <= 4.0 * tol,
                    "{what}: point_b"
                );
                assert!(
                    (pb - pa - n * c.s as f64).length() <= 8.0 * tol,
                    "{what}: pb − pa"
                );
                seen[k][if toi > 0.0 { 0 } else { 2 }] += 1;
            }
        }
    }
    // Every branch exercised.
    let at = |k: Kind| seen[KINDS.iter().position(|x| *x == k).unwrap_or(0)];
    assert!(at(Kind::Random)[0] > 100, "{seen:?}");
    assert!(at(Kind::Random)[1] > 20, "{seen:?}");
    assert!(at(Kind::TouchingApproach)[2] > 100, "{seen:?}");
    assert!(at(Kind::TouchingSeparate)[1] > 100, "{seen:?}");
    assert!(at(Kind::Parallel)[0] > 250, "{seen:?}");
    assert!(at(Kind::Grazing)[0] > 250, "{seen:?}");
    assert!(at(Kind::HairMiss)[1] > 250, "{seen:?}");
    assert!(at(Kind::Overlapping)[2] > 250, "{seen:?}");
    assert!(at(Kind::ZeroMotion)[1] > 250, "{seen:?}");
    assert!(at(Kind::ZeroMotionOverlap)[2] > 250, "{seen:?}");
}

/// The world-frame path and the general path (the same balls given as rounded points:
/// B's pose brought into A's frame, the closed form there, the answer taken back to the
/// world) agree on the time of impact, in gap terms.
#[test]
fn ball_ball_world_frame_agrees_with_the_general_path() {
    use minkowski::shape::{PointShape, RoundedShape};
    let mut rng = Rng::new(0x5eed_0019);
    let opts = QueryOptions::default();
    let eps = Real::EPSILON as f64;
    let mut hits = 0;
    for case_no in 0..300 {
        let size = [1e-3, 1.0, 1e3][case_no % 3];
        let c = make(&mut rng, Kind::Random, size, DVec3::ZERO);
        let spheres = (
            Shape::from(Sphere::new(c.ra).unwrap()),
            Shape::from(Sphere::new(c.rb).unwrap()),
        );
        let rounded = (
            Shape::from(RoundedShape::new(Shape::from(PointShape::ORIGIN), c.ra).unwrap()),
            Shape::from(RoundedShape::new(Shape::from(PointShape::ORIGIN), c.rb).unwrap()),
        );
        let (qa, qb) = (rng.rotation(), rng.rotation());
        let cast = |a: &Shape, b: &Shape| {
            let pair = ShapePair::new(
                a,
                Pose::new(qa, c.ca).unwrap(),
                b,
                Pose::new(qb, c.cb).unwrap(),
            );
            let mut input = CastInput::new(pair, Motion::linear(c.va), Motion::linear(c.vb));
            input.max_toi = 1.0;
            input.target_distance = c.s;
            cast_shapes(&input, &opts).unwrap()
        };
        let x = cast(&spheres.0, &spheres.1);
        let y = cast(&rounded.0, &rounded.1);
        let sigma = d3(c.ca).length().max(d3(c.cb).length()) + size;
        let d0 = d3(c.cb) - d3(c.ca);
        let rel = d3(c.vb) - d3(c.va);
        let big_r = c.ra as f64 + c.rb as f64 + c.s as f64;
        let tol = 1024.0 * eps * sigma;
        if x.hit != y.hit {
            // Only a graze within the tolerance may differ.
            let m = argmin(&|t| gap(d0, rel, big_r, t), 1.0);
            assert!(gap(d0, rel, big_r, m).abs() <= tol, "{x:?} vs {y:?}");
            continue;
        }
        if x.hit {
            hits += 1;
            let (gx, gy) = (
                gap(d0, rel, big_r, x.toi as f64),
                gap(d0, rel, big_r, y.toi as f64),
            );
            assert!(
                (gx - gy).abs() <= 2.0 * tol,
                "case {case_no}: {x:?} vs {y:?}"
            );
            assert!(
                (d3(x.normal) - d3(y.normal)).length() < 1e3 * eps * sigma / big_r,
                "case {case_no}: normals"
            );
        }
    }
    assert!(hits > 150, "{hits}");
}
