//! Visitors: one walk of the IR's shape for every analysis and pass that looks for something in it.
//!
//! Analyses and passes mostly care about a few kinds of node (variable reads, calls, `init`s) and
//! want to reach every one of them wherever it is nested. Matching on every [`Stmt`] and
//! [`ExprKind`] variant in each of them would repeat the IR's shape in dozens of places, and a new
//! variant would have to be added to all of them. Instead, a visitor overrides the methods for the
//! nodes it cares about and leaves the rest to the default walks below, which know the shape.
//!
//! - [`Visit`] visits shared references with the lifetime `'a` of the visited code, so a visitor
//!   may keep references to what it sees (collect the `&'a Expr` it visits).
//! - [`VisitMut`] visits mutable references, to rewrite in place. Its statement lists are
//!   `&mut Vec<Stmt>`, so a visitor may also insert or remove statements.
//!
//! Every `visit_*` method defaults to the free function `walk_*` (`walk_*_mut`) that visits the
//! node's children. An override that calls the walk before its own work visits in post-order,
//! after it in pre-order; one that does not call it does not descend (a visitor that only looks at
//! statements overrides [`Visit::visit_expr`] with an empty body to skip expressions).
//!
//! Code is visited in evaluation order:
//! - a call: a method's or builtin's target, then the arguments in order;
//! - `a op b`: `a`, then `b` (also for `&&` and `||`, whose right operand may not run);
//! - `c ? a : b`: `c`, then `a`, then `b` (only one of `a` and `b` runs);
//! - `base[index]`: the base, then the index; an aggregate: its fields in order;
//! - `lhs = rhs`: `lhs` (its place is chosen first), then `rhs`;
//! - `if`: the condition, then the `then` list, then the `else` list; `switch`: the switched
//!   expression, then each case's list in order (case labels are values, not expressions);
//! - `for`: `init`, the condition, the body, then `update`.
//!
//! Declarations follow their order in the program: a select transition's keys, then each case's
//! keysets; a table's keys, each listed action's bound arguments, the default action's arguments,
//! then each entry's keysets and action arguments. [`walk_program`] ([`walk_program_mut`]) visits
//! all the code of a program: each parser's `init`, then each of its states' body and transition;
//! each control's `init` and body; each action's and each function's body; each table. A visitor
//! that needs to know which block a statement list runs in visits the lists itself.
//!
//! Small visitors for frequent questions are here too: [`operands`] (an expression's direct
//! sub-expressions), [`Outermost`] and [`EachExpr`] (a closure applied to the outermost or to every
//! expression a walk reaches), [`any_stmt`], and [`crate::Expr::any`].
//!
//! ```
//! use p4_ir::visit::{walk_expr, walk_expr_mut, Visit, VisitMut};
//! use p4_ir::{BinOp, Expr, ExprKind, Span, Type, VarId};
//!
//! /// The variables an expression reads, in evaluation order.
//! struct Reads<'a>(Vec<&'a Expr>);
//!
//! impl<'a> Visit<'a> for Reads<'a> {
//!     fn visit_expr(&mut self, e: &'a Expr) {
//!         if let ExprKind::Var(_) = e.kind {
//!             self.0.push(e);
//!         }
//!         walk_expr(self, e);
//!     }
//! }
//!
//! /// Renames variable `from` to `to` wherever it is read or written.
//! struct Rename { from: VarId, to: VarId }
//!
//! impl VisitMut for Rename {
//!     fn visit_expr(&mut self, e: &mut Expr) {
//!         if matches!(e.kind, ExprKind::Var(v) if v == self.from) {
//!             e.kind = ExprKind::Var(self.to);
//!         }
//!         walk_expr_mut(self, e);
//!     }
//! }
//!
//! let var = |i| Expr::new(Type::bit(8), ExprKind::Var(VarId(i)), Span::DUMMY);
//! let mut sum = Expr::new(Type::bit(8), ExprKind::Binary(BinOp::Add, Box::new(var(0)), Box::new(var(1))), Span::DUMMY);
//! Rename { from: VarId(0), to: VarId(2) }.visit_expr(&mut sum);
//!
//! let mut reads = Reads(Vec::new());
//! reads.visit_expr(&sum);
//! let read: Vec<VarId> = reads.0.iter().filter_map(|e| match e.kind { ExprKind::Var(v) => Some(v), _ => None }).collect();
//! assert_eq!(read, [VarId(2), VarId(1)]);
//! ```

mod mutable;
mod queries;

pub use mutable::*;
pub use queries::*;

use crate::*;

/// A visitor of shared IR nodes. Each method defaults to the walk of the same name, which visits
/// the node's children (see the module docs for their order).
pub trait Visit<'a> {
    fn visit_stmts(&mut self, stmts: &'a [Stmt]) {
        walk_stmts(self, stmts);
    }
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        walk_stmt(self, stmt);
    }
    fn visit_expr(&mut self, expr: &'a Expr) {
        walk_expr(self, expr);
    }
    /// A call, whether it is a statement ([`Stmt::Call`]) or an expression ([`ExprKind::Call`]).
    fn visit_call(&mut self, call: &'a Call) {
        walk_call(self, call);
    }
    /// An argument of a call or of a sub-block apply (its direction tells a read from a write).
    fn visit_arg(&mut self, arg: &'a Arg) {
        walk_arg(self, arg);
    }
    fn visit_transition(&mut self, transition: &'a Transition) {
        walk_transition(self, transition);
    }
    fn visit_keyset(&mut self, keyset: &'a Keyset) {
        walk_keyset(self, keyset);
    }
    fn visit_table(&mut self, table: &'a Table) {
        walk_table(self, table);
    }
}

/// Visits every statement list of the program, every transition and every table (in the order the
/// module docs give).
pub fn walk_program<'a, V: Visit<'a> + ?Sized>(v: &mut V, program: &'a Program) {
    for p in &program.parsers {
        v.visit_stmts(&p.init);
        for s in &p.states {
            v.visit_stmts(&s.body);
            v.visit_transition(&s.transition);
        }
    }
    for c in &program.controls {
        v.visit_stmts(&c.init);
        v.visit_stmts(&c.body);
    }
    for a in &program.actions {
        v.visit_stmts(&a.body);
    }
    for f in &program.functions {
        v.visit_stmts(&f.body);
    }
    for t in &program.tables {
        v.visit_table(t);
    }
}

pub fn walk_stmts<'a, V: Visit<'a> + ?Sized>(v: &mut V, stmts: &'a [Stmt]) {
    for s in stmts {
        v.visit_stmt(s);
    }
}

pub fn walk_stmt<'a, V: Visit<'a> + ?Sized>(v: &mut V, stmt: &'a Stmt) {
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
        Stmt::ApplyBlock { args, .. } => args.iter().for_each(|a| v.visit_arg(a)),
        Stmt::If { cond, then, otherwise, .. } => {
            v.visit_expr(cond);
            v.visit_stmts(then);
            v.visit_stmts(otherwise);
        }
        Stmt::SwitchAction { cases, .. } => cases.iter().for_each(|(_, body)| v.visit_stmts(body)),
        Stmt::SwitchValue { expr, cases, .. } => {
            v.visit_expr(expr);
            cases.iter().for_each(|(_, body)| v.visit_stmts(body));
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

pub fn walk_expr<'a, V: Visit<'a> + ?Sized>(v: &mut V, expr: &'a Expr) {
    match &expr.kind {
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
        ExprKind::Aggregate(xs) => xs.iter().for_each(|x| v.visit_expr(x)),
        ExprKind::Const(_)
        | ExprKind::Var(_)
        | ExprKind::ApplyTable(..)
        | ExprKind::InvalidHeader
        | ExprKind::Extern(_)
        | ExprKind::DontCare => {}
    }
}

pub fn walk_call<'a, V: Visit<'a> + ?Sized>(v: &mut V, call: &'a Call) {
    match &call.callee {
        Callee::Method { target, .. } | Callee::Builtin { target, .. } => v.visit_expr(target),
        Callee::Action(_) | Callee::Function(_) | Callee::ExternFunction { .. } => {}
    }
    call.args.iter().for_each(|a| v.visit_arg(a));
}

pub fn walk_arg<'a, V: Visit<'a> + ?Sized>(v: &mut V, arg: &'a Arg) {
    v.visit_expr(&arg.expr);
}

pub fn walk_transition<'a, V: Visit<'a> + ?Sized>(v: &mut V, transition: &'a Transition) {
    match transition {
        Transition::Goto(_) => {}
        Transition::Select { keys, cases } => {
            keys.iter().for_each(|k| v.visit_expr(k));
            for c in cases {
                c.keysets.iter().for_each(|k| v.visit_keyset(k));
            }
        }
    }
}

pub fn walk_keyset<'a, V: Visit<'a> + ?Sized>(v: &mut V, keyset: &'a Keyset) {
    match keyset {
        Keyset::Value(e) | Keyset::Lpm(e, _) => v.visit_expr(e),
        Keyset::Mask(a, b) | Keyset::Range(a, b) => {
            v.visit_expr(a);
            v.visit_expr(b);
        }
        Keyset::Any | Keyset::ValueSet(_) => {}
    }
}

pub fn walk_table<'a, V: Visit<'a> + ?Sized>(v: &mut V, table: &'a Table) {
    table.keys.iter().for_each(|k| v.visit_expr(&k.expr));
    for a in &table.actions {
        a.bound_args.iter().for_each(|x| v.visit_expr(x));
    }
    if let Some(d) = &table.default_action {
        d.args.iter().for_each(|x| v.visit_expr(x));
    }
    for e in &table.entries {
        e.keys.iter().for_each(|k| v.visit_keyset(k));
        e.action.args.iter().for_each(|x| v.visit_expr(x));
    }
}
