//! Round trip: parse → print → parse gives an equal AST (modulo spans), on our own test programs
//! and on every `.p4` file in the repository's examples/, tests/ and p4include/.

mod common;

use p4_syntax::{diag, parse_file, span::SourceMap};
use std::path::{Path, PathBuf};

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

fn collect_p4_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect_p4_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "p4") {
            out.push(p);
        }
    }
}

/// Every `.p4` file of the repository (examples, tests, include files) that parses without
/// errors must survive print → parse unchanged. Files with syntax errors are listed, not failed:
/// some are negative tests on purpose.
#[test]
fn repository_programs_round_trip() {
    let repo = manifest().join("../..");
    let mut files = Vec::new();
    for dir in ["examples", "tests", "p4include", "crates/p4-syntax/tests/programs"] {
        collect_p4_files(&repo.join(dir), &mut files);
    }
    let mut checked = 0;
    for f in &files {
        let mut sm = SourceMap::new();
        let out = parse_file(f, &[], &mut sm);
        if out.has_errors() {
            eprintln!("skipping {} (syntax errors):\n{}", f.display(), diag::render_all(&out.diagnostics, &sm));
            continue;
        }
        common::assert_round_trip(&out.program, &f.display().to_string());
        checked += 1;
    }
    // At least our own three programs and the two built-in include files.
    assert!(checked >= 5, "only {checked} files checked");
}
