//! Quickhull in 3D against brute force, analytic volumes and its own validator.
//!
//! * Every hull of every generated set passes `validate()` (closed, oriented, strictly
//!   convex faces, Euler, every input point inside — exact, tolerance zero).
//! * For n ≤ 60 (and a few sets of 200) the faces equal the brute-force facets: every
//!   plane through three input points with all points on one side is a facet, its
//!   vertices are the 2D extreme points of the input points on it, and the hull's merged
//!   faces must be exactly those vertex sets.
//! * Cubes and dense spheres have the right volume and area.
//! * Degenerate sets answer with their true dimension.
#![allow(clippy::unnecessary_cast)] // `as f64` is a no-op in the f64 build

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use std::collections::BTreeSet;

use common::Rng;
use minkowski::hull::{quickhull3d, Dimension, HullError};
use minkowski::{Real, Vector};

fn o3(a: Vector, b: Vector, c: Vector, d: Vector) -> f64 {
    let k = |v: Vector| robust::Coord3D {
        x: v.x as f64,
        y: v.y as f64,
        z: v.z as f64,
    };
    // robust's orient3d is positive below the plane; flip to "positive above".
    -robust::orient3d(k(a), k(b), k(c), k(d))
}

fn o2(a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> f64 {
    let k = |v: (f64, f64)| robust::Coord { x: v.0, y: v.1 };
    robust::orient2d(k(a), k(b), k(c))
}

fn key(v: Vector) -> [u64; 3] {
    [v.x as f64, v.y as f64, v.z as f64].map(f64::to_bits)
}

fn generate(rng: &mut Rng, kind: usize, n: usize) -> Vec<Vector> {
    let v = |x: f64, y: f64, z: f64| Vector::new(x as Real, y as Real, z as Real);
    let mut out: Vec<Vector> = (0..n)
        .map(|_| match kind {
            0 => {
                let d = rng.dir();
                let r = rng.unit().cbrt();
                v(d.x * r, d.y * r, d.z * r)
            }
            1 => {
                let d = rng.dir();
                v(d.x, d.y, d.z)
            }
            2 => {
                // Cube corners with jitter.
                let c = |rng: &mut Rng| if rng.below(2) == 0 { -1.0 } else { 1.0 };
                let j = 1e-4;
                v(
                    c(rng) + rng.range(-j, j),
                    c(rng) + rng.range(-j, j),
                    c(rng) + rng.range(-j, j),
                )
            }
            3 => {
                // Coplanar slabs: two planes z = 0 and z = 1.
                v(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.below(2) as f64,
                )
            }
            4 => v(
                rng.below(3) as f64,
                rng.below(3) as f64,
                rng.below(3) as f64,
            ),
            5 => {
                // Huge coordinate range: tiny cloud far from the origin plus big corners.
                if rng.below(4) == 0 {
                    v(
                        rng.range(-1e6, 1e6),
                        rng.range(-1e6, 1e6),
                        rng.range(-1e6, 1e6),
                    )
                } else {
                    v(
                        1e6 + rng.range(-1e-2, 1e-2),
                        rng.range(-1e-2, 1e-2),
                        rng.range(-1e-2, 1e-2),
                    )
                }
            }
            8 => {
                // On the plane x + 2y + 3z = 1 up to rounding: nearly coplanar, the case
                // that decides whether the floating-point filter hands over to exact
                // arithmetic when it must.
                let (x, y) = (rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
                v(x, y, (1.0 - x - 2.0 * y) / 3.0)
            }
            6 => v(
                rng.range(-1e-20, 1e-20),
                rng.range(-1e-20, 1e-20),
                rng.range(-1e-20, 1e-20),
            ),
            _ => {
                // A tilted plane with a few points off it.
                let (x, y) = (rng.below(9) as f64, rng.below(9) as f64);
                v(
                    x,
                    y,
                    x + 2.0 * y + if rng.below(10) == 0 { 1.0 } else { 0.0 },
                )
            }
        })
        .collect();
    // Duplicates.
    if n > 3 && rng.below(2) == 0 {
        for _ in 0..n / 4 {
            let i = rng.below(out.len());
            out.push(out[i]);
        }
    }
    out
}

/// Brute-force facets: for each supporting plane, the sorted keys of the 2D extreme
/// points among the input points on it. Requires a full-dimensional set.
fn brute_facets(p: &[Vector]) -> BTreeSet<Vec<[u64; 3]>> {
    let mut distinct: Vec<Vector> = Vec::new();
    for q in p {
        if !distinct.iter().any(|d| key(*d) == key(*q)) {
            distinct.push(*q);
        }
    }
    let n = distinct.len();
    let mut facets = BTreeSet::new();
    let mut seen_planes: BTreeSet<Vec<usize>> = BTreeSet::new();
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let (a, b, c) = (distinct[i], distinct[j], distinct[k]);
                let mut pos = false;
                let mut neg = false;
                let mut on = Vec::new();
                for (m, &d) in distinct.iter().enumerate() {
                    let s = o3(a, b, c, d);
                    pos |= s > 0.0;
                    neg |= s < 0.0;
                    if s == 0.0 {
                        on.push(m);
                    }
                }
                if (pos && neg) || (!pos && !neg) || !seen_planes.insert(on.clone()) {
                    continue; // not supporting, collinear triple, or a plane already seen
                }
                // 2D extreme points of the points on the plane, projected along the
                // normal's dominant axis (exact for coplanar points).
                let nrm = (b - a).cross(c - a);
                let ax = nrm.abs().max_position();
                let pr = |v: Vector| (v[(ax + 1) % 3] as f64, v[(ax + 2) % 3] as f64);
                let pts: Vec<(f64, f64)> = on.iter().map(|&m| pr(distinct[m])).collect();
                let mut ext = Vec::new();
                'q: for (qi, &q) in pts.iter().enumerate() {
                    for (s, &u) in pts.iter().enumerate() {
                        for (t, &w) in pts.iter().enumerate().skip(s) {
                            for (r, &x) in pts.iter().enumerate().skip(t) {
                                if qi == s || qi == t || qi == r {
                                    continue;
                                }
                                let (s1, s2, s3) = (o2(u, w, q), o2(w, x, q), o2(x, u, q));
                                if o2(u, w, x) != 0.0 {
                                    let neg = s1 < 0.0 || s2 < 0.0 || s3 < 0.0;
                                    let pos = s1 > 0.0 || s2 > 0.0 || s3 > 0.0;
                                    if !(neg && pos) {
                                        continue 'q;
                                    }
                                } else {
                                    let between = |a: (f64, f64), b: (f64, f64)| {
                                        o2(a, b, q) == 0.0
                                            && q.0 >= a.0.min(b.0)
                                            && q.0 <= a.0.max(b.0)
                                            && q.1 >= a.1.min(b.1)
                                            && q.1 <= a.1.max(b.1)
                                    };
                                    if between(u, w) || between(w, x) || between(u, x) {
                                        continue 'q;
                                    }
                                }
                            }
                        }
                    }
                    ext.push(key(distinct[on[qi]]));
                }
                ext.sort_unstable();
                facets.insert(ext);
            }
        }
    }
    facets
}

fn hull_facets(p: &[Vector]) -> BTreeSet<Vec<[u64; 3]>> {
    let h = quickhull3d(p).unwrap();
    h.faces()
        .map(|f| {
            let mut k: Vec<[u64; 3]> = f.iter().map(|&i| key(h.vertices()[i as usize])).collect();
            k.sort_unstable();
            k
        })
        .collect()
}

#[test]
fn random_sets_validate_and_small_ones_match_brute_force_facets() {
    let mut rng = Rng::new(0x3d_4a11);
    let mut dims = [0usize; 4];
    let mut brute = 0;
    for case in 0..1000 {
        let kind = case % 9;
        let n = match case % 5 {
            0 => 4 + rng.below(8),
            1 | 2 => 10 + rng.below(40),
            3 => 100 + rng.below(400),
            _ => 500 + rng.below(1500),
        };
        let p = generate(&mut rng, kind, n);
        let h = quickhull3d(&p).unwrap_or_else(|e| panic!("case {case}: {e}"));
        h.validate(&p)
            .unwrap_or_else(|e| panic!("case {case} (kind {kind}, n {n}): {e}"));
        dims[h.dimension() as usize] += 1;
        if h.dimension() == Dimension::Polyhedron && p.len() <= 60 {
            assert_eq!(
                hull_facets(&p),
                brute_facets(&p),
                "case {case} (kind {kind})"
            );
            brute += 1;
        }
    }
    assert!(
        dims[3] > 800 && brute > 300,
        "dims {dims:?}, brute-checked {brute}"
    );
}

#[test]
fn sets_of_two_hundred_match_brute_force_facets() {
    let mut rng = Rng::new(200);
    // On a sphere (every point extreme) at 200, an integer grid (coplanar and collinear
    // everywhere) at 120.
    for (kind, n) in [(1, 200), (4, 120)] {
        let p = generate(&mut rng, kind, n);
        assert_eq!(hull_facets(&p), brute_facets(&p), "kind {kind}");
    }
}

#[test]
fn degenerate_sets_answer_with_their_dimension() {
    let v = |x: f64, y: f64, z: f64| Vector::new(x as Real, y as Real, z as Real);
    let mut rng = Rng::new(7);
    // All equal.
    let same = vec![v(1.0, 2.0, 3.0); 5];
    let h = quickhull3d(&same).unwrap();
    assert_eq!(
        (h.dimension(), h.vertices().len(), h.num_faces()),
        (Dimension::Point, 1, 0)
    );
    h.validate(&same).unwrap();
    // Collinear, with repeats, shuffled.
    let line: Vec<Vector> = (0..50)
        .map(|_| {
            let t = rng.below(20) as f64;
            v(1.0 + t, 2.0 - 2.0 * t, 0.5 * t)
        })
        .collect();
    let h = quickhull3d(&line).unwrap();
    assert_eq!(h.dimension(), Dimension::Segment);
    h.validate(&line).unwrap();
    assert_eq!(h.neighbors(0), &[1]);
    // Coplanar (a tilted square grid): one face, the square's four corners.
    let plane: Vec<Vector> = (0..100)
        .map(|i| {
            let (x, y) = ((i % 10) as f64, (i / 10) as f64);
            v(x, y, 3.0 * x - y)
        })
        .collect();
    let h = quickhull3d(&plane).unwrap();
    assert_eq!(
        (h.dimension(), h.vertices().len(), h.num_faces()),
        (Dimension::Polygon, 4, 1)
    );
    h.validate(&plane).unwrap();
    let n = h.normal();
    assert!((n.length() - 1.0).abs() < 1e-5 && n.x > 0.0, "normal {n}");
    assert!(
        (h.area() - 81.0 * (11.0 as Real).sqrt()).abs() < 1e-3,
        "area {}",
        h.area()
    );
    // Two points; a triangle; four coplanar points on a flat slab (coal crashes here).
    for set in [
        vec![v(0.0, 0.0, 0.0), v(1.0, 1.0, 1.0)],
        vec![v(0.0, 0.0, 0.0), v(1.0, 0.0, 0.0), v(0.0, 1.0, 0.0)],
        vec![
            v(0.0, 0.0, 0.0),
            v(1.0, 0.0, 0.0),
            v(0.0, 1.0, 0.0),
            v(1.0, 1.0, 0.0),
        ],
    ] {
        let h = quickhull3d(&set).unwrap();
        assert_eq!(h.dimension() as usize, set.len().min(3) - 1);
        h.validate(&set).unwrap();
    }
    // Errors.
    assert_eq!(quickhull3d(&[]), Err(HullError::Empty));
    assert_eq!(
        quickhull3d(&[v(0.0, 0.0, 0.0), v(0.0, Real::NAN as f64, 0.0)]),
        Err(HullError::NonFinitePoint { index: 1 })
    );
}

#[test]
fn cube_and_sphere_volumes_and_areas() {
    let mut rng = Rng::new(11);
    for &side in &[1e-3, 1.0, 37.0, 1e4] {
        // Corners, edge midpoints, face points and interior points of a cube.
        let mut p = Vec::new();
        for _ in 0..2000 {
            let mut c = [0.0; 3];
            for x in &mut c {
                *x = match rng.below(3) {
                    0 => 0.0,
                    1 => side,
                    _ => rng.range(0.0, side),
                };
            }
            p.push(Vector::new(c[0] as Real, c[1] as Real, c[2] as Real));
        }
        let h = quickhull3d(&p).unwrap();
        h.validate(&p).unwrap();
        assert_eq!(
            (h.vertices().len(), h.num_faces(), h.num_edges()),
            (8, 6, 12)
        );
        assert!(h.faces().all(|f| f.len() == 4));
        let s = side as Real;
        assert!(((h.volume() - s * s * s) / (s * s * s)).abs() < 1e-5);
        assert!(((h.area() - 6.0 * s * s) / (s * s)).abs() < 1e-5);
    }
    // A dense sphere: volume and area approach the ball's from below. (Validated on a
    // smaller one: validation is O(n F).)
    let sphere = |n: usize, rng: &mut Rng| -> Vec<Vector> {
        (0..n)
            .map(|_| {
                let d = rng.dir();
                Vector::new(d.x as Real, d.y as Real, d.z as Real)
            })
            .collect()
    };
    let small = sphere(3000, &mut rng);
    quickhull3d(&small).unwrap().validate(&small).unwrap();
    let p: Vec<Vector> = (0..20_000)
        .map(|_| {
            let d = rng.dir();
            Vector::new(d.x as Real, d.y as Real, d.z as Real)
        })
        .collect();
    let h = quickhull3d(&p).unwrap();
    let (vol, area) = (h.volume() as f64, h.area() as f64);
    let (ball_vol, ball_area) = (4.0 / 3.0 * std::f64::consts::PI, 4.0 * std::f64::consts::PI);
    assert!(
        vol < ball_vol && (ball_vol - vol) / ball_vol < 2e-3,
        "volume {vol}"
    );
    assert!(
        area < ball_area && (ball_area - area) / ball_area < 2e-3,
        "area {area}"
    );
    // Every sphere point is extreme (general position with probability one).
    assert!(h.vertices().len() > 19_900, "{}", h.vertices().len());
}

#[test]
fn hostile_sets_validate() {
    let v = |x: f64, y: f64, z: f64| Vector::new(x as Real, y as Real, z as Real);
    let mut rng = Rng::new(0xbad);
    let mut sets: Vec<(&str, Vec<Vector>)> = Vec::new();
    // A 20³ integer grid: 8000 points, nearly all on faces, edges or inside; the hull is
    // the cube (8 vertices, 6 quadrilaterals) after heavy merging.
    let mut grid = Vec::new();
    for i in 0..20 {
        for j in 0..20 {
            for k in 0..20 {
                grid.push(v(i as f64, j as f64, k as f64));
            }
        }
    }
    sets.push(("grid", grid));
    // Five points repeated two thousand times each, shuffled.
    let five = [
        v(0.0, 0.0, 0.0),
        v(1.0, 0.0, 0.0),
        v(0.0, 1.0, 0.0),
        v(0.0, 0.0, 1.0),
        v(0.2, 0.2, 0.2),
    ];
    sets.push(("repeats", (0..10_000).map(|_| five[rng.below(5)]).collect()));
    // A great circle (coplanar) plus the two poles.
    let mut circle: Vec<Vector> = (0..500)
        .map(|k| {
            let t = k as f64 / 500.0 * std::f64::consts::TAU;
            v(t.cos(), t.sin(), 0.0)
        })
        .collect();
    circle.extend([v(0.0, 0.0, 1.0), v(0.0, 0.0, -1.0)]);
    sets.push(("circle-and-poles", circle));
    // Two clusters twelve orders of magnitude apart in size.
    let mut clusters: Vec<Vector> = (0..300)
        .map(|_| {
            v(
                rng.range(-1e-6, 1e-6),
                rng.range(-1e-6, 1e-6),
                rng.range(-1e-6, 1e-6),
            )
        })
        .collect();
    clusters.extend((0..300).map(|_| {
        v(
            1e6 + rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        )
    }));
    sets.push(("clusters", clusters));
    // All but one point equal.
    let mut lonely = vec![v(3.0, 3.0, 3.0); 1000];
    lonely.push(v(3.0, 3.0, 4.0));
    sets.push(("lonely", lonely));
    for (name, p) in &sets {
        let h = quickhull3d(p).unwrap_or_else(|e| panic!("{name}: {e}"));
        h.validate(p).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let grid = quickhull3d(&sets[0].1).unwrap();
    assert_eq!((grid.vertices().len(), grid.num_faces()), (8, 6));
    assert_eq!(quickhull3d(&sets[1].1).unwrap().vertices().len(), 4);
    assert_eq!(quickhull3d(&sets[2].1).unwrap().vertices().len(), 502);
    assert_eq!(
        quickhull3d(&sets[4].1).unwrap().dimension(),
        Dimension::Segment
    );
}

#[test]
fn f64_entry_point_is_exact_for_f64_input() {
    use glam::DVec3;
    use minkowski::hull::quickhull3d_f64;
    // A unit square with one corner lifted by 1e-12: a (very flat) tetrahedron-like solid
    // in f64, which rounding to f32 would flatten into a polygon.
    let p = [
        DVec3::new(0.0, 0.0, 0.0),
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(0.0, 1.0, 0.0),
        DVec3::new(1.0, 1.0, 1e-12),
        DVec3::new(0.5, 0.5, 0.0),
    ];
    let h = quickhull3d_f64(&p).unwrap();
    assert_eq!(h.dimension(), Dimension::Polyhedron);
    assert_eq!(h.vertices().len(), 4);
    assert_eq!(h.source_indices(), &[0, 1, 2, 3]);
    // Out of range and non-finite input are errors.
    assert!(matches!(
        quickhull3d_f64(&[DVec3::splat(1e61)]),
        Err(HullError::OutOfRange { .. })
    ));
    assert_eq!(
        quickhull3d_f64(&[DVec3::new(f64::NAN, 0.0, 0.0)]),
        Err(HullError::NonFinitePoint { index: 0 })
    );
}
