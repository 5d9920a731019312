//! Criterion benches: intersection, distance and contact for every pair of the
//! protocol's shape types and for seed 000's point clouds, separated, touching and
//! penetrating. Each measurement is a batch of 32 seeded pose pairs (the reported time
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

criterion_group!(benches, primitives, seed000);
criterion_main!(benches);
