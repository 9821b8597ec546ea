//! The one place the CLI meets the compiler and the dataplane: compile a P4 file to IR, and build a
//! running switch from IR. Every command goes through here, so the commands agree on include paths
//! and on how diagnostics are shown.

use crate::error::{CliError, CliResult};
use p4_dataplane::control::{ControlPlane, PacketIo};
use p4_ir::Program;
use p4_syntax::diag::Diagnostic;
use p4_syntax::span::SourceMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A running dataplane, whatever its concrete type.
pub trait Dataplane: ControlPlane + PacketIo {}
impl<T: ControlPlane + PacketIo> Dataplane for T {}

/// The outcome of compiling one program.
pub struct Checked {
    /// No error diagnostics: the program is valid P4.
    pub valid: bool,
    /// The elaborated IR: `Some` iff valid *and* every construct is supported (an unsupported one
    /// leaves a warning saying what).
    pub program: Option<Program>,
    /// Errors and warnings, rendered with file:line:col and source excerpts ("" if none).
    pub diagnostics: String,
    /// The program's source files, to show later diagnostics (the dataplane's) with their location.
    pub sources: SourceMap,
}

/// A program ready to run: its IR, the warnings to print, and its sources.
pub struct Compiled {
    pub program: Program,
    /// Rendered warnings ("" if none).
    pub warnings: String,
    pub sources: SourceMap,
}

/// Where `#include <...>` looks: the user's `-I` directories first, then each directory in the
/// `P4FORGE_INCLUDE` environment variable (`:`-separated), then the `p4include/` files built into
/// the binary (`core.p4`, `v1model.p4`; the preprocessor's last resort), so that the binary behaves
/// the same wherever it was built and names no build directory.
pub fn include_dirs(user: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs = user.to_vec();
    if let Some(env) = std::env::var_os("P4FORGE_INCLUDE") {
        dirs.extend(std::env::split_paths(&env));
    }
    dirs
}

/// Makes sure `path` is a readable regular file of sane size before the compiler reads it, so that a
/// directory, a FIFO, a device, a missing file or a permission problem is a bad input (exit 2) that
/// says what the path is, not a compile error (exit 1).
pub fn readable_program(path: &Path) -> CliResult<()> {
    let file = p4_io::input::open_regular(path, "P4 program")?;
    let size = file.metadata().map_or(0, |m| m.len());
    if size > p4_io::input::TEXT_LIMIT {
        let limit = p4_io::input::size_text(p4_io::input::TEXT_LIMIT);
        return Err(CliError::input(format!("cannot read P4 program {}: it is larger than the limit of {limit}", path.display())));
    }
    Ok(())
}

/// Parses, checks and elaborates `path`.
pub fn check(path: &Path, user_includes: &[PathBuf]) -> CliResult<Checked> {
    readable_program(path)?;
    let dirs = include_dirs(user_includes);
    let compiled = p4_sema::compile_file(path, &dirs);
    let diagnostics = compiled.render_diagnostics();
    let valid = !compiled.has_errors();
    let program = if valid { compiled.program } else { None };
    Ok(Checked { valid, program, diagnostics, sources: compiled.sources })
}

/// Like [`check`], but an invalid program is an error (exit code 1) carrying the diagnostics;
/// warnings of a valid program are returned for the caller to print.
///
/// A file named `*.p4ir` is read as the IR text form instead (`p4forge compile --emit ir` writes it):
/// parsed and verified by `p4_ir::text`, a malformed one being a located error (exit 1).
pub fn compile(path: &Path, user_includes: &[PathBuf]) -> CliResult<Compiled> {
    if is_ir_file(path) {
        return read_ir(path);
    }
    let checked = check(path, user_includes)?;
    let why = if checked.valid { "uses constructs p4forge cannot compile yet (see the warnings above)" } else { "has errors" };
    match checked.program {
        Some(program) => Ok(Compiled { program, warnings: checked.diagnostics, sources: checked.sources }),
        None => Err(CliError::failed(format!("{} {why}", path.display())).with_detail(checked.diagnostics)),
    }
}

/// Whether `path` names a file of the IR text form (`*.p4ir`), which is read as IR, not P4.
pub fn is_ir_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "p4ir")
}

/// Reads a `.p4ir` file (see [`compile`]).
fn read_ir(path: &Path) -> CliResult<Compiled> {
    readable_program(path)?;
    let text = p4_io::input::read_text(path, "IR file", p4_io::input::TEXT_LIMIT)?;
    let name = path.display().to_string();
    match p4_ir::text::parse_program(&name, &text) {
        Ok(program) => Ok(Compiled { program, warnings: String::new(), sources: SourceMap::new() }),
        Err(error) => Err(CliError::failed(format!("{name} is not valid IR")).with_detail(error.render(&name, &text))),
    }
}

impl Compiled {
    /// Runs the mid-end (`p4_midend::lower`) over the program: the lowered program is still IR, runs
    /// on the same dataplane and prints in the same text form. A pass that fails is a compile error
    /// (exit 1), shown at its location when it has one.
    pub fn lowered(self, path: &Path) -> CliResult<Compiled> {
        let Compiled { program, warnings, sources } = self;
        match p4_midend::lower(program) {
            Ok(program) => Ok(Compiled { program, warnings, sources }),
            Err(error) => Err(CliError::failed(format!("{}: the mid-end cannot lower this program", path.display()))
                .with_detail(format!("{warnings}{}", render_at(error.span, Diagnostic::error, error.to_string(), &sources)))),
        }
    }
}

/// One diagnostic of a later stage (mid-end, dataplane) rendered like the compiler's: file:line:col,
/// source line and caret when it has a location.
fn render_at(span: Option<p4_syntax::span::Span>, kind: fn(p4_syntax::span::Span, String) -> Diagnostic, message: String, sources: &SourceMap) -> String {
    p4_syntax::diag::render_all(&[kind(span.unwrap_or(p4_syntax::span::Span::DUMMY), message)], sources)
}

/// An error of a later stage (e.g. the hardware generator) rendered like the compiler's.
pub fn render_error_at(span: Option<p4_syntax::span::Span>, message: String, sources: &SourceMap) -> String {
    render_at(span, Diagnostic::error, message, sources)
}

/// The dataplane's refusal of a program, in the user's words.
fn cannot_run(error: &p4_dataplane::DataplaneError) -> String {
    format!("the software dataplane cannot run this: {}", error.message)
}

/// Whether the software dataplane can run `program` as `run` and `test` give it to it, lowered by
/// the mid-end: `Err` is the refusal rendered as a located warning (`check` judges the language,
/// not the target, so a valid program stays valid).
pub fn dataplane_refusal(program: &Program, sources: &SourceMap) -> Result<(), String> {
    let lowered = match p4_midend::lower(program.clone()) {
        Ok(lowered) => lowered,
        Err(error) => return Err(render_at(error.span, Diagnostic::warning, format!("the mid-end cannot lower this: {error}"), sources)),
    };
    let Err(error) = p4_dataplane::Switch::new(Arc::new(lowered)) else { return Ok(()) };
    Err(render_at(error.span, Diagnostic::warning, cannot_run(&error), sources))
}

/// Loads a program compiled from `path` into a fresh software switch.
pub fn new_switch(compiled: Compiled, path: &Path) -> CliResult<Box<dyn Dataplane>> {
    new_switch_traced(compiled, path, false)
}

/// [`new_switch`], recording a trace of every packet when `traced` (`--trace`).
pub fn new_switch_traced(compiled: Compiled, path: &Path, traced: bool) -> CliResult<Box<dyn Dataplane>> {
    new_switch_built(compiled, path, SwitchBuild { traced, ..SwitchBuild::default() })
}

/// [`new_switch`], built as `build` says.
pub fn new_switch_built(compiled: Compiled, path: &Path, build: SwitchBuild) -> CliResult<Box<dyn Dataplane>> {
    Ok(Box::new(software_switches(compiled, path, 1, build)?.remove(0)))
}

/// How [`software_switches`] builds its switches.
#[derive(Clone, Copy, Debug, Default)]
pub struct SwitchBuild {
    /// Record a trace of every packet (`--trace`).
    pub traced: bool,
    /// Let tables take entries beyond their `size` (`--ignore-table-sizes`).
    pub ignore_table_sizes: bool,
}

/// `count` (at least one) software switches of one program, built from one compilation: the
/// workers of `p4forge run --threads N`; traced ones for `--trace`.
///
/// The software target runs the program as the mid-end lowers it, as the hardware target does:
/// one path from the lowered IR to packets (`p4forge test` and `p4forge test --lowered` are the
/// same). Table, action and extern names, which the control plane uses, are the program's own;
/// a trace names what the mid-end made of the rest (a sub-parser's states as
/// `message0.parse_entry`, a stack's `next` as the element it became). A program the mid-end
/// cannot lower, or the lowered form of which the dataplane refuses, is an error naming the
/// construct where it is.
pub fn software_switches(compiled: Compiled, path: &Path, count: usize, build: SwitchBuild) -> CliResult<Vec<p4_dataplane::Switch>> {
    if compiled.program.main.type_name.is_empty() {
        return Err(CliError::failed(format!("{}: {}, so there is nothing to run", path.display(), p4_sema::NO_MAIN_MESSAGE)));
    }
    let Compiled { program, sources, .. } = compiled.lowered(path)?;
    let program = Arc::new(program);
    let one = || {
        let mut switch = wire_format_switch(program.clone(), build.traced).map_err(|error| {
            CliError::failed(format!("{} cannot run on the software dataplane", path.display()))
                .with_detail(render_at(error.span, Diagnostic::error, cannot_run(&error), &sources))
        })?;
        if build.ignore_table_sizes {
            switch.ignore_table_sizes();
        }
        Ok(switch)
    };
    (0..count.max(1)).map(|_| one()).collect()
}

/// How the software switch runs `switch`'s packets, in a line (`--verbose`): the blocks that are
/// machine code, and which packets the traffic manager takes after ingress. (The line keeps its
/// `executor: wire-format` prefix, which scripts read.)
pub fn executor_line(switch: &p4_dataplane::Switch) -> String {
    let machine = match switch.machine_code() {
        Some(m) => format!("machine code: {m}"),
        None if switch.traced() => "no machine code (a traced switch records its steps from closures)".to_string(),
        None => "no machine code".to_string(),
    };
    let hand_over = match (switch.hands_over(), switch.hands_over_when_asked()) {
        (true, true) => "; packets whose ingress asks the traffic manager for more than one copy go through it",
        (true, false) => "; every packet goes through the traffic manager after ingress",
        _ => "",
    };
    format!("executor: wire-format; {machine}{hand_over}")
}

/// A switch running `program` on the wire-format executor, recording traces when `traced`.
fn wire_format_switch(program: Arc<Program>, traced: bool) -> Result<p4_dataplane::Switch, p4_dataplane::DataplaneError> {
    if traced {
        p4_dataplane::Switch::new_traced(program)
    } else {
        p4_dataplane::Switch::new(program)
    }
}
