//! 2D GJK against a brute-force oracle, and the seed-003 centroid start.
//!
//! Random convex polygons (hulls of 1–30 random points, so points and segments occur),
//! circles and segments, at scales 1e-3..1e4, separated, overlapping and nested. The
//! oracle (f64): shapes meet iff a vertex of one is in the other or two edges cross
//! (exact predicates); otherwise the distance is the least vertex–edge distance, minus the
//! radii for circles.
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::Rng;
use glam::DVec2;
use minkowski::math::{Real, Vector2};
use minkowski::planar::{gjk2d, Core2d, Shape2d};

fn o2(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    robust::orient2d(
        robust::Coord { x: a.x, y: a.y },
        robust::Coord { x: b.x, y: b.y },
        robust::Coord { x: c.x, y: c.y },
    )
}

fn d2(v: Vector2) -> DVec2 {
    DVec2::new(v.x as f64, v.y as f64)
}

/// Core vertices (f64) and margin.
fn core(s: &Shape2d) -> (Vec<DVec2>, f64) {
    let (c, m) = s.core();
    let v = match c {
        Core2d::Point(p) => vec![d2(p)],
        Core2d::Segment(a, b) => vec![d2(a), d2(b)],
        Core2d::Polygon(v) => v.iter().map(|p| d2(*p)).collect(),
    };
    (v, m as f64)
}

fn edges(v: &[DVec2]) -> Vec<(DVec2, DVec2)> {
    if v.len() == 1 {
        return vec![(v[0], v[0])];
    }
    (0..v.len()).map(|i| (v[i], v[(i + 1) % v.len()])).collect()
}

fn inside(p: DVec2, v: &[DVec2]) -> bool {
    v.len() >= 3 && (0..v.len()).all(|i| o2(v[i], v[(i + 1) % v.len()], p) >= 0.0)
}

fn on_segment(p: DVec2, a: DVec2, b: DVec2) -> bool {
    o2(a, b, p) == 0.0
        && p.x >= a.x.min(b.x)
        && p.x <= a.x.max(b.x)
        && p.y >= a.y.min(b.y)
        && p.y <= a.y.max(b.y)
}

fn cross(a: (DVec2, DVec2), b: (DVec2, DVec2)) -> bool {
    let (d1, d2, d3, d4) = (
        o2(b.0, b.1, a.0),
        o2(b.0, b.1, a.1),
        o2(a.0, a.1, b.0),
        o2(a.0, a.1, b.1),
    );
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
    {
        return true;
    }
    on_segment(a.0, b.0, b.1)
        || on_segment(a.1, b.0, b.1)
        || on_segment(b.0, a.0, a.1)
        || on_segment(b.1, a.0, a.1)
}

fn point_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let e = b - a;
    let t = if e.length_squared() > 0.0 {
        ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + e * t - p).length()
}

/// Distance between the cores (0 when they meet).
fn core_distance(a: &[DVec2], b: &[DVec2]) -> f64 {
    if a.iter().any(|p| inside(*p, b)) || b.iter().any(|p| inside(*p, a)) {
        return 0.0;
    }
    let (ea, eb) = (edges(a), edges(b));
    if ea.iter().any(|x| eb.iter().any(|y| cross(*x, *y))) {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for p in a {
        for e in &eb {
            best = best.min(point_segment(*p, e.0, e.1));
        }
    }
    for p in b {
        for e in &ea {
            best = best.min(point_segment(*p, e.0, e.1));
        }
    }
    best
}

/// Distance from a point to a shape (0 inside).
fn outside(p: DVec2, s: &Shape2d) -> f64 {
    let (v, m) = core(s);
    (core_distance(&[p], &v) - m).max(0.0)
}

fn random_shape(rng: &mut Rng, scale: f64, at: DVec2) -> Shape2d {
    let v = |x: f64, y: f64| Vector2::new(x as Real, y as Real);
    match rng.below(5) {
        0 => Shape2d::circle(v(at.x, at.y), (scale * rng.range(0.1, 1.0)) as Real).unwrap(),
        1 => Shape2d::segment(
            v(
                at.x + scale * rng.range(-1.0, 1.0),
                at.y + scale * rng.range(-1.0, 1.0),
            ),
            v(
                at.x + scale * rng.range(-1.0, 1.0),
                at.y + scale * rng.range(-1.0, 1.0),
            ),
        )
        .unwrap(),
        _ => {
            let n = 1 + rng.below(30);
            let pts: Vec<Vector2> = (0..n)
                .map(|_| {
                    v(
                        at.x + scale * rng.range(-1.0, 1.0),
                        at.y + scale * rng.range(-1.0, 1.0),
                    )
                })
                .collect();
            Shape2d::polygon(&pts).unwrap()
        }
    }
}

#[test]
fn gjk2d_matches_brute_force() {
    let tol_rel = if cfg!(minkowski_f64) { 1e-9 } else { 2e-4 };
    let mut rng = Rng::new(0x2d61c);
    let (mut hits, mut misses) = (0, 0);
    let mut iters = [0u64; 2];
    for case in 0..20_000 {
        let scale = [1e-3, 1.0, 1.0, 1.0, 37.0, 1e4][case % 6];
        let a = random_shape(&mut rng, scale, DVec2::ZERO);
        let off = DVec2::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0))
            * scale
            * if case % 7 == 0 { 0.05 } else { 1.0 };
        let size_b = scale * rng.range(0.2, 1.0);
        let b = random_shape(&mut rng, size_b, off);
        let (ca, ma) = core(&a);
        let (cb, mb) = core(&b);
        let truth = (core_distance(&ca, &cb) - ma - mb).max(0.0);
        let tol = tol_rel * scale * 4.0;
        let r = gjk2d::distance(&a, &b, &Default::default());
        let label = format!("case {case}: {a:?} {b:?} -> {r:?}, truth {truth}");
        assert!((r.distance as f64 - truth).abs() <= tol, "{label}");
        assert!(r.distance.is_finite() && r.point_a.is_finite() && r.point_b.is_finite());
        if truth > tol {
            assert!(!r.intersecting, "{label}");
            assert!((r.normal.length() - 1.0).abs() < 1e-3, "{label}");
            misses += 1;
        } else if truth == 0.0 {
            // Meeting cores (or margins) by more than rounding: compare the overlap with
            // a shrunken margin to stay clear of tangency.
            if core_distance(&ca, &cb) < (ma + mb) - tol
                || (ma + mb == 0.0 && core_distance(&ca, &cb) == 0.0)
            {
                assert!(r.intersecting, "{label}");
            }
            hits += 1;
        }
        assert!(outside(d2(r.point_a), &a) <= tol, "{label}: point_a off A");
        assert!(outside(d2(r.point_b), &b) <= tol, "{label}: point_b off B");
        assert!(
            ((d2(r.point_b) - d2(r.point_a)).length() - r.distance as f64).abs() <= tol,
            "{label}"
        );
        assert_eq!(
            gjk2d::intersects(&a, &b, &Default::default()),
            r.intersecting
        );
        assert!(r.iterations <= 64);
        // The seed's start direction against the +x axis (deterministic counts).
        iters[0] += r.iterations as u64;
        let axis = gjk2d::Gjk2dOptions {
            centroid_start: false,
            ..Default::default()
        };
        let r2 = gjk2d::distance(&a, &b, &axis);
        assert!(
            (r2.distance as f64 - truth).abs() <= tol,
            "{label} (axis start)"
        );
        iters[1] += r2.iterations as u64;
    }
    println!(
        "mean GJK-2D iterations: centroid start {:.3}, +x start {:.3}",
        iters[0] as f64 / 20_000.0,
        iters[1] as f64 / 20_000.0
    );
    assert!(hits > 3000 && misses > 3000, "hits {hits} misses {misses}");
}

#[test]
fn centroid_and_transforms_follow_seed_003() {
    let v = |x: Real, y: Real| Vector2::new(x, y);
    // The area centroid of an L-shaped (non-uniform) convex quad, by hand: triangle
    // (0,0),(4,0),(0,2) and (4,0),(4,1),(0,2).
    let quad = Shape2d::polygon(&[v(0.0, 0.0), v(4.0, 0.0), v(4.0, 1.0), v(0.0, 2.0)]).unwrap();
    let (a1, c1) = (4.0, v(4.0 / 3.0, 2.0 / 3.0));
    let (a2, c2) = (2.0, v(8.0 / 3.0, 1.0));
    let want = (c1 * a1 + c2 * a2) / (a1 + a2);
    assert!((quad.centroid() - want).length() < 1e-5);
    // Translation and scaling about a fixed point.
    let moved = quad.translated(v(1.0, -2.0)).scaled(2.0, v(1.0, -2.0));
    assert!((moved.centroid() - (v(1.0, -2.0) + want * 2.0)).length() < 1e-4);
    let turned = quad.rotated(std::f64::consts::FRAC_PI_2 as Real, Vector2::ZERO);
    assert!((turned.centroid() - v(-want.y, want.x)).length() < 1e-4);
    // Bad input is an error.
    assert!(Shape2d::circle(v(0.0, 0.0), -1.0).is_err());
    assert!(Shape2d::polygon(&[]).is_err());
    assert!(Shape2d::segment(v(0.0, Real::NAN), v(0.0, 0.0)).is_err());
}
