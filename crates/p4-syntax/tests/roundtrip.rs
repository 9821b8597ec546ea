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

/// The parser frees tokens as it finishes declarations and statements: a program many token chunks
/// long, full of constructs parsed by speculation (casts, keyset tuples, instantiations among
/// statements, type arguments), parses without error, whole, and round-trips.
#[test]
fn program_longer_than_many_token_chunks_round_trips() {
    let n = 300;
    let mut text = String::from(
        "header h_t { bit<8> a; bit<8> b; }\nstruct s_t { h_t h; }\nextern E { E(); void f(); }\nextern R<T> { R(bit<32> n); T read(in bit<32> i); }\n\
         parser P(inout s_t s) {\n    state start {\n        transition select(s.h.a, s.h.b) {\n",
    );
    for i in 0..n {
        text.push_str(&format!("            ({i}, {i} &&& 0xF): s{i};\n"));
    }
    text.push_str("            default: accept;\n        }\n    }\n");
    for i in 0..n {
        text.push_str(&format!("    state s{i} {{ s.h.a = (bit<8>) s.h.b; transition accept; }}\n"));
    }
    text.push_str("}\ncontrol C(inout s_t s) {\n");
    for i in 0..n {
        text.push_str(&format!(
            "    action a{i}(bit<8> v) {{ s.h.a = (bit<8>) (v + {i}); }}\n    R<bit<8>>(4) r{i};\n    table t{i} {{ key = {{ s.h.a: exact; s.h.b: ternary; }} actions = {{ a{i}; }} default_action = a{i}(1); }}\n"
        ));
    }
    text.push_str("    apply {\n");
    for i in 0..n {
        text.push_str(&format!(
            "        E() e{i};\n        bit<8> x{i} = (bit<8>) r{i}.read(0);\n        if (s.h.a == (bit<8>) {i}) {{ t{i}.apply(); }}\n"
        ));
    }
    text.push_str("    }\n}\n");
    let program = common::parse_ok(&text);
    let locals = program.decls.iter().find_map(|d| match d {
        p4_syntax::ast::Decl::Control(c) => Some((c.locals.len(), c.apply.stmts.len())),
        _ => None,
    });
    assert_eq!(locals, Some((3 * n, 3 * n)));
    common::assert_round_trip(&program, "many chunks");
}
