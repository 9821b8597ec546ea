//! Constructs outside the grammar's strict reading that p4c accepts in real programs: table
//! parameter lists, general width expressions, C-style array declarators. Each test pins the
//! printed form (which must re-parse to the same AST).

mod common;

/// Parse `text` (no diagnostics allowed), check the round trip and return the printed program.
fn printed(text: &str) -> String {
    let program = common::parse_ok(text);
    common::assert_round_trip(&program, "snippet")
}

#[test]
fn table_with_empty_parameter_list() {
    let out = printed("control c() { action a() {} table t() { actions = { a; } } apply { t.apply(); } }");
    assert_eq!(
        out,
        "control c() {\n    action a() {\n    }\n    table t {\n        actions = {\n            a;\n        }\n    }\n    apply {\n        t.apply();\n    }\n}\n"
    );
}

#[test]
fn table_parameters_are_kept_and_scoped_to_the_table() {
    let text = "control c(inout bit<32> x) {\n\
                action a() {}\n\
                table t(in bit<32> r, bit<8> k) { key = { r : exact; } actions = { a; } }\n\
                apply { t.apply(x, 1); }\n}";
    let program = common::parse_ok(text);
    let p4_syntax::ast::Decl::Control(c) = &program.decls[0] else { panic!("not a control: {:?}", program.decls[0]) };
    let table = c
        .locals
        .iter()
        .find_map(|d| match d {
            p4_syntax::ast::Decl::Table(t) => Some(t),
            _ => None,
        })
        .expect("table");
    let names: Vec<&str> = table.params.iter().map(|p| p.name.name.as_str()).collect();
    assert_eq!(names, ["r", "k"]);
    assert_eq!(table.params[0].direction, p4_syntax::ast::Direction::In);
    assert_eq!(table.params[1].direction, p4_syntax::ast::Direction::None);
    let out = common::assert_round_trip(&program, "table params");
    assert!(out.contains("    table t(in bit<32> r, bit<8> k) {\n"), "{out}");
}

#[test]
fn width_may_be_an_arithmetic_expression() {
    let out = printed("const int W = 4;\ntypedef bit<2 + 2> a_t;\ntypedef int<W * 2 - 1> b_t;\ntypedef varbit<W << 3> c_t;\n");
    assert_eq!(
        out,
        "const int W = 4;\ntypedef bit<(2 + 2)> a_t;\ntypedef int<(W * 2 - 1)> b_t;\ntypedef varbit<(W << 3)> c_t;\n"
    );
}

#[test]
fn width_may_slice_and_subtract() {
    let out = printed("const bit<32> v4 = 12;\nconst bit<8> v1 = 4;\ntypedef bit<v4[7:0] - v1> t;\n");
    assert!(out.ends_with("typedef bit<(v4[7:0] - v1)> t;\n"), "{out}");
}

#[test]
fn a_closing_angle_ends_the_width_but_parentheses_allow_comparisons() {
    // Nested in type arguments: `>>` closes two lists, it is no shift.
    let out = printed("struct s<T> { T f; }\ntypedef s<bit<4 + 4>> n_t;\ntypedef bit<(3 > 2 ? 8 : 16)> m_t;\n");
    assert!(out.contains("typedef s<bit<(4 + 4)>> n_t;\n"), "{out}");
    assert!(out.contains("typedef bit<(3 > 2 ? 8 : 16)> m_t;\n"), "{out}");
}

#[test]
fn empty_width_is_an_error() {
    let d = common::diags("typedef bit<> t;\n");
    assert!(d.starts_with("error: expected a width (integer or expression), found `>`"), "{d}");
}

#[test]
fn c_style_array_declarators_become_stack_types() {
    let text = "header h_t { bit<8> arr[16]; bit<4> m[2][3]; }\n\
                bit<8> g[4];\n\
                control c() { apply { bit<16> v[2]; const bit<8> k[1] = { 7 }; v[0] = 1; } }\n";
    let out = printed(text);
    assert!(out.contains("    bit<8>[16] arr;\n"), "{out}");
    assert!(out.contains("    bit<4>[3][2] m;\n"), "{out}");
    assert!(out.contains("bit<8>[4] g;\n"), "{out}");
    assert!(out.contains("        bit<16>[2] v;\n"), "{out}");
    assert!(out.contains("        const bit<8>[1] k = {7};\n"), "{out}");
}

#[test]
fn quoted_standard_includes_fall_back_to_the_built_in_files() {
    let dir = p4_io::testing::scratch_dir("p4-syntax", "quoted-builtin");
    let main = dir.join("main.p4");
    std::fs::write(&main, "#include \"core.p4\"\n#include \"v1model.p4\"\n").expect("write");
    let mut sm = p4_syntax::span::SourceMap::new();
    let out = p4_syntax::parse_file(&main, &[], &mut sm);
    assert!(out.diagnostics.is_empty(), "{}", p4_syntax::diag::render_all(&out.diagnostics, &sm));
    let names: Vec<String> = out.program.decls.iter().filter_map(|d| d.name()).map(|n| n.name.to_string()).collect();
    for expected in ["packet_in", "V1Switch"] {
        assert!(names.iter().any(|n| n == expected), "missing {expected} in {names:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
