//! `p4forge compile --emit ir|ast|cfg`: print the elaborated IR in its stable text form, the program as
//! the parser understood it (printed back as P4 source), or the graph view of every control and the
//! def-use of every parser state (`p4_ir::cfg`).

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
