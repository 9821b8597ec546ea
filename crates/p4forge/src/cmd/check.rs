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
    match checked.program {
        Some(_) => {
            eprintln!("{}: ok", program.display());
            Ok(())
        }
        None => Err(CliError::failed(format!("{} has errors", program.display()))),
    }
}
