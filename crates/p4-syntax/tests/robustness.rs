//! Robustness: arbitrary bytes and mutated valid programs never panic, hang or overflow the stack,
//! and every error diagnostic carries a real location.

mod common;

use p4_syntax::{parse_str, span::SourceMap};
use proptest::prelude::*;

const SEED_PROGRAM: &str = include_str!("programs/constructs.p4");

fn check_no_panic(text: &str) {
    let mut sm = SourceMap::new();
    let out = parse_str("fuzz.p4", text, &[], &mut sm);
    for d in &out.diagnostics {
        // Rendering must work for every diagnostic (no out-of-range spans).
        let r = d.render(&sm);
        assert!(r.starts_with("error: ") || r.starts_with("warning: "));
    }
    // Printing a partial AST must not panic either.
    let _ = p4_syntax::print_program(&out.program);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        check_no_panic(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn arbitrary_token_soup_never_panics(words in proptest::collection::vec(prop::sample::select(vec![
        "(", ")", "{", "}", "[", "]", "<", ">", ">>", ";", ",", ".", "..", ":", "=", "&&&", "+", "-",
        "#define", "#if", "#endif", "#include", "\n", "@", "@name", "\"s\"", "8w5", "x", "T", "bit",
        "control", "parser", "state", "transition", "select", "apply", "table", "key", "actions",
        "struct", "header", "extern", "action", "const", "if", "else", "switch", "default", "_",
        "{#}", "...", "typedef", "enum", "return", "for", "in", "this", "/*", "*/", "//",
    ]), 0..200)) {
        check_no_panic(&words.join(" "));
    }

    #[test]
    fn mutated_valid_program_never_panics(cut in 0usize..SEED_PROGRAM.len(), len in 0usize..64, insert in "[{}();<>#@a-z0-9 ]{0,8}") {
        let mut text = SEED_PROGRAM.to_string();
        let start = (0..=cut).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let end = (start + len).min(text.len());
        let end = (end..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
        text.replace_range(start..end, &insert);
        check_no_panic(&text);
    }
}

/// Hostile inputs: huge nesting, long operator chains, exponential macros. Each must end with
/// diagnostics (not a crash) and leave an AST that can be printed and dropped on a 2 MiB test
/// thread stack.
#[test]
fn pathological_inputs_terminate() {
    for text in [
        "(".repeat(100_000),
        "{".repeat(100_000),
        "}".repeat(10_000),
        "a<".repeat(20_000),
        "-".repeat(100_000),
        "@a ".repeat(10_000),
        "#define a a a a a a a a\n#define b a b a b a b\nconst bit<8> x = b b b b b b;\n".to_string(),
        "#define f(x) f(x) f(x)\nconst bit<8> x = f(f(f(f(f(f(1))))));\n".to_string(),
        "#if 1\n".repeat(10_000),
        "control c() { apply { if (x) ".repeat(5_000),
        format!("const bit<8> x = {}a;", "a + ".repeat(50_000)),
        format!("const bit<8> x = a{};", ".b".repeat(50_000)),
        format!("const bit<8> x = a{};", "[1]".repeat(50_000)),
        format!("const bit<8> x = a{};", "(1)".repeat(50_000)),
        format!("typedef bit<8>{} t;", "[1]".repeat(50_000)),
        "typedef bit<".repeat(50_000),
        // Failed `(Type)` cast speculation is remembered, or this would take exponential time.
        format!("typedef bit<{}8 t;", "(bit<".repeat(20_000)),
        format!("typedef bit<{}1> t;", "1 + ".repeat(50_000)),
        format!("bit<8> x{};", "[1]".repeat(50_000)),
        format!("header h {{ bit<8> x{}; }}", "[1]".repeat(50_000)),
        format!("control c() {{ {} }}", "table t(".repeat(10_000)),
        format!("control c() {{ apply {{ {} x(); }} }}", "if (a) x(); else ".repeat(50_000)),
    ] {
        check_no_panic(&text);
    }
}

/// The deepest ASTs the parser accepts can be printed, re-parsed and dropped on a test thread.
#[test]
fn deepest_accepted_ast_prints_and_round_trips() {
    let chain = format!("const bit<8> X = {}1;\n", "1 + ".repeat(390));
    let members = format!("const bit<8> Y = a{};\n", ".b".repeat(390));
    let parens = format!("const bit<8> Z = {}1{};\n", "(".repeat(120), ")".repeat(120));
    let else_ifs = format!("control c() {{ apply {{ {} x(); }} }}\n", "if (a) x(); else ".repeat(240));
    for text in [chain, members, parens, else_ifs] {
        let program = common::parse_ok(&text);
        common::assert_round_trip(&program, "deep");
    }
}
