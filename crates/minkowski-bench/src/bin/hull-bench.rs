//! Quickhull timings on seeded clouds (uniform ball, on sphere; 10^5 and 10^6 points).
//!
//! `cargo run --release -p minkowski-bench --bin hull-bench -- [--write DIR] [--runs R]`
//!
//! Prints one line per cloud: points, hull vertices, faces, median of `R` runs (default
//! 3) in ms. With `--write DIR` it also writes each cloud as raw little-endian `f64`
//! triples (`DIR/<cloud>-<n>.f64`) so that `scripts/hull-vs-qhull.sh` can time Qhull on
//! the very same points in the same run.

// `as f64` is a no-op in the f64 build.
#![allow(clippy::unnecessary_cast)]

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use std::io::Write;
use std::time::Instant;

use minkowski::hull::quickhull3d;
use minkowski_bench::Cloud;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut write_dir = None;
    let mut runs = 3usize;
    let mut sizes = vec![100_000usize, 1_000_000];
    let mut clouds = vec![Cloud::Ball, Cloud::Sphere];
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--write" => {
                write_dir = args.get(i + 1).cloned();
                i += 1;
            }
            "--runs" => {
                runs = args.get(i + 1).and_then(|s| s.parse().ok()).unwrap_or(3);
                i += 1;
            }
            "--sizes" => {
                sizes = args
                    .get(i + 1)
                    .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
                    .unwrap_or(sizes);
                i += 1;
            }
            "--clouds" => {
                let names = args.get(i + 1).cloned().unwrap_or_default();
                clouds.retain(|c| names.split(',').any(|n| n == c.name()));
                i += 1;
            }
            other => {
                eprintln!("unknown argument {other}; usage: hull-bench [--write DIR] [--runs R] [--sizes N,N] [--clouds ball,sphere]");
                std::process::exit(2);
            }
        }
        i += 1;
    }
    println!("cloud\tpoints\tvertices\tfaces\tmedian_ms");
    for &cloud in &clouds {
        for &n in &sizes {
            let pts = cloud.points(n, 0x4011 + n as u64);
            if let Some(dir) = &write_dir {
                let path = format!("{dir}/{}-{n}.f64", cloud.name());
                let mut f = std::io::BufWriter::new(
                    std::fs::File::create(&path).expect("create points file"),
                );
                for p in &pts {
                    for c in [p.x, p.y, p.z] {
                        f.write_all(&(c as f64).to_le_bytes())
                            .expect("write points file");
                    }
                }
            }
            let mut times = Vec::new();
            let mut shape = (0, 0);
            for _ in 0..runs {
                let t = Instant::now();
                let h = quickhull3d(&pts).expect("finite points");
                times.push(t.elapsed().as_secs_f64() * 1e3);
                shape = (h.vertices().len(), h.num_faces());
            }
            times.sort_by(f64::total_cmp);
            println!(
                "{}\t{n}\t{}\t{}\t{:.1}",
                cloud.name(),
                shape.0,
                shape.1,
                times[times.len() / 2]
            );
        }
    }
}
