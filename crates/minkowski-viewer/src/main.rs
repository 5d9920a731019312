//! `minkowski-viewer`: the interactive demo (see the crate docs and `--help`).

use std::process::ExitCode;

use clap::Parser;
use minkowski_viewer::scenes::{self, SceneOptions};
use minkowski_viewer::script::Script;
use minkowski_viewer::ViewerError;

mod app;

/// The interactive demo of minkowski: seed 000's player and field of shapes, the
/// collision world's scenes, and a scripted mode that writes screenshots.
#[derive(Debug, Parser)]
#[command(name = "minkowski-viewer", version, after_help = AFTER)]
struct Cli {
    /// The scene (see --list).
    #[arg(long, default_value = "demo")]
    scene: String,
    /// List the scenes and exit.
    #[arg(long)]
    list: bool,
    /// Play key presses from this script instead of the keyboard (fixed 1/60 s steps;
    /// format in the crate docs of `script`).
    #[arg(long, value_name = "FILE")]
    script: Option<String>,
    /// Frames to run, then exit (default with --script: up to its last frame).
    #[arg(long, value_name = "N")]
    frames: Option<usize>,
    /// Write the last frame to this PNG.
    #[arg(long, value_name = "PNG")]
    screenshot: Option<String>,
    /// Print frame time, broad/narrow ms, pairs and contacts at exit.
    #[arg(long)]
    report: bool,
    /// Objects of the crowd scenes.
    #[arg(long, default_value_t = 10_000)]
    objects: usize,
    /// Seed of the scenes' randomness.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Folder of seed 000's OBJ meshes.
    #[arg(long, value_name = "DIR")]
    models: Option<String>,
    /// Window width (pixels).
    #[arg(long, default_value_t = 960)]
    width: i32,
    /// Window height (pixels).
    #[arg(long, default_value_t = 600)]
    height: i32,
}

const AFTER: &str =
    "Keys: camera WASD (R/F up/down), right mouse drag to turn; player arrows and Q/E, \
1-5 cube/sphere/cone/cylinder/capsule, G ghost (pass through), Tab next pair, J/K GJK trace \
and its steps, B broad-phase overlay, C contact points (dynamics scenes), V bounding-volume \
level (displaced), H HUD, Space pause, N step, Escape quit. In the terrain scenes the arrows \
drive the character.

Without a display: xvfb-run -s '-screen 0 1280x800x24' minkowski-viewer --scene demo \
--script keys.txt --screenshot out.png";

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.list {
        for e in scenes::SCENES {
            println!("{:<12} {}", e.name, e.about);
        }
        return ExitCode::SUCCESS;
    }
    let Some(entry) = scenes::find(&cli.scene) else {
        eprintln!("minkowski-viewer: {}", ViewerError::UnknownScene(cli.scene));
        return ExitCode::from(2);
    };
    let script = match &cli.script {
        None => None,
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|source| ViewerError::Io {
                path: path.clone(),
                source,
            })
            .and_then(|t| Script::parse(&t))
        {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("minkowski-viewer: {e}");
                return ExitCode::from(2);
            }
        },
    };
    if cli.width < 64 || cli.height < 64 || cli.width > 8192 || cli.height > 8192 {
        eprintln!("minkowski-viewer: window size must be 64 … 8192 pixels");
        return ExitCode::from(2);
    }
    let mut scene_options = SceneOptions {
        seed: cli.seed,
        objects: cli.objects,
        ..SceneOptions::default()
    };
    if let Some(m) = cli.models {
        scene_options.models = m.into();
    }
    let opts = app::RunOptions {
        scene: entry,
        scene_options,
        frames: cli
            .frames
            .or(if script.is_none() && cli.screenshot.is_some() {
                Some(1)
            } else {
                None
            }),
        script,
        screenshot: cli.screenshot,
        report: cli.report,
    };
    let conf = macroquad::conf::Conf {
        miniquad_conf: macroquad::miniquad::conf::Conf {
            window_title: format!("minkowski-viewer: {}", entry.name),
            window_width: cli.width,
            window_height: cli.height,
            high_dpi: false,
            sample_count: 1,
            ..Default::default()
        },
        update_on: None,
        default_filter_mode: macroquad::prelude::FilterMode::Linear,
        draw_call_vertex_capacity: 65_000,
        draw_call_index_capacity: 65_000,
    };
    macroquad::Window::from_config(conf, async move {
        let status = app::run(opts).await;
        std::process::exit(status);
    });
    ExitCode::SUCCESS
}
