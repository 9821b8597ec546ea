//! Headers the deparser takes from the packet as it arrived.
//!
//! When the last emits of the deparser are headers that nothing after the parser changes (no
//! field written, no validity changed, in any control, action or function), and the parser
//! extracts them from one stretch of the packet in emit order, the bytes of those headers are the
//! packet's own bytes from where the first of them was extracted: the deparser need not build
//! them again. The parser records that offset (`keep`), the deparser emits only the headers
//! before them, and the merge sends the packet's bytes from `keep` on. mdp changes none of its
//! headers, so its 1,174-byte header vector, and the shifters behind its varbit fields, go away.
//!
//! The conditions, checked on the lowered IR (any doubt keeps every emit):
//! - the tail is top-level `emit` statements of headers and stacks (no unions), each once;
//! - no write anywhere to a header of the same type through the blocks' parameters (by type, so
//!   a write to another header of that type counts too);
//! - on every parser path, once a tail header is extracted, everything the parser consumes is a
//!   tail header extracted in emit order (a stack's elements from index 0 up): no `advance`, no
//!   other header, none twice;
//! - every offset is whole bytes (the merge counts bytes).

use std::collections::{BTreeMap, BTreeSet};

use p4_ir::cfg::{stmts_effects, Location, NEXT_INDEX, VALID};
use p4_ir::{Builtin, Call, Callee, Control, Expr, ExprKind, Parser, Program, Stmt, Type, TypeDef, TypeId, Value, Var, VarKind};

use crate::block::BlockGen;
use crate::error::Result;
use crate::parser::ParserPlan;

/// The deparser's unchanged tail.
#[derive(Clone, Debug)]
pub struct UnchangedTail {
    /// Top-level deparser statements to generate; the ones after them emit the tail.
    pub emit_stmts: usize,
    /// The tail's headers and stacks by SystemVerilog path, with their place in emit order.
    pub units: BTreeMap<String, usize>,
}

/// How an extract names its header.
enum Access {
    Header,
    StackNext,
    StackAt(u32),
}

/// The tail, if the program has one (see the module comment).
pub fn analyse(
    pg: &mut BlockGen,
    parser: &Parser,
    plan: &ParserPlan,
    dg: &mut BlockGen,
    dep: &Control,
) -> Result<Option<UnchangedTail>> {
    if plan.align < 3 {
        return Ok(None);
    }
    let touched = touched_header_types(pg.p);
    // The tail, from the last statement back.
    let mut units_rev: Vec<String> = Vec::new();
    let mut emit_stmts = dep.body.len();
    for (i, st) in dep.body.iter().enumerate().rev() {
        match st {
            Stmt::Empty => {}
            Stmt::Call(c) if is_method(c, "packet_out", "emit") => {
                let Some(arg) = c.args.first() else { break };
                let mut units = Vec::new();
                if !expand(dg, &arg.expr, &touched, &mut units)? {
                    break;
                }
                units_rev.extend(units.into_iter().rev());
            }
            _ => break,
        }
        emit_stmts = i;
    }
    let mut units = BTreeMap::new();
    for (pos, key) in units_rev.into_iter().rev().enumerate() {
        if units.insert(key, pos).is_some() {
            return Ok(None); // emitted twice
        }
    }
    if units.is_empty() || !extracted_in_order(pg, parser, plan, &units)? {
        return Ok(None);
    }
    Ok(Some(UnchangedTail { emit_stmts, units }))
}

/// The headers and stacks an emit of `e` writes, in order, by path; false if one of them may
/// change (or is a union).
fn expand(dg: &mut BlockGen, e: &Expr, touched: &BTreeSet<TypeId>, out: &mut Vec<String>) -> Result<bool> {
    let (elem, stack) = match &e.ty {
        Type::Stack(elem, _) => (elem.as_ref(), true),
        t => (t, false),
    };
    let Type::Named(id) = elem else { return Ok(false) };
    match dg.p.types.get(id.index()) {
        Some(TypeDef::Header { .. }) if !touched.contains(id) => {
            // Only the packet's headers: a local of the deparser may be made valid there.
            let path = dg.lval(e)?;
            if !path.starts_with("s.phv.") {
                return Ok(false);
            }
            out.push(path);
            Ok(true)
        }
        Some(TypeDef::Struct { fields, .. }) if !stack => {
            for (i, f) in fields.iter().enumerate() {
                let field = Expr::new(f.ty.clone(), ExprKind::Field(Box::new(e.clone()), i as u32), e.span);
                if !expand(dg, &field, touched, out)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// What an extract of `arg` reads, by the tail's keys: the header or stack and how.
fn extract_key(g: &mut BlockGen, arg: &Expr) -> Result<(String, Access)> {
    Ok(match &arg.kind {
        ExprKind::StackNext(stack) => (g.lval(stack)?, Access::StackNext),
        ExprKind::Index(stack, i) => match &i.kind {
            ExprKind::Const(Value::Bits { value, .. } | Value::InfInt(value)) => {
                (g.lval(stack)?, Access::StackAt(u32::try_from(value).unwrap_or(u32::MAX)))
            }
            _ => (g.lval(stack)?, Access::StackAt(u32::MAX)),
        },
        _ => (g.lval(arg)?, Access::Header),
    })
}

/// The tail's key of the header an extract of `arg` reads, if it is in the tail.
pub fn tail_key(g: &mut BlockGen, arg: &Expr, tail: &UnchangedTail) -> Result<bool> {
    Ok(tail.units.contains_key(&extract_key(g, arg)?.0))
}

/// Where a parser path is in the tail: `None` before its first header, else the last header's
/// place and, for a stack, the next element's index.
type PathState = Option<(usize, u32)>;

/// Whether on every path every consumption after the first tail header is the next tail header.
fn extracted_in_order(g: &mut BlockGen, parser: &Parser, plan: &ParserPlan, units: &BTreeMap<String, usize>) -> Result<bool> {
    let n = parser.states.len();
    let mut incoming: Vec<BTreeSet<PathState>> = vec![BTreeSet::new(); n];
    if n > 0 {
        incoming[0].insert(None);
    }
    for &s in &plan.order {
        let state = &parser.states[s];
        let Some(out) = consume(g, &state.body, std::mem::take(&mut incoming[s]), units)? else { return Ok(false) };
        let targets: Vec<usize> = match &state.transition {
            p4_ir::Transition::Goto(t) => vec![*t],
            p4_ir::Transition::Select { cases, .. } => cases.iter().map(|c| c.target).collect(),
        }
        .into_iter()
        .filter_map(|t| if let p4_ir::StateTarget::State(id) = t { Some(id.index()) } else { None })
        .collect();
        for t in targets {
            incoming[t].extend(out.iter().copied());
        }
    }
    Ok(true)
}

/// The path states after `body`; `None` if some path breaks the order.
fn consume(g: &mut BlockGen, body: &[Stmt], mut states: BTreeSet<PathState>, units: &BTreeMap<String, usize>) -> Result<Option<BTreeSet<PathState>>> {
    for st in body {
        match st {
            Stmt::Call(c) if is_method(c, "packet_in", "extract") => {
                let Some(arg) = c.args.first() else { return Ok(None) };
                let (key, access) = extract_key(g, &arg.expr)?;
                let mut next = BTreeSet::new();
                for s in states {
                    let Some(&pos) = units.get(&key) else {
                        if s.is_some() {
                            return Ok(None); // a header outside the tail inside its bytes
                        }
                        next.insert(None);
                        continue;
                    };
                    let stepped = match (s, &access) {
                        // A header, or a stack's element 0, further down the tail.
                        (None, Access::Header) => Some((pos, 0)),
                        (Some((last, _)), Access::Header) if pos > last => Some((pos, 0)),
                        (None, Access::StackNext | Access::StackAt(0)) => Some((pos, 1)),
                        (Some((last, _)), Access::StackNext | Access::StackAt(0)) if pos > last => Some((pos, 1)),
                        // The same stack's next element.
                        (Some((last, i)), Access::StackNext) if pos == last => Some((pos, i + 1)),
                        (Some((last, i)), Access::StackAt(at)) if pos == last && *at == i => Some((pos, i + 1)),
                        _ => None,
                    };
                    match stepped {
                        Some(s) => next.insert(Some(s)),
                        None => return Ok(None),
                    };
                }
                states = next;
            }
            // An inlined sub-parser's `out` headers start invalid: a no-op on a tail header the
            // path has not reached yet, and a change to the packet's bytes on one it has.
            Stmt::Call(Call { callee: Callee::Builtin { target, builtin: Builtin::SetInvalid | Builtin::PopFront(_) }, .. }) => {
                let (key, _) = extract_key(g, target)?;
                if let Some(&pos) = units.get(&key) {
                    if states.iter().any(|s| s.is_some_and(|(last, _)| pos <= last)) {
                        return Ok(None);
                    }
                }
            }
            // Skipped bytes inside the tail's stretch would be sent but never emitted.
            Stmt::Call(c) if is_method(c, "packet_in", "advance") && states.iter().any(Option::is_some) => return Ok(None),
            Stmt::If { then, otherwise, .. } => {
                let (Some(a), Some(b)) = (consume(g, then, states.clone(), units)?, consume(g, otherwise, states, units)?) else {
                    return Ok(None);
                };
                states = a.union(&b).copied().collect();
            }
            Stmt::Block(b) => match consume(g, b, states, units)? {
                Some(s) => states = s,
                None => return Ok(None),
            },
            _ => {}
        }
    }
    Ok(Some(states))
}

fn is_method(c: &Call, extern_type: &str, method: &str) -> bool {
    matches!(&c.callee, Callee::Method { extern_type: t, method: m, .. } if t == extern_type && m == method)
}

/// Header types that something after the parser may change, or the parser itself other than by
/// extracting or invalidating (see [`consume`]): every location written through a block parameter
/// (the IR's def-use, `p4_ir::cfg::stmts_effects`) counts, with the headers of the written value's
/// type and of every value it is part of.
fn touched_header_types(p: &Program) -> BTreeSet<TypeId> {
    let mut out = BTreeSet::new();
    for control in &p.controls {
        let mut fx = stmts_effects(p, &control.init);
        fx.extend(stmts_effects(p, &control.body));
        for l in fx.writes() {
            mark_written(p, &control.block.vars, l, &mut out);
        }
    }
    for parser in &p.parsers {
        let mut writes = BTreeSet::new();
        parser_writes(p, &parser.init, &mut writes);
        for s in &parser.states {
            parser_writes(p, &s.body, &mut writes);
        }
        for l in &writes {
            mark_written(p, &parser.block.vars, l, &mut out);
        }
    }
    out
}

/// A parser's writes other than its extracts and invalidations.
fn parser_writes(p: &Program, body: &[Stmt], out: &mut BTreeSet<Location>) {
    for st in body {
        match st {
            Stmt::Call(c) if is_method(c, "packet_in", "extract") => {}
            Stmt::Call(Call { callee: Callee::Builtin { builtin: Builtin::SetInvalid | Builtin::PopFront(_), .. }, .. }) => {}
            Stmt::If { then, otherwise, .. } => {
                parser_writes(p, then, out);
                parser_writes(p, otherwise, out);
            }
            Stmt::Block(b) => parser_writes(p, b, out),
            _ => out.extend(stmts_effects(p, std::slice::from_ref(st)).writes().iter().cloned()),
        }
    }
}

/// The header types a write of `l` may change, when `l` is a block parameter's storage.
fn mark_written(p: &Program, vars: &[Var], l: &Location, out: &mut BTreeSet<TypeId>) {
    let Some(var) = vars.get(l.var.index()) else { return };
    if !matches!(var.kind, VarKind::Param(_)) {
        return;
    }
    let mut ty = &var.ty;
    for &step in &l.path {
        if let Type::Named(id) = ty {
            if matches!(p.types.get(id.index()), Some(TypeDef::Header { .. })) {
                out.insert(*id);
            }
        }
        ty = match ty {
            Type::Stack(elem, _) => elem.as_ref(),
            Type::Named(id) if step != VALID && step != NEXT_INDEX => {
                match p.types.get(id.index()).and_then(|d| d.fields().get(step as usize)) {
                    Some(f) => &f.ty,
                    None => return,
                }
            }
            // A header's validity or a stack's next index: the header (or element type) itself.
            _ => break,
        };
    }
    headers_in(p, ty, out);
}

fn headers_in(p: &Program, ty: &Type, out: &mut BTreeSet<TypeId>) {
    match ty {
        Type::Stack(t, _) => headers_in(p, t, out),
        Type::Named(id) => match p.types.get(id.index()) {
            Some(TypeDef::Header { .. }) => {
                out.insert(*id);
            }
            Some(TypeDef::Struct { fields, .. }) | Some(TypeDef::Union { fields, .. }) => {
                for f in fields {
                    headers_in(p, &f.ty, out);
                }
            }
            _ => {}
        },
        _ => {}
    }
}
