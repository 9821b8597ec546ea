//! [`VisitMut`]: the walks of [`super::Visit`] over mutable references, in the same order.

use crate::*;

/// A visitor that may rewrite what it visits. Each method defaults to the walk of the same name
/// (`walk_*_mut`), which visits the node's children in the order the module docs give.
pub trait VisitMut {
    /// A statement list; a visitor may add or remove statements before or after walking it.
    fn visit_stmts(&mut self, stmts: &mut Vec<Stmt>) {
        walk_stmts_mut(self, stmts);
    }
    fn visit_stmt(&mut self, stmt: &mut Stmt) {
        walk_stmt_mut(self, stmt);
    }
    fn visit_expr(&mut self, expr: &mut Expr) {
        walk_expr_mut(self, expr);
    }
    /// A call, whether it is a statement ([`Stmt::Call`]) or an expression ([`ExprKind::Call`]).
    fn visit_call(&mut self, call: &mut Call) {
        walk_call_mut(self, call);
    }
    fn visit_arg(&mut self, arg: &mut Arg) {
        walk_arg_mut(self, arg);
    }
    fn visit_transition(&mut self, transition: &mut Transition) {
        walk_transition_mut(self, transition);
    }
    fn visit_keyset(&mut self, keyset: &mut Keyset) {
        walk_keyset_mut(self, keyset);
    }
    fn visit_table(&mut self, table: &mut Table) {
        walk_table_mut(self, table);
    }
}

/// [`super::walk_program`], mutably.
pub fn walk_program_mut<V: VisitMut + ?Sized>(v: &mut V, program: &mut Program) {
    for p in &mut program.parsers {
        v.visit_stmts(&mut p.init);
        for s in &mut p.states {
            v.visit_stmts(&mut s.body);
            v.visit_transition(&mut s.transition);
        }
    }
    for c in &mut program.controls {
        v.visit_stmts(&mut c.init);
        v.visit_stmts(&mut c.body);
    }
    for a in &mut program.actions {
        v.visit_stmts(&mut a.body);
    }
    for f in &mut program.functions {
        v.visit_stmts(&mut f.body);
    }
    for t in &mut program.tables {
        v.visit_table(t);
    }
}

pub fn walk_stmts_mut<V: VisitMut + ?Sized>(v: &mut V, stmts: &mut Vec<Stmt>) {
    for s in stmts {
        v.visit_stmt(s);
    }
}

pub fn walk_stmt_mut<V: VisitMut + ?Sized>(v: &mut V, stmt: &mut Stmt) {
    match stmt {
        Stmt::VarInit { init, .. } => {
            if let Some(e) = init {
                v.visit_expr(e);
            }
        }
        Stmt::Assign { lhs, rhs, .. } => {
            v.visit_expr(lhs);
            v.visit_expr(rhs);
        }
        Stmt::Call(c) => v.visit_call(c),
        Stmt::ApplyBlock { args, .. } => args.iter_mut().for_each(|a| v.visit_arg(a)),
        Stmt::If { cond, then, otherwise, .. } => {
            v.visit_expr(cond);
            v.visit_stmts(then);
            v.visit_stmts(otherwise);
        }
        Stmt::SwitchAction { cases, .. } => cases.iter_mut().for_each(|(_, body)| v.visit_stmts(body)),
        Stmt::SwitchValue { expr, cases, .. } => {
            v.visit_expr(expr);
            cases.iter_mut().for_each(|(_, body)| v.visit_stmts(body));
        }
        Stmt::Block(body) => v.visit_stmts(body),
        Stmt::Return(Some(e), _) => v.visit_expr(e),
        Stmt::For { init, cond, update, body, .. } => {
            v.visit_stmts(init);
            if let Some(c) = cond {
                v.visit_expr(c);
            }
            v.visit_stmts(body);
            v.visit_stmts(update);
        }
        Stmt::ApplyTable { .. }
        | Stmt::Exit(_)
        | Stmt::Return(None, _)
        | Stmt::Break(_)
        | Stmt::Continue(_)
        | Stmt::Empty => {}
    }
}

pub fn walk_expr_mut<V: VisitMut + ?Sized>(v: &mut V, expr: &mut Expr) {
    match &mut expr.kind {
        ExprKind::Field(x, _)
        | ExprKind::StackNext(x)
        | ExprKind::StackLast(x)
        | ExprKind::StackLastIndex(x)
        | ExprKind::Slice(x, _, _)
        | ExprKind::Unary(_, x)
        | ExprKind::Cast(x) => v.visit_expr(x),
        ExprKind::Index(base, index) => {
            v.visit_expr(base);
            v.visit_expr(index);
        }
        ExprKind::Binary(_, l, r) => {
            v.visit_expr(l);
            v.visit_expr(r);
        }
        ExprKind::Mux(c, a, b) => {
            v.visit_expr(c);
            v.visit_expr(a);
            v.visit_expr(b);
        }
        ExprKind::Call(c) => v.visit_call(c),
        ExprKind::Aggregate(xs) => xs.iter_mut().for_each(|x| v.visit_expr(x)),
        ExprKind::Const(_)
        | ExprKind::Var(_)
        | ExprKind::ApplyTable(..)
        | ExprKind::InvalidHeader
        | ExprKind::Extern(_)
        | ExprKind::DontCare => {}
    }
}

pub fn walk_call_mut<V: VisitMut + ?Sized>(v: &mut V, call: &mut Call) {
    match &mut call.callee {
        Callee::Method { target, .. } | Callee::Builtin { target, .. } => v.visit_expr(target),
        Callee::Action(_) | Callee::Function(_) | Callee::ExternFunction { .. } => {}
    }
    call.args.iter_mut().for_each(|a| v.visit_arg(a));
}

pub fn walk_arg_mut<V: VisitMut + ?Sized>(v: &mut V, arg: &mut Arg) {
    v.visit_expr(&mut arg.expr);
}

pub fn walk_transition_mut<V: VisitMut + ?Sized>(v: &mut V, transition: &mut Transition) {
    match transition {
        Transition::Goto(_) => {}
        Transition::Select { keys, cases } => {
            keys.iter_mut().for_each(|k| v.visit_expr(k));
            for c in cases {
                c.keysets.iter_mut().for_each(|k| v.visit_keyset(k));
            }
        }
    }
}

pub fn walk_keyset_mut<V: VisitMut + ?Sized>(v: &mut V, keyset: &mut Keyset) {
    match keyset {
        Keyset::Value(e) | Keyset::Lpm(e, _) => v.visit_expr(e),
        Keyset::Mask(a, b) | Keyset::Range(a, b) => {
            v.visit_expr(a);
            v.visit_expr(b);
        }
        Keyset::Any | Keyset::ValueSet(_) => {}
    }
}

pub fn walk_table_mut<V: VisitMut + ?Sized>(v: &mut V, table: &mut Table) {
    table.keys.iter_mut().for_each(|k| v.visit_expr(&mut k.expr));
    for a in &mut table.actions {
        a.bound_args.iter_mut().for_each(|x| v.visit_expr(x));
    }
    if let Some(d) = &mut table.default_action {
        d.args.iter_mut().for_each(|x| v.visit_expr(x));
    }
    for e in &mut table.entries {
        e.keys.iter_mut().for_each(|k| v.visit_keyset(k));
        e.action.args.iter_mut().for_each(|x| v.visit_expr(x));
    }
}
