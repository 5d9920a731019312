//! Criterion benches for the hull builders and the hull support map: quickhull 3D on
//! 10^4 and 10^5 points (ball, sphere), every 2D algorithm on 10^4 points of each
//! distribution, and support calls on a 1024-vertex hull (scan, cold climb, warm climb).
//!
//! `cargo bench -p minkowski-bench --bench hulls`. The fuller tables (10^6 points, Qhull
//! side by side, 8 … 10^5 vertices) come from `hull-bench`, `support-bench` and
//! `hull2d-figure`; see `docs/hulls.md`.

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use minkowski::hull::{quickhull3d, Algorithm2d};
use minkowski::shape::ConvexPolyhedron;
use minkowski_bench::{Cloud, Cloud2d, Rng};
use std::hint::black_box;
use std::time::Duration;

fn quickhull(c: &mut Criterion) {
    let mut g = c.benchmark_group("quickhull3d");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1));
    for cloud in [Cloud::Ball, Cloud::Sphere] {
        for n in [10_000usize, 100_000] {
            let pts = cloud.points(n, 5 + n as u64);
            g.bench_function(BenchmarkId::new(cloud.name(), n), |b| {
                b.iter(|| black_box(quickhull3d(&pts).unwrap()))
            });
        }
    }
}

fn hulls_2d(c: &mut Criterion) {
    let mut g = c.benchmark_group("hull2d");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(500));
    for dist in Cloud2d::ALL {
        let pts = dist.points(10_000, 17);
        for alg in Algorithm2d::ALL {
            let id = BenchmarkId::new(alg.name(), dist.name());
            g.bench_function(id, |b| b.iter(|| black_box(alg.run(&pts).unwrap())));
        }
    }
}

fn support(c: &mut Criterion) {
    let mut g = c.benchmark_group("support1024");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(500));
    let poly = ConvexPolyhedron::new(Cloud::Sphere.points(1024, 3)).unwrap();
    let mut rng = Rng::new(9);
    let dirs: Vec<_> = (0..256).map(|_| rng.dir()).collect();
    g.bench_function("scan", |b| {
        b.iter(|| {
            dirs.iter()
                .map(|d| poly.support_index_scan(*d))
                .sum::<usize>()
        })
    });
    g.bench_function("climb-cold", |b| {
        b.iter(|| {
            dirs.iter()
                .map(|d| poly.support_index_climb(*d, 0))
                .sum::<usize>()
        })
    });
    let mut coherent = Vec::new();
    let mut d = dirs[0];
    for e in &dirs {
        d = (d + *e * 0.05).normalize();
        coherent.push(d);
    }
    g.bench_function("climb-warm-coherent", |b| {
        b.iter(|| {
            let mut h = 0;
            for d in &coherent {
                h = poly.support_index_climb(*d, h);
            }
            black_box(h)
        })
    });
}

criterion_group!(benches, quickhull, hulls_2d, support);
criterion_main!(benches);
