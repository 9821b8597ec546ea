//! `p4forge check`: report a program's errors and warnings.

use crate::error::{CliError, CliResult};
use crate::frontend;
use std::path::{Path, PathBuf};

/// Prints diagnostics to stderr; `Ok` if the program is valid (warnings allowed).
pub fn check(program: &Path, includes: &[PathBuf]) -> CliResult<()> {
    let checked = frontend::check(program, includes)?;
    p4_io::eprint_safe!("{}", checked.diagnostics);
    if !checked.diagnostics.is_empty() && !checked.diagnostics.ends_with('\n') {
        p4_io::eprintln_safe!();
    }
    if !checked.valid {
        return Err(CliError::failed(format!("{} has errors", program.display())));
    }
    if checked.program.is_none() {
        p4_io::eprintln_safe!("{}: valid, but p4forge cannot compile all of it yet (see the warnings)", program.display());
    } else {
        p4_io::eprintln_safe!("{}: ok", program.display());
    }
    Ok(())
}
