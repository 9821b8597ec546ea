//! The visitors (`p4_ir::visit`) on a program in the text form (`text/visit.p4ir`) that has code in
//! every place code can be: a parser's `init`, a state and its select keys, controls' `init` and
//! bodies, an action, a function, a table's key and default action, a `for` loop, a `switch`, a
//! sub-control apply. Its 8-bit constants are numbered in the order `walk_program` must reach them.

use p4_ir::printer::{expr_to_string, print_program};
use p4_ir::text::parse_program;
use p4_ir::visit::{
    any_stmt, operands, walk_call, walk_expr, walk_expr_mut, walk_program, walk_program_mut, walk_stmt_mut, Visit,
    VisitMut,
};
use p4_ir::{Call, Callee, Expr, ExprKind, Program, Stmt, Value, Var, VarId};

const PROGRAM: &str = include_str!("text/visit.p4ir");

fn program() -> Program {
    parse_program("visit.p4ir", PROGRAM).unwrap_or_else(|e| panic!("{}", e.render(&e.file, PROGRAM)))
}

/// Control `C`, whose first statement is
/// `hdr.s[old].a = ((old == 8w8) && hdr.h.isValid()) ? f(in f(in old)) : hdr.h.b;`.
fn control_c(p: &Program) -> &p4_ir::Control {
    p.controls.iter().find(|c| c.block.name == "C").expect("control C")
}

/// Records what it visits as text: each expression, and each call with its callee's name.
struct Trace<'p> {
    program: &'p Program,
    vars: &'p [Var],
    /// Record an expression after the ones below it instead of before.
    post_order: bool,
    seen: Vec<String>,
}

impl<'p> Trace<'p> {
    fn new(program: &'p Program, vars: &'p [Var], post_order: bool) -> Self {
        Trace { program, vars, post_order, seen: Vec::new() }
    }
    fn note(&mut self, e: &Expr) {
        self.seen.push(expr_to_string(self.program, self.vars, e));
    }
}

impl Visit<'_> for Trace<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        if !self.post_order {
            self.note(e);
        }
        walk_expr(self, e);
        if self.post_order {
            self.note(e);
        }
    }

    fn visit_call(&mut self, c: &Call) {
        let callee = match &c.callee {
            Callee::Function(f) => self.program.functions[f.index()].name.clone(),
            Callee::Builtin { builtin, .. } => format!("{builtin:?}"),
            other => format!("{other:?}"),
        };
        self.seen.push(format!("call {callee}"));
        walk_call(self, c);
    }
}

#[test]
fn the_program_reads_back() {
    assert_eq!(print_program(&program()), PROGRAM);
}

#[test]
fn a_statement_is_visited_in_evaluation_order() {
    let p = program();
    let c = control_c(&p);
    let mut trace = Trace::new(&p, &c.block.vars, false);
    trace.visit_stmt(&c.body[0]);
    assert_eq!(
        trace.seen,
        [
            // The place: the stack, then the index.
            "hdr.s[old].a",
            "hdr.s[old]",
            "hdr.s",
            "hdr",
            "old",
            // The value: the condition (`&&`: left, then right), then each branch of `?:`.
            "((old == 8w8) && hdr.h.isValid()) ? f(in f(in old)) : hdr.h.b",
            "(old == 8w8) && hdr.h.isValid()",
            "old == 8w8",
            "old",
            "8w8",
            "hdr.h.isValid()",
            "call IsValid",
            "hdr.h",
            "hdr",
            // A call's argument is visited after the call, and a call in it after that.
            "f(in f(in old))",
            "call f",
            "f(in old)",
            "call f",
            "old",
            "hdr.h.b",
            "hdr.h",
            "hdr",
        ]
    );
}

#[test]
fn walking_first_visits_in_post_order() {
    let p = program();
    let c = control_c(&p);
    let Stmt::Assign { rhs, .. } = &c.body[0] else { panic!("C's body starts with an assignment") };
    let ExprKind::Mux(cond, _, _) = &rhs.kind else { panic!("the value is `?:`") };
    let mut trace = Trace::new(&p, &c.block.vars, true);
    trace.visit_expr(cond);
    assert_eq!(
        trace.seen,
        [
            "old",
            "8w8",
            "old == 8w8",
            "call IsValid",
            "hdr",
            "hdr.h",
            "hdr.h.isValid()",
            "(old == 8w8) && hdr.h.isValid()"
        ]
    );
}

/// The 8-bit constants it visits, in order.
struct Constants(Vec<u32>);

impl Visit<'_> for Constants {
    fn visit_expr(&mut self, e: &Expr) {
        if let ExprKind::Const(Value::Bits { width: 8, value, .. }) = &e.kind {
            self.0.push(u32::try_from(value).expect("a small constant"));
        }
        walk_expr(self, e);
    }
}

#[test]
fn walk_program_reaches_all_code_in_order() {
    let p = program();
    let mut constants = Constants(Vec::new());
    walk_program(&mut constants, &p);
    // Parser P: `init`, state `start`, its select keys and keysets; control Sub; control C: `init`,
    // body (the `for` body before its update; a `switch` case label is a value, not visited);
    // action C.a; function f; table C.t: key, then default action argument.
    assert_eq!(constants.0, (1..=17).collect::<Vec<_>>());
}

/// Renames variable slot `from` to `to`: in expressions and in `init` statements.
struct Rename {
    from: VarId,
    to: VarId,
}

impl VisitMut for Rename {
    fn visit_stmt(&mut self, s: &mut Stmt) {
        if let Stmt::VarInit { var, .. } = s {
            if *var == self.from {
                *var = self.to;
            }
        }
        walk_stmt_mut(self, s);
    }

    fn visit_expr(&mut self, e: &mut Expr) {
        if let ExprKind::Var(v) = &mut e.kind {
            if *v == self.from {
                *v = self.to;
            }
        }
        walk_expr_mut(self, e);
    }
}

#[test]
fn a_rename_reaches_every_use() {
    // Every block's frame starts with `old` and `new`.
    let mut p = program();
    walk_program_mut(&mut Rename { from: VarId(0), to: VarId(1) }, &mut p);
    let renamed: Vec<String> = PROGRAM
        .lines()
        .map(|l| if l.trim_start().starts_with("vars {") { l.to_string() } else { l.replace("old", "new") })
        .collect();
    let printed = print_program(&p);
    assert_eq!(printed.lines().collect::<Vec<_>>(), renamed);
    // Uses in a `for` loop, a `switch` case, select and table keys, a sub-control's arguments.
    for line in [
        "while (i < old)",
        "old = old + 8w10;",
        "hdr.h.b = old + 8w13;",
        "select(hdr.h.a, old + 8w3)",
        "key old + 8w16",
        "Sub.apply(inout old)",
    ] {
        assert!(PROGRAM.contains(line), "{line}");
        assert!(!printed.contains(line), "{line} is still there");
    }
}

#[test]
fn operands_and_nested_statements() {
    let p = program();
    let c = control_c(&p);
    let text = |e: &Expr| expr_to_string(&p, &c.block.vars, e);
    let Stmt::Assign { rhs, .. } = &c.body[0] else { panic!("C's body starts with an assignment") };
    let ExprKind::Mux(cond, call, _) = &rhs.kind else { panic!("the value is `?:`") };
    let texts = |es: Vec<&Expr>| es.into_iter().map(text).collect::<Vec<_>>();
    assert_eq!(texts(operands(rhs)), ["(old == 8w8) && hdr.h.isValid()", "f(in f(in old))", "hdr.h.b"]);
    // A call's operands are its arguments (and a method's target), not what is below them.
    assert_eq!(texts(operands(call)), ["f(in old)"]);
    let ExprKind::Binary(_, _, is_valid) = &cond.kind else { panic!("the condition is `&&`") };
    assert_eq!(texts(operands(is_valid)), ["hdr.h"]);

    // `old = 8w12;` is in a `switch` case, `i = old + 8w9` in a `for` loop's `init`.
    let assigns_12 = |s: &Stmt| matches!(s, Stmt::Assign { rhs: Expr { kind: ExprKind::Const(Value::Bits { value, .. }), .. }, .. } if *value == 12.into());
    let inits_i = |s: &Stmt| matches!(s, Stmt::VarInit { var, .. } if c.block.vars[var.index()].name == "i");
    assert!(any_stmt(&c.body, assigns_12));
    assert!(any_stmt(&c.body, inits_i));
    assert!(!any_stmt(&c.body[..1], assigns_12));
    // `Expr::any` looks below calls: the `old` passed to the inner `f`.
    let old = VarId(0);
    assert!(call.any(&mut |x| matches!(x.kind, ExprKind::Var(v) if v == old)));
    assert!(!call.any(&mut |x| matches!(x.kind, ExprKind::Const(_))));
}
