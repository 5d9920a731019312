//! Criterion benches: intersection, distance and contact for every pair of the
//! protocol's shape types and for seed 000's point clouds, separated, touching and
//! penetrating; rays at every shape type and linear casts of every pair. Each measurement is a batch of 32 seeded pose pairs (the reported time
//! is per batch; criterion's throughput line gives queries per second).
//!
//! `cargo bench -p minkowski-bench` (a few minutes; narrow it with a filter, e.g.
//! `cargo bench -p minkowski-bench -- contact/cuboid`).

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use minkowski::query;
use minkowski_bench::{poses, primitive_shapes, seed000_shapes, Config};
use std::hint::black_box;
use std::time::Duration;

const BATCH: usize = 32;

fn bench_set(c: &mut Criterion, set: &str, shapes: &[(&'static str, minkowski::shape::Shape)]) {
    for query_name in ["intersects", "distance", "contact"] {
        let mut group = c.benchmark_group(format!("{query_name}/{set}"));
        group
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(300))
            .sample_size(10)
            .throughput(Throughput::Elements(BATCH as u64));
        for (i, (na, a)) in shapes.iter().enumerate() {
            for (nb, b) in &shapes[i..] {
                for config in Config::ALL {
                    let ps = poses(a, b, config, BATCH, 7);
                    let id = BenchmarkId::from_parameter(format!("{na}-{nb}/{}", config.name()));
                    group.bench_function(id, |bench| {
                        bench.iter(|| {
                            for (pa, pb) in &ps {
                                match query_name {
                                    "intersects" => {
                                        black_box(query::intersects(a, pa, b, pb));
                                    }
                                    "distance" => {
                                        black_box(query::distance(a, pa, b, pb));
                                    }
                                    _ => {
                                        black_box(query::contact(a, pa, b, pb));
                                    }
                                }
                            }
                        })
                    });
                }
            }
        }
        group.finish();
    }
}

fn primitives(c: &mut Criterion) {
    bench_set(c, "primitives", &primitive_shapes());
}

fn seed000(c: &mut Criterion) {
    bench_set(c, "seed000", &seed000_shapes());
}

/// Rays at every protocol shape type and linear casts of every pair, each a batch of 32
/// seeded cases: rays from 3 units away aimed within the shape's reach, casts from 3
/// units apart with B moving towards A (most hit).
fn casts(c: &mut Criterion) {
    use minkowski::query::{CastInput, Motion, QueryOptions, Ray, RayOptions, ShapePair};
    use minkowski::{Pose, Vector};
    let shapes = primitive_shapes();
    let mut rng = minkowski_bench::Rng::new(11);
    let mut group = c.benchmark_group("ray");
    group
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(300))
        .sample_size(10)
        .throughput(Throughput::Elements(BATCH as u64));
    for (name, shape) in &shapes {
        let rays: Vec<(Pose, Ray)> = (0..BATCH)
            .map(|_| {
                let pose = Pose::new(rng.rotation(), Vector::ZERO).expect("valid pose");
                let origin = rng.dir() * 3.0;
                let aim = rng.dir() * 0.3;
                (pose, Ray::new(origin, aim - origin))
            })
            .collect();
        group.bench_function(BenchmarkId::from_parameter(name), |bench| {
            bench.iter(|| {
                for (pose, ray) in &rays {
                    black_box(query::cast_ray(shape, pose, ray, &RayOptions::default()).ok());
                }
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("cast");
    group
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_millis(300))
        .sample_size(10)
        .throughput(Throughput::Elements(BATCH as u64));
    let opts = QueryOptions::default();
    for (i, (na, a)) in shapes.iter().enumerate() {
        for (nb, b) in &shapes[i..] {
            let cases: Vec<(Pose, Pose, Vector)> = (0..BATCH)
                .map(|_| {
                    let pa = Pose::new(rng.rotation(), Vector::ZERO).expect("valid pose");
                    let at = rng.dir() * 3.0;
                    let pb = Pose::new(rng.rotation(), at).expect("valid pose");
                    (pa, pb, (rng.dir() * 0.3 - at) * 2.0)
                })
                .collect();
            group.bench_function(BenchmarkId::from_parameter(format!("{na}-{nb}")), |bench| {
                bench.iter(|| {
                    for (pa, pb, v) in &cases {
                        let input = CastInput::new(
                            ShapePair::new(a, *pa, b, *pb),
                            Motion::ZERO,
                            Motion::linear(*v),
                        );
                        black_box(query::cast_shapes(&input, &opts).ok());
                    }
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, primitives, seed000, casts);
criterion_main!(benches);
