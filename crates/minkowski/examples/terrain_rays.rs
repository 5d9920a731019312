//! A heightfield terrain and rays at it: a procedural N × N field (default 1024; pass
//! another N as the first argument, e.g. 4096), its build time, and the median time of
//! rays cast down at it from random points of the sky, each checked against `height_at`.
//!
//! `cargo run --release -p minkowski --example terrain_rays -- 4096`

use minkowski::query::{cast_ray_heightfield, Ray, RayOptions};
use minkowski::shape::HeightField;
use minkowski::{Pose, Real, Vector};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = match std::env::args().nth(1) {
        Some(a) => a.parse()?,
        None => 1024,
    };
    // Rolling hills: a few sines, 1 m apart samples, heights within ±20 m.
    let height = |i: usize, j: usize| -> Real {
        let (x, z) = (j as Real * 0.013, i as Real * 0.011);
        10.0 * (x.sin() * z.cos())
            + 6.0 * (2.7 * x + 1.3 * z).sin()
            + 4.0 * (5.1 * z - 0.7 * x).cos()
    };
    let samples: Vec<Option<Real>> = (0..n * n).map(|k| Some(height(k / n, k % n))).collect();
    let t = Instant::now();
    let field = HeightField::new(n, n, &samples, [1.0, 1.0], Vector::ZERO)?;
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    println!("{n} × {n} field built in {build_ms:.1} ms");

    // Rays from 100 m up, slanted, at random points of the field.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as Real / (1u64 << 53) as Real
    };
    let extent = (n - 1) as Real;
    let rays: Vec<Ray> = (0..2000)
        .map(|_| {
            // Targets 20 m inside the edges: the rays come down on the surface, not on
            // the field's sides (which are solid too).
            let inner = extent - 40.0;
            let target = Vector::new(20.0 + next() * inner, 0.0, 20.0 + next() * inner);
            let from = target + Vector::new(next() * 40.0 - 20.0, 100.0, next() * 40.0 - 20.0);
            Ray::new(from, target - from)
        })
        .collect();
    let opts = RayOptions::default();
    let mut times = Vec::new();
    let mut hits = 0;
    for ray in &rays {
        let t = Instant::now();
        let hit = cast_ray_heightfield(&field, &Pose::IDENTITY, ray, &opts)?.hit;
        times.push(t.elapsed().as_secs_f64() * 1e9);
        if let Some(h) = hit {
            hits += 1;
            // The hit is on the surface.
            if let Ok(Some(y)) = field.height_at(h.point.x, h.point.z) {
                assert!((h.point.y - y).abs() < 1e-2, "{h:?} vs surface {y}");
            }
        }
    }
    times.sort_by(|a, b| a.total_cmp(b));
    println!(
        "{hits} of {} rays hit; median {:.0} ns per ray",
        rays.len(),
        times[times.len() / 2]
    );
    Ok(())
}
