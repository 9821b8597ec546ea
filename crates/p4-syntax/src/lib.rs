//! P4_16 source handling: preprocessing, lexing, parsing into [`ast`], and located [`diag`]nostics.
//!
//! **Invariant: parsing never panics and never stops at the first error** — it returns a (possibly
//! partial) AST plus every diagnostic it found (at most [`MAX_DIAGNOSTICS`], in source order).
//!
//! Pipeline: [`preprocess`] (which calls [`lexer`] on each file it reads) → tokens with spans into
//! their own files → [`parser`] → [`ast::Program`]. [`ast_print`] prints an AST back to P4 source
//! such that parsing the output gives the same AST modulo spans.
//!
//! Entry points: [`parse_file`], [`parse_str`] (and their `_with_defines` variants for
//! `-DNAME=VALUE`), [`print_program`]. `#include <core.p4>` and `<v1model.p4>` resolve to copies of
//! the repository's `p4include/` embedded at build time ([`preprocess::BUILTIN_INCLUDES`]); a file
//! of the same name in an include directory takes precedence. The quoted forms `#include "core.p4"`
//! fall back to the same built-in files when no such file exists beside the including file.
#![forbid(unsafe_code)]

pub mod ast;
pub mod ast_print;
pub mod diag;
pub mod lexer;
pub mod parser;
pub mod preprocess;
pub use p4_lang::span;
pub mod token;

use std::path::{Path, PathBuf};

/// At most this many diagnostics are returned (plus one saying so): beyond that they are noise,
/// and rendering them all for a hostile one-line input would take quadratic time.
pub const MAX_DIAGNOSTICS: usize = 100;

pub use ast_print::print_program;

/// The result of parsing: the program (partial if there were errors) and all diagnostics, in the
/// order found (preprocessor first, then parser).
#[derive(Debug)]
pub struct ParseOutput {
    pub program: ast::Program,
    pub diagnostics: Vec<diag::Diagnostic>,
}

impl ParseOutput {
    /// True if any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// Read, preprocess and parse a file. Include dirs are searched before the built-in p4include/.
pub fn parse_file(path: &Path, include_dirs: &[PathBuf], sources: &mut span::SourceMap) -> ParseOutput {
    parse_file_with_defines(path, include_dirs, &[], sources)
}

/// Same for in-memory text (a virtual file `name`); includes resolve against include_dirs, the
/// built-ins, and cwd.
pub fn parse_str(name: &str, text: &str, include_dirs: &[PathBuf], sources: &mut span::SourceMap) -> ParseOutput {
    parse_str_with_defines(name, text, include_dirs, &[], sources)
}

/// [`parse_file`] with macros predefined, like the `-DNAME=VALUE` flags of a C preprocessor
/// (`("NAME", "")` defines an empty macro).
pub fn parse_file_with_defines(
    path: &Path,
    include_dirs: &[PathBuf],
    defines: &[(&str, &str)],
    sources: &mut span::SourceMap,
) -> ParseOutput {
    match read_source(path, "P4 program") {
        Ok(text) => {
            let file = sources.add(path.to_path_buf(), text);
            parse_source(file, Some(path), include_dirs, defines, sources)
        }
        Err(why) => ParseOutput { program: ast::Program { decls: vec![] }, diagnostics: vec![diag::Diagnostic::error(span::Span::DUMMY, why)] },
    }
}

/// Reads a source file (the program or an include): only a regular file, at most
/// [`p4_io::input::TEXT_LIMIT`] bytes, invalid UTF-8 replaced (the lexer then reports it where it
/// is). `Err` is the message, e.g. `cannot read P4 program x.p4: it is a directory, not a regular
/// file`; `what` names the role of the file.
pub(crate) fn read_source(path: &Path, what: &str) -> Result<String, String> {
    let file = p4_io::input::open_regular(path, what).map_err(|e| e.to_string())?;
    let bytes = p4_io::input::read_bounded(file, p4_io::input::TEXT_LIMIT)
        .map_err(|why| p4_io::input::InputError { what: what.to_string(), path: path.to_path_buf(), why }.to_string())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// [`parse_str`] with macros predefined (see [`parse_file_with_defines`]).
pub fn parse_str_with_defines(
    name: &str,
    text: &str,
    include_dirs: &[PathBuf],
    defines: &[(&str, &str)],
    sources: &mut span::SourceMap,
) -> ParseOutput {
    let file = sources.add(PathBuf::from(name), text.to_string());
    parse_source(file, None, include_dirs, defines, sources)
}

/// Stack for the parsing thread. The parser recurses (bounded by `parser::MAX_DEPTH`); unoptimized
/// builds use large frames, and callers' threads may be small (2 MiB for test threads), so parsing
/// runs on its own thread with room to spare. Untouched stack pages cost no memory.
const PARSER_STACK_BYTES: usize = 256 << 20;

thread_local! {
    /// This thread has a parser's stack ([`with_parser_stack`]): parsing runs on it.
    static ON_PARSER_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `work` on a thread with the stack the parser needs, so that every parse within it runs on
/// that thread instead of a thread of its own. A program that parses once and then works on what
/// it parsed (the CLI) keeps its memory in one allocator arena this way: what the parse freed is
/// reused by what comes after it, instead of staying with the parsing thread's arena. Falls back
/// to the calling thread if no thread can be made.
pub fn with_parser_stack<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    let mut work = Some(work);
    let slot = &mut work;
    let ran = std::thread::scope(|scope| {
        let job = move || {
            ON_PARSER_STACK.with(|on| on.set(true));
            slot.take().map(|w| w())
        };
        match std::thread::Builder::new().name("work".into()).stack_size(PARSER_STACK_BYTES).spawn_scoped(scope, job) {
            Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => None,
        }
    });
    match (ran, work) {
        (Some(r), _) => r,
        (None, Some(w)) => w(),
        (None, None) => unreachable!("the work ran or is still here"),
    }
}

fn parse_source(
    file: span::FileId,
    on_disk: Option<&Path>,
    include_dirs: &[PathBuf],
    defines: &[(&str, &str)],
    sources: &mut span::SourceMap,
) -> ParseOutput {
    if ON_PARSER_STACK.with(|on| on.get()) {
        return parse_source_here(file, on_disk, include_dirs, defines, sources);
    }
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("p4-syntax".into())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, || Some(parse_source_here(file, on_disk, include_dirs, defines, sources)));
        match worker {
            Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread available: parse on the caller's stack (still bounded, just tighter).
            Err(_) => None,
        }
    })
    .unwrap_or_else(|| parse_source_here(file, on_disk, include_dirs, defines, sources))
}

fn parse_source_here(
    file: span::FileId,
    on_disk: Option<&Path>,
    include_dirs: &[PathBuf],
    defines: &[(&str, &str)],
    sources: &mut span::SourceMap,
) -> ParseOutput {
    let mut pp = preprocess::Preprocessor::new(sources, include_dirs);
    for (name, value) in defines {
        pp.define(name, value);
    }
    let (tokens, names, mut diagnostics, included_from) = pp.run_with_includes(file, on_disk);
    let (program, parse_diags) = parser::parse_tokens(tokens, names, sources);
    diagnostics.extend(parse_diags);
    // Source order (files in the order they were read); stable, so ties keep discovery order.
    diagnostics.sort_by_key(|d| (d.span.file, d.span.lo));
    for d in diagnostics.iter_mut() {
        add_include_notes(d, &included_from, sources);
    }
    if diagnostics.len() > MAX_DIAGNOSTICS {
        let last = diagnostics[MAX_DIAGNOSTICS - 1].span;
        diagnostics.truncate(MAX_DIAGNOSTICS);
        diagnostics.push(diag::Diagnostic::error(last, format!("too many errors; only the first {MAX_DIAGNOSTICS} are shown")));
    }
    ParseOutput { program, diagnostics }
}

/// `= note: included from main.p4:3:1` lines for a diagnostic inside an included file, innermost
/// include first.
fn add_include_notes(d: &mut diag::Diagnostic, included_from: &std::collections::HashMap<span::FileId, span::Span>, sources: &span::SourceMap) {
    let mut file = d.span.file;
    // Include nesting is capped by the preprocessor; the bound here only guards the loop.
    for _ in 0..128 {
        let Some(site) = included_from.get(&file) else { break };
        if let Some(f) = sources.get(site.file) {
            let (line, col) = f.line_col(site.lo);
            d.notes.push(format!("included from {}:{line}:{col}", f.path.display()));
        }
        file = site.file;
    }
}
