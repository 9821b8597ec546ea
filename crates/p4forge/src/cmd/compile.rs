//! `p4forge compile --emit ir|ast|cfg`: print the elaborated IR in its stable text form, the program as
//! the parser understood it (printed back as P4 source), or the graph view of every control and the
//! def-use of every parser state (`p4_ir::cfg`). `--p4runtime-files` writes the program's p4info
//! (`p4_runtime::p4info`) as the reference compiler's flag of that name does.

use crate::error::{CliError, CliResult};
use crate::frontend;
use std::path::{Path, PathBuf};

/// What `compile` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Emit {
    /// The elaborated, typed IR (`p4_ir::printer`).
    Ir,
    /// The IR after the mid-end (`p4_midend::lower`), in the same text form.
    LoweredIr,
    /// The parsed program, printed back as P4 source (after preprocessing; shows how it was parsed).
    Ast,
    /// Every control as basic blocks with def-use and table dependencies, and every parser state's
    /// def-use (`p4_ir::cfg`).
    Cfg,
}

/// Compiles `program` and returns the requested text.
pub fn compile(program: &Path, includes: &[PathBuf], emit: Emit) -> CliResult<String> {
    match emit {
        Emit::Ir => {
            let compiled = frontend::compile(program, includes)?;
            p4_io::eprint_safe!("{}", compiled.warnings);
            Ok(p4_ir::printer::print_program(&compiled.program))
        }
        Emit::LoweredIr => {
            let compiled = frontend::compile(program, includes)?.lowered(program)?;
            p4_io::eprint_safe!("{}", compiled.warnings);
            Ok(p4_ir::printer::print_program(&compiled.program))
        }
        Emit::Cfg => {
            let compiled = frontend::compile(program, includes)?;
            p4_io::eprint_safe!("{}", compiled.warnings);
            Ok(print_graphs(&compiled.program))
        }
        Emit::Ast => {
            frontend::readable_program(program)?;
            if program.extension().is_some_and(|e| e == "p4ir") {
                return Err(CliError::input(format!("{}: --emit ast prints P4 source as parsed; an IR file has none", program.display())));
            }
            let mut sources = p4_syntax::span::SourceMap::new();
            let parsed = p4_syntax::parse_file(program, &frontend::include_dirs(includes), &mut sources);
            let diagnostics = p4_syntax::diag::render_all(&parsed.diagnostics, &sources);
            if parsed.has_errors() {
                return Err(CliError::failed(format!("{} has syntax errors", program.display())).with_detail(diagnostics));
            }
            p4_io::eprint_safe!("{diagnostics}");
            Ok(p4_syntax::print_program(&parsed.program))
        }
    }
}

/// The `--emit cfg` text: parsers' state def-use, then each control's graph, in program order.
fn print_graphs(ir: &p4_ir::Program) -> String {
    let mut out = String::new();
    for i in 0..ir.parsers.len() {
        out.push_str(&p4_ir::cfg::print_parser_defs(ir, p4_ir::ParserId(i as u32)));
        out.push('\n');
    }
    for i in 0..ir.controls.len() {
        let graph = p4_ir::cfg::ControlGraph::build(ir, p4_ir::ControlId(i as u32));
        out.push_str(&p4_ir::cfg::print_control_graph(ir, &graph));
        out.push('\n');
    }
    out
}

/// `--p4runtime-files A[,B...]`: the program's p4info written to each file, in the form `format`
/// names or, without it, the one the file's extension asks for (`p4_runtime::format::Format::of_path`).
/// Every file name is checked before any is written; each file is written whole or not at all.
pub fn write_p4info(program: &Path, includes: &[PathBuf], files: &[PathBuf], format: Option<&str>) -> CliResult<()> {
    use p4_runtime::format::Format;
    let forced = match format {
        None => None,
        Some(name) => Some(Format::parse(name).ok_or_else(|| {
            CliError::input(format!("--p4runtime-format {name}: expected text, binary or json"))
        })?),
    };
    let mut outputs = Vec::new();
    for file in files {
        let format = forced.or_else(|| Format::of_path(file)).ok_or_else(|| {
            CliError::input(format!(
                "--p4runtime-files {}: the extension names no format (.txt/.txtpb text, .bin/.pb binary, .json JSON); or give --p4runtime-format",
                file.display()
            ))
        })?;
        p4_io::output::check_writable(file)?;
        outputs.push((file, format));
    }
    let compiled = frontend::compile(program, includes)?;
    p4_io::eprint_safe!("{}", compiled.warnings);
    let layouts = p4_ir::layout::Layouts::of(&compiled.program);
    let catalog = p4_control::catalog::Catalog::of(&compiled.program, &layouts)
        .map_err(|why| CliError::failed(format!("{}: no p4info: {why}", program.display())))?;
    let info = p4_runtime::p4info::of(&compiled.program, &layouts, &catalog);
    for (file, format) in outputs {
        p4_io::output::write(file, &p4_runtime::format::encode(&info, format))?;
    }
    Ok(())
}
