//! Rendered diagnostics for malformed inputs: every error is located and the parser recovers.

mod common;

use common::{diags, parse};
use insta::assert_snapshot;

#[test]
fn missing_semicolon() {
    assert_snapshot!(diags("const bit<8> X = 1\nconst bit<8> Y = 2;\n"));
}

#[test]
fn bad_token() {
    assert_snapshot!(diags("const bit<8> X = 1 $ 2;\n"));
}

#[test]
fn unterminated_block_comment() {
    assert_snapshot!(diags("const bit<8> X = 1;\n/* never closed\nconst bit<8> Y = 2;\n"));
}

#[test]
fn unterminated_string() {
    assert_snapshot!(diags("const string S = \"abc;\n"));
}

#[test]
fn bad_if_expression() {
    assert_snapshot!(diags("#if 1 +\n#endif\n"));
}

#[test]
fn division_by_zero_in_if() {
    assert_snapshot!(diags("#if 1 / 0\n#endif\n"));
}

#[test]
fn unterminated_if() {
    assert_snapshot!(diags("#ifdef X\nconst bit<8> Y = 2;\n"));
}

#[test]
fn missing_include() {
    assert_snapshot!(diags("#include <no_such_file.p4>\n"));
}

#[test]
fn error_directive() {
    assert_snapshot!(diags("#ifndef ARCH\n#error ARCH must be defined\n#endif\n"));
}

#[test]
fn unknown_directive() {
    assert_snapshot!(diags("#frobnicate 1\n"));
}

#[test]
fn wrong_literal_width_is_not_a_syntax_error() {
    let (out, _) = parse("const bit<4> X = 4w100;\n");
    assert!(out.diagnostics.is_empty());
    assert_eq!(out.program.decls.len(), 1);
}

#[test]
fn malformed_literal() {
    assert_snapshot!(diags("const bit<8> X = 0xZZ;\nconst bit<8> Y = 8w0b102;\n"));
}

#[test]
fn recovery_reports_every_error_and_keeps_good_declarations() {
    let text = "\
header h_t { bit<8> f }
struct s_t { bit<8> a; }
control c(inout s_t s) {
    apply {
        s.a = ;
        s.a = 1;
        if (s.a == 1 { s.a = 2; }
        s.a = 3;
    }
}
const bit<8> OK = 1;
";
    let (out, sm) = parse(text);
    let names: Vec<_> = out.program.decls.iter().filter_map(|d| d.name()).map(|n| n.name.clone()).collect();
    assert_eq!(names, ["h_t", "s_t", "c", "OK"]);
    assert_snapshot!(p4_syntax::diag::render_all(&out.diagnostics, &sm));
}

#[test]
fn missing_closing_brace_at_end_of_file() {
    assert_snapshot!(diags("control c() {\n    apply {\n        exit;\n"));
}

#[test]
fn statement_that_is_not_an_assignment_or_call() {
    assert_snapshot!(diags("action a() { bit<8> x; x + 1; }\n"));
}

#[test]
fn stray_closing_brace() {
    assert_snapshot!(diags("}\nconst bit<8> X = 1;\n"));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = format!("const bit<8> X = {}1{};\n", "(".repeat(5000), ")".repeat(5000));
    let (out, _) = parse(&text);
    assert_eq!(out.diagnostics.len(), 1);
    assert!(out.diagnostics[0].message.starts_with("nesting too deep"), "{}", out.diagnostics[0].message);
}

#[test]
fn long_operator_chain_is_an_error_not_a_crash() {
    let text = format!("const bit<8> X = {}1;\n", "1 + ".repeat(1000));
    let (out, _) = parse(&text);
    assert_eq!(out.diagnostics.len(), 1);
    assert_eq!(out.diagnostics[0].message, "expression or type too deeply nested (more than 400 levels)");
    // A long but reasonable chain is fine.
    let ok = format!("const bit<8> X = {}1;\n", "1 + ".repeat(300));
    assert!(parse(&ok).0.diagnostics.is_empty());
}

#[test]
fn transition_outside_a_parser_state() {
    assert_snapshot!(diags("control c() {\n    apply {\n        transition accept;\n        exit;\n    }\n}\n"));
}

#[test]
fn missing_closing_braces_resynchronize_at_declaration_keywords() {
    let text = "\
control c(inout bit<8> x) {
    action a() { x = 1;
    table t { actions = { a; } }
    apply { t.apply(); }
}
parser p(packet_in b) {
    state start { b.advance(8);
    state next { transition accept; }
}
control d() { apply {} }
";
    let (out, sm) = parse(text);
    assert_snapshot!(p4_syntax::diag::render_all(&out.diagnostics, &sm));
    // Nothing after the two missing braces is lost.
    insta::assert_snapshot!("missing_braces_recovered_ast", p4_syntax::print_program(&out.program));
}

#[test]
fn control_characters_in_source_lines_are_escaped_and_the_caret_stays_aligned() {
    // ESC, BEL, NUL and a CR inside a comment before the error: printed as `\x1b` etc., and the caret
    // still points at `$` in the escaped line.
    let out = diags("const bit<8> X = 1; /* \x1b[2J\x07\0\r */ const bit<8> Y = 1 $ 2;\n");
    assert!(!out.contains('\x1b') && !out.contains('\x07') && !out.contains('\0') && !out.contains('\r'), "{out:?}");
    assert_snapshot!(out);
}

#[test]
fn a_control_character_that_is_itself_the_error_is_underlined_whole() {
    // The bad token is the ESC: the caret covers all four columns of `\x1b`.
    let out = diags("const bit<8> X = 1 \x1b 2;\n");
    assert!(!out.contains('\x1b'), "{out:?}");
    assert_snapshot!(out);
}
