//! Progress on stderr as every p4forge command shows it: a bar when stderr is a terminal; with
//! `--progress` on a file or pipe (where a bar would not be drawn), a plain line every second;
//! nothing with `--no-progress`. Writes to stderr never fail the command.

use std::cell::Cell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

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
            p4_io::eprintln_safe!("progress: {pos} of {len} {} ({percent:.0} %)", self.unit);
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
            p4_io::eprintln_safe!("progress: {message}");
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
