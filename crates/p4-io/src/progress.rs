//! One `--progress` behaviour for every long-running command: a progress display on stderr when
//! stderr is a terminal, none when it is a file or pipe; `--progress` forces it on, `--no-progress` off.

use std::io::IsTerminal;

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
}
