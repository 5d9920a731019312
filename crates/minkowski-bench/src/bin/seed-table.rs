//! `seed-table`: seed 000's white-box timing experiment, redone.
//!
//! `cargo run --release -p minkowski-bench --bin seed-table [-- --rounds N]`
//!
//! The seed timed GJK intersection tests between Blender's default meshes used as
//! point-cloud hulls — cube (8 vertices), cone (33), cylinder (64), UV sphere (482) —
//! forced to collide, and reported the mean over 11 runs in microseconds (Tables
//! 7.2.2, 7.2.5, 7.2.8, 7.2.11). We time the same pairs as point clouds, over a seeded
//! set of overlapping poses, and print the median time per query for intersection,
//! distance and contact next to the seed's figure.

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use minkowski::query;
use minkowski::{Pose, Vector};
use minkowski_bench::{median_ns, seed000_shapes, Rng};
use std::hint::black_box;
use std::process::ExitCode;

/// The seed's mean microseconds per collision test, (row, column) by shape index
/// (0 cube, 1 cone, 2 cylinder, 3 sphere).
const SEED_US: [((usize, usize), f64); 10] = [
    ((0, 0), 17.3),
    ((0, 1), 58.2),
    ((0, 2), 154.1),
    ((0, 3), 483.0),
    ((1, 1), 110.4),
    ((1, 2), 229.5),
    ((1, 3), 461.3),
    ((3, 2), 616.5),
    ((3, 3), 865.6),
    ((2, 2), 292.9),
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args = &args[..];
    let mut rounds = 31;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.clone().next()) {
            ("--rounds", Some(n)) => {
                rounds = match n.parse::<usize>() {
                    Ok(r) if r > 0 => r,
                    _ => {
                        eprintln!("seed-table: --rounds takes a positive integer");
                        return ExitCode::from(2);
                    }
                };
                it.next();
            }
            _ => {
                eprintln!("seed-table: unknown argument '{a}' (only --rounds N)");
                return ExitCode::from(2);
            }
        }
    }
    let shapes = seed000_shapes();
    let mut rng = Rng::new(2024);
    // Forced collisions as in the seed: B's centre within 1.2 units of A's (unit-size
    // shapes), random orientations.
    let poses: Vec<(Pose, Pose)> = (0..256)
        .map(|_| {
            let pa = Pose::new(rng.rotation(), Vector::ZERO).expect("valid pose");
            let off = Vector::new(rng.signed(), rng.signed(), rng.signed()) * 1.2;
            (pa, Pose::new(rng.rotation(), off).expect("valid pose"))
        })
        .collect();
    println!(
        "Seed-000 shapes as point clouds (cube 8, cone 33, cylinder 64, sphere 482 vertices), \
         {} overlapping-or-near poses, median of {rounds} passes, precision {}.",
        poses.len(),
        if std::mem::size_of::<minkowski::Real>() == 8 {
            "f64"
        } else {
            "f32"
        }
    );
    println!();
    println!("| A | B | seed 000 (µs, mean) | intersects (µs) | distance (µs) | contact (µs) | speed-up vs seed (intersects) |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for ((i, j), seed_us) in SEED_US {
        let (na, a) = &shapes[i];
        let (nb, b) = &shapes[j];
        let ti = median_ns(rounds, &poses, |pa, pb| {
            black_box(query::intersects(a, pa, b, pb));
        });
        let td = median_ns(rounds, &poses, |pa, pb| {
            black_box(query::distance(a, pa, b, pb));
        });
        let tc = median_ns(rounds, &poses, |pa, pb| {
            black_box(query::contact(a, pa, b, pb));
        });
        println!(
            "| {na} | {nb} | {seed_us:.1} | {:.3} | {:.3} | {:.3} | {:.0}× |",
            ti / 1e3,
            td / 1e3,
            tc / 1e3,
            seed_us * 1e3 / ti
        );
    }
    ExitCode::SUCCESS
}
