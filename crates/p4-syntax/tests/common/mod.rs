//! Helpers shared by the integration tests.
#![allow(dead_code)]

use p4_syntax::{diag, parse_str, span::SourceMap, ParseOutput};

/// Parse in-memory text with no include dirs.
pub fn parse(text: &str) -> (ParseOutput, SourceMap) {
    let mut sm = SourceMap::new();
    let out = parse_str("test.p4", text, &[], &mut sm);
    (out, sm)
}

/// Parse text that must be free of diagnostics; panics with the rendered diagnostics otherwise.
pub fn parse_ok(text: &str) -> p4_syntax::ast::Program {
    let (out, sm) = parse(text);
    assert!(out.diagnostics.is_empty(), "unexpected diagnostics:\n{}", diag::render_all(&out.diagnostics, &sm));
    out.program
}

/// Render all diagnostics of parsing `text`.
pub fn diags(text: &str) -> String {
    let (out, sm) = parse(text);
    diag::render_all(&out.diagnostics, &sm)
}

/// `Debug` of a value with every `Span { .. }` replaced by `_`, to compare ASTs modulo spans.
pub fn strip_spans(debug: &str) -> String {
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug;
    while let Some(i) = rest.find("Span { file: FileId(") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let end = after.find(" }").map(|e| e + 2).unwrap_or(after.len());
        out.push('_');
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Parse → print → parse must give the same AST (modulo spans), and printing is idempotent.
/// Returns the printed text.
pub fn assert_round_trip(program: &p4_syntax::ast::Program, what: &str) -> String {
    let printed = p4_syntax::print_program(program);
    let (again, sm) = parse(&printed);
    assert!(
        again.diagnostics.is_empty(),
        "{what}: printed text does not re-parse:\n{}\n--- printed ---\n{printed}",
        diag::render_all(&again.diagnostics, &sm)
    );
    let a = strip_spans(&format!("{program:?}"));
    let b = strip_spans(&format!("{:?}", again.program));
    if a != b {
        let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
        let lo = at.saturating_sub(300);
        let ctx = |s: &str| s.get(lo..(at + 300).min(s.len())).unwrap_or("").to_string();
        panic!("{what}: AST changed by printing:\n{}\n--- vs ---\n{}\n--- printed ---\n{printed}", ctx(&a), ctx(&b));
    }
    assert_eq!(p4_syntax::print_program(&again.program), printed, "{what}: printing is not idempotent");
    printed
}
