//! Where each parser state reads the packet: for every state, the set of bit offsets (from the start
//! of the packet) at which it can start, and the offset and width of each `extract`, `lookahead` and
//! `advance` it performs. A hardware generator uses it to extract headers at fixed offsets: a state
//! with one known offset extracts from fixed positions of the packet buffer.
//!
//! Run it on the lowered program: `unroll-parser-stacks` has then turned stack loops into chains of
//! states, each at its own offsets. What depends on run-time values is [`Offsets::Unknown`]: after a
//! varbit extract (its width is a run-time value), after `advance` by a run-time amount, inside a
//! loop that remained (a state reachable from itself through states that consume bits, once its
//! set of offsets would exceed [`MAX_OFFSETS`]), and inside `for` loops. Branches (`if`, `switch`)
//! inside a state give the union of their ends.

use p4_ir::{Callee, Expr, ExprKind, ParserId, Program, StateTarget, Stmt, Transition, Type, Value};
use std::collections::BTreeSet;
use std::fmt;

/// A state whose set of possible offsets would grow beyond this is at an unknown offset.
pub const MAX_OFFSETS: usize = 16;

/// A set of possible bit offsets from the start of the packet, or unknown.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Offsets {
    /// The possible offsets (empty: the state is never reached).
    Known(BTreeSet<u64>),
    /// Depends on run-time values.
    Unknown,
}

impl Offsets {
    fn at(o: u64) -> Offsets {
        Offsets::Known(BTreeSet::from([o]))
    }

    fn none() -> Offsets {
        Offsets::Known(BTreeSet::new())
    }

    /// The offsets after consuming `width` bits (`None`: a run-time amount).
    fn plus(&self, width: Option<u64>) -> Offsets {
        match (self, width) {
            (Offsets::Known(s), Some(w)) => Offsets::Known(s.iter().map(|o| o + w).collect()),
            (Offsets::Known(s), None) if s.is_empty() => Offsets::none(),
            _ => Offsets::Unknown,
        }
    }

    fn union(&self, other: &Offsets) -> Offsets {
        match (self, other) {
            (Offsets::Known(a), Offsets::Known(b)) => {
                let u: BTreeSet<u64> = a.union(b).copied().collect();
                if u.len() > MAX_OFFSETS {
                    Offsets::Unknown
                } else {
                    Offsets::Known(u)
                }
            }
            _ => Offsets::Unknown,
        }
    }

    /// The single offset, if there is exactly one.
    pub fn fixed(&self) -> Option<u64> {
        match self {
            Offsets::Known(s) if s.len() == 1 => s.iter().next().copied(),
            _ => None,
        }
    }
}

impl fmt::Display for Offsets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Offsets::Known(s) => {
                let v: Vec<String> = s.iter().map(|o| o.to_string()).collect();
                write!(f, "{{{}}}", v.join(", "))
            }
            Offsets::Unknown => write!(f, "unknown"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Extract,
    Lookahead,
    Advance,
}

/// One read of the packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub kind: OpKind,
    /// What is read: the extract's target (`hdr.ipv4`), the lookahead's type, empty for `advance`.
    pub what: String,
    /// Where it starts.
    pub at: Offsets,
    /// How many bits it reads or skips (`None`: a run-time amount, e.g. a varbit extract).
    pub width: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateOffsets {
    pub name: String,
    /// Where the state can start.
    pub entry: Offsets,
    pub ops: Vec<Op>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParserOffsets {
    pub parser: String,
    /// In state order (`states[0]` is `start`).
    pub states: Vec<StateOffsets>,
}

impl fmt::Display for ParserOffsets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "parser {}", self.parser)?;
        for s in &self.states {
            writeln!(f, "  state {} at {}", s.name, s.entry)?;
            for op in &s.ops {
                let kind = match op.kind {
                    OpKind::Extract => "extract",
                    OpKind::Lookahead => "lookahead",
                    OpKind::Advance => "advance",
                };
                let width = op.width.map_or("?".to_string(), |w| w.to_string());
                let what = if op.what.is_empty() { String::new() } else { format!(" {}", op.what) };
                writeln!(f, "    {kind}{what}: {width} bits at {}", op.at)?;
            }
        }
        Ok(())
    }
}

/// The offsets of every state of parser `parser`.
pub fn offsets(program: &Program, parser: ParserId) -> ParserOffsets {
    let p = &program.parsers[parser.index()];
    let n = p.states.len();
    let mut entry = vec![Offsets::none(); n];
    if n > 0 {
        entry[0] = Offsets::at(0);
    }
    let cx = Cx { program, vars: &p.block.vars };
    // Fixed point: entries only grow (and `Unknown` absorbs), so this terminates.
    let mut work: Vec<usize> = (0..n).collect();
    while let Some(s) = work.pop() {
        let exit = cx.stmts(&p.states[s].body, entry[s].clone(), &mut None);
        for t in targets(&p.states[s].transition) {
            let new = entry[t].union(&exit);
            if new != entry[t] {
                entry[t] = new;
                if !work.contains(&t) {
                    work.push(t);
                }
            }
        }
    }
    let states = p
        .states
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut ops = Some(Vec::new());
            cx.stmts(&s.body, entry[i].clone(), &mut ops);
            StateOffsets { name: s.name.clone(), entry: entry[i].clone(), ops: ops.unwrap_or_default() }
        })
        .collect();
    ParserOffsets { parser: p.block.name.clone(), states }
}

fn targets(t: &Transition) -> Vec<usize> {
    let one = |x: &StateTarget| match x {
        StateTarget::State(s) => Some(s.index()),
        _ => None,
    };
    match t {
        Transition::Goto(x) => one(x).into_iter().collect(),
        Transition::Select { cases, .. } => cases.iter().filter_map(|c| one(&c.target)).collect(),
    }
}

struct Cx<'p> {
    program: &'p Program,
    vars: &'p [p4_ir::Var],
}

impl Cx<'_> {
    fn width(&self, ty: &Type) -> u64 {
        u64::from(p4_ir::layout::wire_width(self.program, ty))
    }

    /// Walks `stmts` from `cur`, recording ops when `ops` is given; returns the offsets at the end.
    fn stmts(&self, stmts: &[Stmt], mut cur: Offsets, ops: &mut Option<Vec<Op>>) -> Offsets {
        for s in stmts {
            cur = self.stmt(s, cur, ops);
        }
        cur
    }

    fn stmt(&self, s: &Stmt, cur: Offsets, ops: &mut Option<Vec<Op>>) -> Offsets {
        match s {
            Stmt::If { cond, then, otherwise, .. } => {
                self.lookaheads(cond, &cur, ops);
                let a = self.stmts(then, cur.clone(), ops);
                let b = self.stmts(otherwise, cur, ops);
                a.union(&b)
            }
            Stmt::SwitchValue { expr, cases, .. } => {
                self.lookaheads(expr, &cur, ops);
                let mut end = if cases.iter().any(|(v, _)| v.is_none()) { Offsets::none() } else { cur.clone() };
                for (_, l) in cases {
                    end = end.union(&self.stmts(l, cur.clone(), ops));
                }
                end
            }
            Stmt::SwitchAction { cases, .. } => {
                let mut end = cur.clone();
                for (_, l) in cases {
                    end = end.union(&self.stmts(l, cur.clone(), ops));
                }
                end
            }
            Stmt::Block(l) => self.stmts(l, cur, ops),
            Stmt::For { init, body, update, .. } => {
                let cur = self.stmts(init, cur, ops);
                let mut probe = None;
                let after_body = self.stmts(body, cur.clone(), &mut probe);
                let after = self.stmts(update, after_body.clone(), &mut probe);
                if after == cur {
                    self.stmts(body, cur.clone(), ops);
                    self.stmts(update, cur.clone(), ops);
                    cur
                } else {
                    self.stmts(body, Offsets::Unknown, ops);
                    self.stmts(update, Offsets::Unknown, ops);
                    Offsets::Unknown
                }
            }
            Stmt::Call(c) => {
                for a in &c.args {
                    self.lookaheads(&a.expr, &cur, ops);
                }
                let Callee::Method { extern_type, method, type_args, .. } = &c.callee else { return cur };
                if extern_type != "packet_in" {
                    return cur;
                }
                match method.as_str() {
                    "extract" => {
                        let Some(target) = c.args.first() else { return cur };
                        let ty = type_args.first().unwrap_or(&target.expr.ty);
                        // With a second argument the varbit field's width is a run-time value.
                        let width = if c.args.len() > 1 { None } else { Some(self.width(ty)) };
                        let what = match target.expr.kind {
                            ExprKind::DontCare => format!("_ ({})", p4_ir::printer::type_to_string(self.program, ty)),
                            _ => p4_ir::printer::expr_to_string(self.program, self.vars, &target.expr),
                        };
                        record(ops, OpKind::Extract, what, &cur, width);
                        cur.plus(width)
                    }
                    "advance" => {
                        let width = c.args.first().and_then(|a| const_u64(&a.expr));
                        record(ops, OpKind::Advance, String::new(), &cur, width);
                        cur.plus(width)
                    }
                    _ => cur,
                }
            }
            Stmt::VarInit { init: Some(e), .. } | Stmt::Return(Some(e), _) => {
                self.lookaheads(e, &cur, ops);
                cur
            }
            Stmt::Assign { lhs, rhs, .. } => {
                self.lookaheads(lhs, &cur, ops);
                self.lookaheads(rhs, &cur, ops);
                cur
            }
            Stmt::ApplyBlock { .. } => Offsets::Unknown,
            _ => cur,
        }
    }

    /// Records the `lookahead`s in `e` (they read at the current offset and consume nothing).
    fn lookaheads(&self, e: &Expr, cur: &Offsets, ops: &mut Option<Vec<Op>>) {
        p4_ir::visit::for_each_expr(e, |x| {
            if let ExprKind::Call(c) = &x.kind {
                if let Callee::Method { extern_type, method, type_args, .. } = &c.callee {
                    if extern_type == "packet_in" && method == "lookahead" {
                        let ty = type_args.first().unwrap_or(&x.ty);
                        let what = p4_ir::printer::type_to_string(self.program, ty);
                        record(ops, OpKind::Lookahead, what, cur, Some(self.width(ty)));
                    }
                }
            }
        });
    }
}

fn record(ops: &mut Option<Vec<Op>>, kind: OpKind, what: String, at: &Offsets, width: Option<u64>) {
    if let Some(ops) = ops {
        ops.push(Op { kind, what, at: at.clone(), width });
    }
}

fn const_u64(e: &Expr) -> Option<u64> {
    match &e.kind {
        ExprKind::Const(Value::Bits { value, .. } | Value::InfInt(value)) => u64::try_from(value).ok(),
        _ => None,
    }
}
