//! Shared by the `parse` fuzz target and the `parse_loop` binary: one input through the
//! preprocessor, the parser, diagnostic rendering and the AST printer.

/// Parses `text` as the file `fuzz.p4`. Panics only if the parser or printer does.
pub fn run(text: &str) {
    let mut sources = p4_syntax::span::SourceMap::new();
    let out = p4_syntax::parse_str("fuzz.p4", text, &[], &mut sources);
    for d in &out.diagnostics {
        let _ = d.render(&sources);
    }
    let _ = p4_syntax::print_program(&out.program);
}
