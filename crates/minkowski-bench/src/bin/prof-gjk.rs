//! Profiling aid: minkowski alone on one class, placement and query of the peer suite,
//! in a loop (for `perf record`).
//!
//! ```text
//! prof-gjk [CLASS] [PLACEMENT] [QUERY] [SECONDS]
//! ```
//! CLASS as the report names it (`"hull 32"`, default `cylinder–cone`; `hull N` for any
//! N), PLACEMENT
//! `separated|near-touching|shallow|deep` (default separated), QUERY
//! `intersect|distance|penetration` (default distance).

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use minkowski_bench::peers::{self, pose, Query};
use minkowski_bench::suite::{self, Placement};
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let class_name = args.first().map_or("cylinder–cone", String::as_str);
    let placement = match args.get(1).map_or("separated", String::as_str) {
        "near-touching" => Placement::NearTouching,
        "shallow" => Placement::Shallow,
        "deep" => Placement::Deep,
        _ => Placement::Separated,
    };
    let q = match args.get(2).map_or("distance", String::as_str) {
        "intersect" => Query::Intersect,
        "penetration" => Query::Penetration,
        _ => Query::Distance,
    };
    let seconds: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3.0);
    // Any `hull N` is accepted, also sizes the report leaves out (threshold searches).
    let sized = class_name
        .strip_prefix("hull ")
        .and_then(|n| n.parse().ok())
        .map(suite::hull_class);
    let Some(class) = sized.or_else(|| suite::classes().into_iter().find(|c| c.name == class_name))
    else {
        eprintln!("no class {class_name}");
        std::process::exit(2);
    };
    let Some(runner) = peers::methods()[0].load(&class.a, &class.b) else {
        return;
    };
    let cases = suite::cases(&class, placement, 64, 7);
    let (mut n, t) = (0u64, std::time::Instant::now());
    while t.elapsed().as_secs_f64() < seconds {
        for c in &cases {
            black_box(runner.run(q, &c.a, &c.b));
        }
        n += cases.len() as u64;
    }
    // Iterations (GJK + EPA) and how the contacts were found, for the record.
    let (sa, sb) = (class.a.shape(), class.b.shape());
    let iterations: u32 = cases
        .iter()
        .map(|c| minkowski::query::contact(&sa, &pose(&c.a), &sb, &pose(&c.b)).iterations)
        .sum();
    println!(
        "{:.0} ns/query, contact iterations {:.1}",
        t.elapsed().as_nanos() as f64 / n as f64,
        iterations as f64 / cases.len() as f64
    );
}
