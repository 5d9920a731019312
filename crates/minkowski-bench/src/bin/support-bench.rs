//! Support calls and GJK distance on convex hulls of 8 … 10^5 vertices: linear scan vs
//! hill climbing (cold) vs hill climbing warm-started.
//!
//! `cargo run --release -p minkowski-bench --bin support-bench`
//!
//! Hulls are points on a unit sphere (every point a vertex). Support calls: 4096
//! directions, either independent (random) or coherent (each a small turn of the last, as
//! between GJK iterations and frames); "cold" climbs start without a hint (from the
//! start table's vertex for the direction: a 384-cell cube map), "warm" ones at the
//! previous answer.
//! GJK: the hull against a unit cube 0.5 apart, the cube orbiting a little per frame (200
//! frames); "cold" runs each frame from scratch (the climb still carries its vertex
//! between iterations of one query), "warm" keeps a `GjkCache` (simplex directions and
//! both shapes' support vertices) across frames. Medians of 15 passes, ns per call or per
//! query, printed as a Markdown table.
// Casts to and from `Real` are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use std::hint::black_box;
use std::time::Instant;

use minkowski::query::gjk::{self, GjkCache, GjkOptions};
use minkowski::shape::{ConvexPolyhedron, Cuboid};
use minkowski::{Pose, Real, Rotation, Vector};
use minkowski_bench::{Cloud, Rng};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time_per_call(passes: usize, calls: usize, mut f: impl FnMut()) -> f64 {
    let mut t = Vec::with_capacity(passes);
    for _ in 0..passes {
        let s = Instant::now();
        f();
        t.push(s.elapsed().as_secs_f64() * 1e9 / calls as f64);
    }
    median(t)
}

fn main() {
    let sizes = [8usize, 16, 32, 48, 64, 128, 256, 1024, 10_000, 100_000];
    let mut rng = Rng::new(0x5077);
    let random: Vec<Vector> = (0..4096).map(|_| rng.dir()).collect();
    let mut coherent = Vec::with_capacity(4096);
    let mut d = Vector::X;
    for _ in 0..4096 {
        d = (d + rng.dir() * 0.05).normalize();
        coherent.push(d);
    }
    println!("| vertices | support scan, random | climb cold, random | climb warm, coherent | scan, coherent | GJK scan | GJK climb cold | GJK climb + warm cache | GJK scan + warm cache |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let cube = Cuboid::new(Vector::splat(0.5)).expect("valid cube");
    let frames: Vec<Pose> = (0..200)
        .map(|k| {
            let t = k as Real * 0.01;
            Pose::new(
                Rotation::from_axis_angle(Vector::new(0.3, 1.0, 0.2).normalize(), t),
                Vector::new(2.0 * t.cos(), 0.3 * t.sin(), 2.0 * t.sin()) * 1.2,
            )
            .expect("valid pose")
        })
        .collect();
    let mut clouds: Vec<(String, Vec<Vector>)> = sizes
        .iter()
        .map(|&n| (String::new(), Cloud::Sphere.points(n, 77 + n as u64)))
        .collect();
    // Seed 000's tessellated models: big polygon faces (cone and cylinder caps) and
    // high-degree poles make climbs longer than on random sphere points.
    for (name, pts) in minkowski::shape::tessellation::seed000_shapes() {
        clouds.push((format!(" ({name})"), pts));
    }
    for (label, pts) in clouds {
        let mut poly = ConvexPolyhedron::new(pts).expect("finite points");
        let nv = format!("{}{label}", poly.points().len());
        let scan_random = time_per_call(15, random.len(), || {
            for d in &random {
                black_box(poly.support_index_scan(*d));
            }
        });
        let climb_random = time_per_call(15, random.len(), || {
            for d in &random {
                black_box(poly.support_index_climb(*d, usize::MAX));
            }
        });
        let climb_warm = time_per_call(15, coherent.len(), || {
            let mut h = 0;
            for d in &coherent {
                h = poly.support_index_climb(*d, h);
                black_box(h);
            }
        });
        let scan_coherent = time_per_call(15, coherent.len(), || {
            for d in &coherent {
                black_box(poly.support_index_scan(*d));
            }
        });
        let opts = GjkOptions::default();
        let gjk_time = |poly: &ConvexPolyhedron, warm: bool| {
            time_per_call(15, frames.len(), || {
                let mut cache = GjkCache::new();
                for pose in &frames {
                    let c = if warm { Some(&mut cache) } else { None };
                    black_box(gjk::distance(poly, &Pose::IDENTITY, &cube, pose, &opts, c));
                }
            })
        };
        poly.set_hill_climbing(false);
        let gjk_scan = gjk_time(&poly, false);
        let gjk_scan_warm = gjk_time(&poly, true);
        poly.set_hill_climbing(true);
        let gjk_climb = gjk_time(&poly, false);
        let gjk_climb_warm = gjk_time(&poly, true);
        println!(
            "| {nv} | {scan_random:.0} | {climb_random:.0} | {climb_warm:.0} | {scan_coherent:.0} | {gjk_scan:.0} | {gjk_climb:.0} | {gjk_climb_warm:.0} | {gjk_scan_warm:.0} |"
        );
    }
}
