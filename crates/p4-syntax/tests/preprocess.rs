//! Preprocessor behaviour: macros, conditionals, includes (through a temporary directory), and
//! spans that point into the file a token came from.

mod common;

use common::{diags, parse_ok};
use p4_syntax::{diag, parse_file, print_program, span::SourceMap};
use std::path::PathBuf;

fn printed(text: &str) -> String {
    print_program(&parse_ok(text))
}

/// A fresh temporary directory for one test, removed when the test passes.
fn temp_dir(test: &str) -> p4_io::testing::Scratch {
    p4_io::testing::scratch_dir("p4-syntax", test)
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("create dir");
    }
    std::fs::write(&p, text).expect("write file");
    p
}

#[test]
fn object_like_macros() {
    assert_eq!(printed("#define W 8\n#define INIT (W + 1)\nconst bit<W> X = INIT;\n"), "const bit<8> X = 8 + 1;\n");
}

#[test]
fn function_like_macros_with_nested_calls() {
    let text = "#define ADD(a, b) ((a) + (b))\n#define TWICE(x) ADD(x, x)\nconst bit<8> X = TWICE(ADD(1, 2)) * 3;\n";
    assert_eq!(printed(text), "const bit<8> X = (1 + 2 + (1 + 2)) * 3;\n");
}

#[test]
fn function_like_macro_name_without_parens_is_not_expanded() {
    assert_eq!(printed("#define F(x) x\nconst bit<8> F = 1;\n"), "const bit<8> F = 1;\n");
}

#[test]
fn stringify_and_paste() {
    let text = "#define STR(x) #x\n#define CAT(a, b) a ## b\nconst string S = STR(hello  \"w\" x);\nconst bit<8> CAT(foo, _bar) = CAT(12, 34);\n";
    assert_eq!(printed(text), "const string S = \"hello \\\"w\\\" x\";\nconst bit<8> foo_bar = 1234;\n");
}

#[test]
fn variadic_macro() {
    assert_eq!(printed("#define L(...) { __VA_ARGS__ }\nconst tuple<bit<8>, bit<8>> T = L(1, 2);\n"), "const tuple<bit<8>, bit<8>> T = {1, 2};\n");
}

#[test]
fn self_referential_macro_terminates() {
    assert_eq!(printed("#define x x + 1\nconst bit<8> x2 = 0;\nconst bit<8> y = x;\n"), "const bit<8> x2 = 0;\nconst bit<8> y = x + 1;\n");
}

#[test]
fn undef() {
    assert_eq!(printed("#define A 1\n#undef A\nconst bit<8> A = 2;\n"), "const bit<8> A = 2;\n");
}

#[test]
fn conditionals_with_elif_else_and_defined() {
    let text = "\
#define V 20180101
#if V >= 20200408 || defined(NEWER)
const bit<8> X = 1;
#elif defined V && (V % 100 == 1) && !defined(OTHER) && (1 << 4 >> 2) == 4
const bit<8> X = 2;
#else
const bit<8> X = 3;
#endif
#ifdef V
#ifndef V
const bit<8> Y = 1;
#else
const bit<8> Y = 2;
#endif
#endif
#if UNDEFINED_NAME
const bit<8> Z = 1;
#endif
#if 0
garbage 'that' \"is never lexed as P4 $
#endif
";
    assert_eq!(printed(text), "const bit<8> X = 2;\nconst bit<8> Y = 2;\n");
}

#[test]
fn if_arithmetic_and_ternary() {
    let text = "#if (2 * 3 - 1) / 2 == 2 && -1 < 0 && (~0 & 0xF) == 15 && (1 ? 5 : 6) == 5\nconst bit<8> OK = 1;\n#endif\n";
    assert_eq!(printed(text), "const bit<8> OK = 1;\n");
}

#[test]
fn warning_directive_is_a_warning() {
    let text = "#warning careful\nconst bit<8> X = 1;\n";
    let (out, _) = common::parse(text);
    assert_eq!(out.diagnostics.len(), 1);
    assert!(!out.diagnostics[0].is_error());
    assert_eq!(out.diagnostics[0].message, "#warning careful");
}

#[test]
fn pragmas_and_line_are_tolerated() {
    assert_eq!(printed("#pragma some vendor thing\n#line 10 \"x.p4\"\nconst bit<8> X = 1;\n"), "const bit<8> X = 1;\n");
}

#[test]
fn stray_else_and_endif() {
    insta::assert_snapshot!(diags("#else\n#endif\n#elif 1\n"));
}

#[test]
fn includes_quoted_angle_guards_and_once() {
    let dir = temp_dir("includes");
    let inc = dir.join("inc");
    write(&dir, "local.h", "#pragma once\nconst bit<8> LOCAL = 1;\n");
    write(&inc, "lib.p4", "#ifndef LIB\n#define LIB\n#include \"sub/deeper.p4\"\nconst bit<8> LIB_C = DEEPER;\n#endif\n");
    write(&inc, "sub/deeper.p4", "#define DEEPER 7\n");
    let main = write(
        &dir,
        "main.p4",
        "#include \"local.h\"\n#include \"local.h\"\n#include <lib.p4>\n#include <lib.p4>\nconst bit<8> M = LIB_C;\n",
    );
    let mut sm = SourceMap::new();
    let out = parse_file(&main, &[inc], &mut sm);
    assert!(out.diagnostics.is_empty(), "{}", diag::render_all(&out.diagnostics, &sm));
    assert_eq!(print_program(&out.program), "const bit<8> LOCAL = 1;\nconst bit<8> LIB_C = 7;\nconst bit<8> M = LIB_C;\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn include_dir_file_overrides_builtin() {
    let dir = temp_dir("override");
    write(&dir, "core.p4", "const bit<8> MY_CORE = 1;\n");
    let main = write(&dir, "main.p4", "#include <core.p4>\n");
    let mut sm = SourceMap::new();
    let out = parse_file(&main, &[dir.to_path_buf()], &mut sm);
    assert!(out.diagnostics.is_empty());
    assert_eq!(print_program(&out.program), "const bit<8> MY_CORE = 1;\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn builtin_core_and_v1model_resolve_without_flags() {
    let (out, sm) = common::parse("#include <core.p4>\n#include <v1model.p4>\n#include <core.p4>\n");
    assert!(out.diagnostics.is_empty(), "{}", diag::render_all(&out.diagnostics, &sm));
    let names: Vec<String> = out.program.decls.iter().filter_map(|d| d.name()).map(|n| n.name.to_string()).collect();
    for expected in ["packet_in", "packet_out", "NoAction", "V1Switch", "standard_metadata_t"] {
        assert!(names.iter().any(|n| n == expected), "missing {expected} in {names:?}");
    }
}

#[test]
fn recursive_include_is_a_located_error() {
    let dir = temp_dir("recursive");
    write(&dir, "a.p4", "#include \"b.p4\"\n");
    write(&dir, "b.p4", "const bit<8> B = 1;\n#include \"a.p4\"\n");
    let main = dir.join("a.p4");
    let mut sm = SourceMap::new();
    let out = parse_file(&main, &[], &mut sm);
    assert_eq!(out.diagnostics.len(), 1);
    let rendered = out.diagnostics[0].render(&sm);
    assert!(rendered.starts_with("error: recursive include of `"), "{rendered}");
    assert!(rendered.contains("b.p4:2:1"), "{rendered}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_in_included_files_point_into_them() {
    let dir = temp_dir("located");
    write(&dir, "bad.p4", "\nconst bit<8> X = ;\n");
    let main = write(&dir, "main.p4", "#include \"bad.p4\"\nconst bit<8> Y = 1;\n");
    let mut sm = SourceMap::new();
    let out = parse_file(&main, &[], &mut sm);
    assert_eq!(out.diagnostics.len(), 1);
    let rendered = out.diagnostics[0].render(&sm);
    assert!(rendered.starts_with("error: expected an expression, found `;`\n"), "{rendered}");
    assert!(rendered.contains("bad.p4:2:18"), "{rendered}");
    assert!(rendered.ends_with(&format!("  = note: included from {}:1:1\n", main.display())), "{rendered}");
    assert_eq!(out.program.decls.len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn macro_expansion_keeps_spans_of_the_definition() {
    let text = "#define BAD 1 +\nconst bit<8> X = BAD;\n";
    let (out, sm) = common::parse(text);
    assert_eq!(out.diagnostics.len(), 1);
    // The `;` after the expansion is where the expression ends too early.
    assert!(out.diagnostics[0].render(&sm).contains("test.p4:2:21"), "{}", out.diagnostics[0].render(&sm));
}

#[test]
fn unreadable_file_is_an_error_without_location() {
    let mut sm = SourceMap::new();
    let out = parse_file(std::path::Path::new("/definitely/not/here.p4"), &[], &mut sm);
    assert_eq!(out.diagnostics.len(), 1);
    let r = out.diagnostics[0].render(&sm);
    assert_eq!(r, "error: cannot read P4 program /definitely/not/here.p4: no such file or directory\n");
    assert!(out.program.decls.is_empty());
}

#[test]
fn parse_str_resolves_quoted_includes_through_include_dirs() {
    let dir = temp_dir("parse_str");
    write(&dir, "defs.p4", "const bit<8> D = 3;\n");
    let mut sm = SourceMap::new();
    let out = p4_syntax::parse_str("virtual.p4", "#include \"defs.p4\"\nconst bit<8> E = D;\n", &[dir.to_path_buf()], &mut sm);
    assert!(out.diagnostics.is_empty(), "{}", diag::render_all(&out.diagnostics, &sm));
    assert_eq!(print_program(&out.program), "const bit<8> D = 3;\nconst bit<8> E = D;\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn command_line_defines() {
    let mut sm = SourceMap::new();
    let text = "#ifdef FLAG\nconst bit<8> X = WIDTH;\n#endif\n";
    let out = p4_syntax::parse_str_with_defines("d.p4", text, &[], &[("FLAG", ""), ("WIDTH", "8 * 2")], &mut sm);
    assert!(out.diagnostics.is_empty(), "{}", diag::render_all(&out.diagnostics, &sm));
    assert_eq!(print_program(&out.program), "const bit<8> X = 8 * 2;\n");
}

/// The messages of parsing `path` as the main file.
fn file_errors(path: &std::path::Path) -> Vec<String> {
    let mut sm = SourceMap::new();
    let out = parse_file(path, &[], &mut sm);
    out.diagnostics.iter().map(|d| d.message.clone()).collect()
}

#[test]
fn a_directory_given_as_the_program_is_named_as_such() {
    let dir = temp_dir("dir-as-program");
    assert_eq!(file_errors(&dir), [format!("cannot read P4 program {}: it is a directory, not a regular file", dir.display())]);
}

#[test]
fn a_fifo_or_device_given_as_the_program_is_refused_without_reading_it() {
    let dir = temp_dir("fifo-as-program");
    let fifo = dir.join("prog.p4");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("run mkfifo");
    assert!(made.success());
    // Reading a FIFO nobody writes would block forever; it is refused by its type instead.
    assert_eq!(file_errors(&fifo), [format!("cannot read P4 program {}: it is a FIFO (named pipe), not a regular file", fifo.display())]);
    assert_eq!(file_errors(std::path::Path::new("/dev/zero")), ["cannot read P4 program /dev/zero: it is a character device, not a regular file"]);
}

#[test]
fn an_include_that_is_a_directory_is_an_error_at_the_include() {
    let dir = temp_dir("dir-as-include");
    std::fs::create_dir_all(dir.join("defs.p4")).expect("create dir");
    let main = write(&dir, "main.p4", "#include \"defs.p4\"\nconst bit<8> X = 1;\n");
    let mut sm = SourceMap::new();
    let out = parse_file(&main, &[], &mut sm);
    let rendered = diag::render_all(&out.diagnostics, &sm).replace(&dir.display().to_string(), "DIR");
    assert_eq!(
        rendered,
        "error: cannot read included file DIR/defs.p4: it is a directory, not a regular file\n --> DIR/main.p4:1:1\n  |\n1 | #include \"defs.p4\"\n  | ^^^^^^^^^^^^^^^^^^\n"
    );
}

/// An architecture p4forge does not ship is named as such, not reported as a missing file.
#[test]
fn an_unsupported_architecture_s_include_says_so() {
    let mut sm = SourceMap::new();
    let out = p4_syntax::parse_str("prog.p4", "#include <core.p4>\n#include <tna.p4>\n", &[], &mut sm);
    assert_eq!(
        diag::render_all(&out.diagnostics, &sm),
        "error: <tna.p4> is the Tofino Native Architecture, which p4forge does not support yet \
         (it knows v1model, PSA and OP4T: #include <v1model.p4>, <psa.p4> or <op4t.p4>)\n --> prog.p4:2:1\n  |\n2 | #include <tna.p4>\n  | \
         ^^^^^^^^^^^^^^^^^\n  = note: searched: <p4include> (built-in)\n"
    );
    let out = p4_syntax::parse_str("prog.p4", "#include <nosuch.p4>\n", &[], &mut sm);
    assert_eq!(out.diagnostics[0].message, "cannot find include file <nosuch.p4>");
}
