//! The six 2D hull algorithms agree with each other and with brute force.
//!
//! 10^4 seeded point sets from eleven generators (uniform disc, near a circle, square,
//! integer grids with heavy collinearity and repeats, all collinear, all equal, tiny and
//! huge scales, clusters). Every algorithm's answer must equal Andrew's monotone chain
//! vertex for vertex (same coordinates in the same order, same start); monotone chain
//! itself is checked against an O(n^4) brute-force oracle on the small sets: a point is a
//! hull vertex iff it lies in no closed triangle (possibly degenerate) of three other
//! distinct points.
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::Rng;
use minkowski::hull::{self, Algorithm2d};
use minkowski::math::{Real, Vector2};

fn orient(a: Vector2, b: Vector2, c: Vector2) -> f64 {
    robust::orient2d(
        robust::Coord {
            x: a.x as f64,
            y: a.y as f64,
        },
        robust::Coord {
            x: b.x as f64,
            y: b.y as f64,
        },
        robust::Coord {
            x: c.x as f64,
            y: c.y as f64,
        },
    )
}

fn generate(rng: &mut Rng, kind: usize, n: usize) -> Vec<Vector2> {
    let v = |x: f64, y: f64| Vector2::new(x as Real, y as Real);
    (0..n)
        .map(|_| match kind {
            0 => {
                let (r, t) = (rng.unit().sqrt(), rng.range(0.0, std::f64::consts::TAU));
                v(r * t.cos(), r * t.sin())
            }
            1 => {
                let t = rng.range(0.0, std::f64::consts::TAU);
                v(t.cos(), t.sin())
            }
            2 => v(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)),
            3 => v(rng.below(4) as f64, rng.below(4) as f64),
            4 => v(rng.below(40) as f64 - 20.0, rng.below(3) as f64),
            5 => {
                let x = rng.below(50) as f64 - 25.0;
                v(x, 2.0 * x + 1.0)
            }
            6 => {
                let y = rng.below(50) as f64;
                v(3.0, y)
            }
            7 => v(0.25, -7.5),
            8 => v(rng.range(-1e-30, 1e-30), rng.range(-1e-30, 1e-30)),
            9 => v(rng.range(-1e7, 1e7), rng.range(-1e7, 1e7)),
            _ => {
                // Clusters of repeated points on a triangle's sides and corners.
                let c = [
                    (0.0, 0.0),
                    (4.0, 0.0),
                    (0.0, 4.0),
                    (2.0, 0.0),
                    (2.0, 2.0),
                    (1.0, 1.0),
                ];
                let (x, y) = c[rng.below(c.len())];
                v(x, y)
            }
        })
        .collect()
}

fn coords(points: &[Vector2], idx: &[usize]) -> Vec<(Real, Real)> {
    idx.iter().map(|&i| (points[i].x, points[i].y)).collect()
}

/// Extreme points by brute force: not inside any closed triangle of three others (at
/// distinct locations from it).
fn brute_force_extremes(points: &[Vector2]) -> Vec<(Real, Real)> {
    let mut distinct: Vec<Vector2> = Vec::new();
    for p in points {
        if !distinct.contains(p) {
            distinct.push(*p);
        }
    }
    let n = distinct.len();
    let in_triangle = |p: Vector2, a: Vector2, b: Vector2, c: Vector2| {
        let (s1, s2, s3) = (orient(a, b, p), orient(b, c, p), orient(c, a, p));
        let has_neg = s1 < 0.0 || s2 < 0.0 || s3 < 0.0;
        let has_pos = s1 > 0.0 || s2 > 0.0 || s3 > 0.0;
        if orient(a, b, c) != 0.0 {
            return !(has_neg && has_pos);
        }
        // Degenerate triangle: p on one of its three sides.
        let on = |u: Vector2, w: Vector2| {
            orient(u, w, p) == 0.0
                && p.x >= u.x.min(w.x)
                && p.x <= u.x.max(w.x)
                && p.y >= u.y.min(w.y)
                && p.y <= u.y.max(w.y)
        };
        on(a, b) || on(b, c) || on(a, c)
    };
    let mut out = Vec::new();
    'points: for i in 0..n {
        for a in 0..n {
            for b in a..n {
                for c in b..n {
                    if [a, b, c].contains(&i) {
                        continue;
                    }
                    if in_triangle(distinct[i], distinct[a], distinct[b], distinct[c]) {
                        continue 'points;
                    }
                }
            }
        }
        out.push((distinct[i].x, distinct[i].y));
    }
    out.sort_by(|a, b| a.partial_cmp(b).unwrap());
    out
}

#[test]
fn all_algorithms_agree_with_monotone_chain_on_ten_thousand_sets() {
    let mut rng = Rng::new(0x2d_4a11);
    let mut brute_checked = 0;
    let mut sizes = [0usize; 3]; // answers of 1, 2 and >= 3 vertices
    for case in 0..10_000 {
        let kind = case % 11;
        let n = match case % 7 {
            0 => 1 + rng.below(3),
            1 | 2 => 3 + rng.below(20),
            3 | 4 => 20 + rng.below(200),
            _ => 200 + rng.below(2000),
        };
        let points = generate(&mut rng, kind, n);
        let reference = hull::monotone_chain(&points).unwrap();
        sizes[reference.len().min(3) - 1] += 1;
        let want = coords(&points, &reference);
        let as_f64: Vec<glam::DVec2> = points
            .iter()
            .map(|p| glam::DVec2::new(p.x as f64, p.y as f64))
            .collect();
        for alg in Algorithm2d::ALL {
            // The f64 entry point answers the same on the same numbers (every fourth set).
            if case % 4 == 0 {
                assert_eq!(
                    coords(&points, &alg.run_f64(&as_f64).unwrap()),
                    want,
                    "case {case}: {} (f64 entry)",
                    alg.name()
                );
            }
            let got = alg.run(&points).unwrap();
            assert_eq!(
                coords(&points, &got),
                want,
                "case {case}: {} disagrees with monotone chain (kind {kind}, n {n})",
                alg.name()
            );
        }
        // Convention: starts at the lowest-then-leftmost point.
        let lowest = want
            .iter()
            .min_by(|a, b| (a.1, a.0).partial_cmp(&(b.1, b.0)).unwrap())
            .unwrap();
        assert_eq!(&want[0], lowest);
        if n <= 24 {
            let mut sorted = want.clone();
            sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
            assert_eq!(
                sorted,
                brute_force_extremes(&points),
                "case {case}: not the extreme points"
            );
            brute_checked += 1;
        }
        if want.len() >= 3 {
            // Strictly counter-clockwise and convex.
            let m = reference.len();
            for i in 0..m {
                let (a, b, c) = (reference[i], reference[(i + 1) % m], reference[(i + 2) % m]);
                assert!(
                    orient(points[a], points[b], points[c]) > 0.0,
                    "case {case}: not strictly convex"
                );
            }
        }
    }
    // The degenerate branches were really exercised.
    assert!(
        sizes.iter().all(|&s| s > 300),
        "answer sizes 1/2/3+: {sizes:?}"
    );
    assert!(brute_checked > 2000, "{brute_checked}");
}

#[test]
fn melkman_on_a_simple_polyline_that_is_not_sorted() {
    // A star-shaped simple polygon traversed in order: Melkman runs on it directly.
    let mut pts = Vec::new();
    for k in 0..40 {
        let t = k as f64 / 40.0 * std::f64::consts::TAU;
        let r = if k % 2 == 0 { 2.0 } else { 0.7 };
        pts.push(Vector2::new((r * t.cos()) as Real, (r * t.sin()) as Real));
    }
    let order: Vec<usize> = (0..pts.len()).collect();
    let got = hull::melkman_polyline(&pts, &order).unwrap();
    assert_eq!(
        coords(&pts, &got),
        coords(&pts, &hull::monotone_chain(&pts).unwrap())
    );
    assert_eq!(got.len(), 20);
    assert_eq!(
        hull::melkman_polyline(&pts, &[0, 99]),
        Err(hull::HullError::BadIndex { index: 99, len: 40 })
    );
}

#[test]
fn bad_input_is_a_typed_error_for_every_algorithm() {
    let nan = [Vector2::new(0.0, 0.0), Vector2::new(Real::NAN, 1.0)];
    let huge = [Vector2::new(0.0, 0.0), Vector2::new(1.0, Real::MAX / 2.0)];
    for alg in Algorithm2d::ALL {
        assert_eq!(alg.run(&[]), Err(hull::HullError::Empty));
        assert_eq!(
            alg.run(&nan),
            Err(hull::HullError::NonFinitePoint { index: 1 })
        );
        assert!(matches!(
            alg.run(&huge),
            Err(hull::HullError::OutOfRange { index: 1, .. })
        ));
        assert_eq!(Algorithm2d::from_name(alg.name()), Some(alg));
    }
}

/// The hostile-input campaign (issue 17, classes 1–3): with a −0.0 coordinate, Graham
/// dropped an end point, Jarvis repeated vertices, Chan disagreed with monotone chain and
/// every algorithm started at the wrong point (the orders compare with `total_cmp`, which
/// puts −0.0 before +0.0, so a start point sat "below" its equals); with magnitudes from
/// subnormal to 1e60, Graham's sort panicked ("does not implement a total order") and
/// the set, rescaled down to [1, 2), lost its small coordinates to underflow. Sets with
/// −0.0, subnormal or huge values: every algorithm gives the same answer as
/// monotone chain, a subset of the input that starts at the lowest-then-leftmost point
/// (by value), and no answer holds a point inside the segment of its neighbours.
#[test]
fn negative_zero_subnormal_and_huge_coordinates_give_one_answer() {
    use glam::DVec2;
    // The unit square with points on its edges written with −0.0.
    let square = [
        DVec2::new(0.5, -0.0),
        DVec2::new(1.0, 0.0),
        DVec2::new(1.0, 1.0),
        DVec2::new(0.0, 1.0),
        DVec2::new(-0.0, 0.5),
        DVec2::new(0.0, 0.0),
        DVec2::new(-0.0, -0.0),
    ];
    for alg in Algorithm2d::ALL {
        let h = alg.run_f64(&square).unwrap();
        let got: Vec<DVec2> = h.iter().map(|&i| square[i]).collect();
        assert_eq!(
            got,
            [
                DVec2::ZERO,
                DVec2::new(1.0, 0.0),
                DVec2::ONE,
                DVec2::new(0.0, 1.0)
            ],
            "{}",
            alg.name()
        );
    }
    let mut rng = Rng::new(0x17_0001);
    // Three regimes: huge and moderate values with zeros of both signs, sets of only
    // tiny values (subnormals included), and the two mixed, where products of
    // differences underflow in floating point and the exact integer fallback decides
    // (tests/hull_wide_range.rs checks all of them against an exact oracle as well).
    let magnitude = |rng: &mut Rng, tiny: bool| -> f64 {
        match (rng.below(4), tiny) {
            (0, _) => 0.0,
            (1, _) => -0.0,
            (2, true) => 5e-324 * (1 + rng.below(100)) as f64,
            (_, true) => 10f64.powf(rng.range(-320.0, -250.0)),
            (2, false) => 10f64.powf(rng.range(55.0, 60.0)),
            (_, false) => rng.range(-3.0, 3.0),
        }
    };
    for case in 0..3000 {
        let n = 3 + rng.below(12);
        let pts: Vec<DVec2> = (0..n)
            .map(|_| {
                let tiny = match case % 3 {
                    0 => true,
                    1 => false,
                    _ => rng.below(2) == 0,
                };
                let sx = if rng.below(2) == 0 { 1.0 } else { -1.0 };
                let sy = if rng.below(2) == 0 { 1.0 } else { -1.0 };
                DVec2::new(
                    sx * magnitude(&mut rng, tiny),
                    sy * magnitude(&mut rng, tiny),
                )
            })
            .collect();
        let want = hull::Algorithm2d::MonotoneChain.run_f64(&pts).unwrap();
        for alg in Algorithm2d::ALL {
            let got = alg.run_f64(&pts).unwrap();
            let (a, b): (Vec<DVec2>, Vec<DVec2>) = (
                got.iter().map(|&i| pts[i]).collect(),
                want.iter().map(|&i| pts[i]).collect(),
            );
            assert_eq!(a, b, "case {case}: {} vs monotone on {pts:?}", alg.name());
        }
        let v: Vec<DVec2> = want.iter().map(|&i| pts[i]).collect();
        let lowest = pts
            .iter()
            .copied()
            .min_by(|p, q| (p.y, p.x).partial_cmp(&(q.y, q.x)).unwrap())
            .unwrap();
        assert_eq!(v[0], lowest, "case {case}: start of {pts:?}");
        for w in 0..v.len() {
            assert!(
                v.iter().filter(|&&q| q == v[w]).count() == 1,
                "case {case}: repeated vertex in {v:?}"
            );
        }
    }
}
