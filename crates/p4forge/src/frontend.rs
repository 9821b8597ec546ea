//! The one place the CLI meets the compiler and the dataplane: compile a P4 file to IR, and build a
//! running switch from IR. Every command goes through here, so the commands agree on include paths
//! and on how diagnostics are shown.

use crate::error::{CliError, CliResult};
use p4_dataplane::control::{ControlPlane, PacketIo};
use p4_ir::Program;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A running dataplane, whatever its concrete type.
pub trait Dataplane: ControlPlane + PacketIo {}
impl<T: ControlPlane + PacketIo> Dataplane for T {}

/// The outcome of compiling one program.
pub struct Checked {
    /// `Some` iff there were no errors.
    pub program: Option<Program>,
    /// Errors and warnings, rendered with file:line:col and source excerpts ("" if none).
    pub diagnostics: String,
}

/// Where `#include <...>` looks: the user's `-I` directories first, then each directory in the
/// `P4FORGE_INCLUDE` environment variable (`:`-separated), then the `p4include/` shipped in this
/// repository (`core.p4`, `v1model.p4`).
pub fn include_dirs(user: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = user.to_vec();
    if let Some(env) = std::env::var_os("P4FORGE_INCLUDE") {
        dirs.extend(std::env::split_paths(&env));
    }
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../p4include");
    if shipped.is_dir() {
        dirs.push(shipped);
    }
    dirs
}

/// Parses, checks and elaborates `path`.
pub fn check(path: &Path, user_includes: &[PathBuf]) -> CliResult<Checked> {
    if !path.is_file() {
        return Err(CliError::input(format!("cannot read P4 program {}: no such file", path.display())));
    }
    let dirs = include_dirs(user_includes);
    pending::compile_file(path, &dirs)
}

/// Like [`check`], but an invalid program is an error (exit code 1) carrying the diagnostics;
/// warnings of a valid program are returned for the caller to print.
pub fn compile(path: &Path, user_includes: &[PathBuf]) -> CliResult<(Program, String)> {
    let checked = check(path, user_includes)?;
    match checked.program {
        Some(program) => Ok((program, checked.diagnostics)),
        None => Err(CliError::failed(format!(
            "{}{} has errors",
            with_newline(&checked.diagnostics),
            path.display()
        ))),
    }
}

fn with_newline(text: &str) -> String {
    if text.is_empty() || text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

/// Loads `program` into a fresh v1model software switch.
pub fn new_switch(program: Program) -> CliResult<Box<dyn Dataplane>> {
    pending::new_switch(Arc::new(program))
}

/// Stand-ins while `p4_sema::compile_file` and `p4_dataplane::Switch` are being written: they fail
/// with a clear message. Replaced by the real calls as soon as those land.
mod pending {
    use super::*;

    /// Syntax errors are real; a syntactically valid program stops at the missing checker.
    pub fn compile_file(path: &Path, dirs: &[PathBuf]) -> CliResult<Checked> {
        let mut sources = p4_syntax::span::SourceMap::new();
        let parsed = p4_syntax::parse_file(path, dirs, &mut sources);
        let diagnostics = p4_syntax::diag::render_all(&parsed.diagnostics, &sources);
        if parsed.has_errors() {
            return Ok(Checked { program: None, diagnostics });
        }
        Err(CliError::failed(format!(
            "{diagnostics}cannot compile {}: the P4 type checker is not available in this build yet",
            path.display()
        )))
    }

    pub fn new_switch(_program: Arc<Program>) -> CliResult<Box<dyn Dataplane>> {
        Err(CliError::failed("the software dataplane is not available in this build yet"))
    }
}
