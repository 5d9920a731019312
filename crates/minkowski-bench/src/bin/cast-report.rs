//! The side-by-side report for ray casts and linear shape casts: minkowski against
//! parry3d and Bullet on the same seeded cases in one process, every answer checked
//! against the independent reference of `minkowski_bench::cast_suite`.
//!
//! ```text
//! cast-report [--smoke] [--cases N] [--rounds R] [--examples K] [--only CLASS,…]
//! ```
//!
//! Prints a Markdown section: median ns per query for every class and method (timed
//! interleaved: each round runs every method once over all cases of a class; the median
//! over rounds of the mean per query), the fastest peer ÷ minkowski, the goal, and the
//! disagreements per method with the inputs of the first K of each peer (default 4) and
//! all of minkowski's. Each method gets the cases as its own poses, rays and velocities,
//! built once before checking and timing (`RayRunner::prepare`): the times are the
//! queries' alone, as for a caller that keeps its poses, not the building of a pose
//! (a checked, renormalised one for minkowski, a bare one for parry3d).
//! `--smoke`: a few cases, agreement only. `--only`: just the named classes (rays and
//! casts, names as in the tables, comma-separated; for profiling one path). Exits 1 if
//! minkowski disagrees anywhere.
#![allow(clippy::unnecessary_cast)]

#[cfg(feature = "f64")]
extern crate minkowski_f64 as minkowski;

use minkowski_bench::cast_suite::{
    self, cast_band, cast_classes, check_cast, check_ray, ray_band, ray_classes, Band, CastCase,
    RayCase,
};
use minkowski_bench::peers::cast::{cast_methods, CastOutcome};
use minkowski_bench::peers::{self, OURS};
use minkowski_bench::reference::Geo;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

struct Args {
    smoke: bool,
    cases: usize,
    rounds: usize,
    examples: usize,
    /// Class names to run; empty: all.
    only: Vec<String>,
}

impl Args {
    fn wants(&self, class: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|c| c == class)
    }
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        smoke: false,
        cases: 100,
        rounds: 21,
        examples: 4,
        only: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = |name: &str| -> Result<usize, String> {
            it.next()
                .ok_or(format!("{name} needs a value"))?
                .parse()
                .map_err(|e| format!("{name}: {e}"))
        };
        match flag.as_str() {
            "--smoke" => a.smoke = true,
            "--cases" => a.cases = value("--cases")?,
            "--rounds" => a.rounds = value("--rounds")?,
            "--examples" => a.examples = value("--examples")?,
            "--only" => {
                let list = it.next().ok_or("--only needs a value")?;
                a.only = list.split(',').map(|c| c.trim().to_string()).collect();
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.smoke {
        a.cases = 20;
    }
    Ok(a)
}

/// Disagreements of one method on one kind of query.
#[derive(Default)]
struct Tally {
    checked: usize,
    wrong: usize,
    gross: usize,
    inside: usize,
    kinds: BTreeMap<&'static str, usize>,
    examples: Vec<String>,
}

impl Tally {
    fn add(
        &mut self,
        wrong: Option<(&'static str, String)>,
        gross: bool,
        inside: bool,
        keep: usize,
    ) {
        self.checked += 1;
        if let Some((kind, w)) = wrong {
            self.wrong += 1;
            *self.kinds.entry(kind).or_default() += 1;
            self.gross += gross as usize;
            self.inside += inside as usize;
            if self.examples.len() < keep {
                self.examples.push(w);
            }
        }
    }
}

/// One timed table: class -> (hit share, method -> median ns).
type Rows = Vec<(String, f64, BTreeMap<usize, f64>)>;

fn median(mut s: Vec<f64>) -> f64 {
    s.sort_by(f64::total_cmp);
    s.get(s.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Interleaved timing of `run(method, case)` for the methods that have a runner.
fn time(
    present: &[bool],
    n: usize,
    rounds: usize,
    mut run: impl FnMut(usize, usize),
) -> BTreeMap<usize, f64> {
    let mut samples: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for _ in 0..rounds {
        for (m, _) in present.iter().enumerate().filter(|(_, p)| **p) {
            let t = Instant::now();
            for c in 0..n {
                run(m, c);
            }
            samples
                .entry(m)
                .or_default()
                .push(t.elapsed().as_nanos() as f64 / n.max(1) as f64);
        }
    }
    samples.into_iter().map(|(m, s)| (m, median(s))).collect()
}

fn ray_inputs(class: &str, c: &RayCase) -> String {
    format!(
        "{class}: pose {:?}, ray origin {:?} dir {:?} max_toi {:?}",
        c.pose, c.ray.origin, c.ray.dir, c.ray.max_toi
    )
}

fn cast_inputs(class: &str, c: &CastCase) -> String {
    format!(
        "{class}: pose A {:?}, pose B {:?}, B velocity {:?} (A still), max_toi {:?}",
        c.a, c.b, c.velocity, c.max_toi
    )
}

fn verdict(
    out: &CastOutcome,
    band: &Band,
    check: impl Fn(&CastOutcome, bool) -> Option<cast_suite::CastDisagreement>,
    inputs: impl Fn() -> String,
) -> (Option<(&'static str, String)>, bool) {
    match check(out, false) {
        None => (None, false),
        Some(d) => {
            let gross = check(out, true).is_some();
            (
                Some((
                    d.kind(),
                    format!("{} — {}", inputs(), cast_suite::describe(&d, band)),
                )),
                gross,
            )
        }
    }
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 100.0 {
        format!("{ns:.0}")
    } else {
        format!("{ns:.1}")
    }
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cast-report: {e}");
            peers::exit(2);
        }
    };
    let methods = cast_methods();
    let precision = if cfg!(feature = "f64") { "f64" } else { "f32" };
    eprintln!(
        "cast-report: {precision} build, methods: {}",
        methods
            .iter()
            .map(|m| m.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let keep = |m: usize| {
        if methods[m].name() == OURS {
            1000
        } else {
            args.examples
        }
    };
    let mut ray_tallies: Vec<Tally> = methods.iter().map(|_| Tally::default()).collect();
    let mut cast_tallies: Vec<Tally> = methods.iter().map(|_| Tally::default()).collect();
    let mut closed_vs_bisected = 0.0f64;
    let mut ray_rows: Rows = Vec::new();
    let mut ray_has: Vec<bool> = vec![false; methods.len()];

    for (ci, class) in ray_classes().iter().enumerate() {
        if !args.wants(&class.name) {
            continue;
        }
        let runners: Vec<_> = methods.iter().map(|m| m.load_ray(&class.shape)).collect();
        let geo = Geo::new(&class.shape);
        let cases = cast_suite::ray_cases(args.cases, 7000 + ci as u64);
        let bands: Vec<Band> = cases
            .par_iter()
            .map(|c| ray_band(&class.shape, &geo, c))
            .collect();
        for b in &bands {
            if let (Some(x), Some(y)) = (b.toi, b.bisected) {
                closed_vs_bisected = closed_vs_bisected.max((x - y).abs());
            } else if b.toi.is_some() != b.bisected.is_some() && b.min.abs() > 1e-9 {
                closed_vs_bisected = f64::INFINITY;
            }
        }
        // Checked and timed alike: each method's own inputs, built once (see
        // `RayRunner::prepare`).
        let prepared: Vec<_> = runners
            .iter()
            .map(|r| r.as_ref().map(|r| r.prepare(&cases)))
            .collect();
        for (mi, r) in prepared.iter().enumerate() {
            let Some(r) = r else { continue };
            ray_has[mi] = true;
            for (i, (c, band)) in cases.iter().zip(&bands).enumerate() {
                let out = r(i);
                let (wrong, gross) = verdict(
                    &out,
                    band,
                    |o, g| check_ray(o, band, &geo, c, g),
                    || ray_inputs(&class.name, c),
                );
                ray_tallies[mi].add(wrong, gross, band.starts_inside(), keep(mi));
            }
        }
        let hits = bands.iter().filter(|b| b.toi.is_some()).count() as f64 / cases.len() as f64;
        let present: Vec<bool> = runners.iter().map(Option::is_some).collect();
        let t = if args.smoke {
            BTreeMap::new()
        } else {
            time(&present, cases.len(), args.rounds, |m, c| {
                if let Some(r) = &prepared[m] {
                    black_box(r(black_box(c)));
                }
            })
        };
        eprintln!("cast-report: rays at {} done", class.name);
        ray_rows.push((class.name.clone(), hits, t));
    }

    let mut cast_rows: Rows = Vec::new();
    let mut uncertified: Vec<String> = Vec::new();
    let mut cast_has: Vec<bool> = vec![false; methods.len()];
    for (ci, class) in cast_classes().iter().enumerate() {
        if !args.wants(&class.name) {
            continue;
        }
        let runners: Vec<_> = methods
            .iter()
            .map(|m| m.load_cast(&class.a, &class.b))
            .collect();
        let (ga, gb) = (Geo::new(&class.a), Geo::new(&class.b));
        let cases = cast_suite::cast_cases(args.cases, 8000 + ci as u64);
        // Checked and timed alike: each method's own inputs, built once (see
        // `CastRunner::prepare`).
        let prepared: Vec<_> = runners
            .iter()
            .map(|r| r.as_ref().map(|r| r.prepare(&cases)))
            .collect();
        let outs: Vec<Option<Vec<CastOutcome>>> = prepared
            .iter()
            .map(|r| r.as_ref().map(|r| (0..cases.len()).map(r).collect()))
            .collect();
        let bands: Vec<Band> = cases.par_iter().map(|c| cast_band(&ga, &gb, c)).collect();
        let uncertain = bands.iter().filter(|b| b.uncertainty > 0.5 * b.tol).count();
        if uncertain > 0 {
            uncertified.push(format!("{} {uncertain}", class.name));
        }
        for (mi, o) in outs.iter().enumerate() {
            let Some(o) = o else { continue };
            cast_has[mi] = true;
            let verdicts: Vec<(Option<(&'static str, String)>, bool)> = cases
                .par_iter()
                .zip(&bands)
                .zip(o)
                .map(|((c, band), out)| {
                    verdict(
                        out,
                        band,
                        |o, g| check_cast(o, band, &ga, &gb, c, g),
                        || cast_inputs(&class.name, c),
                    )
                })
                .collect();
            for ((wrong, gross), band) in verdicts.into_iter().zip(&bands) {
                cast_tallies[mi].add(wrong, gross, band.starts_inside(), keep(mi));
            }
        }
        let hits = bands.iter().filter(|b| b.toi.is_some()).count() as f64 / cases.len() as f64;
        let present: Vec<bool> = runners.iter().map(Option::is_some).collect();
        let t = if args.smoke {
            BTreeMap::new()
        } else {
            time(&present, cases.len(), args.rounds, |m, c| {
                if let Some(r) = &prepared[m] {
                    black_box(r(black_box(c)));
                }
            })
        };
        eprintln!("cast-report: casts of {} done", class.name);
        cast_rows.push((class.name.clone(), hits, t));
    }

    let mut out = String::new();
    let ours = methods.iter().position(|m| m.name() == OURS).unwrap_or(0);
    let _ = writeln!(
        out,
        "{} cases per class; {} interleaved rounds; times are the median over rounds of the mean ns per query.\n",
        args.cases, args.rounds
    );
    let mut unmet: Vec<String> = Vec::new();
    let mut classes_total = 0usize;
    for (title, rows, has) in [
        ("Rays (solid, max 10 units)", &ray_rows, &ray_has),
        (
            "Linear casts (B translating, A still, target distance 0)",
            &cast_rows,
            &cast_has,
        ),
    ] {
        let cols: Vec<usize> = (0..methods.len()).filter(|m| has[*m]).collect();
        let _ = writeln!(out, "### {title} ({precision})\n");
        let _ = write!(out, "| class | hits |");
        for &m in &cols {
            let _ = write!(out, " {} |", methods[m].name());
        }
        let _ = writeln!(out, " fastest peer ÷ minkowski |");
        let _ = write!(out, "|---|---:|");
        for _ in &cols {
            let _ = write!(out, "---:|");
        }
        let _ = writeln!(out, "---|");
        for (name, hits, t) in rows.iter() {
            let _ = write!(out, "| {name} | {:.0}% |", hits * 100.0);
            for &m in &cols {
                let _ = write!(out, " {} |", t.get(&m).map_or("—".into(), |x| fmt_ns(*x)));
            }
            let best = t
                .iter()
                .filter(|(m, _)| **m != ours)
                .min_by(|a, b| a.1.total_cmp(b.1));
            match (best, t.get(&ours)) {
                (Some((m, ns)), Some(o)) => {
                    let ratio = ns / o;
                    let _ = writeln!(out, " {ratio:.2}× ({}) |", methods[*m].name());
                    classes_total += 1;
                    if ratio < 2.0 {
                        unmet.push(format!(
                            "{} {name} {ratio:.2}× ({})",
                            if title.starts_with("Rays") {
                                "ray"
                            } else {
                                "cast"
                            },
                            methods[*m].name()
                        ));
                    }
                }
                _ => {
                    let _ = writeln!(out, " — |");
                }
            }
        }
        let _ = writeln!(out);
    }

    let ours_wrong = ray_tallies[ours].wrong + cast_tallies[ours].wrong;
    let _ = writeln!(out, "### Goals ({precision})\n");
    if !args.smoke {
        if unmet.is_empty() {
            let _ = writeln!(
                out,
                "- ray and linear casts, fastest peer ÷ minkowski ≥ 2×: **met** in all {classes_total} classes."
            );
        } else {
            let _ = writeln!(
                out,
                "- ray and linear casts, fastest peer ÷ minkowski ≥ 2×: **not met** in {} of {classes_total} classes: {}.",
                unmet.len(),
                unmet.join(", ")
            );
        }
    }
    let _ = writeln!(
        out,
        "- zero disagreements with the reference: {} ({ours_wrong} for minkowski).\n",
        if ours_wrong == 0 {
            "**met**"
        } else {
            "**not met**"
        }
    );

    let _ = writeln!(out, "### Agreement with the reference ({precision})\n");
    let _ = writeln!(
        out,
        "Tolerance {} × size on distances (the time band in the reference's notes); closed-form ray references against the bisection: largest difference {closed_vs_bisected:.1e}; cast references whose upper bound exceeds the lower by more than half the tolerance at the time of impact: {}.\n",
        if cfg!(feature = "f64") { "1e-6" } else { "1e-4" },
        if uncertified.is_empty() {
            "none".to_string()
        } else {
            uncertified.join(", ")
        }
    );
    let _ = writeln!(
        out,
        "| method | rays checked | disagreements | of which starting inside | gross (> 1e-3 × size) | casts checked | disagreements | gross (> 1e-3 × size) |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
    let cell = |x: usize, has: bool| if has { x.to_string() } else { "—".into() };
    for (m, method) in methods.iter().enumerate() {
        let (r, c) = (&ray_tallies[m], &cast_tallies[m]);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            method.name(),
            cell(r.checked, ray_has[m]),
            cell(r.wrong, ray_has[m]),
            cell(r.inside, ray_has[m]),
            cell(r.gross, ray_has[m]),
            cell(c.checked, cast_has[m]),
            cell(c.wrong, cast_has[m]),
            cell(c.gross, cast_has[m]),
        );
    }
    let _ = writeln!(out);
    for (m, method) in methods.iter().enumerate() {
        let ex: Vec<&String> = ray_tallies[m]
            .examples
            .iter()
            .chain(&cast_tallies[m].examples)
            .collect();
        if ex.is_empty() {
            continue;
        }
        let kinds = |t: &Tally| {
            t.kinds
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            out,
            "{} — disagreements by kind: rays: {}; casts: {}. First ones (exact inputs; poses are x y z qx qy qz qw):\n",
            method.name(),
            kinds(&ray_tallies[m]),
            kinds(&cast_tallies[m])
        );
        for e in ex {
            let _ = writeln!(out, "- {e}");
        }
        let _ = writeln!(out);
    }
    print!("{out}");
    peers::exit(if ours_wrong > 0 { 1 } else { 0 });
}
