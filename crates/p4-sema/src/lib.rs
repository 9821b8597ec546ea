//! P4_16 semantic analysis: name resolution, type checking, compile-time evaluation and elaboration
//! of the `main` package into the typed IR ([`p4_ir::Program`]).
//!
//! Entry points: [`compile_file`] and [`compile_str`]. The result's `program` is `Some` iff there
//! are no error diagnostics *and* elaboration succeeded; constructs that are valid P4 but that
//! p4forge cannot elaborate produce an `unsupported: ...` **warning** and `program: None`.
#![forbid(unsafe_code)]

mod blocks;
pub mod consteval;
mod elab;
mod expr;
mod params;
mod sema;
mod stmt;
mod types;
mod uninit;

use p4_syntax::diag::{Diagnostic, Severity};
use p4_syntax::span::SourceMap;
use std::path::{Path, PathBuf};

/// The outcome of compiling one program.
pub struct Compiled {
    pub sources: SourceMap,
    pub program: Option<p4_ir::Program>,
    pub diagnostics: Vec<Diagnostic>,
    /// Set when the program is valid but declares no `main` (a library of declarations: `check`
    /// accepts it, but there is nothing to run). A global error-severity diagnostic, kept out of
    /// `diagnostics` so that checking such a program stays quiet; commands that run a program
    /// print it (see [`Compiled::runnable`]).
    pub no_main: Option<Diagnostic>,
}

/// The message of [`Compiled::no_main`].
pub const NO_MAIN_MESSAGE: &str = "the program has no `main` package instantiation (V1Switch(...) main;)";

impl Compiled {
    /// True if any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }

    /// The program, if it can be run: `Err` with the rendered reason otherwise (its errors and
    /// warnings, the `unsupported:` warnings, or [`Compiled::no_main`]).
    pub fn runnable(&self) -> Result<&p4_ir::Program, String> {
        match (&self.program, &self.no_main) {
            (Some(p), None) => Ok(p),
            (Some(_), Some(d)) => Err(d.render(&self.sources)),
            (None, _) => Err(self.render_diagnostics()),
        }
    }

    /// All diagnostics rendered with file:line:col and source excerpts.
    pub fn render_diagnostics(&self) -> String {
        p4_syntax::diag::render_all(&self.diagnostics, &self.sources)
    }
}

/// Parse, check and elaborate a file. `program` is Some iff there are no errors *and* elaboration
/// succeeded.
pub fn compile_file(path: &Path, include_dirs: &[PathBuf]) -> Compiled {
    let mut sources = SourceMap::new();
    let parsed = p4_syntax::parse_file(path, include_dirs, &mut sources);
    finish(sources, parsed)
}

/// Same for in-memory text named `name`.
pub fn compile_str(name: &str, text: &str, include_dirs: &[PathBuf]) -> Compiled {
    let mut sources = SourceMap::new();
    let parsed = p4_syntax::parse_str(name, text, include_dirs, &mut sources);
    finish(sources, parsed)
}

fn finish(sources: SourceMap, parsed: p4_syntax::ParseOutput) -> Compiled {
    let mut diagnostics = parsed.diagnostics;
    // After a syntax error the AST is partial: semantic checks would mostly report its holes.
    if diagnostics.iter().any(|d| d.is_error()) {
        return Compiled { sources, program: None, diagnostics, no_main: None };
    }
    let (program, sema_diags) = check_program(&parsed.program, &sources, false);
    diagnostics.extend(sema_diags);
    let has_errors = diagnostics.iter().any(|d| d.is_error());
    let program = if has_errors { None } else { program };
    // Elaboration gives an empty package when there is no `main`.
    let no_main = program.as_ref().is_some_and(|p| p.main.type_name.is_empty()).then(|| Diagnostic::error(p4_syntax::span::Span::DUMMY, NO_MAIN_MESSAGE));
    Compiled { sources, program, diagnostics, no_main }
}

/// Check and elaborate a parsed program. Returns the IR (if elaboration succeeded) and the semantic
/// diagnostics, deduplicated and in source order.
pub fn check_program(ast: &p4_syntax::ast::Program, sources: &SourceMap, skip_elaboration: bool) -> (Option<p4_ir::Program>, Vec<Diagnostic>) {
    let mut s = sema::Sema::new(sources);
    s.declare_all(ast);
    let checked_ok = !s.diags.iter().any(|d| d.is_error());
    let main = if checked_ok && !skip_elaboration { s.elaborate() } else { None };
    let mut diags = std::mem::take(&mut s.diags);
    dedup(&mut diags);
    let program = match main {
        Some(main) if !s.unsupported && !diags.iter().any(|d| d.is_error()) => {
            let mut prog = std::mem::take(&mut s.out.prog);
            prog.types = std::mem::take(&mut s.types);
            prog.errors = std::mem::take(&mut s.errors);
            prog.match_kinds = std::mem::take(&mut s.match_kinds);
            prog.main = main;
            // `@id`s the control plane cannot honour (the objects are instances, so only now known).
            let ids = p4_ir::layout::assign_ids(&prog);
            diags.extend(ids.errors.into_iter().map(|e| Diagnostic::error(p4_syntax::span::Span::DUMMY, e)));
            (!diags.iter().any(|d| d.is_error())).then_some(prog)
        }
        _ => None,
    };
    (program, diags)
}

fn dedup(diags: &mut Vec<Diagnostic>) {
    // Severity is not `Hash`; the span and message identify a diagnostic well enough.
    let mut seen: std::collections::HashSet<(p4_syntax::span::Span, String, bool)> = std::collections::HashSet::new();
    diags.retain(|d| seen.insert((d.span, d.message.clone(), d.severity == Severity::Error)));
    diags.sort_by_key(|d| (d.span.file, d.span.lo));
}
