//! The CLI's error type and exit codes.
//!
//! Exit codes (also in `--help`):
//! - 0: success (program valid, test passed, run completed);
//! - 1: the P4 program has errors, or a test's expectations did not hold;
//! - 2: bad usage or a bad input file (unreadable file, malformed STF/entries/pcap, refused entry).

use std::fmt;
use std::process::ExitCode;

/// The program is invalid or a test failed.
pub const EXIT_FAILED: u8 = 1;
/// Bad usage or bad input files.
pub const EXIT_BAD_INPUT: u8 = 2;

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

/// Reads a text file, naming it in the error.
pub fn read_text(path: &std::path::Path, what: &str) -> CliResult<String> {
    std::fs::read_to_string(path).map_err(|e| CliError::input(format!("cannot read {what} {}: {e}", path.display())))
}
