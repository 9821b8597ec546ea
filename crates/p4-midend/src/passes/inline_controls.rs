//! `inline-controls`: a sub-control applied from a control (`sub.apply(args)`) is replaced by its
//! body, and the sub-control's variables, actions, tables, functions and extern instances move into
//! the caller. Why: a hardware pipeline is a flat sequence of tables and actions; nested controls are
//! a source-level structure, and later passes (def-use, scheduling) want one control per pipeline
//! stage of the architecture.
//!
//! Sema gives each sub-control instance its own frame, used by nothing but that instance, so its
//! variables are appended to the caller's frame (named `<instance>.<var>`) and every expression of the
//! sub-control is renumbered. Parameters are bound like this:
//! - an `inout` argument that names fixed storage (no run-time index) and overlaps no other `out`/
//!   `inout` argument is substituted for the parameter (by reference: no copies);
//! - any other `in`/`inout` argument is copied into the parameter first; `out` parameters are
//!   re-initialised (`init p;`) and every `out`/`inout` parameter in copy mode is copied back after the
//!   body, as the dataplane does;
//! - `exit` inside the sub-control (its body or any of its actions) would skip that copy-back, so a
//!   sub-control that may exit is inlined only when it needs no copy-back.
//!
//! An `in` argument is copied at the call, so it may overlap anything. A `return` in the sub-control's body becomes a flag guarding what follows (see `returns`). Only
//! sub-controls applied exactly once are inlined (their actions and tables would otherwise need a copy
//! per call site). Inlined controls are removed from the program and control ids renumbered. Sub-parsers
//! are not inlined yet.

use crate::frame::{copy_ins, copy_outs, move_frame, rehome_callables};
use crate::returns::{bool_const, eliminate_returns};
use crate::util::{any_stmt, fresh_var, is_static_place, may_overlap};
use crate::{Pass, PassError};
use p4_ir::visit::{walk_program_mut, walk_stmt, walk_stmt_mut, walk_table_mut, Outermost, Visit, VisitMut};
use p4_ir::{BlockRef, ControlId, Direction, Expr, ExprKind, PackageArg, Program, Span, Stmt, Type, TypeDef, VarKind};
use std::collections::HashMap;

pub const NAME: &str = "inline-controls";

pub struct InlineControls;

impl Pass for InlineControls {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program) -> Result<(), PassError> {
        let mut removed = Vec::new();
        // One inlining at a time, until none is possible: a sub-control's own sub-controls become
        // applies in the caller and are found on a later round.
        while let Some((caller, callee)) = next_candidate(program, &removed) {
            inline_one(program, caller, callee);
            removed.push(callee);
        }
        remove_controls(program, &removed);
        Ok(())
    }
}

/// The sub-controls `stmts` apply (nested statements included), in statement order, with the
/// arguments of each apply.
fn applies(stmts: &[Stmt]) -> Vec<(ControlId, &[p4_ir::Arg])> {
    struct Applies<'a>(Vec<(ControlId, &'a [p4_ir::Arg])>);
    impl<'a> Visit<'a> for Applies<'a> {
        fn visit_stmt(&mut self, s: &'a Stmt) {
            if let Stmt::ApplyBlock { block: BlockRef::Control(c), args, .. } = s {
                self.0.push((*c, args));
            }
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, _: &'a Expr) {}
    }
    let mut found = Applies(Vec::new());
    found.visit_stmts(stmts);
    found.0
}

fn apply_sites(stmts: &[Stmt], out: &mut Vec<ControlId>) {
    out.extend(applies(stmts).into_iter().map(|(c, _)| c));
}

fn is_exit(s: &Stmt) -> bool {
    matches!(s, Stmt::Exit(_))
}

/// True if running control `c` may execute `exit` (its body, its actions and functions, the
/// sub-controls it applies).
fn may_exit(program: &Program, c: ControlId, depth: u32) -> bool {
    let Some(ctl) = program.controls.get(c.index()) else { return false };
    any_stmt(&ctl.body, &is_exit) || any_stmt(&ctl.init, &is_exit) || may_exit_outside_body(program, c, depth)
}

/// The first (caller, sub-control) pair that can be inlined now.
fn next_candidate(program: &Program, removed: &[ControlId]) -> Option<(ControlId, ControlId)> {
    let mut count: HashMap<ControlId, usize> = HashMap::new();
    let mut pairs = Vec::new();
    for (i, c) in program.controls.iter().enumerate() {
        if removed.contains(&ControlId(i as u32)) {
            continue;
        }
        let mut subs = Vec::new();
        apply_sites(&c.body, &mut subs);
        apply_sites(&c.init, &mut subs);
        for s in subs {
            *count.entry(s).or_default() += 1;
            pairs.push((ControlId(i as u32), s));
        }
    }
    let top: Vec<ControlId> = package_controls(&program.main);
    pairs.iter().copied().find(|(caller, callee)| {
        // Every apply of the instance is in this caller: its tables and extern instances (one per
        // instance, shared by all applies) move there once.
        let one_caller = pairs.iter().all(|(c, s)| s != callee || c == caller);
        caller != callee
            && one_caller
            && !top.contains(callee)
            && binding(program, *callee, &all_args(program, *caller, *callee)).is_some()
    })
}

fn package_controls(p: &p4_ir::Package) -> Vec<ControlId> {
    let mut out = Vec::new();
    for (_, a) in &p.args {
        match a {
            PackageArg::Control(c) => out.push(*c),
            PackageArg::Package(p) => out.extend(package_controls(p)),
            _ => {}
        }
    }
    out
}

fn is_extern_type(program: &Program, ty: &Type) -> bool {
    matches!(ty, Type::Named(t) if matches!(program.types.get(t.index()), Some(TypeDef::Extern { .. })))
}

/// How each parameter is bound, given the arguments of every apply (`sites`): `Some(arg)`
/// substituted by reference, `None` copied; `None` if the callee cannot be inlined. With more than
/// one apply, every parameter is copied (the tables' keys and the actions read the parameters, and
/// they are shared by all applies), except `packet_in`/`packet_out`, which must then be the same
/// variable at every apply.
fn binding(program: &Program, callee: ControlId, sites: &[Vec<p4_ir::Arg>]) -> Option<Vec<Option<Expr>>> {
    let ctl = program.controls.get(callee.index())?;
    let args: Vec<p4_ir::Arg> = sites.first()?.clone();
    let multi = sites.len() > 1;
    let dirs: Vec<Direction> = ctl
        .block
        .params
        .iter()
        .map(|v| match ctl.block.vars.get(v.index()).map(|x| &x.kind) {
            Some(VarKind::Param(d)) => *d,
            _ => Direction::In,
        })
        .collect();
    let mut needs_copy_back = false;
    let mut out = Vec::new();
    for (k, (pv, a)) in ctl.block.params.iter().zip(&args).enumerate() {
        let var = ctl.block.vars.get(pv.index())?;
        let dir = match var.kind {
            VarKind::Param(d) => d,
            _ => Direction::In,
        };
        if is_extern_type(program, &var.ty) {
            // packet_in / packet_out: not storage, always by reference.
            let same = |s: &Vec<p4_ir::Arg>| match (&s.get(k)?.expr.kind, &a.expr.kind) {
                (ExprKind::Var(x), ExprKind::Var(y)) => Some(x == y),
                (ExprKind::Extern(x), ExprKind::Extern(y)) => Some(x == y),
                _ => Some(false),
            };
            if multi && !sites.iter().all(|s| same(s) == Some(true)) {
                return None;
            }
            out.push(Some(a.expr.clone()));
            continue;
        }
        // A by-reference argument must not overlap another writable one: the copies-back would
        // otherwise land in another order than the in-place writes.
        let shared = args.iter().enumerate().any(|(j, b)| {
            j != k && matches!(dirs.get(j), Some(Direction::Out | Direction::InOut)) && may_overlap(&a.expr, &b.expr)
        });
        let by_ref = !multi && dir == Direction::InOut && is_static_place(&a.expr) && !shared;
        if by_ref {
            out.push(Some(a.expr.clone()));
        } else {
            if matches!(dir, Direction::Out | Direction::InOut) && !matches!(a.expr.kind, ExprKind::DontCare) {
                needs_copy_back = true;
            }
            out.push(None);
        }
    }
    // An `exit` of the sub-control's body becomes a flag that skips the rest of the body and exits
    // after the copy-back; an `exit` in one of its actions (or deeper) cannot be caught that way.
    let copy_back = if multi { multi_sites_needs(program, callee, sites) } else { needs_copy_back };
    if copy_back && may_exit_outside_body(program, callee, 0) {
        return None;
    }
    Some(out)
}

/// Whether any apply passes a writable argument (a copy-back is needed at every apply).
fn multi_sites_needs(program: &Program, callee: ControlId, sites: &[Vec<p4_ir::Arg>]) -> bool {
    let Some(ctl) = program.controls.get(callee.index()) else { return true };
    sites.iter().any(|args| {
        ctl.block.params.iter().zip(args).any(|(pv, a)| {
            ctl.block.vars.get(pv.index()).is_some_and(|v| {
                matches!(v.kind, VarKind::Param(Direction::Out | Direction::InOut))
                    && !is_extern_type(program, &v.ty)
                    && !matches!(a.expr.kind, ExprKind::DontCare)
            })
        })
    })
}

/// True if `exit` may run in control `c` other than as a statement of its body or `init` (in an
/// action or function, or in a sub-control it applies, looked into `depth` levels down so far);
/// an unknown control may.
fn may_exit_outside_body(program: &Program, c: ControlId, depth: u32) -> bool {
    let b = BlockRef::Control(c);
    let Some(ctl) = program.controls.get(c.index()) else { return true };
    if program.actions.iter().any(|a| a.block == b && any_stmt(&a.body, &is_exit))
        || program.functions.iter().any(|f| f.block == b && any_stmt(&f.body, &is_exit))
    {
        return true;
    }
    let mut subs = Vec::new();
    apply_sites(&ctl.body, &mut subs);
    apply_sites(&ctl.init, &mut subs);
    depth < 64 && subs.into_iter().any(|s| may_exit(program, s, depth + 1))
}

/// The arguments of every apply of `callee` in `caller`, in statement order.
fn all_args(program: &Program, caller: ControlId, callee: ControlId) -> Vec<Vec<p4_ir::Arg>> {
    let Some(c) = program.controls.get(caller.index()) else { return Vec::new() };
    let sites = applies(&c.init).into_iter().chain(applies(&c.body));
    sites.filter(|(c, _)| *c == callee).map(|(_, args)| args.to_vec()).collect()
}

fn inline_one(program: &mut Program, caller: ControlId, callee: ControlId) {
    let sites = all_args(program, caller, callee);
    let Some(binding) = binding(program, callee, &sites) else { return };
    let copy_back = if sites.len() > 1 {
        multi_sites_needs(program, callee, &sites)
    } else {
        binding.iter().zip(&program.controls[callee.index()].block.params).zip(&sites[0]).any(|((b, pv), a)| {
            b.is_none()
                && matches!(
                    program.controls[callee.index()].block.vars[pv.index()].kind,
                    VarKind::Param(Direction::Out | Direction::InOut)
                )
                && !matches!(a.expr.kind, ExprKind::DontCare)
        })
    };
    let sub = program.controls[callee.index()].clone();
    let prefix = sub.block.name.rsplit('.').next().unwrap_or(&sub.block.name).to_string();
    let (old, new) = (BlockRef::Control(callee), BlockRef::Control(caller));
    // One frame for all applies: the locals are re-initialised by each apply's `init`, and the
    // tables and actions (shared) read the parameters' variables.
    let moved = move_frame(program, &sub.block, &new, &prefix, &binding);
    // Actions, functions and tables of the sub-control now run in the caller.
    rehome_callables(program, &old, &new, &moved);
    for t in program.tables.iter_mut().filter(|t| t.control == callee) {
        t.control = caller;
        walk_table_mut(&mut Outermost(|x: &mut Expr| moved.expr(x)), t);
    }
    let mut init = sub.init.clone();
    moved.stmts(&mut init);
    let mut body = sub.body.clone();
    moved.stmts(&mut body);
    // With a copy-back, `exit` in the body ends it through a flag (like `return`) and exits after
    // the copy-back, which the dataplane performs on the way out.
    let exits = copy_back
        && (any_stmt(&body, &|s| matches!(s, Stmt::Exit(_))) || any_stmt(&init, &|s| matches!(s, Stmt::Exit(_))));
    let c = &mut program.controls[caller.index()];
    c.actions.extend(sub.actions.iter().copied());
    c.tables.extend(sub.tables.iter().copied());
    c.externs.extend(sub.externs.iter().copied());
    let (mut cbody, mut cinit) = (std::mem::take(&mut c.body), std::mem::take(&mut c.init));
    let vars = &mut program.controls[caller.index()].block.vars;
    let span = Span::DUMMY;
    let mut site_stmts = |args: &[p4_ir::Arg]| -> Option<Vec<Stmt>> {
        let mut site = copy_ins(&moved, args);
        let (mut init, mut body) = (init.clone(), body.clone());
        let exit_flag = exits.then(|| fresh_var(vars, &format!("{prefix}_exited"), Type::Bool, VarKind::Temp));
        if let Some(f) = exit_flag {
            site.push(Stmt::VarInit { var: f, init: Some(bool_const(false, span)), span });
            // `init` runs before the body: an exit there skips the body too.
            let mut all = std::mem::take(&mut init);
            all.append(&mut body);
            body = exit_to_return(all, f);
        }
        site.extend(init);
        let (body, flag) = eliminate_returns(body, None, &mut || {
            fresh_var(vars, &format!("{prefix}_returned"), Type::Bool, VarKind::Temp)
        });
        if let Some(flag) = flag {
            site.push(Stmt::VarInit { var: flag, init: Some(bool_const(false, span)), span });
        }
        site.extend(body);
        site.extend(copy_outs(&moved, args));
        if let Some(f) = exit_flag {
            site.push(Stmt::If {
                cond: Expr::new(Type::Bool, ExprKind::Var(f), span),
                then: vec![Stmt::Exit(span)],
                otherwise: vec![],
                span,
            });
        }
        Some(site)
    };
    replace_applies(&mut cinit, callee, &mut site_stmts);
    replace_applies(&mut cbody, callee, &mut site_stmts);
    let c = &mut program.controls[caller.index()];
    c.body = cbody;
    c.init = cinit;
}

/// `exit` becomes `flag = true; return;` (the return is then eliminated like the body's own).
fn exit_to_return(mut stmts: Vec<Stmt>, flag: p4_ir::VarId) -> Vec<Stmt> {
    struct ExitToReturn(p4_ir::VarId);
    impl VisitMut for ExitToReturn {
        fn visit_stmt(&mut self, s: &mut Stmt) {
            if let Stmt::Exit(span) = *s {
                *s = Stmt::Block(vec![
                    Stmt::Assign {
                        lhs: Expr::new(Type::Bool, ExprKind::Var(self.0), span),
                        rhs: bool_const(true, span),
                        span,
                    },
                    Stmt::Return(None, span),
                ]);
            } else {
                walk_stmt_mut(self, s);
            }
        }
        fn visit_expr(&mut self, _: &mut Expr) {}
    }
    ExitToReturn(flag).visit_stmts(&mut stmts);
    stmts
}

/// Replaces each apply of `callee` by the statements `f` makes from its arguments (as a block: its
/// statements keep their order); `f` returning `None` leaves the apply.
fn replace_applies(stmts: &mut Vec<Stmt>, callee: ControlId, f: &mut dyn FnMut(&[p4_ir::Arg]) -> Option<Vec<Stmt>>) {
    struct Replace<'f> {
        callee: ControlId,
        f: &'f mut dyn FnMut(&[p4_ir::Arg]) -> Option<Vec<Stmt>>,
    }
    impl VisitMut for Replace<'_> {
        fn visit_stmt(&mut self, s: &mut Stmt) {
            match s {
                Stmt::ApplyBlock { block: BlockRef::Control(c), args, .. } if *c == self.callee => {
                    if let Some(site) = (self.f)(args) {
                        *s = Stmt::Block(site);
                    }
                }
                _ => walk_stmt_mut(self, s),
            }
        }
        fn visit_expr(&mut self, _: &mut Expr) {}
    }
    Replace { callee, f }.visit_stmts(stmts);
}

/// Removes the controls in `gone` (no longer referenced) and renumbers every control id.
fn remove_controls(program: &mut Program, gone: &[ControlId]) {
    if gone.is_empty() {
        return;
    }
    let n = program.controls.len();
    let mut new_id = vec![None; n];
    let mut next = 0u32;
    for (i, slot) in new_id.iter_mut().enumerate() {
        if !gone.contains(&ControlId(i as u32)) {
            *slot = Some(ControlId(next));
            next += 1;
        }
    }
    let map = |c: ControlId| new_id.get(c.index()).copied().flatten().unwrap_or(c);
    let map_ref = |b: &mut BlockRef| {
        if let BlockRef::Control(c) = b {
            *c = map(*c);
        }
    };
    for a in &mut program.actions {
        map_ref(&mut a.block);
    }
    for f in &mut program.functions {
        map_ref(&mut f.block);
    }
    for t in &mut program.tables {
        t.control = map(t.control);
    }
    // Sub-control applies name controls by id.
    struct ApplyIds<'m>(&'m dyn Fn(&mut BlockRef));
    impl VisitMut for ApplyIds<'_> {
        fn visit_stmt(&mut self, s: &mut Stmt) {
            if let Stmt::ApplyBlock { block, .. } = s {
                (self.0)(block);
            }
            walk_stmt_mut(self, s);
        }
        fn visit_expr(&mut self, _: &mut Expr) {}
    }
    walk_program_mut(&mut ApplyIds(&map_ref), program);
    fn package_ids(p: &mut p4_ir::Package, map: &dyn Fn(ControlId) -> ControlId) {
        for (_, a) in &mut p.args {
            match a {
                PackageArg::Control(c) => *c = map(*c),
                PackageArg::Package(p) => package_ids(p, map),
                _ => {}
            }
        }
    }
    package_ids(&mut program.main, &map);
    let mut i = 0;
    program.controls.retain(|_| {
        let keep = !gone.contains(&ControlId(i));
        i += 1;
        keep
    });
}
