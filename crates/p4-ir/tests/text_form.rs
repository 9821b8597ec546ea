//! The text form read back: a hand-checked program (`text/small.p4ir`, printed from a small v1model
//! program) reads back and prints identically, and each malformed variant of it gets exactly the
//! located error below (`file:line:col: message`, the line, a caret).

use p4_ir::printer::print_program;
use p4_ir::text::parse_program;

const SMALL: &str = include_str!("text/small.p4ir");

/// The rendered error for `SMALL` with `from` replaced by `to` (exactly once).
fn error_for(from: &str, to: &str) -> String {
    assert_eq!(SMALL.matches(from).count(), 1, "{from:?} must occur once");
    let text = SMALL.replacen(from, to, 1);
    match parse_program("bad.p4ir", &text) {
        Ok(_) => panic!("{to:?} was accepted"),
        Err(e) => e.render(&e.file, &text),
    }
}

#[test]
fn small_program_round_trips() {
    let p = parse_program("small.p4ir", SMALL).unwrap_or_else(|e| panic!("{}", e.render(&e.file, SMALL)));
    assert_eq!(print_program(&p), SMALL);
    // Ids follow the text: parser P, six blocks in all, actions I.set and NoAction, table I.t.
    assert_eq!(p.parsers.len() + p.controls.len(), 6);
    assert_eq!(p.actions.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["I.set", "NoAction"]);
    assert_eq!(p.tables[0].name, "I.t");
    assert_eq!(p.main.name, "main");
}

#[test]
fn unknown_state() {
    assert_eq!(
        error_for("8w1: accept;", "8w1: parse_x;"),
        "bad.p4ir:19:12: unknown state `parse_x`\n   |\n19 |       8w1: parse_x;\n   |            ^\n"
    );
}

#[test]
fn unknown_name_in_expression() {
    assert_eq!(
        error_for("hdr.h.b = set.v;", "hdr.h.b = set.w;"),
        "bad.p4ir:34:15: unknown name `set.w`\n   |\n34 |     hdr.h.b = set.w;\n   |               ^\n"
    );
}

#[test]
fn unknown_field() {
    assert_eq!(error_for("pkt.emit<h_t>(in hdr.h);", "pkt.emit<h_t>(in hdr.x);"),
        "bad.p4ir:68:26: no field `x` in headers\n   |\n68 |     pkt.emit<h_t>(in hdr.x);\n   |                          ^\n"
    );
}

#[test]
fn missing_semicolon() {
    assert_eq!(
        error_for("pkt.emit<h_t>(in hdr.h);", "pkt.emit<h_t>(in hdr.h)"),
        "bad.p4ir:69:3: expected `;`, found `}`\n   |\n69 |   }\n   |   ^\n"
    );
}

#[test]
fn unknown_variable_kind() {
    assert_eq!(error_for("arg bit<8> set.v", "argument bit<8> set.v"),
        "bad.p4ir:32:96: expected a variable kind (param, arg, local, temp, return), found `argument`\n   |\n32 |   vars { param inout headers hdr; param inout meta_t meta; param inout standard_metadata_t sm; argument bit<8> set.v }\n   |                                                                                                ^\n"
    );
}

#[test]
fn verifier_rejects_a_non_bool_condition() {
    assert_eq!(error_for("if (hdr.h.isValid())", "if (hdr.h.a)"),
        "bad.p4ir:31:1: invalid IR: control I: if condition has type bit<8>, not bool\n   |\n31 | control I : I(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {\n   | ^\n"
    );
}

/// Pointed at the innermost declaration the violation is in: the table, not its control.
#[test]
fn verifier_rejects_a_default_action_with_extra_arguments() {
    assert_eq!(error_for("default_action = NoAction();", "default_action = NoAction(8w1);"),
        "bad.p4ir:38:3: invalid IR: control I, table I.t: default action NoAction has 1 arguments for 0 parameters\n   |\n38 |   table #0 I.t {\n   |   ^\n"
    );
}

/// Forms no project program needs but the text form must carry: names that are not identifier
/// paths or that repeat (`` `name`#id ``), a variable named like a keyword, a negated literal, an
/// aggregate constant, a string with escapes, a method whose extern type is spelled out.
#[test]
fn unusual_names_and_values_round_trip() {
    use p4_ir::*;
    let mut p = parse_program("small.p4ir", SMALL).expect("small.p4ir reads");
    // Both actions named `NoAction` (elaboration may duplicate one per block).
    p.actions[0].name = "NoAction".into();
    // A table named with a space; a control-plane property with an escaped string.
    p.tables[0].name = "I.my table".into();
    p.tables[0].properties.push(("note".into(), Value::String("say \"hi\"\n".into())));
    let i = p.controls.iter().position(|c| c.block.name == "I").expect("control I");
    // A variable named like a keyword, assigned an aggregate constant and a negated literal.
    p.controls[i].block.vars[3].name = "key".into();
    let key = Expr::new(p.controls[i].block.vars[3].ty.clone(), ExprKind::Var(VarId(3)), Span::DUMMY);
    let five = Expr::constant(Value::InfInt(5.into()), Type::InfInt, Span::DUMMY);
    let neg = Expr::new(Type::InfInt, ExprKind::Unary(UnOp::Neg, Box::new(five)), Span::DUMMY);
    let cast = Expr::new(Type::bit(8), ExprKind::Cast(Box::new(neg)), Span::DUMMY);
    let agg = Value::Aggregate { valid: true, fields: vec![Value::Bool(true)] };
    p.controls[i].body.push(Stmt::Assign { lhs: key, rhs: cast, span: Span::DUMMY });
    let tup = Expr::constant(agg, Type::Tuple(vec![Type::Bool]), Span::DUMMY);
    let first = Expr::new(Type::Bool, ExprKind::Field(Box::new(tup), 0), Span::DUMMY);
    p.controls[i].body.push(Stmt::If {
        cond: first,
        then: vec![Stmt::Exit(Span::DUMMY)],
        otherwise: vec![],
        span: Span::DUMMY,
    });
    assert_eq!(p4_ir::verify::verify(&p), Ok(()));

    let text = print_program(&p);
    for expected in [
        "action #0 NoAction(bit<8> v: `key`) {",
        "action `NoAction`#0;",
        "table #0 `I.my table` {",
        "property note = \"say \\\"hi\\\"\\n\";",
        "arg bit<8> `key` }",
        "`key` = (bit<8>)(-(5));",
        "if (({true} : tuple<bool>)[0]) {",
        "`I.my table`#0.apply();",
    ] {
        assert!(text.contains(expected), "{expected:?} not in:\n{text}");
    }
    let back = parse_program("unusual.p4ir", &text).unwrap_or_else(|e| panic!("{}", e.render(&e.file, &text)));
    assert_eq!(print_program(&back), text);
}

/// Malformed input never panics the reader: every truncation of `small.p4ir` and every variant
/// with one character deleted or replaced by a non-ASCII one gives `Ok` or a located `Err`.
#[test]
fn damaged_input_gives_errors_not_panics() {
    let bounds: Vec<usize> = SMALL.char_indices().map(|(i, _)| i).collect();
    let mut errors = 0;
    for (k, &i) in bounds.iter().enumerate() {
        let next = bounds.get(k + 1).copied().unwrap_or(SMALL.len());
        for text in [
            SMALL[..i].to_string(),
            format!("{}{}", &SMALL[..i], &SMALL[next..]),
            format!("{}é{}", &SMALL[..i], &SMALL[next..]),
        ] {
            if let Err(e) = parse_program("d.p4ir", &text) {
                assert!(e.line >= 1 && e.line <= text.lines().count().max(1) + 1, "line {} out of range", e.line);
                errors += 1;
            }
        }
    }
    // Nearly every damaged variant is an error (a few deletions, e.g. of a space, are harmless).
    assert!(errors > 2 * bounds.len(), "only {errors} errors");
}

/// Inputs that end in the middle of a dotted name or an operator.
#[test]
fn truncated_names_and_operators_are_errors() {
    for text in [
        "parser a.",
        "parser a.b",
        "control",
        "struct S { bit<8> a; } extern",
        "errors { a } match_kinds { b } package T m(x = 1 &&&é",
    ] {
        assert!(parse_program("t.p4ir", text).is_err(), "{text:?} was accepted");
    }
}
