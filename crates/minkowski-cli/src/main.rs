//! `minkowski`: the command-line front door of the minkowski collision library.
//!
//! ```text
//! minkowski query [FILE]     JSON-lines collision queries (FILE or standard input)
//! minkowski hull [FILE]      JSON-lines convex hulls in 3D
//! minkowski hull --2d [--algorithm NAME] [FILE]
//!                            JSON-lines convex hulls in 2D
//! minkowski scene [...]      the collision world on a moving scene (see `scene.rs`)
//! ```
// Casts to and from `Real` are no-ops in the f64 build and conversions in the f32 build.
#![allow(clippy::unnecessary_cast)]

use minkowski_cli::{hull_protocol, protocol, scene};

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::process::ExitCode;

const USAGE: &str = "\
usage:
  minkowski query [FILE]    answer JSON-lines collision queries from FILE (or stdin)
  minkowski hull [FILE]     answer JSON-lines 3D convex hull queries
  minkowski hull --2d [--algorithm graham|jarvis|chan|melkman|divide|monotone] [FILE]
                            answer JSON-lines 2D convex hull queries (default: monotone)
  minkowski scene [--objects N] [--frames K] [--broadphase grid|sap|bvh] [--threads T]
                  [--seed S] [--layout seed000 --array A] [--contacts full|touch]
                  [--verify] [--json]
                            time the collision world on a moving scene
  minkowski help            this text

precision: this binary uses ";

fn precision() -> &'static str {
    if cfg!(feature = "f64") {
        "f64 (double)"
    } else {
        "f32 (single); build with --features f64 for double"
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // `minkowski <command> --help` (or `-h`) is a request for the usage, not an error.
    if args.iter().skip(1).any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}{}", precision());
        return ExitCode::SUCCESS;
    }
    match args.first().map(String::as_str) {
        Some("query") => run_query(&args[1..]),
        Some("hull") => run_hull(&args[1..]),
        Some("scene") => run_scene(&args[1..]),
        Some("help") | Some("--help") | Some("-h") => {
            println!("{USAGE}{}", precision());
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!(
                "minkowski: unknown command '{other}'\n{USAGE}{}",
                precision()
            );
            ExitCode::from(2)
        }
        None => {
            eprintln!("{USAGE}{}", precision());
            ExitCode::from(2)
        }
    }
}

fn run_query(args: &[String]) -> ExitCode {
    let mut file = None;
    for a in args {
        match a.as_str() {
            "--f64" if cfg!(feature = "f64") => {}
            "--f64" => {
                eprintln!(
                    "minkowski: this build is single precision; build with \
                     `--features f64` for double precision"
                );
                return ExitCode::from(2);
            }
            s if s.starts_with('-') && s != "-" => {
                eprintln!("minkowski query: unknown option '{s}'");
                return ExitCode::from(2);
            }
            s => {
                if file.replace(s.to_string()).is_some() {
                    eprintln!("minkowski query: at most one FILE");
                    return ExitCode::from(2);
                }
            }
        }
    }
    serve("query", file.as_deref(), protocol::answer_line)
}

fn run_hull(args: &[String]) -> ExitCode {
    let mut file = None;
    let mut plane = false;
    let mut algorithm = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--2d" => plane = true,
            "--algorithm" => {
                let Some(name) = it.next() else {
                    eprintln!("minkowski hull: --algorithm needs a name");
                    return ExitCode::from(2);
                };
                match minkowski::hull::Algorithm2d::from_name(name) {
                    Some(alg) => algorithm = Some(alg),
                    None => {
                        eprintln!(
                            "minkowski hull: unknown algorithm '{name}' \
                             (graham, jarvis, chan, melkman, divide, monotone)"
                        );
                        return ExitCode::from(2);
                    }
                }
            }
            "--f64" if cfg!(feature = "f64") => {}
            s if s.starts_with('-') && s != "-" => {
                eprintln!("minkowski hull: unknown option '{s}'");
                return ExitCode::from(2);
            }
            s => {
                if file.replace(s.to_string()).is_some() {
                    eprintln!("minkowski hull: at most one FILE");
                    return ExitCode::from(2);
                }
            }
        }
    }
    if algorithm.is_some() && !plane {
        eprintln!("minkowski hull: --algorithm selects a 2D algorithm; add --2d");
        return ExitCode::from(2);
    }
    let mode = if plane {
        hull_protocol::Mode::Plane(algorithm.unwrap_or(minkowski::hull::Algorithm2d::MonotoneChain))
    } else {
        hull_protocol::Mode::Space
    };
    serve("hull", file.as_deref(), |line| {
        protocol::answer_line_with(line, |q| hull_protocol::answer(q, mode))
    })
}

fn run_scene(args: &[String]) -> ExitCode {
    let parsed = match scene::parse(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("minkowski scene: {e}\n{}", scene::USAGE);
            return ExitCode::from(2);
        }
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = scene::run(&parsed, &mut out);
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
    let input: Box<dyn Read> = match file {
        None | Some("-") => Box::new(io::stdin()),
        Some(path) => match std::fs::File::open(path) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("minkowski {command}: cannot read {path}: {e}");
                return ExitCode::from(1);
            }
        },
    };
    let mut reader = BufReader::new(input);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut buf = Vec::new();
    let mut first = true;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                let _ = out.flush();
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
            Err(e) => serde_json::json!({"error": {
                "kind": "invalid_json",
                "message": format!("line is not valid UTF-8: {e}"),
            }})
            .to_string(),
        };
        if writeln!(out, "{answer}").is_err() {
            // The reader went away (e.g. `| head`): nothing more to do.
            return ExitCode::SUCCESS;
        }
    }
    let _ = out.flush();
    ExitCode::SUCCESS
}
