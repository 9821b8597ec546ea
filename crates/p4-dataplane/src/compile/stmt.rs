//! Statements, calls with copy-in/copy-out, tables, parsers, controls, and the whole-program build.


use p4_arch::{DropMarker, Role, SharedKind, StateKind};
use p4_ir::{Arg, BlockRef, Builtin, Callee, Direction, Expr, ExprKind, MatchKind, Program, Stmt, Type, TypeDef};

use std::sync::Arc;

use super::expr::{copy_src, Leaf, Src, Write};
use super::{unsupported, Compiler, Loc, R};
use crate::fast::runtime::{run_loop, select_next, target, MAX_PARSER_STEPS};
use crate::bits;
use crate::exec::{
    Build,
    ControlProg, Ctx, Flow, ParserProg, Pipeline, Prog, Run, StateProg, TableActionProg, TableKeyProg, TableProg,
    SwitchArms, Target, TransitionProg,
};

pub(crate) use crate::exec::seq;

/// Stores a value into the frame.
type Store = Box<dyn Fn(&Prog, &mut Ctx) + Send + Sync>;

/// A copy-in step and a copy-out step for one parameter.
struct ParamCopy {
    copy_in: Option<Run>,
    copy_out: Option<Run>,
}

/// Where a statement is written (a bare block or an empty statement has no span of its own).
fn stmt_span(s: &Stmt) -> p4_ir::Span {
    match s {
        Stmt::VarInit { span, .. }
        | Stmt::Assign { span, .. }
        | Stmt::ApplyTable { span, .. }
        | Stmt::ApplyBlock { span, .. }
        | Stmt::If { span, .. }
        | Stmt::SwitchAction { span, .. }
        | Stmt::SwitchValue { span, .. }
        | Stmt::For { span, .. }
        | Stmt::Exit(span)
        | Stmt::Return(_, span)
        | Stmt::Break(span)
        | Stmt::Continue(span) => *span,
        Stmt::Call(call) => call.span,
        Stmt::Block(_) | Stmt::Empty => p4_ir::Span::DUMMY,
    }
}

impl Compiler<'_> {
    pub(crate) fn block(&mut self, b: &BlockRef, stmts: &[Stmt]) -> R<Run> {
        let mut runs = Vec::with_capacity(stmts.len());
        for s in stmts {
            runs.push(self.stmt(b, s).map_err(|e| e.at(stmt_span(s)))?);
        }
        Ok(seq(runs))
    }

    /// `dst = src` for a value of type `ty` at locations.
    fn assign_to(&mut self, b: &BlockRef, lhs: &Expr, rhs: &Expr) -> R<Run> {
        if self.is_scalar(&lhs.ty) {
            if !matches!(lhs.kind, ExprKind::Slice(..)) {
                match self.loc(b, lhs)? {
                    Loc::Static(slot) => {
                        let v = self.scalar(b, rhs)?;
                        return Ok(Box::new(move |p, c| {
                            let x = v(p, c);
                            c.set(slot, x);
                            Flow::Next
                        }));
                    }
                    // The place (`h[f(x)].a`) is resolved before the value is computed: the
                    // right-hand side may change what the index reads (BMv2 order).
                    Loc::Dyn(place) => {
                        let v = self.scalar(b, rhs)?;
                        return Ok(Box::new(move |p, c| {
                            let at = place(p, c);
                            let x = v(p, c);
                            if let Some(s) = at {
                                c.set(s, x);
                            }
                            Flow::Next
                        }));
                    }
                    Loc::Discard => {}
                }
            }
            let w = self.writer(b, lhs)?;
            let v = self.scalar(b, rhs)?;
            return Ok(Box::new(move |p, c| {
                let x = v(p, c);
                w(p, c, x);
                Flow::Next
            }));
        }
        let len = self.size(&lhs.ty)?;
        let dst = self.loc(b, lhs)?.resolver();
        let src = match self.agg_src(b, rhs)? {
            // A built value may read the destination (`h = {h.b, h.a}`): build it aside first.
            Src::Build(build) => {
                let tmp = self.alloc(&lhs.ty)?;
                let built: Build = Arc::new(move |p, c, d| {
                    build(p, c, tmp);
                    c.copy(tmp, d, len);
                });
                built
            }
            loc => copy_src(&loc, len),
        };
        let fix = self.union_fixup(b, lhs)?;
        Ok(Box::new(move |p, c| {
            if let Some(d) = dst(p, c) {
                src(p, c, d);
            }
            if let Some(f) = &fix {
                f(p, c);
            }
            Flow::Next
        }))
    }

    /// If `target` is a member of a header union: a step that invalidates the other members when
    /// `target` is valid.
    pub(crate) fn union_fixup(&mut self, b: &BlockRef, target: &Expr) -> R<Option<Run>> {
        let ExprKind::Field(parent, idx) = &target.kind else { return Ok(None) };
        let Some(TypeDef::Union { fields, .. }) = self.type_def(&parent.ty) else { return Ok(None) };
        let n = fields.len();
        let base = self.loc(b, parent)?.resolver();
        let mut me = 0;
        let mut others = Vec::new();
        for i in 0..n {
            let (off, fty) = self.field_offset(&parent.ty, i as u32)?;
            if i as u32 == *idx {
                me = off;
            } else {
                others.push((off, self.size(&fty)?));
            }
        }
        Ok(Some(Box::new(move |p, c| {
            if let Some(s) = base(p, c) {
                if c.get(s + me) != 0 {
                    for &(off, len) in &others {
                        c.zero(s + off, len);
                    }
                }
            }
            Flow::Next
        })))
    }

    pub(crate) fn stmt(&mut self, b: &BlockRef, s: &Stmt) -> R<Run> {
        let run = self.stmt_body(b, s)?;
        Ok(super::pending_exit::after(s, run))
    }

    fn stmt_body(&mut self, b: &BlockRef, s: &Stmt) -> R<Run> {
        Ok(match s {
            Stmt::VarInit { var, init, .. } => {
                let slot = self.var_slot(b, *var)?;
                let ty = self.var_type(b, *var).cloned().unwrap_or(Type::Void);
                let len = self.size(&ty)?;
                match init {
                    Some(e) if self.is_scalar(&ty) => {
                        let v = self.scalar(b, e)?;
                        Box::new(move |p, c| {
                            let x = v(p, c);
                            c.set(slot, x);
                            Flow::Next
                        })
                    }
                    Some(e) => {
                        let src = copy_src(&self.agg_src(b, e)?, len);
                        Box::new(move |p, c| {
                            src(p, c, slot);
                            Flow::Next
                        })
                    }
                    None => Box::new(move |_, c| {
                        c.zero(slot, len);
                        Flow::Next
                    }),
                }
            }
            Stmt::Assign { lhs, rhs, .. } => self.assign_to(b, lhs, rhs)?,
            Stmt::Call(call) => self.call_stmt(b, call)?,
            Stmt::ApplyTable { table, .. } => {
                let t = table.index();
                super::by_tracing!(self.tracing, T => Box::new(move |p, c| TableProg::apply::<T>(p, c, t).flow))
            }
            Stmt::ApplyBlock { block, args, .. } => self.apply_block(b, block, args)?,
            Stmt::If { cond, then, otherwise, .. } => {
                let cnd = self.scalar(b, cond)?;
                let t = self.block(b, then)?;
                let e = self.block(b, otherwise)?;
                super::pending_exit::branch(super::pending_exit::applies_table(cond), move |p, c| cnd(p, c) != 0, t, e)
            }
            Stmt::SwitchAction { table, cases, .. } => {
                let t = table.index();
                let arms = SwitchArms::build(cases, |a, body| Ok::<_, crate::DataplaneError>((a.map(|a| a.index()), self.block(b, body)?)))?;
                super::by_tracing!(self.tracing, T => Box::new(move |p, c| {
                    let out = TableProg::apply::<T>(p, c, t);
                    if out.flow != Flow::Next {
                        return out.flow;
                    }
                    arms.run(&out.action, p, c)
                }))
            }
            Stmt::SwitchValue { expr, cases, .. } => {
                let v = self.scalar(b, expr)?;
                let arms = SwitchArms::build(cases, |label, body| {
                    let label = match label {
                        Some(l) => Some(self.scalar_value(l, &expr.ty)?),
                        None => None,
                    };
                    Ok::<_, crate::DataplaneError>((label, self.block(b, body)?))
                })?;
                Box::new(move |p, c| {
                    let x = v(p, c);
                    arms.run(&x, p, c)
                })
            }
            Stmt::Block(stmts) => self.block(b, stmts)?,
            Stmt::Exit(_) => Box::new(|_, _| Flow::Exit),
            Stmt::Return(value, _) => {
                let store = match value {
                    Some(e) => Some(self.return_store(b, e)?),
                    None => None,
                };
                Box::new(move |p, c| {
                    if let Some(st) = &store {
                        st(p, c);
                    }
                    Flow::Return
                })
            }
            Stmt::For { init, cond, update, body, .. } => {
                let init = self.block(b, init)?;
                let cond = match cond {
                    Some(e) => Some(self.scalar(b, e)?),
                    None => None,
                };
                let update = self.block(b, update)?;
                let body = self.block(b, body)?;
                Box::new(move |p, c| run_loop(p, c, &init, |p, c| cond.as_ref().is_none_or(|cnd| cnd(p, c) != 0), &body, &update))
            }
            Stmt::Break(_) => Box::new(|_, _| Flow::Break),
            Stmt::Continue(_) => Box::new(|_, _| Flow::Continue),
            Stmt::Empty => Box::new(|_, _| Flow::Next),
        })
    }

    /// Stores a `return` value into the return slot of the function being compiled.
    fn return_store(&mut self, b: &BlockRef, e: &Expr) -> R<Store> {
        let slot = match self.current_ret {
            Some(s) => s,
            None => return unsupported("`return` with a value outside a function"),
        };
        if self.is_scalar(&e.ty) {
            let v = self.scalar(b, e)?;
            Ok(Box::new(move |p, c| {
                let x = v(p, c);
                c.set(slot, x);
            }))
        } else {
            let len = self.size(&e.ty)?;
            let src = copy_src(&self.agg_src(b, e)?, len);
            Ok(Box::new(move |p, c| src(p, c, slot)))
        }
    }

    /// Copy-in/copy-out steps binding `args` (evaluated in `caller`) to parameters `params` (slots in
    /// the callee's block).
    fn bind_params(&mut self, caller: &BlockRef, params: &[(Direction, Type, usize)], args: &[Arg]) -> R<Vec<ParamCopy>> {
        let mut out = Vec::new();
        for ((dir, ty, slot), arg) in params.iter().zip(args) {
            let slot = *slot;
            let scalar = self.is_scalar(ty);
            let len = self.size(ty)?;
            let copy_in: Option<Run> = match dir {
                Direction::Out => Some(Box::new(move |_, c| {
                    c.zero(slot, len);
                    Flow::Next
                })),
                _ if matches!(arg.expr.kind, ExprKind::DontCare) => None,
                _ if scalar => {
                    let v = self.scalar(caller, &arg.expr)?;
                    Some(Box::new(move |p, c| {
                        let x = v(p, c);
                        c.set(slot, x);
                        Flow::Next
                    }))
                }
                _ => {
                    let src = copy_src(&self.agg_src(caller, &arg.expr)?, len);
                    Some(Box::new(move |p, c| {
                        src(p, c, slot);
                        Flow::Next
                    }))
                }
            };
            let copy_out: Option<Run> = match dir {
                Direction::Out | Direction::InOut if !matches!(arg.expr.kind, ExprKind::DontCare) => {
                    if scalar {
                        let w: Write = self.writer(caller, &arg.expr)?;
                        Some(Box::new(move |p, c| {
                            let x = c.get(slot);
                            w(p, c, x);
                            Flow::Next
                        }))
                    } else {
                        let dst = self.loc(caller, &arg.expr)?.resolver();
                        let fix = self.union_fixup(caller, &arg.expr)?;
                        Some(Box::new(move |p, c| {
                            if let Some(d) = dst(p, c) {
                                c.copy(slot, d, len);
                            }
                            if let Some(f) = &fix {
                                f(p, c);
                            }
                            Flow::Next
                        }))
                    }
                }
                _ => None,
            };
            out.push(ParamCopy { copy_in, copy_out });
        }
        Ok(out)
    }

    fn callee_params(&self, block: &BlockRef, params: &[p4_ir::Param]) -> R<Vec<(Direction, Type, usize)>> {
        params.iter().map(|p| Ok((p.direction, p.ty.clone(), self.var_slot(block, p.var)?))).collect()
    }

    /// Wraps `body` with copy-in/copy-out; `Return` ends the callee only.
    fn with_copies(copies: Vec<ParamCopy>, body: impl Fn(&Prog, &mut Ctx) -> Flow + Send + Sync + 'static) -> Run {
        let (ins, outs): (Vec<Run>, Vec<Run>) = {
            let mut ins = Vec::new();
            let mut outs = Vec::new();
            for c in copies {
                if let Some(i) = c.copy_in {
                    ins.push(i);
                }
                if let Some(o) = c.copy_out {
                    outs.push(o);
                }
            }
            (ins, outs)
        };
        if ins.is_empty() && outs.is_empty() {
            return Box::new(move |p, c| match body(p, c) {
                Flow::Return => Flow::Next,
                f => f,
            });
        }
        Box::new(move |p, c| {
            for i in &ins {
                i(p, c);
            }
            let f = body(p, c);
            for o in &outs {
                o(p, c);
            }
            if f == Flow::Return {
                Flow::Next
            } else {
                f
            }
        })
    }

    /// A direct action call `a(args)`.
    fn action_call(&mut self, b: &BlockRef, a: usize, args: &[Arg]) -> R<Run> {
        let Some(act) = self.ir.actions.get(a) else { return unsupported(format!("action id {a}")) };
        let params = self.callee_params(&act.block, &act.params)?;
        let copies = self.bind_params(b, &params, args)?;
        Ok(Self::with_copies(copies, move |p, c| p.actions.get(a).map_or(Flow::Next, |body| body(p, c))))
    }

    /// A function call; returns the call and the return slot.
    pub(crate) fn function_call(&mut self, b: &BlockRef, call: &p4_ir::Call) -> R<(Run, Option<usize>)> {
        let Callee::Function(fid) = &call.callee else { return unsupported("not a function call") };
        let f = fid.index();
        let Some(func) = self.ir.functions.get(f) else { return unsupported(format!("function id {f}")) };
        let params = self.callee_params(&func.block, &func.params)?;
        let ret = match func.ret_var {
            Some(v) => Some(self.var_slot(&func.block, v)?),
            None => None,
        };
        let copies = self.bind_params(b, &params, &call.args)?;
        let run = Self::with_copies(copies, move |p, c| p.functions.get(f).map_or(Flow::Next, |body| body(p, c)));
        Ok((run, ret))
    }

    pub(crate) fn call_stmt(&mut self, b: &BlockRef, call: &p4_ir::Call) -> R<Run> {
        match &call.callee {
            Callee::Action(a) => self.action_call(b, a.index(), &call.args),
            Callee::Function(_) => Ok(self.function_call(b, call)?.0),
            Callee::Builtin { target, builtin } => self.builtin(b, target, *builtin),
            Callee::ExternFunction { .. } | Callee::Method { .. } => self.extern_call(b, call, None),
        }
    }

    fn builtin(&mut self, b: &BlockRef, target: &Expr, builtin: Builtin) -> R<Run> {
        let len = self.size(&target.ty)?;
        let base = self.loc(b, target)?.resolver();
        Ok(match builtin {
            Builtin::IsValid => Box::new(|_, _| Flow::Next),
            Builtin::SetValid => {
                let fix = self.union_fixup(b, target)?;
                Box::new(move |p, c| {
                    if let Some(s) = base(p, c) {
                        c.set(s, 1);
                    }
                    if let Some(f) = &fix {
                        f(p, c);
                    }
                    Flow::Next
                })
            }
            Builtin::SetInvalid => Box::new(move |p, c| {
                if let Some(s) = base(p, c) {
                    c.zero(s, len);
                }
                Flow::Next
            }),
            Builtin::PushFront(k) | Builtin::PopFront(k) => {
                let Type::Stack(elem, n) = &target.ty else { return unsupported("push/pop on a non-stack") };
                let es = self.size(elem)?;
                let n = *n as usize;
                let k = k as usize;
                let push = matches!(builtin, Builtin::PushFront(_));
                Box::new(move |p, c| {
                    let Some(s) = base(p, c) else { return Flow::Next };
                    let first = s + 1;
                    let ni = c.get(s) as usize;
                    if push {
                        for i in (0..n).rev() {
                            if i >= k {
                                c.copy(first + (i - k) * es, first + i * es, es);
                            } else {
                                c.zero(first + i * es, es);
                            }
                        }
                        c.set(s, (ni + k).min(n) as u128);
                    } else {
                        for i in 0..n {
                            if i + k < n {
                                c.copy(first + (i + k) * es, first + i * es, es);
                            } else {
                                c.zero(first + i * es, es);
                            }
                        }
                        c.set(s, ni.saturating_sub(k) as u128);
                    }
                    Flow::Next
                })
            }
        })
    }

    /// `sub.apply(args)` of a nested parser or control.
    fn apply_block(&mut self, b: &BlockRef, callee: &BlockRef, args: &[Arg]) -> R<Run> {
        let (block, is_parser, idx) = match callee {
            BlockRef::Parser(p) => (self.ir.parsers.get(p.index()).map(|x| &x.block), true, p.index()),
            BlockRef::Control(c) => (self.ir.controls.get(c.index()).map(|x| &x.block), false, c.index()),
        };
        let Some(block) = block else { return unsupported("unknown sub-block") };
        let mut params = Vec::new();
        for v in &block.params {
            let var = block.vars.get(v.index()).ok_or_else(|| crate::DataplaneError::invalid("bad param"))?;
            let dir = match var.kind {
                p4_ir::VarKind::Param(d) => d,
                _ => Direction::In,
            };
            params.push((dir, var.ty.clone(), self.var_slot(callee, *v)?));
        }
        let copies = self.bind_params(b, &params, args)?;
        Ok(if is_parser {
            super::by_tracing!(self.tracing, T => Self::with_copies(copies, move |p, c| match run_parser::<T>(p, c, idx) {
                Ok(()) => Flow::Next,
                Err(e) => Flow::Reject(e),
            }))
        } else {
            super::by_tracing!(self.tracing, T => Self::with_copies(copies, move |p, c| match run_control::<T>(p, c, idx) {
                Flow::Exit => Flow::Exit,
                Flow::Abort => Flow::Abort,
                _ => Flow::Next,
            }))
        })
    }

    // ------------------------------------------------------------------ tables

    fn table(&mut self, id: p4_ir::TableId) -> R<TableProg> {
        let ir = self.ir;
        let t = &ir.tables[id.index()];
        let b = BlockRef::Control(t.control);
        for k in &t.keys {
            match k.match_kind {
                MatchKind::Exact | MatchKind::Ternary | MatchKind::Lpm | MatchKind::Range | MatchKind::Optional => {}
                // Action profiles/selectors run as direct tables (no member/group API yet): the
                // selector keys only feed the member choice, so they take no part in matching
                // (the key layout lists them apart).
                MatchKind::Selector if t.implementation.is_some() => {}
                _ => return unsupported(format!("table {}: match kind `selector` outside an action selector, or an unknown match kind", t.name)),
            }
        }
        let layouts = self.layouts.clone();
        let mut keys = Vec::new();
        for f in &layouts.key(id).fields {
            let expr = &t.keys[f.index].expr;
            keys.push(TableKeyProg { eval: self.scalar(&b, expr)?, slot: self.fixed_scalar_slot(&b, expr) });
        }
        let mut actions = Vec::new();
        for a in t.effective_actions() {
            actions.push(self.table_action(&b, a.action.index(), &a.bound_args)?);
        }
        // What each per-entry extern is, the architecture says.
        let per_entry: Vec<usize> = p4_arch::per_entry_externs(t).map(|e| e.index()).collect();
        let state = |e: usize| {
            let a = p4_arch::of(self.ir)?;
            Some(a.extern_type(&self.ir.externs.get(e)?.type_name)?.state)
        };
        let entry_meter = per_entry.iter().copied().find(|e| state(*e) == Some(StateKind::DirectMeter));
        Ok(TableProg {
            name: t.name.clone(),
            keys,
            actions,
            per_entry,
            entry_meter,
        })
    }

    /// An action as a table runs it: bound (directional) parameters from `bound`, the rest from the
    /// entry's data.
    fn table_action(&mut self, b: &BlockRef, a: usize, bound: &[Expr]) -> R<TableActionProg> {
        let Some(act) = self.ir.actions.get(a) else { return unsupported(format!("action id {a}")) };
        let layouts = self.layouts.clone();
        let data = &layouts.actions[a].params;
        let mut data_slots = Vec::new();
        for d in data {
            data_slots.push(self.var_slot(&act.block, act.params[d.index].var)?);
        }
        let mut dir_params = Vec::new();
        for prm in act.params.iter().filter(|p| p.direction != Direction::None) {
            dir_params.push((prm.direction, prm.ty.clone(), self.var_slot(&act.block, prm.var)?));
        }
        let args: Vec<Arg> = bound.iter().zip(&dir_params).map(|(e, (d, _, _))| Arg { direction: *d, expr: e.clone() }).collect();
        let copies = self.bind_params(b, &dir_params[..args.len()], &args)?;
        let body = Self::with_copies(copies, move |p, c| p.actions.get(a).map_or(Flow::Next, |body| body(p, c)));
        Ok(TableActionProg {
            action: a,
            invoke: Box::new(move |p, c, data| {
                for (slot, v) in data_slots.iter().zip(data) {
                    c.set(*slot, *v);
                }
                body(p, c)
            }),
        })
    }

    // ------------------------------------------------------------------ parsers

    fn parser(&mut self, idx: usize) -> R<ParserProg> {
        let ir = self.ir;
        let Some(p) = ir.parsers.get(idx) else { return unsupported("parser id") };
        let b = BlockRef::Parser(p4_ir::ParserId(idx as u32));
        let init = self.block(&b, &p.init)?;
        let mut states = Vec::new();
        for st in &p.states {
            // Errors in a transition's keysets have no expression of their own: locate them at the state.
            states.push(self.parser_state(&b, st).map_err(|e| e.at(st.span))?);
        }
        Ok(ParserProg { name: p.block.name.clone(), init, states })
    }

    fn parser_state(&mut self, b: &BlockRef, st: &p4_ir::ParserState) -> R<StateProg> {
        // A statement that reads past the packet's end (`lookahead`) rejects right after it.
        let mut runs = Vec::with_capacity(st.body.len());
        for s in &st.body {
            runs.push(crate::exec::reject_on_pending_error(self.block(b, std::slice::from_ref(s))?));
        }
        let body = seq(runs);
        let transition = match &st.transition {
            p4_ir::Transition::Goto(t) => TransitionProg::Goto(target(*t)),
            p4_ir::Transition::Select { keys, cases } => {
                let mut kev = Vec::new();
                let mut widths = Vec::new();
                for k in keys {
                    kev.push(self.scalar(b, k)?);
                    widths.push(self.width(&k.ty).0);
                }
                let mut cs = Vec::new();
                for case in cases {
                    let mut ms = Vec::new();
                    for (ks, k) in case.keysets.iter().zip(keys) {
                        ms.push(self.keyset(ks, &k.ty)?);
                    }
                    cs.push((ms, target(case.target)));
                }
                TransitionProg::Select { keys: kev, widths, cases: cs }
            }
        };
        Ok(StateProg { name: st.name.clone(), body, transition })
    }

}

/// Runs parser `idx` from `start` to `accept` (Ok) or `reject` (Err with the error code).
/// Runs parser `idx`; `TRACED`: a traced build's, recording each state.
pub(crate) fn run_parser<const TRACED: bool>(p: &Prog, c: &mut Ctx, idx: usize) -> Result<(), u32> {
    let Some(parser) = p.parsers.get(idx) else { return Ok(()) };
    if let Flow::Reject(e) = (parser.init)(p, c) {
        return Err(e);
    }
    let mut state = 0usize;
    for _ in 0..MAX_PARSER_STEPS {
        let Some(st) = parser.states.get(state) else { return Ok(()) };
        if let (true, Some(trace)) = (TRACED, c.trace.as_mut()) {
            trace.push(crate::trace::Event::State { parser: parser.name.clone(), state: st.name.clone() });
        }
        match (st.body)(p, c) {
            Flow::Reject(e) => return Err(e),
            Flow::Abort => return Err(0),
            _ => {}
        }
        if let Some(e) = c.pending_err.take() {
            return Err(e);
        }
        let next = match &st.transition {
            TransitionProg::Goto(t) => *t,
            TransitionProg::Select { keys, widths, cases } => select_next(p, c, keys, widths, cases)?,
        };
        match next {
            Target::Accept => return Ok(()),
            Target::Reject => return Err(0),
            Target::State(s) => state = s,
        }
    }
    Err(p.errors.parser_timeout)
}

/// Runs control `idx` (init, then body); returns `Exit`/`Abort` to propagate, else `Next`.
/// Runs control `idx`; `TRACED`: a traced build's, recording the block and what it changed.
pub(crate) fn run_control<const TRACED: bool>(p: &Prog, c: &mut Ctx, idx: usize) -> Flow {
    let Some(ctl) = p.controls.get(idx) else { return Flow::Next };
    // An empty control (v1model's checksum controls in many programs) costs nothing; traced, it
    // still shows in the trace.
    if ctl.empty && !TRACED {
        return Flow::Next;
    }
    if let (true, Some(trace)) = (TRACED, c.trace.as_mut()) {
        trace.push(crate::trace::Event::Control { name: ctl.name.clone() });
    }
    let flow = match (ctl.init)(p, c) {
        f @ (Flow::Exit | Flow::Abort) => f,
        _ => match (ctl.body)(p, c) {
            f @ (Flow::Exit | Flow::Abort) => f,
            _ => Flow::Next,
        },
    };
    if let (true, Some(trace), Some(names)) = (TRACED, c.trace.as_mut(), &p.slot_names) {
        trace.diff(&c.f, names, true);
    }
    flow
}

// ---------------------------------------------------------------------- whole program

/// Lays out the frame and compiles every block, action, function and table.
pub(crate) fn build_prog(ir: &Program, tracing: bool) -> R<(Prog, Compiler<'_>)> {
    // The architecture says which instance plays which block and which parameters are one storage.
    if p4_arch::of(ir).is_none() {
        let known: Vec<String> = p4_arch::ALL.iter().map(|a| format!("{} ({})", a.package, a.name)).collect();
        return unsupported(format!("package `{}`: only {} programs run on this dataplane", ir.main.type_name, known.join(", ")));
    }
    let binding = p4_arch::bind(ir).map_err(crate::DataplaneError::unsupported)?;
    let arch = binding.arch;
    // The pipeline from the block roles: the parser, the controls up to the one playing Ingress
    // (then the traffic manager), up to the one playing Egress (then the after-egress decisions),
    // and the rest.
    let (Some(tm_at), Some(egress_at)) = (arch.block_index(Role::Ingress), arch.block_index(Role::Egress)) else {
        return unsupported(format!("{}: this dataplane needs an {:?} and an {:?} block", arch.package, Role::Ingress, Role::Egress));
    };
    let mut parser = None;
    let mut pipeline = Pipeline { parser: 0, ingress: Vec::new(), egress: Vec::new(), deparse: Vec::new() };
    for (i, b) in binding.blocks.iter().enumerate() {
        match b {
            BlockRef::Parser(p) if i == 0 => parser = Some(p.index()),
            BlockRef::Control(c) if i <= tm_at => pipeline.ingress.push(c.index()),
            BlockRef::Control(c) if i <= egress_at => pipeline.egress.push(c.index()),
            BlockRef::Control(c) => pipeline.deparse.push(c.index()),
            BlockRef::Parser(_) => return unsupported(format!("{}: this dataplane runs one parser, the package's first block", arch.package)),
        }
    }
    let Some(parser) = parser else {
        return unsupported(format!("{}: this dataplane runs one parser, the package's first block", arch.package));
    };
    pipeline.parser = parser;
    let mut cx = Compiler::new(ir);
    cx.tracing = tracing;
    // Each shared parameter is allocated once, with the type the first block having it declares.
    let block_params = |b: &BlockRef| -> Option<&p4_ir::Block> {
        match b {
            BlockRef::Parser(p) => ir.parsers.get(p.index()).map(|p| &p.block),
            BlockRef::Control(c) => ir.controls.get(c.index()).map(|c| &c.block),
        }
    };
    let mut shared_base: Vec<(SharedKind, usize, Type)> = Vec::new();
    for sp in arch.shared {
        let ty = binding.blocks.iter().zip(sp.positions).find_map(|(b, pos)| {
            let blk = block_params(b)?;
            blk.params.get((*pos)?).and_then(|v| blk.vars.get(v.index())).map(|v| v.ty.clone())
        });
        let ty = ty.ok_or_else(|| crate::DataplaneError::unsupported(format!("{}: no block has the {} parameter", arch.package, sp.name)))?;
        shared_base.push((sp.kind, cx.alloc(&ty)?, ty));
    }
    let base_of = |k: SharedKind| shared_base.iter().find(|s| s.0 == k).map(|s| (s.1, s.2.clone()));
    let missing = |what: &str| crate::DataplaneError::unsupported(format!("{}: no {what} parameter", arch.package));
    let (mbase, mty) = base_of(SharedKind::UserMetadata).ok_or_else(|| missing("user metadata"))?;
    let (sbase, sty) = base_of(SharedKind::Intrinsic).ok_or_else(|| missing("intrinsic metadata"))?;
    cx.meta = Some((mbase, mty.clone()));
    // Shared ranges by (block, param position).
    let shared: Vec<(BlockRef, Vec<Option<usize>>)> = binding
        .blocks
        .iter()
        .enumerate()
        .map(|(bi, b)| {
            let n = block_params(b).map_or(0, |blk| blk.params.len());
            let mut slots = vec![None; n];
            for (sp, (_, base, _)) in arch.shared.iter().zip(&shared_base) {
                if let Some(slot) = sp.positions.get(bi).copied().flatten().and_then(|pos| slots.get_mut(pos)) {
                    *slot = Some(*base);
                }
            }
            (b.clone(), slots)
        })
        .collect();
    let alias = |b: &BlockRef, params: &[p4_ir::VarId], v: usize| -> Option<usize> {
        let (_, slots) = shared.iter().find(|(sb, _)| sb == b)?;
        let pos = params.iter().position(|p| p.index() == v)?;
        slots.get(pos).copied().flatten()
    };
    for (i, p) in ir.parsers.iter().enumerate() {
        let b = BlockRef::Parser(p4_ir::ParserId(i as u32));
        let mut slots = Vec::new();
        for (v, var) in p.block.vars.iter().enumerate() {
            slots.push(match alias(&b, &p.block.params, v) {
                Some(s) => s,
                None => cx.alloc(&var.ty)?,
            });
        }
        cx.parser_vars.push(slots);
    }
    for (i, ctl) in ir.controls.iter().enumerate() {
        let b = BlockRef::Control(p4_ir::ControlId(i as u32));
        let mut slots = Vec::new();
        for (v, var) in ctl.block.vars.iter().enumerate() {
            slots.push(match alias(&b, &ctl.block.params, v) {
                Some(s) => s,
                None => cx.alloc(&var.ty)?,
            });
        }
        cx.control_vars.push(slots);
    }
    // Intrinsic metadata fields by the role the architecture gives their names.
    cx.intrinsic.port_width = binding.port_width.unwrap_or(0);
    cx.intrinsic.drop_value = u128::MAX;
    if let Some(TypeDef::Struct { name: sname, fields }) = cx.type_def(&sty) {
        for (i, f) in fields.iter().enumerate() {
            let (off, _) = cx.field_offset(&sty, i as u32)?;
            let Some(r) = arch.role_in(sname, &f.name) else { continue };
            // The drop marker: all ones in the marker field's declared width (v1model: 511).
            if let (DropMarker::AllOnes(d), Type::Bits { width, .. }) = (arch.drop, &f.ty) {
                if d == r {
                    cx.intrinsic.drop_value = crate::bits::mask(*width);
                }
            }
            cx.intrinsic.set_slot(r, sbase + off);
        }
    }

    let slot_names = if tracing { Some(std::sync::Arc::new(cx.slot_names()?)) } else { None };
    let mut actions = Vec::new();
    for a in &ir.actions {
        cx.current_ret = None;
        actions.push(cx.block(&a.block, &a.body)?);
    }
    let mut functions = Vec::new();
    for f in &ir.functions {
        cx.current_ret = match f.ret_var {
            Some(v) => Some(cx.var_slot(&f.block, v)?),
            None => None,
        };
        functions.push(cx.block(&f.block, &f.body)?);
    }
    cx.current_ret = None;
    let mut parsers = Vec::new();
    for i in 0..ir.parsers.len() {
        parsers.push(cx.parser(i)?);
    }
    let mut controls = Vec::new();
    for (i, ctl) in ir.controls.iter().enumerate() {
        let b = BlockRef::Control(p4_ir::ControlId(i as u32));
        let empty = ctl.init.is_empty() && ctl.body.is_empty();
        controls.push(ControlProg { name: ctl.block.name.clone(), init: cx.block(&b, &ctl.init)?, body: cx.block(&b, &ctl.body)?, empty });
    }
    let mut tables = Vec::new();
    for i in 0..ir.tables.len() {
        tables.push(cx.table(p4_ir::TableId(i as u32))?);
    }
    let prog = Prog {
        frame_len: cx.next_slot,
        parsers,
        controls,
        actions,
        functions,
        tables,
        field_sets: cx.field_sets.clone(),
        intrinsic: cx.intrinsic.clone(),
        pipeline_meta: crate::exec::PipelineMeta::of(&cx.intrinsic),
        meta_range: (mbase, cx.size(&mty)?),
        intrinsic_range: (sbase, cx.size(&sty)?),
        errors: cx.errors,
        error_names: ir.errors.clone(),
        pipeline,
        layouts: cx.layouts.clone(),
        arch,
        draws_random: cx.draws_random.get(),
        slot_names,
        fast: None,
    };
    Ok((prog, cx))
}

/// Serialises `leaves` into `c.scratch` (optionally followed by the unparsed payload).
pub(crate) fn serialize(p: &Prog, c: &mut Ctx, leaves: &[Leaf], payload: bool) {
    let mut w = std::mem::take(&mut c.scratch);
    w.clear();
    for leaf in leaves {
        match (leaf.scalar(p, c), leaf) {
            (Some((v, width)), _) => w.push(v, width),
            (None, Leaf::Varbit(loc)) => push_varbit(p, c, loc, &mut w),
            (None, _) => {}
        }
    }
    if payload {
        let start = c.cursor.div_ceil(8).min(c.pkt.len());
        w.push_bytes(c.pkt.get(start..).unwrap_or(&[]));
    }
    c.scratch = w;
}

/// Appends a varbit value (`[len, chunks...]` at `loc`).
pub(crate) fn push_varbit(p: &Prog, c: &mut Ctx, loc: &Loc, w: &mut bits::BitWriter) {
    let base = match loc {
        Loc::Static(s) => Some(*s),
        Loc::Dyn(d) => d(p, c),
        Loc::Discard => None,
    };
    let Some(base) = base else { return };
    let mut left = c.get(base) as u32;
    let mut k = 1;
    while left > 0 {
        let take = left.min(128);
        w.push(c.get(base + k), take);
        left -= take;
        k += 1;
    }
}
