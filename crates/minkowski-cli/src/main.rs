//! `minkowski`: the command-line front door of the minkowski collision library.
//!
//! ```text
//! minkowski query [FILE]     JSON-lines collision queries (FILE or standard input)
//! minkowski hull [FILE]      JSON-lines convex hulls in 3D
//! minkowski hull --2d [--algorithm NAME] [FILE]
//!                            JSON-lines convex hulls in 2D
//! minkowski scene [...]      the collision world on a moving scene (see `scene.rs`)
//! minkowski sim --scene NAME  a rigid-body scene of minkowski-dynamics (see `sim.rs`)
//! ```
//!
//! `minkowski help COMMAND` or `minkowski COMMAND --help` documents each; the protocol is
//! `docs/query-protocol.md`.
// Casts to and from `Real` are no-ops in the f64 build and conversions in the f32 build.
#![allow(clippy::unnecessary_cast)]

use minkowski::hull::Algorithm2d;
use minkowski_cli::progress::Progress;
use minkowski_cli::scene::{self, SceneCli};
use minkowski_cli::sim::{self, SimCli};
use minkowski_cli::{hull_protocol, protocol, protocol_f64};

use clap::{CommandFactory, Parser, Subcommand};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::process::ExitCode;

/// Where the protocol is written up, for the help texts.
const PROTOCOL_DOC: &str = "docs/query-protocol.md (in the minkowski repository)";

const PRECISION: &str = "Precision: single (f32) by default; `--f64` computes in double \
     (the same library built with `Real = f64`, crate `minkowski-f64`).";

const F64_HELP: &str = "Compute in double precision (f64) instead of single (f32)";

const ABOUT: &str = "\
Collision queries, convex hulls and a timed collision world, from the command line.

`query` and `hull` read JSON Lines (one request object per line, from FILE or standard
input) and write one JSON answer per line to standard output, in the same order; `scene`
times the collision world on a moving scene; `sim` runs a named rigid-body scene of
minkowski-dynamics. `minkowski help COMMAND` documents each
command's input, output and flags.";

#[derive(Parser)]
#[command(
    name = "minkowski",
    version,
    about = "Collision queries, convex hulls and a timed collision world",
    long_about = ABOUT,
    after_help = after_help(),
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

fn after_help() -> String {
    format!("Protocol: {PROTOCOL_DOC}\n{PRECISION}")
}

#[derive(Subcommand)]
enum Command {
    Query(QueryCli),
    Hull(HullCli),
    Scene(SceneCli),
    Sim(SimCli),
}

const QUERY_ABOUT: &str = "\
Answer JSON-lines collision queries.

Input: one query object per line, from FILE or, without FILE (or with `-`), standard input:
  {\"id\": 7, \"query\": KIND, \"a\": SHAPE, \"pose_a\": POSE, \"b\": SHAPE, \"pose_b\": POSE}
  KIND   intersects | distance | closest_points | contact
         | manifold (with an optional \"margin\" >= 0, default 0)
  SHAPE  {\"type\": \"sphere\", \"radius\": r}   {\"type\": \"cuboid\", \"half_extents\": [x, y, z]}
         capsule, cylinder, cone: half_height, radius (axis along local +Y)
         pyramid: half_extents    ellipsoid: radii    segment: a, b    triangle: a, b, c
         point: p (default the origin)    convex: points (hull of [[x, y, z], ...])
         rounded: shape, radius (the shape inflated by a ball)
         compound: parts [{\"shape\": SHAPE, \"pose\": POSE}, ...] (as a or b only)
  POSE   {\"translation\": [x, y, z], \"rotation\": [x, y, z, w]}: a unit quaternion (norm
         within 1e-3 of 1); each field, and the pose itself, optional (identity)
  Lengths in any unit, at most 1e8 in magnitude (1e60 in f64).";

const QUERY_AFTER: &str = "\
Output: one JSON object per input line, in order, on standard output, with the line's
`id` first, exactly as written (absent when absent). Frame: world; normals from A to B.
  intersects      intersects
  distance        distance (>= 0), intersects, iterations, status
  closest_points  distance, intersects, point_a, point_b, iterations, status
  contact         distance (signed: negative = penetration depth), normal (unit),
                  point_a, point_b, intersects, iterations, method, status
  manifold        normal, points: up to 4 {point_a, point_b, distance, feature}, status
  with a compound, part_a / part_b: the parts that answered.
  status: converged | degenerate | numerical_limit | max_iterations
A line that cannot be answered gets {\"id\": ..., \"error\": {\"kind\": K, \"message\": ...}},
K one of invalid_json, invalid_query, invalid_shape, invalid_pose, internal, and the
tool goes on. Lines of spaces, tabs and carriage returns only get no answer; a UTF-8
byte-order mark at the start is skipped.

Exit status: 0 when the whole input was read (error answers included); 1 when FILE
cannot be opened or reading fails; 2 for a bad command line.";

/// `minkowski query`'s command line.
#[derive(clap::Args)]
#[command(
    about = "Answer JSON-lines collision queries",
    long_about = QUERY_ABOUT,
    after_help = after_help(),
    after_long_help = format!("{QUERY_AFTER}\n\nProtocol: {PROTOCOL_DOC}\n{PRECISION}"),
    args_override_self = true
)]
struct QueryCli {
    /// The queries, one JSON object per line; standard input when absent or `-`.
    #[arg(value_name = "FILE")]
    file: Option<String>,
    #[arg(long = "f64", help = F64_HELP)]
    f64: bool,
}

const HULL_ABOUT: &str = "\
Answer JSON-lines convex hull queries (3D, or 2D with --2d).

Input: one object per line, from FILE or, without FILE (or with `-`), standard input:
  {\"id\": 3, \"points\": [[x, y, z], ...]}     ([x, y] points with --2d)
Points are hulled as f64 with exact predicates in either precision (magnitudes up to 1e60).";

const HULL_AFTER: &str = "\
Output: one JSON object per input line, in order, `id` first as written:
  3D  {\"id\", \"dimension\", \"vertices\", \"faces\"}: the extreme input points, and faces as
      convex polygons of indices into vertices, counter-clockwise seen from outside.
      Degenerate input keeps its dimension: 2 (coplanar: one face, and its \"normal\"),
      1 (collinear: the two end points), 0 (all equal: one vertex).
  2D  {\"id\", \"algorithm\", \"dimension\", \"vertices\"}: counter-clockwise from the lowest
      (then leftmost) point, collinear boundary points excluded.
Errors as for `query`: invalid_json, invalid_query (no or malformed points),
invalid_shape (empty, non-finite or too large), internal.

Exit status: 0 when the whole input was read (error answers included); 1 when FILE
cannot be opened or reading fails; 2 for a bad command line.";

/// `minkowski hull`'s command line.
#[derive(clap::Args)]
#[command(
    about = "Answer JSON-lines convex hull queries",
    long_about = HULL_ABOUT,
    after_help = after_help(),
    after_long_help = format!("{HULL_AFTER}\n\nProtocol: {PROTOCOL_DOC}\n{PRECISION}"),
    args_override_self = true
)]
struct HullCli {
    /// The point sets, one JSON object per line; standard input when absent or `-`.
    #[arg(value_name = "FILE")]
    file: Option<String>,
    /// 2D hulls of [x, y] points (default: 3D hulls by quickhull).
    #[arg(long = "2d")]
    two_d: bool,
    /// The 2D algorithm (needs --2d); all give the same hull [default: monotone]
    #[arg(long, value_name = "NAME", requires = "two_d",
          value_parser = ["graham", "jarvis", "chan", "melkman", "divide", "monotone"])]
    algorithm: Option<String>,
    #[arg(long = "f64", help = F64_HELP)]
    f64: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Query(q) => {
            if q.f64 {
                serve("query", q.file.as_deref(), protocol_f64::answer_line)
            } else {
                serve("query", q.file.as_deref(), protocol::answer_line)
            }
        }
        Command::Hull(h) => {
            // The value parser admits only the algorithms' names, which both precisions
            // know.
            let name = h.algorithm.as_deref().unwrap_or("monotone");
            let file = h.file.as_deref();
            if h.f64 {
                use minkowski_f64::hull::Algorithm2d;
                use minkowski_f64::protocol::hull::{answer, Mode};
                let mode = match Algorithm2d::from_name(name) {
                    Some(alg) if h.two_d => Mode::Plane(alg),
                    Some(_) => Mode::Space,
                    None => usage_error("hull", format!("unknown algorithm '{name}'")),
                };
                serve("hull", file, |line| {
                    protocol_f64::answer_line_with(line, |q| answer(q, mode))
                })
            } else {
                use hull_protocol::{answer, Mode};
                let mode = match Algorithm2d::from_name(name) {
                    Some(alg) if h.two_d => Mode::Plane(alg),
                    Some(_) => Mode::Space,
                    None => usage_error("hull", format!("unknown algorithm '{name}'")),
                };
                serve("hull", file, |line| {
                    protocol::answer_line_with(line, |q| answer(q, mode))
                })
            }
        }
        Command::Scene(s) => match s.validate() {
            Ok(args) => run_scene(&args),
            Err(e) => usage_error("scene", e),
        },
        Command::Sim(s) => {
            let stdout = io::stdout();
            let mut out = BufWriter::new(stdout.lock());
            match sim::run(&s, &mut out).and_then(|()| out.flush().map_err(|e| e.to_string())) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("minkowski sim: {e}");
                    ExitCode::from(1)
                }
            }
        }
    }
}

/// Exits with status 2 and clap's usage for `command` after `message`.
fn usage_error(command: &str, message: String) -> ! {
    let mut cmd = Cli::command();
    let sub = cmd.find_subcommand_mut(command).map(|c| {
        c.clone()
            .bin_name(format!("minkowski {command}"))
            .error(clap::error::ErrorKind::ArgumentConflict, &message)
    });
    match sub {
        Some(e) => e.exit(),
        None => cmd
            .error(clap::error::ErrorKind::ArgumentConflict, message)
            .exit(),
    }
}

fn run_scene(args: &scene::SceneArgs) -> ExitCode {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut progress = Progress::new(Some(args.frames as u64), "frames");
    let result = scene::run_with_progress(args, &mut out, &mut |done| progress.set(done));
    progress.finish();
    let _ = out.flush();
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("minkowski scene: --verify found differences from brute force");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("minkowski scene: {e}");
            ExitCode::from(1)
        }
    }
}

/// Reads JSON lines from `file` (or standard input) and writes one answer per line.
fn serve(command: &str, file: Option<&str>, answer: impl Fn(&str) -> String) -> ExitCode {
    let (input, size): (Box<dyn Read>, Option<u64>) = match file {
        None | Some("-") => (Box::new(io::stdin()), None),
        Some(path) => match std::fs::File::open(path) {
            Ok(f) => {
                let size = f.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
                (Box::new(f), size)
            }
            Err(e) => {
                eprintln!("minkowski {command}: cannot read {path}: {e}");
                return ExitCode::from(1);
            }
        },
    };
    let mut progress = Progress::new(size, if size.is_some() { "bytes" } else { "lines" });
    let (mut bytes_read, mut lines_read) = (0u64, 0u64);
    let mut reader = BufReader::new(input);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut buf = Vec::new();
    let mut first = true;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if progress.enabled() {
                    bytes_read += n as u64;
                    lines_read += 1;
                    progress.set(if size.is_some() {
                        bytes_read
                    } else {
                        lines_read
                    });
                }
            }
            Err(e) => {
                let _ = out.flush();
                progress.finish();
                eprintln!("minkowski {command}: read error: {e}");
                return ExitCode::from(1);
            }
        }
        // A byte-order mark at the start of the input is a marker, not part of the line.
        let bytes = match (first, buf.strip_prefix("\u{feff}".as_bytes())) {
            (true, Some(rest)) => rest,
            _ => &buf[..],
        };
        first = false;
        let answer = match std::str::from_utf8(bytes) {
            Ok(line) => {
                // Lines of JSON whitespace only (space, tab, CR) carry no query and get
                // no answer; any other line, other Unicode spaces included, is answered
                // (an error when it is not a JSON object).
                if line.trim_matches([' ', '\t', '\r', '\n']).is_empty() {
                    continue;
                }
                answer(line)
            }
            Err(e) => protocol::invalid_utf8_line(e),
        };
        if writeln!(out, "{answer}").is_err() {
            // The reader went away (e.g. `| head`): nothing more to do.
            progress.finish();
            return ExitCode::SUCCESS;
        }
    }
    let _ = out.flush();
    progress.finish();
    ExitCode::SUCCESS
}
