//! Prints the narrow-phase bench table: median ns per query for every pair of the
//! protocol's shape types and for seed 000's point clouds, separated, touching and
//! penetrating; then GJK iteration counts, plain against Nesterov-accelerated, on the
//! same inputs.
//!
//! `cargo run --release -p minkowski-bench --bin bench-table [-- --rounds N]`
// Casts to and from `Real` are no-ops in the f64 build.
#![allow(clippy::unnecessary_cast)]

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use minkowski::query::{self, gjk};
use minkowski::shape::Shape;
use minkowski_bench::{median_ns, poses, primitive_shapes, seed000_shapes, Config};
use std::hint::black_box;

const N: usize = 64;

fn table(title: &str, shapes: &[(&'static str, Shape)], rounds: usize) {
    println!("\n### {title}\n");
    println!("median ns per query over {N} seeded poses, {rounds} passes");
    println!();
    print!("| A | B |");
    for c in Config::ALL {
        print!(
            " {} intersects | {} distance | {} contact |",
            c.name(),
            c.name(),
            c.name()
        );
    }
    println!();
    println!("|---|---|{}", "---:|".repeat(9));
    for (i, (na, a)) in shapes.iter().enumerate() {
        for (nb, b) in &shapes[i..] {
            print!("| {na} | {nb} |");
            for config in Config::ALL {
                let ps = poses(a, b, config, N, 7);
                let ti = median_ns(rounds, &ps, |pa, pb| {
                    black_box(query::intersects(a, pa, b, pb));
                });
                let td = median_ns(rounds, &ps, |pa, pb| {
                    black_box(query::distance(a, pa, b, pb));
                });
                let tc = median_ns(rounds, &ps, |pa, pb| {
                    black_box(query::contact(a, pa, b, pb));
                });
                print!(" {ti:.0} | {td:.0} | {tc:.0} |");
            }
            println!();
        }
    }
}

/// Mean GJK iterations for the distance query, plain against Nesterov, on the same poses.
fn iterations(title: &str, shapes: &[(&'static str, Shape)]) {
    println!("\n### GJK iterations, plain vs Nesterov-accelerated: {title}\n");
    println!("mean iterations of `gjk::distance` over {N} seeded poses per pair (shapes with margins use their full support maps)");
    println!();
    println!("| configuration | pairs | plain | Nesterov | ratio |");
    println!("|---|---:|---:|---:|---:|");
    let plain = gjk::GjkOptions::default();
    let fast = gjk::GjkOptions {
        variant: gjk::GjkVariant::Nesterov,
        ..Default::default()
    };
    for config in Config::ALL {
        let (mut ip, mut inest, mut pairs) = (0u64, 0u64, 0);
        for (i, (_, a)) in shapes.iter().enumerate() {
            for (_, b) in &shapes[i..] {
                pairs += 1;
                for (pa, pb) in poses(a, b, config, N, 7) {
                    ip += gjk::distance(a, &pa, b, &pb, &plain, None).iterations as u64;
                    inest += gjk::distance(a, &pa, b, &pb, &fast, None).iterations as u64;
                }
            }
        }
        let n = (pairs * N) as f64;
        println!(
            "| {} | {pairs} | {:.2} | {:.2} | {:.2} |",
            config.name(),
            ip as f64 / n,
            inest as f64 / n,
            inest as f64 / ip as f64
        );
    }
}

fn main() {
    let mut rounds = 15;
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--rounds") {
        match args.get(i + 1).and_then(|r| r.parse().ok()) {
            Some(r) if r > 0 => rounds = r,
            _ => {
                eprintln!("bench-table: --rounds takes a positive integer");
                std::process::exit(2);
            }
        }
    }
    println!(
        "## minkowski narrow phase ({}), machine: {} cores",
        if std::mem::size_of::<minkowski::Real>() == 8 {
            "f64"
        } else {
            "f32"
        },
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    );
    let prims = primitive_shapes();
    let seeds = seed000_shapes();
    table(
        &format!("Every pair of the {} protocol shape types", prims.len()),
        &prims,
        rounds,
    );
    table(
        "Seed 000 point clouds (cube 8, cone 33, cylinder 64, sphere 482)",
        &seeds,
        rounds,
    );
    iterations(&format!("the {} protocol shape types", prims.len()), &prims);
    iterations("seed 000 point clouds", &seeds);
}
