//! One `--progress` behaviour for every long-running command: a progress display on stderr when
//! stderr is a terminal, none when it is a file or pipe; `--progress` forces it on, `--no-progress` off.
//! [`Progress`] shows it: a bar on a terminal; with `--progress` on a file or pipe (where a bar would
//! not be drawn), a plain line every second. Writes to stderr never fail the command.

use std::cell::Cell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// The progress flags, declared once; commands `#[command(flatten)]` them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::Args)]
pub struct ProgressArgs {
    /// Show progress on stderr even when it is not a terminal (default: only on a terminal).
    #[arg(long, overrides_with = "no_progress")]
    pub progress: bool,
    /// Never show progress.
    #[arg(long = "no-progress", overrides_with = "progress")]
    pub no_progress: bool,
}

impl ProgressArgs {
    /// Whether to show progress: forced on or off by the flags, otherwise when stderr is a terminal.
    pub fn enabled(&self) -> bool {
        wanted(self.progress, self.no_progress, std::io::stderr().is_terminal())
    }
}

/// The rule itself, with the terminal test passed in (so it can be tested).
pub fn wanted(force_on: bool, force_off: bool, stderr_is_terminal: bool) -> bool {
    if force_off {
        false
    } else {
        force_on || stderr_is_terminal
    }
}

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Not at all.
    Off,
    /// An indicatif bar (stderr is a terminal).
    Bar,
    /// `progress: POS of LEN UNIT (P %)` once a second (forced on a file or pipe).
    Lines,
}

/// The mode for a command whose progress is `enabled` (see `p4_io::progress::ProgressArgs`).
pub fn mode(enabled: bool, stderr_is_terminal: bool) -> Mode {
    match (enabled, stderr_is_terminal) {
        (false, _) => Mode::Off,
        (true, true) => Mode::Bar,
        (true, false) => Mode::Lines,
    }
}

/// A progress display over `len` units.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    lines: bool,
    unit: String,
    len: Cell<u64>,
    pos: Cell<u64>,
    last: Cell<Instant>,
}

impl Progress {
    /// Progress over `len` `unit`s, shown if `enabled`.
    pub fn new(enabled: bool, len: u64, unit: &str) -> Progress {
        let mode = mode(enabled, std::io::stderr().is_terminal());
        let bar = (mode == Mode::Bar).then(|| {
            let bar = indicatif::ProgressBar::new(len);
            let template = format!("{{elapsed_precise}} [{{bar:40}}] {{pos}}/{{len}} {unit} ({{eta}}) {{msg}}");
            if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            bar,
            lines: mode == Mode::Lines,
            unit: unit.to_string(),
            len: Cell::new(len),
            pos: Cell::new(0),
            last: Cell::new(Instant::now()),
        }
    }

    /// Set the total once it is known.
    pub fn set_length(&self, len: u64) {
        self.len.set(len);
        if let Some(bar) = &self.bar {
            bar.set_length(len);
        }
    }

    /// Units done so far.
    pub fn position(&self) -> u64 {
        self.pos.get()
    }

    /// `pos` units are done.
    pub fn set_position(&self, pos: u64) {
        self.pos.set(pos);
        if let Some(bar) = &self.bar {
            bar.set_position(pos);
        } else if self.lines && self.last.get().elapsed() >= Duration::from_secs(1) {
            self.last.set(Instant::now());
            let len = self.len.get();
            let percent = if len == 0 { 100.0 } else { pos as f64 * 100.0 / len as f64 };
            crate::eprintln_safe!("progress: {pos} of {len} {} ({percent:.0} %)", self.unit);
        }
    }

    /// `n` more units are done.
    pub fn inc(&self, n: u64) {
        self.set_position(self.pos.get() + n);
    }

    /// A note beside the bar (a phase such as "counting blocks").
    pub fn set_message(&self, message: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(message.to_string());
        } else if self.lines && !message.is_empty() {
            crate::eprintln_safe!("progress: {message}");
        }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        progress: ProgressArgs,
    }

    #[test]
    fn automatic_on_a_terminal_and_forced_by_the_flags() {
        assert!(wanted(false, false, true));
        assert!(!wanted(false, false, false));
        assert!(wanted(true, false, false));
        assert!(!wanted(false, true, true));
    }

    #[test]
    fn the_last_flag_given_wins() {
        let parsed = Cli::parse_from(["x", "--progress", "--no-progress"]).progress;
        assert_eq!(parsed, ProgressArgs { progress: false, no_progress: true });
        let parsed = Cli::parse_from(["x", "--no-progress", "--progress"]).progress;
        assert_eq!(parsed, ProgressArgs { progress: true, no_progress: false });
    }

    #[test]
    fn forced_progress_on_a_file_is_lines_not_an_invisible_bar() {
        // indicatif draws nothing when stderr is not a terminal, so `--progress 2>log` showed
        // nothing; it now prints a line a second there.
        assert_eq!(mode(true, false), Mode::Lines);
        assert_eq!(mode(true, true), Mode::Bar);
        assert_eq!(mode(false, true), Mode::Off);
        assert_eq!(mode(false, false), Mode::Off);
    }

    #[test]
    fn positions_are_kept_whatever_the_display() {
        let p = Progress::new(false, 10, "frames");
        p.inc(3);
        p.inc(4);
        assert_eq!(p.position(), 7);
        p.set_length(20);
        p.finish();
    }
}
