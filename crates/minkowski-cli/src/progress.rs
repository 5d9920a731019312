//! Progress on standard error for long runs of the tool (indicatif).
//!
//! Shown only when standard error is a terminal and standard output is not (the answers
//! go to a file or a pipe, so the bar never mixes with them), and only once a run has
//! taken [`Progress::DELAY`]: short runs, piped runs and tests print nothing extra.
//! Standard output is never touched.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress bar that appears on a long run (see the module documentation).
pub struct Progress {
    /// `None` when progress is not shown at all (not a terminal).
    bar: Option<ProgressBar>,
    start: Instant,
    shown: bool,
}

impl Progress {
    /// How long a run goes before its bar appears.
    pub const DELAY: Duration = Duration::from_secs(1);

    /// Progress over `total` units (`None`: unknown, a counter), with `unit` naming them
    /// (`"bytes"`, `"lines"`, `"frames"`); hidden unless standard error is a terminal and
    /// standard output is not.
    pub fn new(total: Option<u64>, unit: &str) -> Self {
        let show = std::io::stderr().is_terminal() && !std::io::stdout().is_terminal();
        let bar = show.then(|| {
            let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
            let template = match (total, unit) {
                (Some(_), "bytes") => {
                    "{elapsed_precise} [{wide_bar}] {bytes}/{total_bytes} ({eta} left)"
                }
                (Some(_), _) => "{elapsed_precise} [{wide_bar}] {pos}/{len} {msg} ({eta} left)",
                (None, _) => "{elapsed_precise} {spinner} {pos} {msg}",
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style);
            }
            bar.set_message(unit.to_string());
            bar
        });
        Progress {
            bar,
            start: Instant::now(),
            shown: false,
        }
    }

    /// Whether the bar can appear at all (standard error is a terminal, output is not).
    pub fn enabled(&self) -> bool {
        self.bar.is_some()
    }

    /// `done` units so far; draws the bar once the run has taken [`Self::DELAY`].
    pub fn set(&mut self, done: u64) {
        let Some(bar) = &self.bar else { return };
        if !self.shown && self.start.elapsed() >= Self::DELAY {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        bar.set_position(done);
    }

    /// Removes the bar (the run is over).
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}
