//! Small visitors for common questions: an expression's operands, every expression of some code,
//! whether some statement or expression satisfies a predicate.

use super::{walk_call, walk_expr, walk_stmt, Visit, VisitMut};
use crate::{ActionId, Call, Callee, Expr, Program, Stmt};

/// A visitor that hands each expression it reaches to its function and does not go below it, so
/// a walk with it visits the outermost expressions of a node: [`walk_expr`] an expression's
/// operands, [`super::walk_call`] a call's target and arguments, [`super::walk_table`] a table's key and
/// argument expressions and its entries' keysets.
pub struct Outermost<F>(pub F);

impl<'a, F: FnMut(&'a Expr)> Visit<'a> for Outermost<F> {
    fn visit_expr(&mut self, e: &'a Expr) {
        (self.0)(e);
    }
}

impl<F: FnMut(&mut Expr)> VisitMut for Outermost<F> {
    fn visit_expr(&mut self, e: &mut Expr) {
        (self.0)(e);
    }
}

/// The operands of `e` (its direct sub-expressions; a call's target and arguments), in evaluation
/// order.
pub fn operands(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    walk_expr(&mut Outermost(|x| out.push(x)), e);
    out
}

/// A visitor that hands every expression it reaches to its function, each before those below it:
/// with [`super::walk_program`], every expression of a program.
pub struct EachExpr<F>(pub F);

impl<'a, F: FnMut(&'a Expr)> Visit<'a> for EachExpr<F> {
    fn visit_expr(&mut self, e: &'a Expr) {
        (self.0)(e);
        walk_expr(self, e);
    }
}

/// Calls `f` on `e` and on every expression below it, each before those below it.
pub fn for_each_expr<'a>(e: &'a Expr, f: impl FnMut(&'a Expr)) {
    EachExpr(f).visit_expr(e);
}

/// Calls `f` on every expression of `stmts` (nested statements included), each before those below
/// it.
pub fn for_each_expr_in<'a>(stmts: &'a [Stmt], f: impl FnMut(&'a Expr)) {
    EachExpr(f).visit_stmts(stmts);
}

/// Looks for an expression `pred` holds for, parent before children, and stops at the first.
pub(crate) struct FindExpr<P> {
    pub pred: P,
    pub found: bool,
}

impl<'a, P: FnMut(&Expr) -> bool> Visit<'a> for FindExpr<P> {
    fn visit_expr(&mut self, e: &'a Expr) {
        if self.found {
            return;
        }
        if (self.pred)(e) {
            self.found = true;
        } else {
            walk_expr(self, e);
        }
    }
}

/// Looks for a statement `pred` holds for, outer before nested, and stops at the first.
struct FindStmt<P> {
    pred: P,
    found: bool,
}

impl<'a, P: FnMut(&Stmt) -> bool> Visit<'a> for FindStmt<P> {
    fn visit_stmt(&mut self, s: &'a Stmt) {
        if self.found {
            return;
        }
        if (self.pred)(s) {
            self.found = true;
        } else {
            walk_stmt(self, s);
        }
    }

    /// Statements only: no statement is nested in an expression.
    fn visit_expr(&mut self, _: &'a Expr) {}
}

/// True if some statement of `stmts` (nested ones included) satisfies `pred`.
pub fn any_stmt(stmts: &[Stmt], pred: impl FnMut(&Stmt) -> bool) -> bool {
    let mut finder = FindStmt { pred, found: false };
    finder.visit_stmts(stmts);
    finder.found
}

/// The actions the program calls directly (as statements or expressions, not through a table):
/// from its parsers, controls and functions, and from the actions those call, and so on.
pub fn directly_called_actions(program: &Program) -> std::collections::BTreeSet<ActionId> {
    struct Calls(Vec<ActionId>);
    impl<'a> Visit<'a> for Calls {
        fn visit_call(&mut self, call: &'a Call) {
            if let Callee::Action(a) = &call.callee {
                self.0.push(*a);
            }
            walk_call(self, call);
        }
    }
    let mut calls = Calls(Vec::new());
    for p in &program.parsers {
        calls.visit_stmts(&p.init);
        p.states.iter().for_each(|s| calls.visit_stmts(&s.body));
    }
    for c in &program.controls {
        calls.visit_stmts(&c.init);
        calls.visit_stmts(&c.body);
    }
    program.functions.iter().for_each(|f| calls.visit_stmts(&f.body));
    let mut found = std::collections::BTreeSet::new();
    while let Some(a) = calls.0.pop() {
        if found.insert(a) {
            if let Some(action) = program.actions.get(a.index()) {
                calls.visit_stmts(&action.body);
            }
        }
    }
    found
}
