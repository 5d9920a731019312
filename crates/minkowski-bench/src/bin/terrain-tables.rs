//! Our run of seed 002's experiments (Wang, *Collision detection between rigid objects
//! and displacement-mapped terrain*, KTH 2016, chapter 4): Tables 4.1–4.3 (the three
//! backward projections on §4.2's triangle, the same figures the tests check) and the
//! columns of Tables 4.4/4.5 for every terrain detector on the seeded synthetic scene.
//!
//! ```text
//! terrain-tables [--frames N] [--seed S] [--reps R] [--heightfield] [--optimise P] [--smoke]
//! ```
//!
//! * `--frames N`: frames of each kind (default 10): ordinary frames (Table 4.4: a few
//!   small objects over the ordinary ground, the cliff, the overhang, the skewed
//!   directions) and warship frames (Table 4.5: the warship alone at the densest site).
//! * `--seed S`: the scene's seed (default 1); the terrain is the default synthetic
//!   terrain (seed 2, 64 × 64 cells of 2 m).
//! * `--reps R`: timing repetitions per frame, the best kept (default 5; brute force
//!   runs once).
//! * `--heightfield`: directions all up (the aligned plane is then exact).
//! * `--optimise P`: the multiresolution volumes' levels with at most `P` bounding
//!   points are optimised (Alg 8, CCSA), the others are closed-form slabs (default 25,
//!   the library's default; 0: slabs only). The build is timed and printed apart.
//! * `--smoke`: one frame of each kind on a 48 × 48-cell terrain, one repetition (CI).
//!
//! Per detector and frame kind: backward projections per frame (mean), ms per frame
//! (median over frames of the best repetition), contacts per frame, contacts missed and
//! extra against brute force (totals), and the other counters. Brute force is
//! `DisplacedTerrain::locate` on every vertex (the oracle). The multiresolution column
//! is the §3.6 detector (`minkowski_bench::terrain_suite::multires_detector`). Exits 1
//! if the alpha-plane baseline (whose only difference from brute force is its candidate
//! stage) or the multiresolution detection misses a contact or reports one too many.
#![allow(clippy::unnecessary_cast)]

#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use minkowski::terrain::{
    BackProjectionMethod, BaselineConfig, FrameKind, MultiresOptions, PerVertexBaseline,
    SyntheticMode, SyntheticTerrain, SyntheticTerrainConfig, TerrainDetection, TerrainScene,
    TerrainVolumesOptions,
};
use minkowski_bench::terrain_suite::{
    frame_parts, measure, multires_detector, projection_rows, thesis_triangle, Baseline,
    BruteForce, ColumnFigures, Detector, THESIS_CASES, THESIS_ROWS,
};
use std::process::ExitCode;

struct Args {
    frames: u64,
    seed: u64,
    reps: usize,
    heightfield: bool,
    optimise: usize,
    smoke: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        frames: 10,
        seed: 1,
        reps: 5,
        heightfield: false,
        optimise: 25,
        smoke: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            it.next()
                .ok_or(format!("{name} needs a value"))?
                .parse()
                .map_err(|e| format!("{name}: {e}"))
        };
        match flag.as_str() {
            "--frames" => a.frames = value("--frames")?.max(1),
            "--seed" => a.seed = value("--seed")?,
            "--reps" => a.reps = value("--reps")?.max(1) as usize,
            "--heightfield" => a.heightfield = true,
            "--optimise" => a.optimise = value("--optimise")? as usize,
            "--smoke" => a.smoke = true,
            "-h" | "--help" => {
                return Err(
                    "usage: terrain-tables [--frames N] [--seed S] [--reps R] [--heightfield] \
                     [--optimise P] [--smoke]"
                        .into(),
                )
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.smoke {
        a.frames = 1;
        a.reps = 1;
    }
    Ok(a)
}

fn print_projection_tables() {
    println!("## Tables 4.1–4.3: backward projection of u = 0.3, v = 0.2, d = 1\n");
    println!(
        "f: |n × (P' − p)|² (Eq 3.1) for the aligned projection, the alpha plane's f(α) \
         (Eq 3.4) at the root, both in the triangle's units; iterations: BFGS + line \
         search, or Newton steps on the chosen root.\n"
    );
    for ((name, n0), thesis) in THESIS_CASES.iter().zip(THESIS_ROWS) {
        println!("### {name}, N0 = {n0:?}\n");
        println!("| method | u | v | iterations | f | status | thesis u | thesis v | thesis iterations | thesis f |");
        println!("|---|---|---|---|---|---|---|---|---|---|");
        let Some(tri) = thesis_triangle(*n0) else {
            println!("(the triangle was refused)\n");
            continue;
        };
        for (row, (method, tu, tv, ti, tf)) in projection_rows(&tri).into_iter().zip(thesis) {
            match row {
                Ok(r) => {
                    let b = r.answer;
                    let iterations = match r.method {
                        BackProjectionMethod::AlignedPlane => "-".to_string(),
                        BackProjectionMethod::AlignedProjection => {
                            format!("{}+{}", b.iterations, b.line_search_steps)
                        }
                        BackProjectionMethod::AlphaPlane => b.iterations.to_string(),
                    };
                    let f = r.f.map_or("-".to_string(), |f| format!("{f:.4e}"));
                    println!(
                        "| {method} | {:.4} | {:.4} | {iterations} | {f} | {} | {tu:.4} | {tv:.4} | {ti} | {tf} |",
                        b.u,
                        b.v,
                        b.status.as_str()
                    );
                }
                Err(e) => {
                    println!("| {method} | error: {e} | | | | | {tu:.4} | {tv:.4} | {ti} | {tf} |")
                }
            }
        }
        println!();
    }
}

fn print_column(name: &str, fig: Option<&ColumnFigures>) {
    match fig {
        Some(f) => {
            let per = |x: u64| x as f64 / f.frames.max(1) as f64;
            println!(
                "| {name} | {:.1} | {:.3} | {:.1} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} |",
                f.projections_per_frame(),
                f.median_ms(),
                f.contacts as f64 / f.frames.max(1) as f64,
                f.missed,
                f.extra,
                per(f.early_out_tests),
                per(f.volume_tests),
                per(f.gjk_queries),
                per(f.vertex_tests),
            );
        }
        None => println!("| {name} | not built | not built | not built | not built | not built | not built | not built | not built | not built |"),
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let precision = if cfg!(feature = "f64") { "f64" } else { "f32" };
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!("# Seed 002's experiments, our run\n");
    println!(
        "Build: {precision}, {profile}. Arguments: frames {}, seed {}, reps {}, {}{}.\n",
        args.frames,
        args.seed,
        args.reps,
        if args.heightfield {
            "heightfield directions"
        } else {
            "skewed directions"
        },
        if args.smoke { ", smoke" } else { "" }
    );
    print_projection_tables();

    let cells = if args.smoke { 48 } else { 64 };
    let config = SyntheticTerrainConfig {
        cells_s: cells,
        cells_t: cells,
        mode: if args.heightfield {
            SyntheticMode::Heightfield
        } else {
            SyntheticMode::Skewed
        },
        ..Default::default()
    };
    let terrain = match SyntheticTerrain::generate(config) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("terrain: {e}");
            return ExitCode::FAILURE;
        }
    };
    let scene = match TerrainScene::new(&terrain, args.seed) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("scene: {e}");
            return ExitCode::FAILURE;
        }
    };
    let ship = scene.warship();
    let (lo, hi) = ship.local_bounds();
    println!(
        "## Tables 4.4/4.5: detection per frame\n\nTerrain: {} × {} cells of {} m, {} quads, \
         {} base triangles. Warship: {} convex parts, {} vertices, {:.1} m long.\n",
        config.cells_s,
        config.cells_t,
        config.cell_size,
        terrain.terrain.layout().quads().len(),
        terrain.terrain.triangles().len(),
        ship.parts.len(),
        ship.vertex_count(),
        hi.x - lo.x
    );
    let baseline = |method| {
        PerVertexBaseline::new(
            &terrain.terrain,
            BaselineConfig {
                method,
                ..Default::default()
            },
        )
    };
    let (aligned, alpha) = match (
        baseline(BackProjectionMethod::AlignedPlane),
        baseline(BackProjectionMethod::AlphaPlane),
    ) {
        (Ok(a), Ok(b)) => (Baseline(a), Baseline(b)),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("baseline: {e}");
            return ExitCode::FAILURE;
        }
    };
    let brute = BruteForce(&terrain.terrain);
    let mut ok = true;
    let options = TerrainVolumesOptions {
        max_optimised_points: args.optimise,
        ..TerrainVolumesOptions::default()
    };
    let multires = match multires_detector(&terrain, &options) {
        Ok((m, built)) => {
            println!(
                "Multiresolution volumes: {} quads, levels of at most {} bounding points \
                 optimised (CCSA), built once in {:.2} s (not in the per-frame times).\n",
                terrain.terrain.layout().quads().len(),
                args.optimise,
                built.as_secs_f64()
            );
            let gjk_cells = m.with_options(MultiresOptions {
                gjk_cells: true,
                ..MultiresOptions::default()
            });
            Some((m, gjk_cells))
        }
        Err(e) => {
            println!("Multiresolution volumes: build failed: {e}\n");
            ok = false;
            None
        }
    };
    for (kind, title, thesis) in [
        (
            FrameKind::Ordinary,
            "Table 4.4: ordinary frames (4–8 small objects over every region)",
            "thesis, one frame: original 97 projections, 2.103 ms; multiresolution 15 \
             projections, 1.077 ms (1.95×)",
        ),
        (
            FrameKind::Warship,
            "Table 4.5: warship frames (the warship at the densest site)",
            "thesis, one frame: original 869 projections, 9.742 ms; multiresolution 11 \
             projections, 0.742 ms (13.1×)",
        ),
    ] {
        let frames = match (0..args.frames)
            .map(|i| scene.frame(kind, i))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(f) => f,
            Err(e) => {
                eprintln!("frames: {e}");
                return ExitCode::FAILURE;
            }
        };
        let objects: usize = frames.iter().map(|f| f.objects.len()).sum();
        let vertices: usize = frames
            .iter()
            .flat_map(|f| &f.objects)
            .map(|o| o.object.vertex_count())
            .sum();
        let parts: Vec<_> = frames.iter().map(frame_parts).collect();
        // The oracle's answers first (brute force, one repetition).
        let oracle: Vec<Vec<TerrainDetection>> = match parts
            .iter()
            .map(|objects| {
                objects
                    .iter()
                    .map(|p| brute.detect(&p.iter().map(Vec::as_slice).collect::<Vec<_>>()))
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(o) => o,
            Err(e) => {
                eprintln!("brute force: {e}");
                return ExitCode::FAILURE;
            }
        };
        println!("### {title}\n");
        println!(
            "{} frames, {:.1} objects and {:.0} vertices per frame. {thesis}.\n",
            frames.len(),
            objects as f64 / frames.len() as f64,
            vertices as f64 / frames.len() as f64
        );
        println!("| detector | backward projections / frame | ms / frame | contacts / frame | missed | extra | early-out tests / frame | volume tests / frame | GJK / frame | vertex tests / frame |");
        println!("|---|---|---|---|---|---|---|---|---|---|");
        let mut base_fig = None;
        let mut ratios: Vec<String> = Vec::new();
        let columns: [(&dyn Detector, usize); 3] =
            [(&brute, 1), (&aligned, args.reps), (&alpha, args.reps)];
        for (k, (detector, reps)) in columns.into_iter().enumerate() {
            match measure(detector, &parts, &oracle, reps) {
                Ok(fig) => {
                    print_column(detector.name(), Some(&fig));
                    if k == 2 && fig.missed > 0 {
                        ok = false;
                    }
                    if k == 1 {
                        base_fig = Some(fig);
                    }
                }
                Err(e) => {
                    println!("| {} | error: {e} | | | | | | | | |", detector.name());
                    ok = false;
                }
            }
        }
        match &multires {
            Some((m, gjk_cells)) => {
                for m in [m, gjk_cells] {
                    match measure(m, &parts, &oracle, args.reps) {
                        Ok(fig) => {
                            print_column(m.name(), Some(&fig));
                            if fig.missed > 0 || fig.extra > 0 {
                                ok = false;
                            }
                            if let Some(b) = &base_fig {
                                ratios.push(format!(
                                    "{}: {:.1}× fewer backward projections, {:.1}× less time \
                                     than the aligned-plane baseline",
                                    m.name(),
                                    b.projections_per_frame()
                                        / fig.projections_per_frame().max(1e-9),
                                    b.median_ms() / fig.median_ms().max(1e-9)
                                ));
                            }
                        }
                        Err(e) => {
                            println!("| {} | error: {e} | | | | | | | | |", m.name());
                            ok = false;
                        }
                    }
                }
                println!();
                for r in ratios.drain(..) {
                    println!("{r}\n");
                }
            }
            None => print_column("multiresolution (§3.6)", None),
        }
        println!();
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "the alpha-plane baseline missed a contact, the multiresolution detection \
             differs from brute force, or a detector failed"
        );
        ExitCode::FAILURE
    }
}
