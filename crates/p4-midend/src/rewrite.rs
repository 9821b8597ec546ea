//! The statement walk shared by the passes that move parts of a statement's operands in front of it
//! (`hoist-effects`, `inline-functions`): both rewrite every operand in evaluation order with a
//! [`Guard`] of what was evaluated before, push what they hoist, then the statement itself. Only the
//! expression rewrite and a few statements differ, so a pass implements [`OperandRewriter::expr`] and
//! overrides [`OperandRewriter::stmt`] / [`OperandRewriter::top`] where it differs. `unroll-loops`
//! uses only the statement walk (its `expr` does nothing).
//!
//! This walk is not [`p4_ir::visit`]'s: it takes each statement by value and returns the statements
//! that replace it (what it hoists goes in front), it treats a statement's whole operand apart from
//! the operands inside it, and it keeps a [`Guard`] of what was evaluated before each operand (the
//! right operand of `&&`/`||` and the arms of `?:` may not run; a `for` condition has no place in
//! front of it). A plain visit in evaluation order gives none of that.

use p4_ir::{BinOp, Builtin, Call, Callee, Expr, ExprKind, Span, Stmt, Type, VarId};
use std::collections::HashSet;

use crate::util::root_var;
use p4_ir::visit::for_each_expr;

/// What has been evaluated so far in the statement being rewritten, in evaluation order.
#[derive(Default)]
pub(crate) struct Guard {
    /// Variables read by the parts that stay in the statement.
    pub reads: HashSet<VarId>,
    /// Something with effects stays in the statement: nothing after it may be hoisted.
    pub impure: bool,
    /// Inside `&&`/`||` right operands or `?:` branches.
    pub conditional: u32,
}

pub(crate) trait OperandRewriter {
    /// Walks `e` in evaluation order, pushing what it hoists onto `pre`; a pass handles the
    /// expressions it hoists and leaves the rest to [`OperandRewriter::walk_expr`].
    fn expr(&mut self, e: &mut Expr, g: &mut Guard, pre: &mut Vec<Stmt>);

    /// The whole operand of a statement (a pass may treat it specially: it is evaluated last).
    fn top(&mut self, e: &mut Expr, g: &mut Guard, pre: &mut Vec<Stmt>) {
        self.expr(e, g, pre);
    }

    /// Rewrites one statement onto `out`; a pass overrides it for its own cases and falls back to
    /// [`OperandRewriter::walk_stmt`].
    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        self.walk_stmt(s, out);
    }

    fn list(&mut self, stmts: Vec<Stmt>) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(stmts.len());
        for s in stmts {
            self.stmt(s, &mut out);
        }
        out
    }

    /// The shared rewrite: operands through `top`/`expr`, nested lists through `list`.
    fn walk_stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        match s {
            Stmt::Call(mut call) => {
                self.call_parts(&mut call, &mut Guard::default(), out);
                out.push(Stmt::Call(call));
            }
            Stmt::Assign { lhs, mut rhs, span } => {
                let mut g = Guard::default();
                place_reads(&lhs, &mut g);
                self.top(&mut rhs, &mut g, out);
                out.push(Stmt::Assign { lhs, rhs, span });
            }
            Stmt::VarInit { var, init: Some(mut e), span } => {
                self.top(&mut e, &mut Guard::default(), out);
                out.push(Stmt::VarInit { var, init: Some(e), span });
            }
            Stmt::If { mut cond, then, otherwise, span } => {
                self.top(&mut cond, &mut Guard::default(), out);
                let (then, otherwise) = (self.list(then), self.list(otherwise));
                out.push(Stmt::If { cond, then, otherwise, span });
            }
            Stmt::SwitchValue { mut expr, cases, span } => {
                self.top(&mut expr, &mut Guard::default(), out);
                let cases = cases.into_iter().map(|(v, l)| (v, self.list(l))).collect();
                out.push(Stmt::SwitchValue { expr, cases, span });
            }
            Stmt::SwitchAction { table, cases, span } => {
                let cases = cases.into_iter().map(|(a, l)| (a, self.list(l))).collect();
                out.push(Stmt::SwitchAction { table, cases, span });
            }
            Stmt::Block(l) => {
                let l = self.list(l);
                out.push(Stmt::Block(l));
            }
            Stmt::Return(Some(mut e), span) => {
                self.top(&mut e, &mut Guard::default(), out);
                out.push(Stmt::Return(Some(e), span));
            }
            // The condition has no statement in front of it that would run on every iteration.
            Stmt::For { init, cond, update, body, span } => {
                let (init, update, body) = (self.list(init), self.list(update), self.list(body));
                out.push(Stmt::For { init, cond, update, body, span });
            }
            Stmt::ApplyBlock { block, mut args, span } => {
                let mut g = Guard::default();
                for a in &mut args {
                    self.expr(&mut a.expr, &mut g, out);
                }
                out.push(Stmt::ApplyBlock { block, args, span });
            }
            other => out.push(other),
        }
    }

    /// The shared expression walk, in evaluation order: nothing is hoisted here, only what is read is
    /// noted, and a call or table apply that stays makes the rest of the statement impure.
    fn walk_expr(&mut self, e: &mut Expr, g: &mut Guard, pre: &mut Vec<Stmt>) {
        match &mut e.kind {
            ExprKind::Var(v) => {
                g.reads.insert(*v);
            }
            ExprKind::Field(b, _)
            | ExprKind::StackNext(b)
            | ExprKind::StackLast(b)
            | ExprKind::StackLastIndex(b)
            | ExprKind::Slice(b, _, _)
            | ExprKind::Unary(_, b)
            | ExprKind::Cast(b) => self.expr(b, g, pre),
            ExprKind::Index(b, i) => {
                self.expr(b, g, pre);
                self.expr(i, g, pre);
            }
            ExprKind::Binary(op, l, r) => {
                // The right operand of `&&`/`||` may not run: nothing in it may be hoisted.
                let short = matches!(op, BinOp::And | BinOp::Or);
                self.expr(l, g, pre);
                g.conditional += u32::from(short);
                self.expr(r, g, pre);
                g.conditional -= u32::from(short);
            }
            ExprKind::Mux(c, a, b) => {
                self.expr(c, g, pre);
                g.conditional += 1;
                self.expr(a, g, pre);
                self.expr(b, g, pre);
                g.conditional -= 1;
            }
            ExprKind::Aggregate(xs) => xs.iter_mut().for_each(|x| self.expr(x, g, pre)),
            ExprKind::ApplyTable(..) => g.impure = true,
            ExprKind::Call(call) => {
                let pure = matches!(call.callee, Callee::Builtin { builtin: Builtin::IsValid, .. });
                self.call_parts(call, g, pre);
                if !pure {
                    g.impure = true;
                }
            }
            ExprKind::Const(_) | ExprKind::InvalidHeader | ExprKind::Extern(_) | ExprKind::DontCare => {}
        }
    }

    /// The target and arguments of a call that stays.
    fn call_parts(&mut self, call: &mut Call, g: &mut Guard, pre: &mut Vec<Stmt>) {
        if let Callee::Method { target, .. } | Callee::Builtin { target, .. } = &mut call.callee {
            self.expr(target, g, pre);
        }
        for a in &mut call.args {
            self.expr(&mut a.expr, g, pre);
        }
    }
}

pub(crate) fn var_expr(v: VarId, ty: Type, span: Span) -> Expr {
    Expr::new(ty, ExprKind::Var(v), span)
}

/// Reads made when an assignment's place is chosen (run-time stack indices, `.next`/`.last`), which
/// happens before the right-hand side is evaluated; a call in the place makes the statement impure.
pub(crate) fn place_reads(lhs: &Expr, g: &mut Guard) {
    match &lhs.kind {
        ExprKind::Index(b, i) => {
            place_reads(b, g);
            for_each_expr(i, |x| match x.kind {
                ExprKind::Var(v) => {
                    g.reads.insert(v);
                }
                ExprKind::Call(_) | ExprKind::ApplyTable(..) => g.impure = true,
                _ => {}
            });
        }
        ExprKind::StackNext(b) | ExprKind::StackLast(b) => {
            // `.next`/`.last` depend on the stack's nextIndex, read when the place is chosen.
            if let Some(v) = root_var(b) {
                g.reads.insert(v);
            }
            place_reads(b, g)
        }
        ExprKind::Field(b, _) | ExprKind::Slice(b, _, _) => place_reads(b, g),
        _ => {}
    }
}
