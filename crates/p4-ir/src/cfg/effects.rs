//! Def-use analysis: which storage locations an expression, statement, action or table apply reads
//! and writes.
//!
//! Invariants: a [`Location`] is a path of field/element indices from a frame variable; a location
//! covers every location it is a prefix of. Analysis is conservative: a dynamic stack index (or
//! `next`/`last`) stops the path at the stack, so the whole stack is read or written. Variables local to
//! an action or function (its parameters, its `VarInit`s, its return slot) are dropped from the
//! summary of a call to it; the caller sees the arguments' effects by direction instead.

use crate::*;
use std::collections::BTreeSet;

/// Path component standing for a header's validity bit (`$valid`).
pub const VALID: u32 = u32::MAX;

/// A storage location: a frame variable and a path of field indices (struct/header/union fields,
/// constant stack or tuple element indices, or [`VALID`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    pub var: VarId,
    pub path: Vec<u32>,
}

impl Location {
    /// True if one location contains the other (one path is a prefix of the other).
    pub fn overlaps(&self, other: &Location) -> bool {
        self.var == other.var && {
            let n = self.path.len().min(other.path.len());
            self.path[..n] == other.path[..n]
        }
    }
}

/// Read and written locations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    pub reads: BTreeSet<Location>,
    pub writes: BTreeSet<Location>,
}

impl Effects {
    pub fn extend(&mut self, other: Effects) {
        self.reads.extend(other.reads);
        self.writes.extend(other.writes);
    }
    /// Drops locations covered by a shorter location in the same set (`std` covers `std.egress_spec`).
    pub fn normalize(&mut self) {
        // In the set's order a location comes right before the locations it covers, so one pass
        // that compares each location with the last one kept finds every covered one.
        fn prune(set: &mut BTreeSet<Location>) {
            let mut kept: Option<Location> = None;
            set.retain(|l| {
                if kept.as_ref().is_some_and(|k| k.path.len() < l.path.len() && k.overlaps(l)) {
                    return false;
                }
                kept = Some(l.clone());
                true
            });
        }
        prune(&mut self.reads);
        prune(&mut self.writes);
    }
    fn retain_vars(&mut self, keep: impl Fn(VarId) -> bool) {
        self.reads.retain(|l| keep(l.var));
        self.writes.retain(|l| keep(l.var));
    }
}

/// Deepest nesting of action/function calls followed (P4 has no recursion; this only guards
/// against malformed IR).
const MAX_CALL_DEPTH: u32 = 32;

/// Computes effects in the context of one program.
pub(crate) struct Analyzer<'p> {
    pub prog: &'p Program,
}

impl<'p> Analyzer<'p> {
    /// The location an l-value denotes, plus the expressions it reads on the way (dynamic indices).
    /// `None` for expressions that are not storage.
    pub fn location(&self, e: &Expr, fx: &mut Effects, depth: u32) -> Option<Location> {
        // `exact == false` once a dynamic index has made the path stop at the stack.
        fn walk(a: &Analyzer, e: &Expr, fx: &mut Effects, depth: u32) -> Option<(Location, bool)> {
            match &e.kind {
                ExprKind::Var(v) => Some((Location { var: *v, path: Vec::new() }, true)),
                ExprKind::Field(b, i) => {
                    let (mut l, exact) = walk(a, b, fx, depth)?;
                    if exact {
                        l.path.push(*i);
                    }
                    Some((l, exact))
                }
                ExprKind::Index(b, i) => {
                    let (mut l, exact) = walk(a, b, fx, depth)?;
                    let constant = match &i.kind {
                        ExprKind::Const(Value::Bits { value, .. }) | ExprKind::Const(Value::InfInt(value)) => u32::try_from(value).ok(),
                        _ => None,
                    };
                    match constant {
                        Some(k) if exact => {
                            l.path.push(k);
                            Some((l, true))
                        }
                        _ => {
                            a.expr(i, fx, depth);
                            Some((l, false))
                        }
                    }
                }
                ExprKind::StackNext(b) | ExprKind::StackLast(b) => walk(a, b, fx, depth).map(|(l, _)| (l, false)),
                ExprKind::Slice(b, _, _) => walk(a, b, fx, depth),
                _ => None,
            }
        }
        walk(self, e, fx, depth).map(|(l, _)| l)
    }

    /// Effects of evaluating `e` (reads, plus writes of calls inside it). Table applies inside
    /// expressions are *not* included: the graph hoists them into their own nodes.
    pub fn expr(&self, e: &Expr, fx: &mut Effects, depth: u32) {
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Field(..) | ExprKind::Index(..) | ExprKind::StackNext(_) | ExprKind::StackLast(_) | ExprKind::Slice(..) => {
                match self.location(e, fx, depth) {
                    Some(l) => {
                        fx.reads.insert(l);
                    }
                    None => self.children(e, fx, depth),
                }
            }
            ExprKind::StackLastIndex(b) => {
                if let Some(l) = self.location(b, fx, depth) {
                    fx.reads.insert(l);
                }
            }
            ExprKind::Call(c) => self.call(c, fx, depth),
            _ => self.children(e, fx, depth),
        }
    }

    fn children(&self, e: &Expr, fx: &mut Effects, depth: u32) {
        match &e.kind {
            ExprKind::Field(b, _) | ExprKind::StackNext(b) | ExprKind::StackLast(b) | ExprKind::StackLastIndex(b) | ExprKind::Slice(b, _, _) | ExprKind::Unary(_, b) | ExprKind::Cast(b) => {
                self.expr(b, fx, depth)
            }
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
                self.expr(a, fx, depth);
                self.expr(b, fx, depth);
            }
            ExprKind::Mux(a, b, c) => {
                self.expr(a, fx, depth);
                self.expr(b, fx, depth);
                self.expr(c, fx, depth);
            }
            ExprKind::Aggregate(xs) => xs.iter().for_each(|x| self.expr(x, fx, depth)),
            ExprKind::Call(c) => self.call(c, fx, depth),
            _ => {}
        }
    }

    /// An l-value written as a whole (`out` argument, assignment target).
    pub fn write(&self, e: &Expr, fx: &mut Effects, depth: u32) {
        if let Some(l) = self.location(e, fx, depth) {
            fx.writes.insert(l);
        }
    }

    /// Arguments by direction: `in` (and directionless) read, `out` written, `inout` both.
    pub fn args(&self, args: &[Arg], fx: &mut Effects, depth: u32) {
        for a in args {
            match a.direction {
                Direction::None | Direction::In => self.expr(&a.expr, fx, depth),
                Direction::Out => self.write(&a.expr, fx, depth),
                Direction::InOut => {
                    self.expr(&a.expr, fx, depth);
                    self.write(&a.expr, fx, depth);
                }
            }
        }
    }

    /// Validity location of a header expression; a header inside a union stands for the whole union
    /// (setting one member valid invalidates the others).
    fn validity(&self, target: &Expr, fx: &mut Effects, depth: u32, writing: bool) -> Option<Location> {
        if writing {
            if let ExprKind::Field(base, _) = &target.kind {
                if let Type::Named(t) = &base.ty {
                    if matches!(self.prog.types.get(t.index()), Some(TypeDef::Union { .. })) {
                        return self.location(base, fx, depth);
                    }
                }
            }
        }
        let mut l = self.location(target, fx, depth)?;
        if matches!(&target.ty, Type::Named(t) if matches!(self.prog.types.get(t.index()), Some(TypeDef::Header { .. }))) {
            l.path.push(VALID);
        }
        Some(l)
    }

    pub fn call(&self, c: &Call, fx: &mut Effects, depth: u32) {
        match &c.callee {
            Callee::Action(a) => {
                self.args(&c.args, fx, depth);
                fx.extend(self.action_body(*a, depth));
            }
            Callee::Function(f) => {
                self.args(&c.args, fx, depth);
                fx.extend(self.function_body(*f, depth));
            }
            Callee::ExternFunction { .. } => self.args(&c.args, fx, depth),
            Callee::Method { target, .. } => {
                // A variable of extern type (`packet_in pkt`) carries state (the cursor): read and written.
                if let Some(l) = self.location(target, fx, depth) {
                    fx.reads.insert(l.clone());
                    fx.writes.insert(l);
                }
                self.args(&c.args, fx, depth);
            }
            Callee::Builtin { target, builtin } => match builtin {
                Builtin::IsValid => {
                    if let Some(l) = self.validity(target, fx, depth, false) {
                        fx.reads.insert(l);
                    }
                }
                Builtin::SetValid | Builtin::SetInvalid => {
                    if let Some(l) = self.validity(target, fx, depth, true) {
                        fx.writes.insert(l);
                    }
                }
                Builtin::PushFront(_) | Builtin::PopFront(_) => {
                    if let Some(l) = self.location(target, fx, depth) {
                        fx.reads.insert(l.clone());
                        fx.writes.insert(l);
                    }
                }
            },
        }
    }

    /// Effects of statements (all paths, all table applies included).
    pub fn stmts(&self, ss: &[Stmt], fx: &mut Effects, depth: u32) {
        for s in ss {
            self.stmt(s, fx, depth);
        }
    }

    fn stmt(&self, s: &Stmt, fx: &mut Effects, depth: u32) {
        match s {
            Stmt::VarInit { var, init, .. } => {
                if let Some(e) = init {
                    self.expr_with_tables(e, fx, depth);
                }
                fx.writes.insert(Location { var: *var, path: Vec::new() });
            }
            Stmt::Assign { lhs, rhs, .. } => {
                self.expr_with_tables(rhs, fx, depth);
                self.write(lhs, fx, depth);
            }
            Stmt::Call(c) => self.call(c, fx, depth),
            Stmt::ApplyTable { table, .. } => fx.extend(self.table(*table, depth)),
            Stmt::ApplyBlock { args, .. } => self.args(args, fx, depth),
            Stmt::If { cond, then, otherwise, .. } => {
                self.expr_with_tables(cond, fx, depth);
                self.stmts(then, fx, depth);
                self.stmts(otherwise, fx, depth);
            }
            Stmt::SwitchAction { table, cases, .. } => {
                fx.extend(self.table(*table, depth));
                cases.iter().for_each(|(_, b)| self.stmts(b, fx, depth));
            }
            Stmt::SwitchValue { expr, cases, .. } => {
                self.expr_with_tables(expr, fx, depth);
                cases.iter().for_each(|(_, b)| self.stmts(b, fx, depth));
            }
            Stmt::Block(b) => self.stmts(b, fx, depth),
            Stmt::Return(Some(e), _) => self.expr_with_tables(e, fx, depth),
            Stmt::For { init, cond, update, body, .. } => {
                self.stmts(init, fx, depth);
                if let Some(c) = cond {
                    self.expr_with_tables(c, fx, depth);
                }
                self.stmts(update, fx, depth);
                self.stmts(body, fx, depth);
            }
            Stmt::Exit(_) | Stmt::Return(None, _) | Stmt::Break(_) | Stmt::Continue(_) | Stmt::Empty => {}
        }
    }

    /// `expr` plus the effects of table applies it contains (for summaries of whole bodies).
    fn expr_with_tables(&self, e: &Expr, fx: &mut Effects, depth: u32) {
        self.expr(e, fx, depth);
        for t in tables_in(e) {
            fx.extend(self.table(t, depth));
        }
    }

    /// Effects of running an action's body, its own parameters and locals removed.
    pub fn action_body(&self, a: ActionId, depth: u32) -> Effects {
        let Some(action) = self.prog.actions.get(a.index()) else { return Effects::default() };
        self.callable_body(&action.params, None, &action.body, depth)
    }

    fn function_body(&self, f: FunctionId, depth: u32) -> Effects {
        let Some(func) = self.prog.functions.get(f.index()) else { return Effects::default() };
        self.callable_body(&func.params, func.ret_var, &func.body, depth)
    }

    fn callable_body(&self, params: &[Param], ret: Option<VarId>, body: &[Stmt], depth: u32) -> Effects {
        let mut fx = Effects::default();
        if depth >= MAX_CALL_DEPTH {
            return fx;
        }
        self.stmts(body, &mut fx, depth + 1);
        let mut locals: BTreeSet<VarId> = params.iter().map(|p| p.var).collect();
        locals.extend(ret);
        collect_var_inits(body, &mut locals);
        fx.retain_vars(|v| !locals.contains(&v));
        fx
    }

    /// Effects of one table apply: its keys are read; every action it may run (its action list and
    /// default action) contributes its body and its bound arguments (by the parameters' directions).
    pub fn table(&self, t: TableId, depth: u32) -> Effects {
        let mut fx = self.table_keys(t, depth);
        let Some(table) = self.prog.tables.get(t.index()) else { return fx };
        for ta in &table.actions {
            fx.extend(self.action_body(ta.action, depth));
            if let Some(action) = self.prog.actions.get(ta.action.index()) {
                let directional = action.params.iter().filter(|p| p.direction != Direction::None);
                let args: Vec<Arg> = directional.zip(&ta.bound_args).map(|(p, e)| Arg { direction: p.direction, expr: e.clone() }).collect();
                self.args(&args, &mut fx, depth);
            }
        }
        if let Some(d) = &table.default_action {
            fx.extend(self.action_body(d.action, depth));
            if let Some(action) = self.prog.actions.get(d.action.index()) {
                let args: Vec<Arg> = action.params.iter().zip(&d.args).map(|(p, e)| Arg { direction: p.direction, expr: e.clone() }).collect();
                self.args(&args, &mut fx, depth);
            }
        }
        fx
    }

    /// Locations read by a table's keys (its match stage).
    pub fn table_keys(&self, t: TableId, depth: u32) -> Effects {
        let mut fx = Effects::default();
        if let Some(table) = self.prog.tables.get(t.index()) {
            table.keys.iter().for_each(|k| self.expr(&k.expr, &mut fx, depth));
        }
        fx
    }
}

fn collect_var_inits(ss: &[Stmt], out: &mut BTreeSet<VarId>) {
    for s in ss {
        match s {
            Stmt::VarInit { var, .. } => {
                out.insert(*var);
            }
            Stmt::If { then, otherwise, .. } => {
                collect_var_inits(then, out);
                collect_var_inits(otherwise, out);
            }
            Stmt::SwitchAction { cases, .. } => cases.iter().for_each(|(_, b)| collect_var_inits(b, out)),
            Stmt::SwitchValue { cases, .. } => cases.iter().for_each(|(_, b)| collect_var_inits(b, out)),
            Stmt::Block(b) => collect_var_inits(b, out),
            Stmt::For { init, update, body, .. } => {
                collect_var_inits(init, out);
                collect_var_inits(update, out);
                collect_var_inits(body, out);
            }
            _ => {}
        }
    }
}

/// Tables applied inside an expression (`t.apply().hit`), in evaluation order.
pub fn tables_in(e: &Expr) -> Vec<TableId> {
    fn go(e: &Expr, out: &mut Vec<TableId>) {
        match &e.kind {
            ExprKind::ApplyTable(t, _) => out.push(*t),
            ExprKind::Field(b, _) | ExprKind::StackNext(b) | ExprKind::StackLast(b) | ExprKind::StackLastIndex(b) | ExprKind::Slice(b, _, _) | ExprKind::Unary(_, b) | ExprKind::Cast(b) => go(b, out),
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
                go(a, out);
                go(b, out);
            }
            ExprKind::Mux(a, b, c) => {
                go(a, out);
                go(b, out);
                go(c, out);
            }
            ExprKind::Aggregate(xs) => xs.iter().for_each(|x| go(x, out)),
            ExprKind::Call(c) => c.args.iter().for_each(|a| go(&a.expr, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    go(e, &mut out);
    out
}
