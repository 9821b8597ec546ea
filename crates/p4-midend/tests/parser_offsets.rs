//! Golden tests of the parser-offsets analysis (`p4_midend::parser_offsets`): each
//! `tests/analyses/parser-offsets/<case>.p4` is compiled and lowered with the default pipeline, and
//! the offsets of every parser, printed, must equal `<case>.expected`. `BLESS=1 cargo test -p
//! p4-midend --test parser_offsets` rewrites the expected files.

mod common;

use std::path::Path;

#[test]
fn parser_offsets_golden_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/analyses/parser-offsets");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/analyses/parser-offsets")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "p4"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 3, "only {} cases", inputs.len());
    let mut failures = Vec::new();
    for input in &inputs {
        let program = common::compile(input).unwrap_or_else(|d| panic!("{}: does not compile:\n{d}", input.display()));
        let lowered = p4_midend::lower(program).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
        let mut text = String::new();
        for p in 0..lowered.parsers.len() {
            let o = p4_midend::parser_offsets::offsets(&lowered, p4_ir::ParserId(p as u32));
            text.push_str(&o.to_string());
        }
        let expected_path = input.with_extension("expected");
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(&expected_path, &text).expect("write expected");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != text {
            failures.push(format!("{}: differs from {} (BLESS=1 to accept):\n{text}", input.display(), expected_path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
