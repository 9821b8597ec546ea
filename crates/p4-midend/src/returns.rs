//! Return elimination, shared by the inliners: an inlined body cannot `return` (that would leave the
//! caller), so each `return` becomes a store to the return slot and, where statements follow it, a
//! flag that guards them: the rest of the list runs under `if (!flag)`, and inside a loop
//! `if (flag) break;` leaves the loop. A body whose only return is its last statement needs no flag.

use crate::util::any_stmt;
use p4_ir::visit::{walk_stmts_mut, VisitMut};
use p4_ir::{Expr, ExprKind, Span, Stmt, Type, UnOp, Value, VarId};

pub(crate) fn bool_const(b: bool, span: Span) -> Expr {
    Expr::constant(Value::Bool(b), Type::Bool, span)
}

fn var_expr(v: VarId, ty: Type, span: Span) -> Expr {
    Expr::new(ty, ExprKind::Var(v), span)
}

/// Rewrites the returns of `body`; `ret` is the return slot (functions). `new_flag` is called once if
/// a flag is needed; the caller must initialise that flag to `false` before the body runs.
pub(crate) fn eliminate_returns(
    body: Vec<Stmt>,
    ret: Option<(VarId, Type)>,
    new_flag: &mut dyn FnMut() -> VarId,
) -> (Vec<Stmt>, Option<VarId>) {
    let mut elim = ReturnElim { ret, used: false };
    let body = elim.list(body, false);
    if elim.used {
        let flag = new_flag();
        let mut body = body;
        crate::util::walk_stmts_exprs_mut(&mut body, &mut |e| {
            if matches!(e.kind, ExprKind::Var(v) if v == PLACEHOLDER) {
                e.kind = ExprKind::Var(flag);
            }
        });
        (body, Some(flag))
    } else {
        (strip_flag(body), None)
    }
}

/// Stands for the early-return flag until the expansion knows whether it needs one.
const PLACEHOLDER: VarId = VarId(u32::MAX);

/// Turns `return` into stores to the return slot and (where statements follow) a flag that guards them.
struct ReturnElim {
    ret: Option<(VarId, Type)>,
    used: bool,
}

fn has_return(s: &Stmt) -> bool {
    any_stmt(std::slice::from_ref(s), &|x| matches!(x, Stmt::Return(..)))
}

/// True if `s` is or contains a loop whose body had a return (it is now the flag store and a `break`
/// of that loop, which leaves only that loop).
fn returns_from_nested_loop(s: &Stmt) -> bool {
    any_stmt(std::slice::from_ref(s), &|x| {
        matches!(x, Stmt::For { body, .. } if any_stmt(body, &|y| {
            matches!(y, Stmt::Assign { lhs, .. } if matches!(lhs.kind, ExprKind::Var(v) if v == PLACEHOLDER))
        }))
    })
}

impl ReturnElim {
    fn list(&mut self, stmts: Vec<Stmt>, in_loop: bool) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut rest = stmts.into_iter();
        while let Some(s) = rest.next() {
            if let Stmt::Return(value, span) = s {
                if let (Some((r, ty)), Some(e)) = (&self.ret, value) {
                    out.push(Stmt::Assign { lhs: var_expr(*r, ty.clone(), span), rhs: e, span });
                }
                out.push(Stmt::Assign {
                    lhs: var_expr(PLACEHOLDER, Type::Bool, span),
                    rhs: bool_const(true, span),
                    span,
                });
                if in_loop {
                    out.push(Stmt::Break(span));
                }
                // Whatever follows a return in the same list never runs.
                return out;
            }
            let may_return = has_return(&s);
            out.push(self.stmt(s, in_loop));
            if may_return {
                let rest: Vec<Stmt> = rest.collect();
                if rest.is_empty() {
                    // A return in a loop nested in `s` only left that loop: this one must be left too.
                    if in_loop && returns_from_nested_loop(&out[out.len() - 1]) {
                        self.used = true;
                        let span = Span::DUMMY;
                        let flag = var_expr(PLACEHOLDER, Type::Bool, span);
                        out.push(Stmt::If { cond: flag, then: vec![Stmt::Break(span)], otherwise: vec![], span });
                    }
                    return out;
                }
                self.used = true;
                let span = Span::DUMMY;
                let flag = var_expr(PLACEHOLDER, Type::Bool, span);
                if in_loop {
                    out.push(Stmt::If { cond: flag, then: vec![Stmt::Break(span)], otherwise: vec![], span });
                    out.extend(self.list(rest, true));
                } else {
                    let not = Expr::new(Type::Bool, ExprKind::Unary(UnOp::Not, Box::new(flag)), span);
                    let then = self.list(rest, false);
                    out.push(Stmt::If { cond: not, then, otherwise: vec![], span });
                }
                return out;
            }
        }
        out
    }

    fn stmt(&mut self, s: Stmt, in_loop: bool) -> Stmt {
        match s {
            Stmt::If { cond, then, otherwise, span } => {
                Stmt::If { cond, then: self.list(then, in_loop), otherwise: self.list(otherwise, in_loop), span }
            }
            Stmt::SwitchAction { table, cases, span } => Stmt::SwitchAction {
                table,
                cases: cases.into_iter().map(|(a, l)| (a, self.list(l, in_loop))).collect(),
                span,
            },
            Stmt::SwitchValue { expr, cases, span } => Stmt::SwitchValue {
                expr,
                cases: cases.into_iter().map(|(v, l)| (v, self.list(l, in_loop))).collect(),
                span,
            },
            Stmt::Block(l) => Stmt::Block(self.list(l, in_loop)),
            Stmt::For { init, cond, update, body, span } => {
                Stmt::For { init, cond, update, body: self.list(body, true), span }
            }
            other => other,
        }
    }
}

/// Removes the flag stores when no statement reads the flag.
fn strip_flag(mut stmts: Vec<Stmt>) -> Vec<Stmt> {
    struct StripFlag;
    impl VisitMut for StripFlag {
        fn visit_stmts(&mut self, stmts: &mut Vec<Stmt>) {
            stmts.retain(
                |s| !matches!(s, Stmt::Assign { lhs, .. } if matches!(lhs.kind, ExprKind::Var(v) if v == PLACEHOLDER)),
            );
            walk_stmts_mut(self, stmts);
        }
        fn visit_expr(&mut self, _: &mut Expr) {}
    }
    StripFlag.visit_stmts(&mut stmts);
    stmts
}
