//! Standard output that reports a closed pipe or a full disk, and standard error that never panics.
//!
//! `print!` panics when stdout is a closed pipe (`p4forge compile x.p4 | head -1`) or `/dev/full`;
//! commands write their results through [`print`] instead and turn the error into their own. Rust
//! ignores SIGPIPE, so the write itself returns `EPIPE` rather than killing the process.

use crate::describe_io_error;
use std::io::Write;

/// Why standard output could not be written.
#[derive(Debug)]
pub struct StdoutError(pub String);

impl std::fmt::Display for StdoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

impl std::error::Error for StdoutError {}

impl From<std::io::Error> for StdoutError {
    fn from(error: std::io::Error) -> StdoutError {
        StdoutError(describe_io_error(&error))
    }
}

/// Writes `text` to stdout and flushes it.
pub fn print(text: &str) -> Result<(), StdoutError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Writes `text` to stderr; a failure is ignored (there is nowhere left to report it).
pub fn eprint(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// `eprint!` that never panics.
#[macro_export]
macro_rules! eprint_safe {
    ($($arg:tt)*) => { $crate::stdio::eprint(&format!($($arg)*)) };
}

/// `eprintln!` that never panics.
#[macro_export]
macro_rules! eprintln_safe {
    () => { $crate::stdio::eprint("\n") };
    ($($arg:tt)*) => { $crate::stdio::eprint(&format!("{}\n", format!($($arg)*))) };
}
