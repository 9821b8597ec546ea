//! Def-use analysis: which storage locations an expression, statement, action or table apply reads
//! and writes.
//!
//! Invariants: a [`Location`] is a path of field/element indices from a frame variable, or the state
//! of an extern instance ([`Location::extern_state`]); a location covers every location it is a
//! prefix of. Writes come in two sets: `must_writes` are written on every execution, `may_writes` on
//! some (a superset: every must-write is covered by a may-write). A write is only a must-write when
//! its location is exact: an access through a run-time stack index, `.next`/`.last` or a slice
//! stops at the whole stack (or variable) and is a may-write; so is a write in one branch, in some of
//! a table's actions, after a possible `return`/`exit`, in a loop body, and every update of extern
//! state (registers, counters and meters are arrays written one index at a time). A stack's
//! `nextIndex` is the pseudo-field [`NEXT_INDEX`]. Variables local to an action or function (its
//! parameters, its `VarInit`s, its return slot) are dropped from the summary of a call to it; the
//! caller sees the arguments' effects by direction instead.

use crate::*;
use crate::arch::StateAccess;
use crate::visit::{operands, walk_expr, walk_stmt, Visit};
use std::collections::BTreeSet;

/// Path component standing for a header's validity bit (`$valid`).
pub const VALID: u32 = u32::MAX;

/// Path component standing for a header stack's `nextIndex` (`lastIndex` is derived from it).
pub const NEXT_INDEX: u32 = u32::MAX - 1;

/// The pseudo-variable whose path `[id]` is the state of extern instance `id`.
pub const EXTERN_STATE: VarId = VarId(u32::MAX);

/// A storage location: a frame variable and a path of field indices (struct/header/union fields,
/// constant stack or tuple element indices, [`VALID`] or [`NEXT_INDEX`]), or an extern's state.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    pub var: VarId,
    pub path: Vec<u32>,
}

impl Location {
    /// The whole state of extern instance `id` (all indices of a register, counter or meter).
    pub fn extern_state(id: ExternId) -> Location {
        Location { var: EXTERN_STATE, path: vec![id.0] }
    }
    /// The extern instance whose state this is, if it is one.
    pub fn as_extern(&self) -> Option<ExternId> {
        if self.var == EXTERN_STATE {
            self.path.first().map(|&i| ExternId(i))
        } else {
            None
        }
    }
    /// True if one location contains the other (one path is a prefix of the other).
    pub fn overlaps(&self, other: &Location) -> bool {
        self.var == other.var && {
            let n = self.path.len().min(other.path.len());
            self.path[..n] == other.path[..n]
        }
    }
    /// True if this location contains all of `other` (its path is a prefix of `other`'s).
    pub fn covers(&self, other: &Location) -> bool {
        self.var == other.var && self.path.len() <= other.path.len() && other.path[..self.path.len()] == self.path[..]
    }
    fn child(&self, i: u32) -> Location {
        let mut l = self.clone();
        l.path.push(i);
        l
    }
}

/// Read and written locations of a piece of code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Effects {
    pub reads: BTreeSet<Location>,
    /// Written whenever the code runs to completion (a later must-write of a location kills earlier
    /// definitions of it).
    pub must_writes: BTreeSet<Location>,
    /// Possibly written: every location some execution writes, must-writes included. A may-write that
    /// is not a must-write never kills an earlier definition.
    pub may_writes: BTreeSet<Location>,
}

/// Drops locations covered by a shorter location in the same set (`std` covers `std.egress_spec`).
fn prune(set: &mut BTreeSet<Location>) {
    // In the set's order a location comes right before the locations it covers, so one pass
    // that compares each location with the last one kept finds every covered one.
    let mut kept: Option<Location> = None;
    set.retain(|l| {
        if kept.as_ref().is_some_and(|k| k.path.len() < l.path.len() && k.overlaps(l)) {
            return false;
        }
        kept = Some(l.clone());
        true
    });
}

/// True if some location of `set` covers `l` (looks up each prefix of `l`).
pub(crate) fn covered_by(set: &BTreeSet<Location>, l: &Location) -> bool {
    (0..=l.path.len()).any(|k| set.contains(&Location { var: l.var, path: l.path[..k].to_vec() }))
}

impl Effects {
    /// Every possibly written location (the may-writes, which include the must-writes).
    pub fn writes(&self) -> &BTreeSet<Location> {
        &self.may_writes
    }
    /// May-writes not covered by a must-write: the locations only possibly written.
    pub fn may_only(&self) -> BTreeSet<Location> {
        self.may_writes.iter().filter(|l| !covered_by(&self.must_writes, l)).cloned().collect()
    }
    pub fn read(&mut self, l: Location) {
        self.reads.insert(l);
    }
    pub fn write_must(&mut self, l: Location) {
        self.may_writes.insert(l.clone());
        self.must_writes.insert(l);
    }
    pub fn write_may(&mut self, l: Location) {
        self.may_writes.insert(l);
    }
    /// Sequential composition: `other` runs after `self`.
    pub fn extend(&mut self, other: Effects) {
        self.reads.extend(other.reads);
        self.must_writes.extend(other.must_writes);
        self.may_writes.extend(other.may_writes);
    }
    /// Every write becomes a may-write (the code may not run).
    pub fn demote(&mut self) {
        self.must_writes.clear();
    }
    /// Either `self` or `other` runs: reads and may-writes are unions, a location is a must-write if
    /// both must-write it (or a location covering it).
    pub fn either(mut self, other: Effects) -> Effects {
        let mut must: BTreeSet<Location> = self.must_writes.iter().filter(|l| covered_by(&other.must_writes, l)).cloned().collect();
        must.extend(other.must_writes.iter().filter(|l| covered_by(&self.must_writes, l)).cloned());
        self.reads.extend(other.reads);
        self.may_writes.extend(other.may_writes);
        self.must_writes = must;
        self.normalize();
        self
    }
    /// Drops locations covered by a shorter location in the same set.
    pub fn normalize(&mut self) {
        prune(&mut self.reads);
        prune(&mut self.must_writes);
        prune(&mut self.may_writes);
    }
    fn retain_vars(&mut self, keep: impl Fn(VarId) -> bool) {
        self.reads.retain(|l| keep(l.var));
        self.must_writes.retain(|l| keep(l.var));
        self.may_writes.retain(|l| keep(l.var));
    }
    /// Keeps only extern state.
    fn retain_externs(&mut self) {
        self.retain_vars(|v| v == EXTERN_STATE);
    }
}

/// The state access of `extern_type.method`, from the program's architecture description
/// ([`crate::arch`]). Externs the description does not know (or a program of an architecture
/// p4forge has not described) are assumed to read and update their state: sound, if coarse.
fn state_access(prog: &Program, extern_type: &str, method: &str) -> StateAccess {
    crate::arch::of_program(prog).and_then(|a| a.method(extern_type, method)).map_or(StateAccess::ReadWrite, |m| m.state)
}

/// Deepest nesting of action/function calls followed (P4 has no recursion; this only guards
/// against malformed IR).
const MAX_CALL_DEPTH: u32 = 32;

/// What an l-value expression denotes: a location, and whether it is exactly that storage (a write
/// of it overwrites all of it) or a covering approximation (run-time index, `.next`, slice).
struct Access {
    loc: Location,
    exact: bool,
}

fn const_index(i: &Expr) -> Option<u32> {
    match &i.kind {
        ExprKind::Const(Value::Bits { value, .. }) | ExprKind::Const(Value::InfInt(value)) => u32::try_from(value).ok(),
        _ => None,
    }
}

/// Computes effects in the context of one program.
pub(crate) struct Analyzer<'p> {
    pub prog: &'p Program,
}

impl<'p> Analyzer<'p> {
    fn is_type(&self, ty: &Type, pred: impl Fn(&TypeDef) -> bool) -> bool {
        matches!(ty, Type::Named(t) if self.prog.types.get(t.index()).is_some_and(pred))
    }
    fn is_header(&self, ty: &Type) -> bool {
        self.is_type(ty, |d| matches!(d, TypeDef::Header { .. }))
    }
    fn union_members(&self, ty: &Type) -> Option<usize> {
        match ty {
            Type::Named(t) => match self.prog.types.get(t.index()) {
                Some(TypeDef::Union { fields, .. }) => Some(fields.len()),
                _ => None,
            },
            _ => None,
        }
    }

    /// The storage `e` denotes, recording the reads made on the way (run-time indices, a stack's
    /// `nextIndex` for `.next`/`.last`). `None` for expressions that are not storage.
    fn access(&self, e: &Expr, fx: &mut Effects, depth: u32) -> Option<Access> {
        match &e.kind {
            ExprKind::Var(v) => Some(Access { loc: Location { var: *v, path: Vec::new() }, exact: true }),
            ExprKind::Field(b, i) => {
                let mut a = self.access(b, fx, depth)?;
                if a.exact {
                    a.loc.path.push(*i);
                }
                Some(a)
            }
            ExprKind::Index(b, i) => {
                let mut a = self.access(b, fx, depth)?;
                match const_index(i) {
                    Some(k) if a.exact => a.loc.path.push(k),
                    _ => {
                        self.expr(i, fx, depth);
                        a.exact = false;
                    }
                }
                Some(a)
            }
            ExprKind::StackNext(b) | ExprKind::StackLast(b) => {
                let mut a = self.access(b, fx, depth)?;
                if a.exact {
                    fx.read(a.loc.child(NEXT_INDEX));
                }
                a.exact = false;
                Some(a)
            }
            ExprKind::Slice(b, _, _) => {
                let mut a = self.access(b, fx, depth)?;
                a.exact = false;
                Some(a)
            }
            _ => None,
        }
    }

    /// The location an l-value denotes (see [`Self::access`]).
    pub fn location(&self, e: &Expr, fx: &mut Effects, depth: u32) -> Option<Location> {
        self.access(e, fx, depth).map(|a| a.loc)
    }

    /// Effects of evaluating `e` (reads, plus writes of calls inside it). Table applies inside
    /// expressions are *not* included: the graph hoists them into their own nodes.
    pub fn expr(&self, e: &Expr, fx: &mut Effects, depth: u32) {
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Field(..) | ExprKind::Index(..) | ExprKind::StackNext(_) | ExprKind::StackLast(_) | ExprKind::Slice(..) => {
                match self.access(e, fx, depth) {
                    Some(a) => fx.read(a.loc),
                    None => self.children(e, fx, depth),
                }
            }
            ExprKind::StackLastIndex(b) => match self.access(b, fx, depth) {
                Some(a) if a.exact => fx.read(a.loc.child(NEXT_INDEX)),
                Some(a) => fx.read(a.loc),
                None => self.expr(b, fx, depth),
            },
            // The right operand of `&&`/`||` and the arms of `?:` may not be evaluated.
            ExprKind::Binary(BinOp::And | BinOp::Or, l, r) => {
                self.expr(l, fx, depth);
                let mut rfx = Effects::default();
                self.expr(r, &mut rfx, depth);
                rfx.demote();
                fx.extend(rfx);
            }
            ExprKind::Mux(c, a, b) => {
                self.expr(c, fx, depth);
                let (mut afx, mut bfx) = (Effects::default(), Effects::default());
                self.expr(a, &mut afx, depth);
                self.expr(b, &mut bfx, depth);
                fx.extend(afx.either(bfx));
            }
            _ => self.children(e, fx, depth),
        }
    }

    /// Effects of `e`'s operands: for a call, those of its callee's code too ([`Self::call`]).
    fn children(&self, e: &Expr, fx: &mut Effects, depth: u32) {
        match &e.kind {
            ExprKind::Call(c) => self.call(c, fx, depth),
            _ => operands(e).into_iter().for_each(|x| self.expr(x, fx, depth)),
        }
    }

    /// An l-value written as a whole (`out` argument, assignment target): a must-write if the access
    /// is exact, else a may-write of the covering location. Writing a union member (a header)
    /// also makes the other members invalid.
    pub fn write(&self, e: &Expr, fx: &mut Effects, depth: u32) {
        let Some(a) = self.access(e, fx, depth) else { return };
        if a.exact {
            if let ExprKind::Field(base, _) = &e.kind {
                if let Some(n) = self.union_members(&base.ty) {
                    let mut u = a.loc.clone();
                    u.path.pop();
                    (0..n as u32).for_each(|k| fx.write_must(u.child(k).child(VALID)));
                }
            }
            fx.write_must(a.loc);
        } else {
            fx.write_may(a.loc);
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

    /// Reads `isValid()` of a header or union: its `$valid` (a union's whole location), or the whole
    /// stack for an element under a run-time index.
    fn read_validity(&self, target: &Expr, fx: &mut Effects, depth: u32) {
        let Some(a) = self.access(target, fx, depth) else { return };
        if a.exact && self.is_header(&target.ty) {
            fx.read(a.loc.child(VALID));
        } else {
            fx.read(a.loc);
        }
    }

    /// `setValid()`/`setInvalid()`: writes the header's `$valid`; `setValid()` of a union member
    /// writes every member's (the others become invalid). Under a run-time index: a may-write of
    /// the whole stack.
    fn write_validity(&self, target: &Expr, set: bool, fx: &mut Effects, depth: u32) {
        let Some(a) = self.access(target, fx, depth) else { return };
        if !a.exact {
            fx.write_may(a.loc);
            return;
        }
        if let (true, ExprKind::Field(base, _)) = (set, &target.kind) {
            if let Some(n) = self.union_members(&base.ty) {
                let mut u = a.loc.clone();
                u.path.pop();
                (0..n as u32).for_each(|k| fx.write_must(u.child(k).child(VALID)));
                return;
            }
        }
        fx.write_must(a.loc.child(VALID));
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
            Callee::ExternFunction { name, .. } => self.extern_function(name, &c.args, fx, depth),
            Callee::Method { target, extern_type, method, .. } => self.method(target, extern_type, method, &c.args, fx, depth),
            Callee::Builtin { target, builtin } => match builtin {
                Builtin::IsValid => self.read_validity(target, fx, depth),
                Builtin::SetValid | Builtin::SetInvalid => self.write_validity(target, *builtin == Builtin::SetValid, fx, depth),
                // Every element shifts and `nextIndex` changes: the whole stack is read and written.
                Builtin::PushFront(_) | Builtin::PopFront(_) => {
                    if let Some(a) = self.access(target, fx, depth) {
                        fx.read(a.loc.clone());
                        if a.exact {
                            fx.write_must(a.loc);
                        } else {
                            fx.write_may(a.loc);
                        }
                    }
                }
            },
        }
    }

    /// An extern function. Arguments count by direction, except an argument of the architecture's
    /// intrinsic metadata type (`inout standard_metadata_t`) of a function the description knows:
    /// of that struct, only the fields the description says the function writes
    /// ([`crate::arch::FunctionSig::writes`]) are written (must-writes), and nothing is read
    /// (v1model's `mark_to_drop(s)` writes `s.egress_spec` and `s.mcast_grp`, not all of `s`). A
    /// function writing intrinsic fields without taking the struct (`verify_checksum` writes
    /// `checksum_error`) writes storage the calling block has no variable for (v1model's checksum
    /// controls have no intrinsic parameter), so nothing in the block's frame is written.
    fn extern_function(&self, name: &str, args: &[Arg], fx: &mut Effects, depth: u32) {
        let Some((arch, f)) = crate::arch::of_program(self.prog).and_then(|a| Some((a, a.function(name)?))) else {
            return self.args(args, fx, depth);
        };
        for a in args {
            let fields = match &a.expr.ty {
                Type::Named(t) if a.direction != Direction::None && a.direction != Direction::In => match self.prog.types.get(t.index()) {
                    Some(TypeDef::Struct { name: tn, fields }) if arch.is_intrinsic_struct(tn) => Some((tn, fields)),
                    _ => None,
                },
                _ => None,
            };
            let Some((tn, fields)) = fields else {
                self.args(std::slice::from_ref(a), fx, depth);
                continue;
            };
            let Some(base) = self.access(&a.expr, fx, depth) else { continue };
            for role in f.writes {
                let Some(i) = arch.field_in(*role, tn).and_then(|n| fields.iter().position(|fd| fd.name == n)) else { continue };
                if base.exact {
                    fx.write_must(base.loc.child(i as u32));
                } else {
                    fx.write_may(base.loc.clone());
                }
            }
        }
    }

    /// An extern method: an instance's state by [`state_access`]; a variable of extern type
    /// (`packet_in pkt`) carries state (the cursor) that is read and written; `extract` into a
    /// stack's `.next` also advances the stack's `nextIndex`.
    fn method(&self, target: &Expr, extern_type: &str, method: &str, args: &[Arg], fx: &mut Effects, depth: u32) {
        if let ExprKind::Extern(id) = &target.kind {
            let l = Location::extern_state(*id);
            match state_access(self.prog, extern_type, method) {
                StateAccess::None => {}
                StateAccess::Read => fx.read(l),
                StateAccess::Write => fx.write_may(l),
                StateAccess::ReadWrite => {
                    fx.read(l.clone());
                    fx.write_may(l);
                }
            }
        } else if let Some(l) = self.location(target, fx, depth) {
            fx.read(l.clone());
            fx.write_must(l);
        }
        self.args(args, fx, depth);
        if method == "extract" {
            if let Some(ExprKind::StackNext(stack)) = args.first().map(|a| &a.expr.kind) {
                if let Some(a) = self.access(stack, fx, depth) {
                    if a.exact {
                        fx.write_must(a.loc.child(NEXT_INDEX));
                    }
                }
            }
        }
    }

    /// Effects of statements run in order: after one that may leave (`return`, `exit`, `break`,
    /// `continue`), the rest only may run.
    pub fn stmts(&self, ss: &[Stmt], fx: &mut Effects, depth: u32) {
        let mut may_have_left = false;
        for s in ss {
            let mut sfx = Effects::default();
            self.stmt(s, &mut sfx, depth);
            if may_have_left {
                sfx.demote();
            }
            fx.extend(sfx);
            may_have_left |= may_leave(s);
        }
    }

    fn branch(&self, ss: &[Stmt], depth: u32) -> Effects {
        let mut fx = Effects::default();
        self.stmts(ss, &mut fx, depth);
        fx
    }

    /// One of `arms` runs; `has_default == false` adds an empty arm (no case matched).
    fn arms<'s>(&self, arms: impl Iterator<Item = &'s Vec<Stmt>>, has_default: bool, depth: u32) -> Effects {
        let mut out: Option<Effects> = if has_default { None } else { Some(Effects::default()) };
        for a in arms {
            let fx = self.branch(a, depth);
            out = Some(match out {
                Some(o) => o.either(fx),
                None => fx,
            });
        }
        out.unwrap_or_default()
    }

    fn stmt(&self, s: &Stmt, fx: &mut Effects, depth: u32) {
        match s {
            Stmt::VarInit { var, init, .. } => {
                if let Some(e) = init {
                    self.expr_with_tables(e, fx, depth);
                }
                fx.write_must(Location { var: *var, path: Vec::new() });
            }
            Stmt::Assign { lhs, rhs, .. } => {
                self.expr_with_tables(rhs, fx, depth);
                self.write(lhs, fx, depth);
            }
            Stmt::Call(c) => self.call(c, fx, depth),
            Stmt::ApplyTable { table, .. } => fx.extend(self.table(*table, depth)),
            Stmt::ApplyBlock { block, args, .. } => fx.extend(self.apply_block(block, args, depth)),
            Stmt::If { cond, then, otherwise, .. } => {
                self.expr_with_tables(cond, fx, depth);
                fx.extend(self.branch(then, depth).either(self.branch(otherwise, depth)));
            }
            Stmt::SwitchAction { table, cases, .. } => {
                fx.extend(self.table(*table, depth));
                fx.extend(self.arms(cases.iter().map(|c| &c.1), cases.iter().any(|c| c.0.is_none()), depth));
            }
            Stmt::SwitchValue { expr, cases, .. } => {
                self.expr_with_tables(expr, fx, depth);
                fx.extend(self.arms(cases.iter().map(|c| &c.1), cases.iter().any(|c| c.0.is_none()), depth));
            }
            Stmt::Block(b) => self.stmts(b, fx, depth),
            Stmt::Return(Some(e), _) => self.expr_with_tables(e, fx, depth),
            Stmt::For { init, cond, update, body, .. } => {
                self.stmts(init, fx, depth);
                if let Some(c) = cond {
                    self.expr_with_tables(c, fx, depth);
                }
                // The body may run zero times.
                let mut loop_fx = self.branch(body, depth);
                self.stmts(update, &mut loop_fx, depth);
                loop_fx.demote();
                fx.extend(loop_fx);
            }
            Stmt::Exit(_) | Stmt::Return(None, _) | Stmt::Break(_) | Stmt::Continue(_) | Stmt::Empty => {}
        }
    }

    /// `expr` plus the effects of table applies it contains, as may-effects (for summaries of
    /// whole bodies; an apply in `a && t.apply().hit` may not run).
    fn expr_with_tables(&self, e: &Expr, fx: &mut Effects, depth: u32) {
        self.expr(e, fx, depth);
        for t in tables_in(e) {
            let mut tfx = self.table(t, depth);
            tfx.demote();
            fx.extend(tfx);
        }
    }

    /// `sub.apply(args)`: the arguments by direction, plus the extern state the sub-block (and
    /// what it applies) may touch: an extern passed to it as a constructor argument is shared.
    pub fn apply_block(&self, block: &BlockRef, args: &[Arg], depth: u32) -> Effects {
        let mut fx = Effects::default();
        self.args(args, &mut fx, depth);
        if depth >= MAX_CALL_DEPTH {
            return fx;
        }
        let mut inner = Effects::default();
        match block {
            BlockRef::Control(c) => {
                if let Some(c) = self.prog.controls.get(c.index()) {
                    self.stmts(&c.init, &mut inner, depth + 1);
                    self.stmts(&c.body, &mut inner, depth + 1);
                }
            }
            BlockRef::Parser(p) => {
                for s in self.prog.parsers.get(p.index()).map(|p| p.states.as_slice()).unwrap_or_default() {
                    self.stmts(&s.body, &mut inner, depth + 1);
                }
            }
        }
        inner.retain_externs();
        inner.demote();
        fx.extend(inner);
        fx
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
        fx.normalize();
        fx
    }

    /// Effects of each action a table may run (its action list, then its default action if not
    /// listed), with the arguments bound in the table to its directional parameters.
    pub fn table_actions(&self, t: TableId, depth: u32) -> Vec<(ActionId, Effects)> {
        let Some(table) = self.prog.tables.get(t.index()) else { return Vec::new() };
        let mut out: Vec<(ActionId, Effects)> = Vec::new();
        let bound = |action: ActionId, exprs: &[Expr], only_directional: bool| {
            let mut fx = self.action_body(action, depth);
            if let Some(a) = self.prog.actions.get(action.index()) {
                let params = a.params.iter().filter(|p| !only_directional || p.direction != Direction::None);
                let args: Vec<Arg> = params.zip(exprs).map(|(p, e)| Arg { direction: p.direction, expr: e.clone() }).collect();
                let mut afx = Effects::default();
                self.args(&args, &mut afx, depth);
                afx.extend(fx);
                fx = afx;
            }
            fx.normalize();
            fx
        };
        for ta in &table.actions {
            out.push((ta.action, bound(ta.action, &ta.bound_args, true)));
        }
        if let Some(d) = &table.default_action {
            if !out.iter().any(|(a, _)| *a == d.action) {
                out.push((d.action, bound(d.action, &d.args, false)));
            }
        }
        out
    }

    /// Effects of one table apply: its keys are read, then exactly one of its actions runs (so a
    /// location is a must-write only if every action must-write it); a direct counter or meter is
    /// read and updated (on a hit).
    pub fn table(&self, t: TableId, depth: u32) -> Effects {
        let mut fx = self.table_keys(t, depth);
        let Some(table) = self.prog.tables.get(t.index()) else { return fx };
        let actions = self.table_actions(t, depth).into_iter().map(|a| a.1).reduce(Effects::either).unwrap_or_default();
        fx.extend(actions);
        for e in table.direct_counter.iter().chain(&table.direct_meter) {
            fx.read(Location::extern_state(*e));
            fx.write_may(Location::extern_state(*e));
        }
        fx.normalize();
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

/// True if running `s` may leave the enclosing statement list early.
fn may_leave(s: &Stmt) -> bool {
    match s {
        Stmt::Exit(_) | Stmt::Return(..) | Stmt::Break(_) | Stmt::Continue(_) => true,
        Stmt::If { then, otherwise, .. } => then.iter().chain(otherwise).any(may_leave),
        Stmt::SwitchAction { cases, .. } => cases.iter().flat_map(|c| &c.1).any(may_leave),
        Stmt::SwitchValue { cases, .. } => cases.iter().flat_map(|c| &c.1).any(may_leave),
        Stmt::Block(b) => b.iter().any(may_leave),
        // `break`/`continue` in a loop stay in it; `return`/`exit` leave.
        Stmt::For { body, .. } => body.iter().any(leaves_function),
        _ => false,
    }
}

fn leaves_function(s: &Stmt) -> bool {
    match s {
        Stmt::Exit(_) | Stmt::Return(..) => true,
        Stmt::If { then, otherwise, .. } => then.iter().chain(otherwise).any(leaves_function),
        Stmt::SwitchAction { cases, .. } => cases.iter().flat_map(|c| &c.1).any(leaves_function),
        Stmt::SwitchValue { cases, .. } => cases.iter().flat_map(|c| &c.1).any(leaves_function),
        Stmt::Block(b) | Stmt::For { body: b, .. } => b.iter().any(leaves_function),
        _ => false,
    }
}

/// The variables `init` statements of `ss` declare (nested ones included).
fn collect_var_inits(ss: &[Stmt], out: &mut BTreeSet<VarId>) {
    struct Inits<'o>(&'o mut BTreeSet<VarId>);
    impl Visit<'_> for Inits<'_> {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let Stmt::VarInit { var, .. } = s {
                self.0.insert(*var);
            }
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, _: &Expr) {}
    }
    Inits(out).visit_stmts(ss);
}

/// Tables applied inside an expression (`t.apply().hit`), in evaluation order.
pub fn tables_in(e: &Expr) -> Vec<TableId> {
    let mut tables = Tables { out: Vec::new(), conditional_only: false };
    tables.visit_expr(e);
    tables.out
}

/// Tables applied inside `e` only on some evaluations: in the right operand of `&&`/`||` or an arm
/// of `?:` (their applies' writes are may-writes).
pub fn conditional_tables_in(e: &Expr) -> Vec<TableId> {
    let mut tables = Tables { out: Vec::new(), conditional_only: true };
    tables.visit_expr(e);
    tables.out
}

/// Collects the tables applied in expressions (`conditional_only`: only those under a condition).
struct Tables {
    out: Vec<TableId>,
    conditional_only: bool,
}

impl Visit<'_> for Tables {
    fn visit_expr(&mut self, e: &Expr) {
        if self.conditional_only {
            match &e.kind {
                ExprKind::Binary(BinOp::And | BinOp::Or, l, r) => {
                    self.visit_expr(l);
                    self.out.extend(tables_in(r));
                    return;
                }
                ExprKind::Mux(c, a, b) => {
                    self.visit_expr(c);
                    self.out.extend(tables_in(a));
                    self.out.extend(tables_in(b));
                    return;
                }
                _ => {}
            }
        } else if let ExprKind::ApplyTable(t, _) = e.kind {
            self.out.push(t);
        }
        walk_expr(self, e);
    }
}
