//! The grammar's type/expression ambiguities, settled the way p4c settles them (type names known
//! from declarations in scope). Each case asserts the printed (fully parenthesized where it
//! matters) or the exact AST shape.

mod common;

use common::{diags, parse_ok};
use p4_syntax::ast::{Decl, ExprKind, Stmt, TypeRefKind};
use p4_syntax::print_program;

/// The statements of the first control's apply block.
fn apply_stmts(text: &str) -> Vec<Stmt> {
    let prog = parse_ok(text);
    for d in prog.decls {
        if let Decl::Control(c) = d {
            return c.apply.stmts;
        }
    }
    panic!("no control");
}

/// The right-hand side of the `i`th statement, which must be an assignment.
fn rhs_kind(stmts: &[Stmt], i: usize) -> &ExprKind {
    match &stmts[i] {
        Stmt::Assign { rhs, .. } => &rhs.kind,
        other => panic!("statement {i} is not an assignment: {other:?}"),
    }
}

const PRELUDE: &str = "typedef bit<8> T;\nextern E<X> { E(bit<32> n); void m(); }\nextern Y f<Y>(in Y y);\n";

#[test]
fn less_than_versus_type_arguments() {
    let text = format!("{PRELUDE}control c(inout bit<8> a, inout bit<8> b) {{ apply {{ a = f<T>(a); b = (bit<8>)(a < b ? 1 : 0); a = f(a) ; }} }}\n");
    let stmts = apply_stmts(&text);
    match rhs_kind(&stmts, 0) {
        ExprKind::Call { type_args, args, .. } => {
            assert_eq!(type_args.len(), 1);
            assert_eq!(args.len(), 1);
        }
        other => panic!("expected a generic call, got {other:?}"),
    }
    match rhs_kind(&stmts, 1) {
        ExprKind::Cast(_, inner) => assert!(matches!(inner.kind, ExprKind::Ternary(..))),
        other => panic!("expected a cast, got {other:?}"),
    }
}

#[test]
fn comparison_chain_with_a_value_on_the_right_is_not_a_call() {
    let text = "control c(inout bit<8> a, inout bit<8> b) { apply { bool x = a < b && b > (a); } }\n";
    let printed = print_program(&parse_ok(text));
    assert!(printed.contains("bool x = a < b && b > a;"), "{printed}");
}

#[test]
fn cast_versus_parenthesized_expression() {
    let text = format!("{PRELUDE}control c(inout bit<8> a, inout bit<8> b) {{ apply {{ a = (T) - b; a = (b) - a; a = (T)(b); }} }}\n");
    let stmts = apply_stmts(&text);
    assert!(matches!(rhs_kind(&stmts, 0), ExprKind::Cast(..)));
    assert!(matches!(rhs_kind(&stmts, 1), ExprKind::Binary(..)));
    assert!(matches!(rhs_kind(&stmts, 2), ExprKind::Cast(..)));
}

#[test]
fn shift_right_is_two_adjacent_closing_angles() {
    let text = "const tuple<bit<8>, tuple<bit<8>>> X = {1, {2}};\nconst bit<8> Y = 8 >> 2;\nconst bit<8> Z = 8 >>> 2;\n";
    let (out, _) = common::parse(text);
    assert_eq!(out.diagnostics.len(), 1, "only `>>>` is an error");
    let printed = print_program(&out.program);
    assert!(printed.starts_with("const tuple<bit<8>, tuple<bit<8>>> X = {1, {2}};\nconst bit<8> Y = 8 >> 2;\n"), "{printed}");
    insta::assert_snapshot!(diags("const bit<8> Y = 8 > > 2;\n"));
}

#[test]
fn constructor_calls_of_generic_externs_are_constructs() {
    let text = format!("{PRELUDE}control c() {{ E<bit<8>>(32w4) e; apply {{ }} }}\npackage P(E<bit<8>> x);\nP(E<bit<16>>(32w1)) main;\n");
    let prog = parse_ok(&text);
    let Some(Decl::Instantiation(main)) = prog.decls.last() else { panic!("no main") };
    assert!(matches!(&main.args[0].value.kind, ExprKind::Construct { ty, .. } if matches!(ty.kind, TypeRefKind::Specialized(..))));
}

#[test]
fn member_calls_on_types() {
    let text = format!("{PRELUDE}control c(inout bit<32> a) {{ apply {{ a = T.minSizeInBits() + bit<8>.maxSizeInBytes() + E<bit<8>>.x; }} }}\n");
    let printed = print_program(&parse_ok(&text));
    assert!(printed.contains("a = T.minSizeInBits() + bit<8>.maxSizeInBytes() + E<bit<8>>.x;"), "{printed}");
}

#[test]
fn local_declaration_versus_expression_statement() {
    let text = format!("{PRELUDE}control c(inout bit<8> a) {{ T[2] stack; apply {{ T b = a; T[4] s; a = a; f<T>(a); c.apply(a); }} }}\n");
    let stmts = apply_stmts(&text);
    assert!(matches!(&stmts[0], Stmt::Decl(_)));
    assert!(matches!(&stmts[1], Stmt::Decl(_)));
    assert!(matches!(&stmts[2], Stmt::Assign { .. }));
    assert!(matches!(&stmts[3], Stmt::Call { .. }));
    assert!(matches!(&stmts[4], Stmt::Call { .. }));
}

#[test]
fn generic_function_return_type_declared_after_use() {
    let prog = parse_ok("T1 id<T1>(in T1 x) { return (T1)x; }\n");
    let Decl::Function(f) = &prog.decls[0] else { panic!() };
    assert_eq!(f.proto.type_params[0].name, "T1");
    let Stmt::Return(Some(e), _) = &f.body.stmts[0] else { panic!() };
    assert!(matches!(e.kind, ExprKind::Cast(..)), "T1 is a type inside the function");
}

#[test]
fn keywords_usable_as_names() {
    let text = "header h { bit<8> type; bit<8> key; bit<8> priority; bit<8> state; }\ncontrol c(inout h x) { apply { x.type = x.key + x.priority; bit<8> apply = x.state; } }\n";
    let printed = print_program(&parse_ok(text));
    assert!(printed.contains("x.type = x.key + x.priority;"), "{printed}");
    assert!(printed.contains("bit<8> apply = x.state;"), "{printed}");
}

#[test]
fn dont_care_and_default_in_keysets_and_arguments() {
    let text = "parser p(packet_in b) { state start { b.extract<bit<8>>(_); transition select(8w1, 8w2) { (_, default): accept; (1 &&& 1, 0 .. 3): reject; } } }\n";
    let printed = print_program(&parse_ok(text));
    assert!(printed.contains("b.extract<bit<8>>(_);"), "{printed}");
    assert!(printed.contains("(_, default): accept;"), "{printed}");
    assert!(printed.contains("(1 &&& 1, 0 .. 3): reject;"), "{printed}");
}
