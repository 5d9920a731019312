//! `gjk-sat-cw`: the intersection-test comparison seed 000 promised (§8.2.1, GJK against
//! the separating axis test) and seed 002's CW separating-vector iteration (Algorithm 2),
//! on the same polytope pairs and poses.
//!
//! `cargo run --release -p minkowski-bench --bin gjk-sat-cw [-- --rounds N]`
//!
//! Pairs: a cube, hulls of 8, 32 and 128 points on a sphere, and seed 000's cone and
//! cylinder meshes, each against a second instance; placed 0.25 apart, touching, and
//! 0.1 deep (unit-size shapes, random orientations). Printed: a Markdown table of median
//! nanoseconds per test and mean iterations (GJK: iterations; SAT: axes tested; CW:
//! iterations, bounded at 1000 — an overlapping pair always uses the whole bound, since
//! the iteration has no other exit), and how often each method's answer differs from
//! GJK's (touching pairs are excluded from that count: either answer is right within
//! rounding).

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use minkowski::query::{cw, gjk, sat};
use minkowski::shape::{ConvexPolyhedron, Shape};
use minkowski::support::MinkowskiDifference;
use minkowski::Vector;
use minkowski_bench::suite::sphere_points;
use minkowski_bench::{median_ns, poses, seed000_shapes, Config};
use std::hint::black_box;
use std::process::ExitCode;

const CW_BOUND: u32 = 1000;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds = match args.as_slice() {
        [] => 21,
        [flag, n] if flag == "--rounds" => match n.parse::<usize>() {
            Ok(r) if r > 0 => r,
            _ => {
                eprintln!("gjk-sat-cw: --rounds takes a positive integer");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("gjk-sat-cw: usage: gjk-sat-cw [--rounds N]");
            return ExitCode::from(2);
        }
    };
    let cube: Vec<Vector> = (0..8)
        .map(|i| {
            Vector::new(
                if i & 1 == 0 { -0.5 } else { 0.5 },
                if i & 2 == 0 { -0.5 } else { 0.5 },
                if i & 4 == 0 { -0.5 } else { 0.5 },
            )
        })
        .collect();
    let mut pairs: Vec<(String, Vec<Vector>, Vec<Vector>)> =
        vec![("cube".into(), cube.clone(), cube)];
    for n in [8, 32, 128] {
        pairs.push((
            format!("hull {n}"),
            sphere_points(n, 1000 + n as u64),
            sphere_points(n, 2000 + n as u64),
        ));
    }
    for (name, s) in seed000_shapes() {
        if let (Shape::Convex(c), "cone" | "cylinder") = (&s, name) {
            pairs.push((
                format!("seed {name}"),
                c.points().to_vec(),
                c.points().to_vec(),
            ));
        }
    }
    println!("| pair | placement | GJK ns | GJK iterations | SAT ns | SAT axes | CW ns | CW iterations | SAT ≠ GJK | CW ≠ GJK |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (name, pa_pts, pb_pts) in &pairs {
        let (Ok(ha), Ok(hb)) = (
            ConvexPolyhedron::new(pa_pts.clone()),
            ConvexPolyhedron::new(pb_pts.clone()),
        ) else {
            continue;
        };
        let (Some(sa), Some(sb)) = (sat::SatHull::new(&ha), sat::SatHull::new(&hb)) else {
            continue;
        };
        let (a, b) = (Shape::from(ha.clone()), Shape::from(hb.clone()));
        for config in Config::ALL {
            let cases = poses(&a, &b, config, 200, 7);
            let opts = gjk::GjkOptions::default();
            let (mut gi, mut si, mut ci) = (0u64, 0u64, 0u64);
            let (mut sat_diff, mut cw_diff) = (0, 0);
            for (pa, pb) in &cases {
                let g = gjk::intersects(&ha, pa, &hb, pb, 0.0, &opts, None);
                let s = sat::intersects(&sa, pa, &sb, pb);
                let pair = MinkowskiDifference::relative(&ha, pa, &hb, pb);
                let c = cw::separate(&pair, CW_BOUND);
                gi += g.iterations as u64;
                si += s.axes_tested as u64;
                ci += c.iterations as u64;
                if config != Config::Touching {
                    sat_diff += (s.intersecting != g.intersecting) as u32;
                    cw_diff += (c.separated == g.intersecting) as u32;
                }
            }
            let t_gjk = median_ns(rounds, &cases, |pa, pb| {
                black_box(gjk::intersects(&ha, pa, &hb, pb, 0.0, &opts, None));
            });
            let t_sat = median_ns(rounds, &cases, |pa, pb| {
                black_box(sat::intersects(&sa, pa, &sb, pb));
            });
            let t_cw = median_ns(rounds, &cases, |pa, pb| {
                let pair = MinkowskiDifference::relative(&ha, pa, &hb, pb);
                black_box(cw::separate(&pair, CW_BOUND));
            });
            let n = cases.len() as f64;
            println!(
                "| {name} | {} | {t_gjk:.0} | {:.1} | {t_sat:.0} | {:.1} | {t_cw:.0} | {:.1} | {sat_diff} | {cw_diff} |",
                config.name(),
                gi as f64 / n,
                si as f64 / n,
                ci as f64 / n,
            );
        }
    }
    ExitCode::SUCCESS
}
