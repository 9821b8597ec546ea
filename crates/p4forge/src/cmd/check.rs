//! `p4forge check`: report a program's errors and warnings.

use crate::error::{CliError, CliResult};
use crate::frontend;
use std::path::{Path, PathBuf};

/// Prints diagnostics to stderr; `Ok` if the program is valid (warnings allowed).
pub fn check(program: &Path, includes: &[PathBuf]) -> CliResult<()> {
    let checked = frontend::check(program, includes)?;
    eprint!("{}", checked.diagnostics);
    if !checked.diagnostics.is_empty() && !checked.diagnostics.ends_with('\n') {
        eprintln!();
    }
    if !checked.valid {
        return Err(CliError::failed(format!("{} has errors", program.display())));
    }
    if checked.program.is_none() {
        eprintln!("{}: valid, but p4forge cannot compile all of it yet (see the warnings)", program.display());
    } else {
        eprintln!("{}: ok", program.display());
    }
    Ok(())
}
