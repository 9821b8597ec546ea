//! `p4forge compile --emit ir`: print the elaborated IR in its stable text form.

use crate::error::CliResult;
use crate::frontend;
use std::path::{Path, PathBuf};

/// What `compile` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The elaborated, typed IR (`p4_ir::printer`).
    Ir,
}

/// Compiles `program` and returns the requested text.
pub fn compile(program: &Path, includes: &[PathBuf], emit: Emit) -> CliResult<String> {
    let (ir, warnings) = frontend::compile(program, includes)?;
    eprint!("{warnings}");
    Ok(match emit {
        Emit::Ir => p4_ir::printer::print_program(&ir),
    })
}
