//! The CLI's error type and exit codes.
//!
//! Exit codes (also in `--help`):
//! - 0: success (program valid, test passed, run completed);
//! - 1: the P4 program has errors, or a test's expectations did not hold;
//! - 2: bad usage or a bad input file (unreadable file, malformed STF/entries/pcap, refused entry);
//! - 3: an output could not be written (disk full, closed pipe, unwritable directory);
//! - 130, 143, 129: stopped by Ctrl-C, SIGTERM or SIGHUP (128 + the signal; outputs hold what was
//!   done until then, and the summary says so).

use std::fmt;
use std::process::ExitCode;

/// The program is invalid or a test failed.
pub const EXIT_FAILED: u8 = 1;
/// Bad usage or bad input files.
pub const EXIT_BAD_INPUT: u8 = 2;
/// An output (a file, standard output) could not be written.
pub const EXIT_OUTPUT: u8 = 3;

/// An error to print as `error: ...` before exiting with `code`.
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    /// One line: what failed.
    pub message: String,
    /// Printed before the message as it is (e.g. rendered compiler diagnostics); may be empty.
    pub detail: String,
}

impl CliError {
    /// A malformed or unreadable input (exit code 2).
    pub fn input(message: impl Into<String>) -> CliError {
        CliError { code: EXIT_BAD_INPUT, message: message.into(), detail: String::new() }
    }
    /// An output that could not be written (exit code 3).
    pub fn output(message: impl Into<String>) -> CliError {
        CliError { code: EXIT_OUTPUT, message: message.into(), detail: String::new() }
    }
    /// A run stopped by a stop signal (exit code 128 + the signal: 130 for Ctrl-C, 143 for
    /// SIGTERM, 129 for SIGHUP).
    pub fn interrupted(message: impl Into<String>) -> CliError {
        CliError { code: p4_io::interrupt::exit_status(), message: message.into(), detail: String::new() }
    }
    /// An invalid program or failed test (exit code 1).
    pub fn failed(message: impl Into<String>) -> CliError {
        CliError { code: EXIT_FAILED, message: message.into(), detail: String::new() }
    }
    /// Adds text printed before the message.
    pub fn with_detail(mut self, detail: impl Into<String>) -> CliError {
        self.detail = detail.into();
        self
    }
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::from(self.code)
    }
}

impl CliError {
    /// What the binary prints to stderr: the detail, then `error: <message>`.
    pub fn render(&self) -> String {
        let mut out = self.detail.clone();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("error: ");
        out.push_str(&self.message);
        out.push('\n');
        out
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.render().trim_end())
    }
}

impl std::error::Error for CliError {}

pub type CliResult<T> = Result<T, CliError>;

impl From<p4_io::input::InputError> for CliError {
    fn from(error: p4_io::input::InputError) -> CliError {
        CliError::input(error.to_string())
    }
}

impl From<p4_io::output::OutputError> for CliError {
    fn from(error: p4_io::output::OutputError) -> CliError {
        CliError::output(error.to_string())
    }
}

impl From<p4_io::stdio::StdoutError> for CliError {
    fn from(error: p4_io::stdio::StdoutError) -> CliError {
        CliError::output(error.to_string())
    }
}

/// Reads a text input (STF, entries), naming it in the error; bounded by [`p4_io::input::TEXT_LIMIT`]
/// so that `/dev/zero` or an endless FIFO is an error rather than an out-of-memory abort.
pub fn read_text(path: &std::path::Path, what: &str) -> CliResult<String> {
    Ok(p4_io::input::read_text(path, what, p4_io::input::TEXT_LIMIT)?)
}
