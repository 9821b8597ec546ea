//! "May be used uninitialized" warnings.
//!
//! Deliberately simple and conservative (it must never produce an error, and should rarely warn
//! wrongly): statements are visited in textual order; a scalar local (`bit`, `int`, `bool`) declared
//! without an initializer is "unset" until some statement writes it (anywhere earlier in the text,
//! whatever the branch); a read of an unset variable warns once.

use p4_ir::visit::{walk_expr, walk_stmt, Visit};
use p4_ir::{Arg, Call, Direction, Expr, ExprKind, Parser, Stmt, Transition, Type, Var, VarId};
use p4_syntax::diag::Diagnostic;
use std::collections::HashSet;

struct Walk<'v> {
    vars: &'v [Var],
    unset: HashSet<VarId>,
    warned: HashSet<VarId>,
    out: Vec<Diagnostic>,
}

/// Warnings for statement lists that run one after the other in the frame `vars`.
pub fn check(vars: &[Var], stmts: &[&[Stmt]]) -> Vec<Diagnostic> {
    let mut w = Walk { vars, unset: HashSet::new(), warned: HashSet::new(), out: vec![] };
    for ss in stmts {
        w.visit_stmts(ss);
    }
    w.out
}

/// Warnings for a parser: its initialisation, then its states in order (select keys are reads).
pub fn check_parser(p: &Parser) -> Vec<Diagnostic> {
    let mut w = Walk { vars: &p.block.vars, unset: HashSet::new(), warned: HashSet::new(), out: vec![] };
    w.visit_stmts(&p.init);
    for st in &p.states {
        w.visit_stmts(&st.body);
        if let Transition::Select { keys, .. } = &st.transition {
            keys.iter().for_each(|k| w.visit_expr(k));
        }
    }
    w.out
}

fn root(e: &Expr) -> Option<VarId> {
    match &e.kind {
        ExprKind::Var(v) => Some(*v),
        ExprKind::Field(b, _) | ExprKind::Index(b, _) | ExprKind::StackNext(b) | ExprKind::StackLast(b) | ExprKind::Slice(b, _, _) => root(b),
        _ => None,
    }
}

impl Walk<'_> {
    fn write(&mut self, lhs: &Expr) {
        // Index expressions inside an l-value are reads.
        if let ExprKind::Index(b, i) = &lhs.kind {
            self.visit_expr(i);
            self.write(b);
            return;
        }
        if let Some(v) = root(lhs) {
            self.unset.remove(&v);
        }
    }
}

/// Statements in textual order; every expression the walk reaches is a read, except where a
/// statement or argument says otherwise.
impl Visit<'_> for Walk<'_> {
    fn visit_stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::VarInit { var, init: None, .. } => {
                let scalar = self.vars.get(var.index()).is_some_and(|v| matches!(v.ty, Type::Bits { .. } | Type::Bool));
                if scalar {
                    self.unset.insert(*var);
                    self.warned.remove(var);
                }
            }
            Stmt::VarInit { var, init: Some(e), .. } => {
                self.visit_expr(e);
                self.unset.remove(var);
            }
            Stmt::Assign { lhs, rhs, .. } => {
                self.visit_expr(rhs);
                self.write(lhs);
            }
            Stmt::For { init, cond, update, body, .. } => {
                self.visit_stmts(init);
                // Loop-carried values: writes anywhere in the loop count before the condition.
                self.visit_stmts(update);
                self.visit_stmts(body);
                if let Some(c) = cond {
                    self.visit_expr(c);
                }
            }
            _ => walk_stmt(self, s),
        }
    }

    fn visit_expr(&mut self, e: &Expr) {
        if let ExprKind::Var(v) = e.kind {
            if self.unset.contains(&v) && self.warned.insert(v) {
                let name = self.vars.get(v.index()).map(|x| x.name.as_str()).unwrap_or("?");
                self.out.push(Diagnostic::warning(e.span, format!("`{name}` may be used before it is initialized")));
            }
        }
        walk_expr(self, e);
    }

    /// Targets of method calls (`h.isValid()`, `reg.read(...)`) are not value reads.
    fn visit_call(&mut self, c: &Call) {
        c.args.iter().for_each(|a| self.visit_arg(a));
    }

    fn visit_arg(&mut self, a: &Arg) {
        match a.direction {
            Direction::Out => self.write(&a.expr),
            Direction::InOut => {
                self.visit_expr(&a.expr);
                self.write(&a.expr);
            }
            _ => self.visit_expr(&a.expr),
        }
    }
}
