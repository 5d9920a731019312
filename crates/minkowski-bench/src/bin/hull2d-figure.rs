//! Seed 003's Figure 11, redone: time against n for every 2D hull algorithm, on three
//! distributions (uniform disc, on a circle — every point extreme —, square), n from 10^2
//! to 10^6.
//!
//! `cargo run --release -p minkowski-bench --bin hull2d-figure -- [OUT.svg]`
//!
//! Writes the SVG (default `docs/hull2d-figure11.svg`) and prints the table (median ms of
//! up to 5 runs, fewer for slow ones). An algorithm stops at the first n where one run
//! takes over 2 s (only Jarvis march, quadratic on the circle, gets there); its later
//! cells are "—".

// The `f64` feature measures the double-precision crate under the same name.
#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use std::time::Instant;

use minkowski::hull::Algorithm2d;
use minkowski_bench::Cloud2d;
use plotters::prelude::*;

const SIZES: [usize; 9] = [
    100, 300, 1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000,
];

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "docs/hull2d-figure11.svg".to_string());
    // results[dist][alg] = [(n, ms)]
    let mut results: Vec<Vec<Vec<(usize, f64)>>> = Vec::new();
    for dist in Cloud2d::ALL {
        let mut per_alg = vec![Vec::new(); Algorithm2d::ALL.len()];
        let mut stopped = [false; 6];
        for &n in &SIZES {
            let pts = dist.points(n, 1103 + n as u64);
            let mut reference = None;
            for (k, alg) in Algorithm2d::ALL.into_iter().enumerate() {
                if stopped[k] {
                    continue;
                }
                let mut times = Vec::new();
                let mut hull_len = 0;
                let started = Instant::now();
                while times.len() < 5 && (times.is_empty() || started.elapsed().as_secs_f64() < 1.0)
                {
                    let t = Instant::now();
                    let h = alg.run(&pts).expect("finite points");
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                    hull_len = h.len();
                }
                // Every algorithm must find the same hull (a cheap sanity check here; the
                // tests check the vertices themselves).
                match reference {
                    None => reference = Some(hull_len),
                    Some(r) => assert_eq!(r, hull_len, "{} disagrees", alg.name()),
                }
                times.sort_by(f64::total_cmp);
                let ms = times[times.len() / 2];
                per_alg[k].push((n, ms));
                if ms > 2000.0 {
                    stopped[k] = true;
                }
            }
        }
        results.push(per_alg);
    }

    // Table.
    for (d, dist) in Cloud2d::ALL.iter().enumerate() {
        println!("\n{} (median ms)\n", dist.name());
        print!("| n |");
        for alg in Algorithm2d::ALL {
            print!(" {} |", alg.name());
        }
        println!("\n|---|{}", "---|".repeat(6));
        for (i, &n) in SIZES.iter().enumerate() {
            print!("| {n} |");
            for per_alg in &results[d] {
                match per_alg.get(i) {
                    Some((_, ms)) => print!(" {ms:.3} |"),
                    None => print!(" — |"),
                }
            }
            println!();
        }
    }

    // Plot: one panel per distribution, log-log.
    let root = SVGBackend::new(&out, (1500, 520)).into_drawing_area();
    root.fill(&WHITE).expect("draw");
    let panels = root.split_evenly((1, 3));
    let colors = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    let max_ms = results
        .iter()
        .flatten()
        .flatten()
        .map(|p| p.1)
        .fold(1.0f64, f64::max);
    let min_ms = results
        .iter()
        .flatten()
        .flatten()
        .map(|p| p.1)
        .fold(f64::INFINITY, f64::min)
        .max(1e-4);
    for (d, panel) in panels.iter().enumerate() {
        let mut chart = ChartBuilder::on(panel)
            .caption(
                format!("2D hulls: {}", Cloud2d::ALL[d].name()),
                ("sans-serif", 22),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (80f64..1.3e6f64).log_scale(),
                (min_ms * 0.5..max_ms * 2.0).log_scale(),
            )
            .expect("chart");
        chart
            .configure_mesh()
            .x_desc("points n")
            .y_desc("time (ms)")
            .x_label_formatter(&|x| format!("{x:.0e}"))
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .draw()
            .expect("mesh");
        for (k, alg) in Algorithm2d::ALL.into_iter().enumerate() {
            let color = colors[k];
            let series: Vec<(f64, f64)> = results[d][k]
                .iter()
                .map(|&(n, ms)| (n as f64, ms))
                .collect();
            chart
                .draw_series(LineSeries::new(series.clone(), color.stroke_width(2)))
                .expect("series")
                .label(alg.name())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
            chart
                .draw_series(
                    series
                        .into_iter()
                        .map(|p| Circle::new(p, 3, color.filled())),
                )
                .expect("points");
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .expect("legend");
    }
    root.present().expect("write SVG");
    eprintln!("wrote {out}");
}
