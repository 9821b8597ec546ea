//! `unroll-parser-stacks`: parser states that extract into a header stack through `.next` (and read
//! `.last` / `.lastIndex`) are copied once per value the stack's `nextIndex` can have when they run,
//! and each copy uses constant indices: `pkt.extract(hdr.tags.next)` run with `nextIndex == 1`
//! becomes `pkt.extract(hdr.tags[1])`, `hdr.tags.last` becomes `hdr.tags[0]`, `hdr.tags.lastIndex`
//! becomes `32w0`. A loop bounded by the stack size thus becomes a chain of states. Why (seed §3.3,
//! P4FPGA): a hardware parser extracts each header at a fixed place, and a later analysis
//! ([`crate::parser_offsets`]) gives each state its fixed byte offsets.
//!
//! The extract that would go past the stack's end (`nextIndex == size`) rejects with
//! `error.StackOutOfBounds` (spec §8.18; v1model and the dataplane reject before reading anything):
//! it becomes `verify(false, error.StackOutOfBounds);` and the copy's transition `reject`.
//!
//! `nextIndex` is tracked from the parser's start (an `out` parameter or a block local starts empty;
//! `init` of the stack's variable empties it; `push_front(k)`/`pop_front(k)` move it by `k`). A
//! parser is left as it is when any of this is not known at compile time: `.last` of an empty stack,
//! an extract through `.next` (or a push/pop, an `init`) under an `if`/loop, a whole use of the stack
//! or of a struct containing it (a copy, an argument), a stack reached through a run-time index, a
//! stack that is a parameter of another direction, or more than 256 state copies. After the rewrite
//! no code reads `nextIndex` any more, so the whole program is left alone when a control reads
//! `.next`/`.last`/`.lastIndex`. Copies of a state keep its name with the `nextIndex` values
//! appended (`parse_tag_1`); states no longer reachable from `start` are dropped.

use crate::util::{any_stmt, bodies, stmts_of, walk_expr_mut};
use crate::{Pass, PassError};
use num_bigint::BigInt;
use p4_ir::visit::{for_each_expr_in, walk_call, walk_expr, walk_stmt, walk_stmts, EachExpr, Visit};
use p4_ir::{
    Arg, BlockRef, Builtin, Call, Callee, Direction, Expr, ExprKind, ParserState, Program, Span, StateId, StateTarget,
    Stmt, Transition, Type, Value, VarId, VarKind,
};
use std::collections::{HashMap, HashSet, VecDeque};

pub const NAME: &str = "unroll-parser-stacks";

/// At most this many states after unrolling one parser.
const MAX_STATES: usize = 256;

pub struct UnrollParserStacks;

impl Pass for UnrollParserStacks {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program) -> Result<(), PassError> {
        let controls_read_next_index = bodies(program)
            .into_iter()
            .any(|(b, body)| matches!(b, BlockRef::Control(_)) && uses_next_index(stmts_of(program, body)));
        if controls_read_next_index {
            return Ok(());
        }
        for p in 0..program.parsers.len() {
            if let Some(states) = unroll(program, p) {
                program.parsers[p].states = states;
            }
        }
        Ok(())
    }
}

/// True if an expression of `stmts` reads a stack's `nextIndex` (`.next`, `.last`, `.lastIndex`).
fn uses_next_index(stmts: &[Stmt]) -> bool {
    let mut found = false;
    for_each_expr_in(stmts, |e| {
        found |= matches!(e.kind, ExprKind::StackNext(_) | ExprKind::StackLast(_) | ExprKind::StackLastIndex(_))
    });
    found
}

/// A stack named by a variable and a path of field indices.
type Key = (VarId, Vec<u32>);

fn key_of(e: &Expr) -> Option<Key> {
    match &e.kind {
        ExprKind::Var(v) => Some((*v, Vec::new())),
        ExprKind::Field(b, i) => {
            let (v, mut p) = key_of(b)?;
            p.push(*i);
            Some((v, p))
        }
        _ => None,
    }
}

/// `nextIndex` of each stack (`None`: not known here).
type Nexts = Vec<Option<u32>>;

struct Stacks {
    keys: Vec<Key>,
    sizes: Vec<u32>,
}

impl Stacks {
    fn find(&self, e: &Expr) -> Option<usize> {
        let k = key_of(e)?;
        self.keys.iter().position(|x| *x == k)
    }
    /// True if `k` names a stack or something containing one.
    fn covers(&self, k: &Key) -> bool {
        self.keys.iter().any(|(v, p)| *v == k.0 && p.starts_with(&k.1))
    }
    fn roots(&self, v: VarId) -> Vec<usize> {
        (0..self.keys.len()).filter(|&i| self.keys[i].0 == v).collect()
    }
}

/// Rejected: this parser is left as it is.
struct Leave;

/// The stacks whose `nextIndex` the code of a state reads, in order of use, with their sizes; `ok`
/// turns false for one that is not a stack named by a path of fields.
fn collect_stacks(state: &ParserState, out: &mut Vec<(Expr, u32)>, ok: &mut bool) {
    let mut note = |x: &Expr| {
        if let ExprKind::StackNext(b) | ExprKind::StackLast(b) | ExprKind::StackLastIndex(b) = &x.kind {
            match (&b.ty, key_of(b)) {
                (Type::Stack(_, n), Some(_)) => out.push(((**b).clone(), *n)),
                _ => *ok = false,
            }
        }
    };
    let mut each = EachExpr(&mut note);
    each.visit_stmts(&state.body);
    each.visit_transition(&state.transition);
}

/// Checks that every use of a stack (or of what contains it) is one whose effect on `nextIndex`
/// is known; `ok` turns false at the first that is not.
struct KnownUses<'s> {
    stacks: &'s Stacks,
    /// The depth of statement lists: 1 for the state's own statements.
    depth: usize,
    ok: bool,
}

impl Visit<'_> for KnownUses<'_> {
    fn visit_stmts(&mut self, stmts: &[Stmt]) {
        self.depth += 1;
        walk_stmts(self, stmts);
        self.depth -= 1;
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        // Moves of `nextIndex` are tracked in the state's own statements only (not under an
        // `if` or a loop); so is the whole write of a stack by an `init` with a value.
        let untracked_move = self.depth > 1 && moves_next(s, self.stacks);
        let stack_init = matches!(s, Stmt::VarInit { var, init: Some(_), .. } if !self.stacks.roots(*var).is_empty());
        if untracked_move || stack_init || matches!(s, Stmt::ApplyBlock { .. }) {
            self.ok = false;
        }
        if self.ok {
            walk_stmt(self, s);
        }
    }

    fn visit_expr(&mut self, e: &Expr) {
        if !self.ok {
            return;
        }
        match &e.kind {
            ExprKind::StackNext(b) | ExprKind::StackLast(b) | ExprKind::StackLastIndex(b)
                if self.stacks.find(b).is_some() => {}
            ExprKind::Index(b, i) if self.stacks.find(b).is_some() => self.visit_expr(i),
            _ => match key_of(e) {
                Some(k) => self.ok = !self.stacks.covers(&k),
                None => walk_expr(self, e),
            },
        }
    }

    fn visit_call(&mut self, c: &Call) {
        match &c.callee {
            // push/pop move `nextIndex` by a known amount (tracked in the state's own statements).
            Callee::Builtin { target, builtin: Builtin::PushFront(_) | Builtin::PopFront(_) }
                if self.stacks.find(target).is_some() =>
            {
                c.args.iter().for_each(|a| self.visit_arg(a))
            }
            _ => walk_call(self, c),
        }
    }
}

/// True for a statement that changes a tracked `nextIndex`.
fn moves_next(s: &Stmt, stacks: &Stacks) -> bool {
    match s {
        Stmt::VarInit { var, .. } => !stacks.roots(*var).is_empty(),
        Stmt::Call(c) => extract_next(c, stacks).is_some() || push_pop(c, stacks).is_some(),
        _ => false,
    }
}

/// The stack an `extract` writes through `.next` (`stack.next` or `stack.next.member`).
fn extract_next(c: &Call, stacks: &Stacks) -> Option<usize> {
    let Callee::Method { extern_type, method, .. } = &c.callee else { return None };
    if extern_type != "packet_in" || method != "extract" {
        return None;
    }
    let mut t = &c.args.first()?.expr;
    while let ExprKind::Field(b, _) = &t.kind {
        t = b;
    }
    match &t.kind {
        ExprKind::StackNext(b) => stacks.find(b),
        _ => None,
    }
}

/// `(stack, push?, k)` of a `push_front(k)` / `pop_front(k)` statement.
fn push_pop(c: &Call, stacks: &Stacks) -> Option<(usize, bool, u32)> {
    match &c.callee {
        Callee::Builtin { target, builtin: Builtin::PushFront(k) } => Some((stacks.find(target)?, true, *k)),
        Callee::Builtin { target, builtin: Builtin::PopFront(k) } => Some((stacks.find(target)?, false, *k)),
        _ => None,
    }
}

fn index_const(i: u32, span: Span) -> Expr {
    Expr::constant(Value::Bits { width: 32, signed: false, value: BigInt::from(i) }, Type::bit(32), span)
}

/// Replaces `.next`/`.last`/`.lastIndex` of tracked stacks by constants for the current `nexts`.
fn subst(e: &mut Expr, stacks: &Stacks, nexts: &Nexts) -> Result<(), Leave> {
    let mut r = Ok(());
    walk_expr_mut(e, &mut |x| {
        let (b, kind) = match &x.kind {
            ExprKind::StackNext(b) => (b, 0),
            ExprKind::StackLast(b) => (b, 1),
            ExprKind::StackLastIndex(b) => (b, 2),
            _ => return,
        };
        let Some(k) = stacks.find(b) else { return };
        let Some(ni) = nexts[k] else {
            r = Err(Leave);
            return;
        };
        let n = stacks.sizes[k];
        let span = x.span;
        let new = match kind {
            0 if ni < n => ExprKind::Index(b.clone(), Box::new(index_const(ni, span))),
            1 if ni >= 1 && ni - 1 < n => ExprKind::Index(b.clone(), Box::new(index_const(ni - 1, span))),
            // `lastIndex` is `nextIndex - 1` in 32 bits (wrapping on an empty stack).
            2 => ExprKind::Const(Value::Bits {
                width: 32,
                signed: false,
                value: BigInt::from(ni.wrapping_sub(1)),
            }),
            _ => {
                r = Err(Leave);
                return;
            }
        };
        x.kind = new;
    });
    r
}

fn subst_stmt(s: &mut Stmt, stacks: &Stacks, nexts: &Nexts) -> Result<(), Leave> {
    let mut r = Ok(());
    crate::util::walk_stmts_exprs_mut(std::slice::from_mut(s), &mut |e| {
        if r.is_ok() {
            r = subst(e, stacks, nexts);
        }
    });
    r
}

fn unroll(program: &Program, p: usize) -> Option<Vec<ParserState>> {
    let parser = &program.parsers[p];
    let mut found = Vec::new();
    let mut ok = true;
    for s in &parser.states {
        collect_stacks(s, &mut found, &mut ok);
    }
    if found.is_empty() || !ok || uses_next_index(&parser.init) {
        return None;
    }
    let mut stacks = Stacks { keys: Vec::new(), sizes: Vec::new() };
    for (e, n) in found {
        let k = key_of(&e)?;
        if !stacks.keys.contains(&k) {
            stacks.keys.push(k);
            stacks.sizes.push(n);
        }
    }
    // Nothing else may change or read `nextIndex`.
    for s in &parser.states {
        let mut uses = KnownUses { stacks: &stacks, depth: 0, ok: true };
        uses.visit_stmts(&s.body);
        uses.visit_transition(&s.transition);
        if !uses.ok {
            return None;
        }
    }
    if any_stmt(&parser.init, &|s| matches!(s, Stmt::VarInit { init: Some(_), .. }) && moves_next(s, &stacks)) {
        return None;
    }
    let oob = program.error_code("StackOutOfBounds")?;
    // `nextIndex` at the start: an `out` parameter and a block local start empty.
    let start: Nexts = stacks
        .keys
        .iter()
        .map(|(v, _)| match parser.block.vars.get(v.index()).map(|x| &x.kind) {
            Some(VarKind::Param(Direction::Out) | VarKind::Local) => Some(0),
            _ => None,
        })
        .collect();

    let orig = &parser.states;
    let live = live_stacks(orig, &stacks);
    let mut index: HashMap<(usize, Nexts), usize> = HashMap::new();
    let mut out: Vec<Option<ParserState>> = Vec::new();
    let mut queue = VecDeque::new();
    let mut id_of = |s: usize, mut n: Nexts, out: &mut Vec<Option<ParserState>>, queue: &mut VecDeque<_>| {
        // A `nextIndex` no later state reads is forgotten, so that states after a stack's loop are
        // not copied once per length it ended with (four sub-parsers in a row would multiply).
        for (k, x) in n.iter_mut().enumerate() {
            if !live[s][k] {
                *x = None;
            }
        }
        *index.entry((s, n.clone())).or_insert_with(|| {
            out.push(None);
            queue.push_back((s, n, out.len() - 1));
            out.len() - 1
        })
    };
    id_of(0, start, &mut out, &mut queue);
    let mut names: HashSet<String> = HashSet::new();
    while let Some((s, entry, at)) = queue.pop_front() {
        if out.len() > MAX_STATES {
            return None;
        }
        let st = &orig[s];
        let mut nexts = entry.clone();
        let mut body = Vec::with_capacity(st.body.len());
        let mut rejected = false;
        for stmt in &st.body {
            let mut stmt = stmt.clone();
            match &stmt {
                Stmt::VarInit { var, .. } => {
                    for k in stacks.roots(*var) {
                        nexts[k] = Some(0);
                    }
                    body.push(stmt);
                    continue;
                }
                Stmt::Call(c) => {
                    if let Some(k) = extract_next(c, &stacks) {
                        let ni = nexts[k]?;
                        if ni >= stacks.sizes[k] {
                            body.push(Stmt::Call(verify_false(oob, c.span)));
                            rejected = true;
                            break;
                        }
                        subst_stmt(&mut stmt, &stacks, &nexts).ok()?;
                        nexts[k] = Some(ni + 1);
                        body.push(stmt);
                        continue;
                    }
                    if let Some((k, push, by)) = push_pop(c, &stacks) {
                        let ni = nexts[k]?;
                        nexts[k] = Some(if push { (ni + by).min(stacks.sizes[k]) } else { ni.saturating_sub(by) });
                        body.push(stmt);
                        continue;
                    }
                }
                _ => {}
            }
            subst_stmt(&mut stmt, &stacks, &nexts).ok()?;
            body.push(stmt);
        }
        let transition = if rejected {
            Transition::Goto(StateTarget::Reject)
        } else {
            let mut t = st.transition.clone();
            let mut target = |x: &mut StateTarget, out: &mut Vec<Option<ParserState>>, queue: &mut VecDeque<_>| {
                if let StateTarget::State(id) = x {
                    *id = StateId(id_of(id.index(), nexts.clone(), out, queue) as u32);
                }
            };
            match &mut t {
                Transition::Goto(x) => target(x, &mut out, &mut queue),
                Transition::Select { keys, cases } => {
                    for k in keys.iter_mut() {
                        subst(k, &stacks, &nexts).ok()?;
                    }
                    for c in cases.iter_mut() {
                        target(&mut c.target, &mut out, &mut queue);
                    }
                }
            }
            t
        };
        // The first copy of a state keeps its name.
        let mut name = st.name.clone();
        if names.contains(&name) {
            let suffix: Vec<String> = entry.iter().map(|n| n.map_or("x".to_string(), |n| n.to_string())).collect();
            let base = format!("{}_{}", st.name, suffix.join("_"));
            name = base.clone();
            let mut k = 1;
            while names.contains(&name) || orig.iter().any(|o| o.name == name) {
                name = format!("{base}_{k}");
                k += 1;
            }
        }
        names.insert(name.clone());
        out[at] = Some(ParserState { name, body, transition, span: st.span });
    }
    out.into_iter().collect()
}

/// `live[s][k]`: state `s` or a state reachable from it depends on stack `k`'s `nextIndex`.
fn live_stacks(states: &[ParserState], stacks: &Stacks) -> Vec<Vec<bool>> {
    let n = stacks.keys.len();
    let mut live: Vec<Vec<bool>> = states
        .iter()
        .map(|st| {
            let mut found = Vec::new();
            collect_stacks(st, &mut found, &mut true);
            let mut uses = vec![false; n];
            for (e, _) in &found {
                if let Some(k) = stacks.find(e) {
                    uses[k] = true;
                }
            }
            for s in &st.body {
                if let Stmt::Call(c) = s {
                    if let Some((k, _, _)) = push_pop(c, stacks) {
                        uses[k] = true;
                    }
                }
            }
            uses
        })
        .collect();
    let successors: Vec<Vec<usize>> = states
        .iter()
        .map(|st| {
            let targets: Vec<&StateTarget> = match &st.transition {
                Transition::Goto(t) => vec![t],
                Transition::Select { cases, .. } => cases.iter().map(|c| &c.target).collect(),
            };
            targets
                .into_iter()
                .filter_map(|t| match t {
                    StateTarget::State(id) => Some(id.index()),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for s in 0..states.len() {
            for &t in &successors[s] {
                for k in 0..n {
                    if live[t][k] && !live[s][k] {
                        live[s][k] = true;
                        changed = true;
                    }
                }
            }
        }
    }
    live
}

/// `verify(false, error.<code>)`: rejects with that error.
fn verify_false(code: u32, span: Span) -> Call {
    Call {
        callee: Callee::ExternFunction { name: "verify".into(), type_args: vec![] },
        args: vec![
            Arg { direction: Direction::In, expr: Expr::constant(Value::Bool(false), Type::Bool, span) },
            Arg { direction: Direction::In, expr: Expr::constant(Value::Error(code), Type::Error, span) },
        ],
        span,
    }
}
