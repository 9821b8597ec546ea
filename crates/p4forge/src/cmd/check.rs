//! `p4forge check`: report a program's errors and warnings.

use crate::error::{CliError, CliResult};
use crate::frontend;
use std::path::{Path, PathBuf};

/// Prints diagnostics to stderr; `Ok` if the program is valid (warnings allowed). A `.p4ir` file
/// is checked as IR: read, verified, and tried on the software dataplane.
pub fn check(program: &Path, includes: &[PathBuf]) -> CliResult<()> {
    let checked = if frontend::is_ir_file(program) {
        let compiled = frontend::compile(program, includes)?;
        frontend::Checked { valid: true, program: Some(compiled.program), diagnostics: String::new(), sources: compiled.sources }
    } else {
        frontend::check(program, includes)?
    };
    p4_io::eprint_safe!("{}", checked.diagnostics);
    if !checked.diagnostics.is_empty() && !checked.diagnostics.ends_with('\n') {
        p4_io::eprintln_safe!();
    }
    if !checked.valid {
        return Err(CliError::failed(format!("{} has errors", program.display())));
    }
    let Some(ir) = &checked.program else {
        p4_io::eprintln_safe!("{}: valid, but p4forge cannot compile all of it yet (see the warnings)", program.display());
        return Ok(());
    };
    // Valid P4 the software dataplane cannot run is still valid P4 (exit 0), but the user learns it
    // here, with the location, rather than from `run`.
    if !ir.main.type_name.is_empty() {
        if let Err(warning) = frontend::dataplane_refusal(ir, &checked.sources) {
            p4_io::eprint_safe!("{warning}");
            p4_io::eprintln_safe!("{}: valid, but the software dataplane cannot run it (see the warning)", program.display());
            return Ok(());
        }
    }
    p4_io::eprintln_safe!("{}: ok", program.display());
    Ok(())
}
