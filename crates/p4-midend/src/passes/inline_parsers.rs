//! `inline-parsers`: a sub-parser applied from a parser state (`sub.apply(pkt, hdr.x)`) becomes part
//! of the caller's state machine. Why: a hardware parser is one state machine whose states a later
//! pass gives fixed byte offsets; a nested parser call has no place in it.
//!
//! The state `s` holding the apply is split: `s` keeps the statements before the apply, binds the
//! parameters, runs the sub-parser's `init` and goes to the sub-parser's `start`; the sub-parser's
//! states follow (named `<instance>.<state>`), their `accept` now going to a new state
//! `<s>.after_<instance>` that holds the statements after the apply and `s`'s old transition; their
//! `reject` still rejects the whole parse, with the same error.
//!
//! Binding: `packet_in` and `in` parameters as in `inline-controls` (by reference, resp. copied); an
//! `out`/`inout` parameter must be bound by reference (fixed storage, sharing no variable with another
//! argument), because a reject leaves the sub-parser without running a copy-back while the dataplane
//! copies back even then. An `out` argument is reset at the call as its copy-in did (headers
//! invalidated, stacks emptied with `pop_front(N)`, bits zeroed, recursively through structs); an
//! `out` parameter holding an enum, an error or a varbit outside a header is not supported yet, and
//! such a sub-parser stays. Only applies at the top level of a state's statements are inlined; a
//! sub-parser applied in several states is inlined at each (a copy of its states and frame per
//! apply) unless it owns actions or functions.

use crate::frame::{copy_ins, move_frame, rehome_callables};
use crate::util::{is_static_place, may_overlap};
use crate::{Pass, PassError};
use p4_ir::{
    BlockRef, Builtin, Call, Callee, Direction, Expr, ExprKind, PackageArg, ParserId, ParserState, Program, Span,
    StateId, StateTarget, Stmt, Transition, TypeDef, VarKind,
};

pub const NAME: &str = "inline-parsers";

pub struct InlineParsers;

impl Pass for InlineParsers {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program) -> Result<(), PassError> {
        let mut removed = Vec::new();
        while let Some(site) = next_site(program, &removed) {
            let callee = site.callee;
            inline_one(program, site);
            // A sub-parser applied in several places goes once its last apply is inlined.
            if !all_applies(program).iter().any(|a| a.3 == callee && !removed.contains(&a.0)) {
                removed.push(callee);
            }
        }
        remove_parsers(program, &removed);
        Ok(())
    }
}

struct Site {
    caller: ParserId,
    state: usize,
    index: usize,
    callee: ParserId,
    args: Vec<p4_ir::Arg>,
    binding: Vec<Option<Expr>>,
}

/// One apply of a sub-parser: caller, state, position in the state's statements (`None` when it is
/// nested in another statement), callee, arguments.
type Apply = (ParserId, usize, Option<usize>, ParserId, Vec<p4_ir::Arg>);

/// Every apply of a sub-parser, anywhere in parser code.
fn all_applies(program: &Program) -> Vec<Apply> {
    let mut out = Vec::new();
    for (pi, p) in program.parsers.iter().enumerate() {
        for (si, st) in p.states.iter().enumerate() {
            for (k, s) in st.body.iter().enumerate() {
                match s {
                    Stmt::ApplyBlock { block: BlockRef::Parser(c), args, .. } => {
                        out.push((ParserId(pi as u32), si, Some(k), *c, args.clone()))
                    }
                    other => {
                        if crate::util::any_stmt(std::slice::from_ref(other), &|x| {
                            matches!(x, Stmt::ApplyBlock { block: BlockRef::Parser(_), .. })
                        }) {
                            // Nested in an `if`: counted, not inlined.
                            out.push((ParserId(pi as u32), si, None, ParserId(u32::MAX), Vec::new()));
                        }
                    }
                }
            }
        }
    }
    out
}

fn top_parsers(p: &p4_ir::Package) -> Vec<ParserId> {
    let mut out = Vec::new();
    for (_, a) in &p.args {
        match a {
            PackageArg::Parser(x) => out.push(*x),
            PackageArg::Package(p) => out.extend(top_parsers(p)),
            _ => {}
        }
    }
    out
}

fn next_site(program: &Program, removed: &[ParserId]) -> Option<Site> {
    // Applies inside parsers already inlined (and about to be removed) do not count.
    let applies: Vec<_> = all_applies(program).into_iter().filter(|a| !removed.contains(&a.0)).collect();
    let top = top_parsers(&program.main);
    // Nested applies we cannot see precisely: do nothing rather than guess.
    if applies.iter().any(|a| a.2.is_none()) {
        return None;
    }
    for (caller, state, index, callee, args) in &applies {
        if removed.contains(caller) || caller == callee || top.contains(callee) {
            continue;
        }
        // Applied in several places, each apply gets its own copy of the states and the frame
        // (parser locals live for one apply); the callee's actions and functions would be shared
        // by the copies, so such a sub-parser is inlined only where it is applied once.
        let owns_callables = program.actions.iter().any(|a| a.block == BlockRef::Parser(*callee))
            || program.functions.iter().any(|f| f.block == BlockRef::Parser(*callee));
        if owns_callables && applies.iter().filter(|a| a.3 == *callee).count() != 1 {
            continue;
        }
        let Some(binding) = binding(program, *callee, args) else { continue };
        return Some(Site {
            caller: *caller,
            state: *state,
            index: (*index)?,
            callee: *callee,
            args: args.clone(),
            binding,
        });
    }
    None
}

fn binding(program: &Program, callee: ParserId, args: &[p4_ir::Arg]) -> Option<Vec<Option<Expr>>> {
    let p = program.parsers.get(callee.index())?;
    let dirs: Vec<Direction> = p
        .block
        .params
        .iter()
        .map(|v| match p.block.vars.get(v.index()).map(|x| &x.kind) {
            Some(VarKind::Param(d)) => *d,
            _ => Direction::In,
        })
        .collect();
    let mut out = Vec::new();
    for (k, (pv, a)) in p.block.params.iter().zip(args).enumerate() {
        let var = p.block.vars.get(pv.index())?;
        let named = match &var.ty {
            p4_ir::Type::Named(t) => program.types.get(t.index()),
            _ => None,
        };
        if matches!(named, Some(TypeDef::Extern { .. })) {
            out.push(Some(a.expr.clone()));
            continue;
        }
        let dir = match var.kind {
            VarKind::Param(d) => d,
            _ => Direction::In,
        };
        // Writable arguments must not overlap: each is written in place, in program order.
        let shared = args.iter().enumerate().any(|(j, b)| {
            j != k && matches!(dirs.get(j), Some(Direction::Out | Direction::InOut)) && may_overlap(&a.expr, &b.expr)
        });
        let by_ref_ok = is_static_place(&a.expr) && !shared;
        match dir {
            Direction::In | Direction::None => out.push(None),
            Direction::InOut if by_ref_ok => out.push(Some(a.expr.clone())),
            Direction::Out if by_ref_ok && reset_stmts(program, &a.expr).is_some() => out.push(Some(a.expr.clone())),
            _ => return None,
        }
    }
    Some(out)
}

fn inline_one(program: &mut Program, site: Site) {
    let sub = program.parsers[site.callee.index()].clone();
    let prefix = sub.block.name.rsplit('.').next().unwrap_or(&sub.block.name).to_string();
    let (old, new) = (BlockRef::Parser(site.callee), BlockRef::Parser(site.caller));
    let moved = move_frame(program, &sub.block, &new, &prefix, &site.binding);
    rehome_callables(program, &old, &new, &moved);
    // What the call site does before the sub-parser's start state.
    let mut entry = copy_ins(&moved, &site.args);
    for (k, pv) in sub.block.params.iter().enumerate() {
        let is_out = matches!(sub.block.vars.get(pv.index()).map(|v| &v.kind), Some(VarKind::Param(Direction::Out)));
        if let (true, Some(Some(target))) = (is_out, site.binding.get(k)) {
            if !matches!(target.kind, ExprKind::DontCare) && !is_extern(program, &target.ty) {
                entry.extend(reset_stmts(program, target).unwrap_or_default());
            }
        }
    }
    let mut init = sub.init.clone();
    moved.stmts(&mut init);
    entry.extend(init);

    let caller = &mut program.parsers[site.caller.index()];
    let offset = caller.states.len() as u32;
    let cont = StateId(offset + sub.states.len() as u32);
    let mut names: Vec<String> = caller.states.iter().map(|s| s.name.clone()).collect();
    let mut unique = |base: String| {
        let mut name = base.clone();
        let mut k = 1;
        while names.contains(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        names.push(name.clone());
        name
    };
    let retarget = |t: StateTarget| match t {
        StateTarget::State(s) => StateTarget::State(StateId(offset + s.0)),
        StateTarget::Accept => StateTarget::State(cont),
        StateTarget::Reject => StateTarget::Reject,
    };
    let mut new_states = Vec::new();
    for st in &sub.states {
        let mut body = st.body.clone();
        moved.stmts(&mut body);
        let transition = match &st.transition {
            Transition::Goto(t) => Transition::Goto(retarget(*t)),
            Transition::Select { keys, cases } => {
                let mut keys = keys.clone();
                keys.iter_mut().for_each(|k| moved.expr(k));
                let cases = cases
                    .iter()
                    .map(|c| {
                        let mut c = c.clone();
                        c.target = retarget(c.target);
                        c
                    })
                    .collect();
                Transition::Select { keys, cases }
            }
        };
        new_states.push(ParserState { name: unique(format!("{prefix}.{}", st.name)), body, transition, span: st.span });
    }
    let state = &mut caller.states[site.state];
    let after: Vec<Stmt> = state.body.split_off(site.index + 1);
    state.body.pop();
    state.body.extend(entry);
    let old_transition =
        std::mem::replace(&mut state.transition, Transition::Goto(StateTarget::State(StateId(offset))));
    let cont_state = ParserState {
        name: unique(format!("{}.after_{prefix}", state.name)),
        body: after,
        transition: old_transition,
        span: state.span,
    };
    caller.states.extend(new_states);
    caller.states.push(cont_state);
    for e in &sub.externs {
        if !caller.externs.contains(e) {
            caller.externs.push(*e);
        }
    }
    for v in &sub.value_sets {
        if !caller.value_sets.contains(v) {
            caller.value_sets.push(*v);
        }
    }
}

/// Statements that put `place` in the state an `out` parameter starts in (the dataplane zeroes it):
/// headers invalid, stacks empty, bits 0, booleans false. `None` for a type this cannot express.
fn reset_stmts(program: &Program, place: &Expr) -> Option<Vec<Stmt>> {
    let span = Span::DUMMY;
    let builtin = |b: Builtin| {
        Stmt::Call(Call { callee: Callee::Builtin { target: Box::new(place.clone()), builtin: b }, args: vec![], span })
    };
    match &place.ty {
        p4_ir::Type::Bits { width, signed } => {
            let zero = p4_ir::Value::Bits { width: *width, signed: *signed, value: 0.into() };
            Some(vec![Stmt::Assign { lhs: place.clone(), rhs: Expr::constant(zero, place.ty.clone(), span), span }])
        }
        p4_ir::Type::Bool => Some(vec![Stmt::Assign {
            lhs: place.clone(),
            rhs: Expr::constant(p4_ir::Value::Bool(false), p4_ir::Type::Bool, span),
            span,
        }]),
        // pop_front(N) on a stack of N empties it: every element invalid, nextIndex 0.
        p4_ir::Type::Stack(_, n) => Some(vec![builtin(Builtin::PopFront(*n))]),
        p4_ir::Type::Named(t) => match program.types.get(t.index())? {
            TypeDef::Header { .. } => Some(vec![builtin(Builtin::SetInvalid)]),
            TypeDef::Struct { fields, .. } | TypeDef::Union { fields, .. } => {
                let mut out = Vec::new();
                for (i, f) in fields.iter().enumerate() {
                    let field = Expr::new(f.ty.clone(), ExprKind::Field(Box::new(place.clone()), i as u32), span);
                    out.extend(reset_stmts(program, &field)?);
                }
                Some(out)
            }
            _ => None,
        },
        _ => None,
    }
}

fn is_extern(program: &Program, ty: &p4_ir::Type) -> bool {
    matches!(ty, p4_ir::Type::Named(t) if matches!(program.types.get(t.index()), Some(TypeDef::Extern { .. })))
}

/// Removes the parsers in `gone` and renumbers parser ids.
fn remove_parsers(program: &mut Program, gone: &[ParserId]) {
    if gone.is_empty() {
        return;
    }
    let mut new_id = Vec::new();
    let mut next = 0;
    for i in 0..program.parsers.len() {
        if gone.contains(&ParserId(i as u32)) {
            new_id.push(None);
        } else {
            new_id.push(Some(ParserId(next)));
            next += 1;
        }
    }
    let map = |p: ParserId| new_id.get(p.index()).copied().flatten().unwrap_or(p);
    let map_ref = |b: &mut BlockRef| {
        if let BlockRef::Parser(p) = b {
            *p = map(*p);
        }
    };
    for a in &mut program.actions {
        map_ref(&mut a.block);
    }
    for f in &mut program.functions {
        map_ref(&mut f.block);
    }
    for p in &mut program.parsers {
        for s in &mut p.states {
            for st in &mut s.body {
                if let Stmt::ApplyBlock { block, .. } = st {
                    map_ref(block);
                }
            }
        }
    }
    fn package(p: &mut p4_ir::Package, map: &dyn Fn(ParserId) -> ParserId) {
        for (_, a) in &mut p.args {
            match a {
                PackageArg::Parser(x) => *x = map(*x),
                PackageArg::Package(p) => package(p, map),
                _ => {}
            }
        }
    }
    package(&mut program.main, &map);
    let mut i = 0;
    program.parsers.retain(|_| {
        let keep = !gone.contains(&ParserId(i));
        i += 1;
        keep
    });
}
