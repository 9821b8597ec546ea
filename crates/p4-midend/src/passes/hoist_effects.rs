//! `hoist-effects`: expressions with effects move out of the expressions that use them, into their
//! own statement, so that each statement performs at most one effect and does it first.
//!
//! - A table apply used as a value becomes an explicit boolean: `if (t.apply().hit) ...` turns into
//!   `init t_hit = t.apply().hit; if (t_hit) ...` (`_miss` likewise). A back end then sees every
//!   apply as a statement whose result is a variable. `switch (t.apply().action_run)` likewise
//!   becomes `init t_action_run = t.apply().action_run;` (the id of the action that ran, `bit<32>`)
//!   and `switch (t_action_run) { 32w<id>: ... }` with one label per action id — except for a table
//!   one of whose actions may `exit`: the dataplane sees an action's `exit` only in the statement
//!   forms, so that switch stays a `SwitchAction`.
//! - A value-returning call (an extern method such as `lookahead`, a checksum's `get`, a function:
//!   the pass runs before `inline-functions`, which then inlines it there) becomes
//!   `init <method>_value = call;`. An assignment whose whole right-hand side is one such effect with
//!   effect-free operands is already in this form and stays.
//! - `l && r` / `l || r` whose right operand has effects becomes `init c = l; if (c) { c = r; }`
//!   (`if (!c)` for `||`), and `c ? a : b` with effects in a branch becomes an `if`/`else` writing a
//!   temporary: the conditional evaluation becomes control flow, as in three-address code.
//!
//! Order is kept: an effect is hoisted only when nothing evaluated before it in the statement has
//! effects, and nothing read before it can be changed by it (a table apply may change anything in
//! the block, so it is hoisted only when it is the first thing read; a call when its `out`/`inout`
//! arguments write nothing read before it). The same holds for the place of an assignment when it has
//! a run-time index. Otherwise the expression is left as it is. Loop conditions, `select` keys and
//! table keys have no statement in front of them and are left alone.

use crate::rewrite::{var_expr, Guard, OperandRewriter};
use crate::util::{any_stmt, bodies, fresh_var, has_effects, put_body, root_var, take_body, vars_mut};
use num_bigint::BigInt;
use crate::{Pass, PassError};
use p4_ir::{
    ActionId, ApplyResult, BinOp, Builtin, Call, Callee, Direction, Expr, ExprKind, Program, Stmt, Type, UnOp, Value,
    Var, VarId, VarKind,
};

pub const NAME: &str = "hoist-effects";

pub struct HoistEffects;

impl Pass for HoistEffects {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program) -> Result<(), PassError> {
        let table_names: Vec<String> = program
            .tables
            .iter()
            .map(|t| {
                t.name
                    .rsplit('.')
                    .next()
                    .unwrap_or(&t.name)
                    .replace(|c: char| !c.is_ascii_alphanumeric() && c != '_', "_")
            })
            .collect();
        let run_as_value: Vec<bool> =
            program.tables.iter().map(|t| t.actions.iter().all(|a| !may_exit(program, a.action, 0))).collect();
        for (block, body) in bodies(program) {
            let mut stmts = take_body(program, body);
            if let Some(vars) = vars_mut(program, &block) {
                let mut h = Hoister { vars, tables: &table_names, run_as_value: &run_as_value };
                stmts = h.list(stmts);
            }
            put_body(program, body, stmts);
        }
        Ok(())
    }
}

struct Hoister<'a> {
    vars: &'a mut Vec<Var>,
    tables: &'a [String],
    /// Per table: `switch (t.apply().action_run)` becomes a switch on a value.
    run_as_value: &'a [bool],
}

/// True if action `a` (or an action it calls) may `exit`.
fn may_exit(program: &Program, a: ActionId, depth: u32) -> bool {
    let Some(action) = program.actions.get(a.index()) else { return false };
    depth > 16
        || any_stmt(&action.body, &|s| match s {
            Stmt::Exit(_) => true,
            Stmt::Call(Call { callee: Callee::Action(b), .. }) => may_exit(program, *b, depth + 1),
            _ => false,
        })
}

impl OperandRewriter for Hoister<'_> {
    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        match s {
            // `x = <one effect>` / `init t = <one effect>` whose operands have none already have the
            // form this pass produces (the value lands in `x`).
            Stmt::Assign { ref rhs, .. } if is_single_effect(rhs) => out.push(s),
            Stmt::VarInit { init: Some(ref e), .. } if is_single_effect(e) => out.push(s),
            // `switch (t.apply().action_run)` becomes `init t_action_run = t.apply().action_run;` and
            // a switch on that value, labelled with action ids.
            Stmt::SwitchAction { table, cases, span } if self.run_as_value.get(table.index()) == Some(&true) => {
                let name = format!("{}_action_run", self.tables.get(table.index()).map(String::as_str).unwrap_or("table"));
                let tmp = self.temp(&name, Type::bit(32));
                let apply = Expr::new(Type::bit(32), ExprKind::ApplyTable(table, ApplyResult::ActionRun), span);
                out.push(Stmt::VarInit { var: tmp, init: Some(apply), span });
                let label = |a: ActionId| Value::Bits { width: 32, signed: false, value: BigInt::from(a.0) };
                let cases = cases.into_iter().map(|(a, l)| (a.map(label), self.list(l))).collect();
                out.push(Stmt::SwitchValue { expr: var_expr(tmp, Type::bit(32), span), cases, span });
            }
            _ => self.walk_stmt(s, out),
        }
    }

    /// Walks `e` in evaluation order, hoisting what may be hoisted into `pre`.
    fn expr(&mut self, e: &mut Expr, g: &mut Guard, pre: &mut Vec<Stmt>) {
        let span = e.span;
        match &mut e.kind {
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), l, r) if has_effects(r) => {
                let is_and = *op == BinOp::And;
                if g.impure || g.conditional > 0 || !g.reads.is_empty() {
                    self.expr(l, g, pre);
                    g.impure = true;
                    return;
                }
                // `c = l; if (c) { c = r; }` — r runs only when l lets it, as before.
                let mut l = (**l).clone();
                self.expr(&mut l, g, pre);
                let c = self.temp(if is_and { "and_value" } else { "or_value" }, Type::Bool);
                pre.push(Stmt::VarInit { var: c, init: Some(l), span });
                let mut inner = Vec::new();
                let mut r = (**r).clone();
                self.expr(&mut r, &mut Guard::default(), &mut inner);
                inner.push(Stmt::Assign { lhs: var_expr(c, Type::Bool, span), rhs: r, span });
                let cond = var_expr(c, Type::Bool, span);
                let cond =
                    if is_and { cond } else { Expr::new(Type::Bool, ExprKind::Unary(UnOp::Not, Box::new(cond)), span) };
                pre.push(Stmt::If { cond, then: inner, otherwise: vec![], span });
                e.kind = ExprKind::Var(c);
                g.reads.insert(c);
            }
            ExprKind::Mux(c, a, b) if has_effects(a) || has_effects(b) => {
                if g.impure || g.conditional > 0 || !g.reads.is_empty() {
                    self.expr(c, g, pre);
                    g.impure = true;
                    return;
                }
                let mut c = (**c).clone();
                self.expr(&mut c, g, pre);
                let m = self.temp("mux_value", e.ty.clone());
                let (mut a, mut b) = ((**a).clone(), (**b).clone());
                let (mut then, mut otherwise) = (Vec::new(), Vec::new());
                self.expr(&mut a, &mut Guard::default(), &mut then);
                self.expr(&mut b, &mut Guard::default(), &mut otherwise);
                then.push(Stmt::Assign { lhs: var_expr(m, e.ty.clone(), span), rhs: a, span });
                otherwise.push(Stmt::Assign { lhs: var_expr(m, e.ty.clone(), span), rhs: b, span });
                pre.push(Stmt::VarInit { var: m, init: None, span });
                pre.push(Stmt::If { cond: c, then, otherwise, span });
                e.kind = ExprKind::Var(m);
                g.reads.insert(m);
            }
            ExprKind::ApplyTable(t, r) => {
                // The table's actions may write anything of the block: only as the first read.
                if g.impure || g.conditional > 0 || !g.reads.is_empty() {
                    g.impure = true;
                    return;
                }
                let suffix = match r {
                    ApplyResult::Hit => "hit",
                    ApplyResult::Miss => "miss",
                    ApplyResult::ActionRun => "action_run",
                };
                let name = format!("{}_{suffix}", self.tables.get(t.index()).map(String::as_str).unwrap_or("table"));
                let tmp = self.temp(&name, e.ty.clone());
                let whole = std::mem::replace(&mut e.kind, ExprKind::Var(tmp));
                pre.push(Stmt::VarInit { var: tmp, init: Some(Expr::new(e.ty.clone(), whole, span)), span });
                g.reads.insert(tmp);
            }
            ExprKind::Call(call) => {
                if matches!(call.callee, Callee::Builtin { builtin: Builtin::IsValid, .. }) {
                    self.call_parts(call, g, pre);
                    return;
                }
                let before_impure = g.impure || g.conditional > 0;
                let before = g.reads.clone();
                self.call_parts(call, g, pre);
                let writes_read = call
                    .args
                    .iter()
                    .filter(|a| matches!(a.direction, Direction::Out | Direction::InOut))
                    .filter_map(|a| root_var(&a.expr))
                    .any(|v| before.contains(&v));
                if before_impure || g.impure || writes_read {
                    g.impure = true;
                    return;
                }
                let base = match &call.callee {
                    Callee::Method { method, .. } => format!("{method}_value"),
                    Callee::ExternFunction { name, .. } => format!("{name}_value"),
                    _ => "call_value".to_string(),
                };
                let tmp = self.temp(&base, e.ty.clone());
                let whole = std::mem::replace(&mut e.kind, ExprKind::Var(tmp));
                pre.push(Stmt::VarInit { var: tmp, init: Some(Expr::new(e.ty.clone(), whole, span)), span });
                g.reads.insert(tmp);
            }
            _ => self.walk_expr(e, g, pre),
        }
    }
}

impl Hoister<'_> {
    fn temp(&mut self, base: &str, ty: Type) -> VarId {
        fresh_var(self.vars, base, ty, VarKind::Temp)
    }
}

/// `t.apply().hit` or a call, whose operands have no effects: already one effect on its own.
fn is_single_effect(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::ApplyTable(..) => true,
        ExprKind::Call(c) => {
            let target_pure = match &c.callee {
                Callee::Method { target, .. } | Callee::Builtin { target, .. } => !has_effects(target),
                _ => true,
            };
            target_pure && c.args.iter().all(|a| !has_effects(&a.expr))
        }
        _ => false,
    }
}
