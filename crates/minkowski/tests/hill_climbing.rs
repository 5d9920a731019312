//! Hill climbing on hull adjacency returns a support point as good as the linear scan.
//!
//! For hulls of 8 to 20,000 vertices (on a sphere, in a ball, a jittered box, a flat
//! polygon, a segment, the seed-000 tessellations), 10^5 directions per hull (half random,
//! half a slowly turning sequence), each climbed from vertex 0, from the start table alone
//! (no hint), from the previous answer (warm) and from a random vertex: the support value
//! must equal the scan's exactly — the
//! climb stops only where no neighbour improves the computed dot product, and on a
//! polytope's vertex graph such a vertex is a global maximum.

// The same tests run on the double-precision crate (`minkowski-f64` links them).
#[cfg(minkowski_f64)]
extern crate minkowski_f64 as minkowski;

mod common;

use common::Rng;
use minkowski::shape::{tessellation, ConvexPolyhedron};
use minkowski::support::SupportMap;
use minkowski::{Real, Vector};

fn clouds() -> Vec<(String, Vec<Vector>)> {
    let mut rng = Rng::new(0xc11b);
    let mut out = Vec::new();
    let v = |d: glam::DVec3| Vector::new(d.x as Real, d.y as Real, d.z as Real);
    for &n in &[8usize, 50, 300, 2000, 20_000] {
        out.push((format!("sphere{n}"), (0..n).map(|_| v(rng.dir())).collect()));
        out.push((
            format!("ball{n}"),
            (0..n).map(|_| v(rng.dir() * rng.unit().cbrt())).collect(),
        ));
    }
    out.push((
        "box-jitter".into(),
        (0..400)
            .map(|_| {
                let s =
                    |r: &mut Rng| if r.below(2) == 0 { -1.0 } else { 1.0 } + r.range(-1e-3, 1e-3);
                Vector::new(
                    s(&mut rng) as Real,
                    s(&mut rng) as Real,
                    s(&mut rng) as Real,
                )
            })
            .collect(),
    ));
    out.push((
        "flat-polygon".into(),
        (0..500)
            .map(|_| {
                let d = rng.dir();
                Vector::new(d.x as Real, d.y as Real, 0.0)
            })
            .collect(),
    ));
    out.push((
        "segment".into(),
        (0..100)
            .map(|i| Vector::new(i as Real, 2.0 * i as Real, 0.0))
            .collect(),
    ));
    for (name, pts) in tessellation::seed000_shapes() {
        out.push((name.to_string(), pts));
    }
    out
}

#[test]
fn hill_climbing_support_equals_the_linear_scan() {
    let mut rng = Rng::new(0x5eed);
    let mut climbed = 0;
    for (name, pts) in clouds() {
        let poly = ConvexPolyhedron::new(pts).unwrap();
        let n = poly.points().len();
        let dirs = 100_000;
        let mut warm = 0usize;
        let mut d = Vector::new(1.0, 0.0, 0.0);
        for k in 0..dirs {
            // Alternate coherent (slowly turning) and random directions.
            d = if k % 2 == 0 {
                (d + 0.05
                    * Vector::new(
                        rng.range(-1.0, 1.0) as Real,
                        rng.range(-1.0, 1.0) as Real,
                        rng.range(-1.0, 1.0) as Real,
                    ))
                .normalize_or(Vector::X)
            } else {
                let r = rng.dir();
                Vector::new(r.x as Real, r.y as Real, r.z as Real)
            };
            let best = poly.points()[poly.support_index_scan(d)].dot(d);
            let cold = poly.support_index_climb(d, 0);
            let table = poly.support_index_climb(d, usize::MAX);
            warm = poly.support_index_climb(d, warm);
            let random = poly.support_index_climb(d, rng.below(n));
            for (how, i) in [
                ("cold", cold),
                ("table", table),
                ("warm", warm),
                ("random", random),
            ] {
                assert_eq!(
                    poly.points()[i].dot(d),
                    best,
                    "{name} ({n} vertices) {how} start, direction {d}"
                );
            }
            let mut hint = rng.below(2 * n) as u32; // out-of-range hints are allowed
            let p = poly.local_support_hinted(d, &mut hint);
            assert_eq!(p.dot(d), best);
            // The hint left behind names the answer (GJK's warm start rebuilds its
            // simplex from such hints).
            assert_eq!(poly.hinted_point(hint), Some(p));
            assert_eq!(poly.local_support(d).dot(d), best);
        }
        climbed += usize::from(poly.uses_hill_climbing());
    }
    assert!(climbed >= 8, "{climbed}");
}

/// Directions on the start table's cell boundaries (axes, face diagonals, cube corners),
/// signed zeros, subnormal, huge and non-finite directions: finite ones get the scan's
/// support value; the others some vertex, without a panic.
#[test]
fn climbing_along_awkward_directions() {
    let pts = tessellation::seed000_shapes()
        .into_iter()
        .find(|(name, _)| *name == "sphere")
        .unwrap()
        .1;
    let mut poly = ConvexPolyhedron::new(pts).unwrap();
    poly.set_hill_climbing(true);
    let n = poly.points().len();
    let mut dirs = Vec::new();
    for x in [-1.0, -0.0, 0.0, 0.5, 1.0] {
        for y in [-1.0, -0.0, 0.0, 1.0] {
            for z in [-1.0, 0.0, 0.25, 1.0] {
                for scale in [1.0, 1e-40, 1e30] {
                    dirs.push(Vector::new(x, y, z) * scale as Real);
                }
            }
        }
    }
    for d in dirs {
        let best = poly.points()[poly.support_index_scan(d)].dot(d);
        for start in [0, n - 1, usize::MAX] {
            let i = poly.support_index_climb(d, start);
            assert!(i < n);
            if d.is_finite() {
                assert_eq!(
                    poly.points()[i].dot(d),
                    best,
                    "direction {d}, start {start}"
                );
            }
        }
    }
    for d in [
        Vector::splat(Real::NAN),
        Vector::new(Real::INFINITY, 0.0, 1.0),
        Vector::new(Real::NEG_INFINITY, Real::NAN, 0.0),
    ] {
        assert!(poly.support_index_climb(d, usize::MAX) < n);
    }
}
