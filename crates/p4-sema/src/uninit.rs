//! "May be used uninitialized" warnings.
//!
//! Deliberately simple and conservative (it must never produce an error, and should rarely warn
//! wrongly): statements are visited in textual order; a scalar local (`bit`, `int`, `bool`) declared
//! without an initializer is "unset" until some statement writes it (anywhere earlier in the text,
//! whatever the branch); a read of an unset variable warns once.

use p4_ir::{Arg, Call, Callee, Direction, Expr, ExprKind, Parser, Stmt, Transition, Type, Var, VarId};
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
        w.stmts(ss);
    }
    w.out
}

/// Warnings for a parser: its initialisation, then its states in order (select keys are reads).
pub fn check_parser(p: &Parser) -> Vec<Diagnostic> {
    let mut w = Walk { vars: &p.block.vars, unset: HashSet::new(), warned: HashSet::new(), out: vec![] };
    w.stmts(&p.init);
    for st in &p.states {
        w.stmts(&st.body);
        if let Transition::Select { keys, .. } = &st.transition {
            keys.iter().for_each(|k| w.read(k));
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
    fn stmts(&mut self, ss: &[Stmt]) {
        for s in ss {
            self.stmt(s);
        }
    }

    fn write(&mut self, lhs: &Expr) {
        // Index expressions inside an l-value are reads.
        if let ExprKind::Index(b, i) = &lhs.kind {
            self.read(i);
            self.write(b);
            return;
        }
        if let Some(v) = root(lhs) {
            self.unset.remove(&v);
        }
    }

    fn args(&mut self, args: &[Arg]) {
        for a in args {
            match a.direction {
                Direction::Out => self.write(&a.expr),
                Direction::InOut => {
                    self.read(&a.expr);
                    self.write(&a.expr);
                }
                _ => self.read(&a.expr),
            }
        }
    }

    fn call(&mut self, c: &Call) {
        match &c.callee {
            Callee::Method { target, .. } => self.read_silently(target),
            Callee::Builtin { target, .. } => self.read_silently(target),
            _ => {}
        }
        self.args(&c.args);
    }

    /// Targets of method calls (`h.isValid()`, `reg.read(...)`) are not value reads.
    fn read_silently(&mut self, _e: &Expr) {}

    fn read(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Var(v) if self.unset.contains(v) && self.warned.insert(*v) => {
                let name = self.vars.get(v.index()).map(|x| x.name.as_str()).unwrap_or("?");
                self.out.push(Diagnostic::warning(e.span, format!("`{name}` may be used before it is initialized")));
            }
            ExprKind::Field(b, _) | ExprKind::StackNext(b) | ExprKind::StackLast(b) | ExprKind::StackLastIndex(b) | ExprKind::Slice(b, _, _) | ExprKind::Unary(_, b) | ExprKind::Cast(b) => self.read(b),
            ExprKind::Index(b, i) | ExprKind::Binary(_, b, i) => {
                self.read(b);
                self.read(i);
            }
            ExprKind::Mux(c, a, b) => {
                self.read(c);
                self.read(a);
                self.read(b);
            }
            ExprKind::Call(c) => self.call(c),
            ExprKind::Aggregate(xs) => xs.iter().for_each(|x| self.read(x)),
            _ => {}
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::VarInit { var, init, .. } => match init {
                Some(e) => {
                    self.read(e);
                    self.unset.remove(var);
                }
                None => {
                    let scalar = self.vars.get(var.index()).is_some_and(|v| matches!(v.ty, Type::Bits { .. } | Type::Bool));
                    if scalar {
                        self.unset.insert(*var);
                        self.warned.remove(var);
                    }
                }
            },
            Stmt::Assign { lhs, rhs, .. } => {
                self.read(rhs);
                self.write(lhs);
            }
            Stmt::Call(c) => self.call(c),
            Stmt::ApplyBlock { args, .. } => self.args(args),
            Stmt::If { cond, then, otherwise, .. } => {
                self.read(cond);
                self.stmts(then);
                self.stmts(otherwise);
            }
            Stmt::SwitchAction { cases, .. } => cases.iter().for_each(|(_, b)| self.stmts(b)),
            Stmt::SwitchValue { expr, cases, .. } => {
                self.read(expr);
                cases.iter().for_each(|(_, b)| self.stmts(b));
            }
            Stmt::Block(b) => self.stmts(b),
            Stmt::Return(Some(e), _) => self.read(e),
            Stmt::For { init, cond, update, body, .. } => {
                self.stmts(init);
                // Loop-carried values: writes anywhere in the loop count before the condition.
                self.stmts(update);
                self.stmts(body);
                if let Some(c) = cond {
                    self.read(c);
                }
            }
            _ => {}
        }
    }
}
