//! Profiling aid: GJK distance between a cylinder and a cone, separated, in a loop.
use minkowski::query;
use minkowski::shape::{Cone, Cylinder, Shape};
use minkowski_bench::{poses, Config};
use std::hint::black_box;

fn main() {
    let (a, b): (Shape, Shape) = match (Cylinder::new(0.5, 0.4), Cone::new(0.5, 0.4)) {
        (Ok(a), Ok(b)) => (a.into(), b.into()),
        _ => return,
    };
    let ps = poses(&a, &b, Config::Separated, 64, 7);
    let (mut it, t) = (0u64, std::time::Instant::now());
    for _ in 0..20_000 {
        for (pa, pb) in &ps {
            it += black_box(query::distance(&a, pa, &b, pb)).iterations as u64;
        }
    }
    let n = 20_000.0 * 64.0;
    println!(
        "{:.0} ns/query, {:.2} iterations",
        t.elapsed().as_nanos() as f64 / n,
        it as f64 / n
    );
}
