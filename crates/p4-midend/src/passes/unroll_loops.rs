//! `unroll-loops`: a `for` loop whose iterations are known at compile time is replaced by one copy of
//! its body per iteration, each with the loop's variables replaced by their constant values. Why: a
//! hardware pipeline has no back edges (the RTL generator refuses every `for`), and constant indices
//! (`hdr.items[i]` becomes `hdr.items[8w2]`) let every later pass and the hardware see fixed storage.
//!
//! Sema gives every loop one form, [`Stmt::For`] with `init`, `cond`, `update` and `body`:
//! - `for (T x in stack)`: a hidden counter `x.index` from 0 while `< N`, and the body starts with
//!   `init x = stack[x.index];` (a copy: the loop variable is read-only). Unrolled, each copy starts
//!   with `init x = stack[32wK];`.
//! - `for (T x in {a, b, c})`: the body starts with a `switch (x.index)` choosing `init x = a;` etc.
//!   Unrolled, the switch is decided: `init x = a;`, and a constant element is propagated into the
//!   copy (`total = total + 8w100;`) instead of being stored.
//! - `for (T x in lo .. hi)`: `x = lo; x.end = hi; x.go = x <= x.end`, while `x.go`, update
//!   `if (x == x.end) x.go = false; else x = x + 1;`. Unrolled when `lo` and `hi` are constants.
//! - `for (init; cond; update)` as written.
//!
//! The loop's *control variables* are what its `init` and `update` write; they must be scalars
//! (`bit`/`int`/`bool`) assigned whole, the body must write none of them (nor pass them as
//! `out`/`inout`), and `init`, `cond` and `update` must evaluate from constants alone (assignments,
//! `if`s and constant arithmetic with P4's wrap-around). The loop is then run at compile time: while
//! `cond` holds, the body is copied with each control variable replaced by its value, and `update`
//! runs. In each copy, expressions that became constant are folded (as are `x + 0`, `x * 1` and the
//! like), and `if`s and `switch`es on a constant keep only the branch taken. A loop that would run
//! more than 256 times, or whose copies would have more than 16,384 statements in all, is left as it
//! is, as is one whose bounds depend on run-time values (the RTL generator refuses it with its
//! location). Loops nested in a copy are
//! unrolled in turn (an inner loop bounded by an outer loop's variable becomes constant there); the
//! body of a loop left alone is still searched for loops to unroll.
//!
//! `break` and `continue` (those of this loop, not of loops nested in its body):
//! - directly in the body (not under an `if`/`switch`), they end the copy: what follows in it is
//!   dropped, and after a `break` no further copies are made. A `break` under `if (i == 3)` thus
//!   decides the trip count once the condition is folded.
//! - under a condition, they set a flag: `break` sets `break_flag` (a `bool` set to `false` before the
//!   first copy) and each later copy runs under `if (!break_flag)`; `continue` sets `continue_flag`
//!   (set to `false` at the start of each copy that has one). In the statement lists that contain
//!   them, the statements after the `if`/`switch` that may set a flag run under
//!   `if (!break_flag && !continue_flag)` (only the flags it may set). Stores to a flag that nothing
//!   reads afterwards are dropped (the last copy's `break_flag = true;`), and a flag nothing reads is
//!   not made. A `return` or `exit` stays as it is (it leaves the loop and more); one directly in
//!   the body ends the unrolling as `break` does.
//!
//! A control variable that is declared by the loop (`init` in its `init` list) is not stored at all.
//! One declared outside (`bit<8> i; for (i = 0; ...)`) is read after the loop, so it gets its value
//! at the start of each copy (where a `break`, `return` or `exit` may leave it) and its final value
//! after the last one; such a loop is unrolled only if its body calls no action or function and
//! applies no table or sub-block (code that might read or write the variable behind the pass's back).
//!
//! Variables declared in the body (`init` statements) are only referenced inside the loop (a
//! declaration's scope ends with its loop body; the inliners declare their temporaries at the call
//! site too), which is what lets a copy drop `init x = <constant>` once it has propagated the
//! constant into the copy's later statements (only when the copy writes `x` nowhere else and reads it
//! nowhere before). Control variables and propagated variables that no code of the block mentions
//! any more are removed from its frame. Copies keep the spans of the statements they copy; the flag
//! statements and guards carry the loop's span.

use crate::passes::flatten_locals::{block_code, remove_vars};
use crate::returns::bool_const;
use crate::rewrite::{Guard, OperandRewriter};
use crate::util::{
    any_stmt, bodies, fresh_var, put_body, rename_var_inits, root_var, take_body, vars_mut, walk_stmts_exprs_mut,
};
use crate::{Pass, PassError};
use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};
use p4_ir::visit::{walk_arg, walk_call, walk_expr, walk_stmt, Visit};
use p4_ir::{
    Arg, BinOp, BlockRef, Builtin, Call, Callee, Direction, Expr, ExprKind, Program, Span, Stmt, Type, UnOp, Value,
    Var, VarId, VarKind,
};
use std::collections::{HashMap, HashSet};

pub const NAME: &str = "unroll-loops";

/// At most this many copies of one loop's body.
const MAX_TRIPS: usize = 256;
/// At most this many statements (nested ones included) replace one loop.
const MAX_STMTS: usize = 1 << 14;

/// Stand for the flags until the unrolling knows whether anything reads them.
const BREAK_FLAG: VarId = VarId(u32::MAX);
const CONTINUE_FLAG: VarId = VarId(u32::MAX - 1);

pub struct UnrollLoops;

impl Pass for UnrollLoops {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program) -> Result<(), PassError> {
        // Per block, variables that unrolled loops no longer read (their control variables, constant
        // elements propagated).
        let mut dropped: Vec<(BlockRef, HashSet<VarId>)> = Vec::new();
        for (block, body) in bodies(program) {
            let stmts = take_body(program, body);
            if !any_stmt(&stmts, &|s| matches!(s, Stmt::For { .. })) {
                put_body(program, body, stmts);
                continue;
            }
            let mut gone = HashSet::new();
            let stmts = match vars_mut(program, &block) {
                Some(vars) => Unroller { vars, dropped: &mut gone }.list(stmts),
                None => stmts,
            };
            put_body(program, body, stmts);
            match dropped.iter_mut().find(|(b, _)| *b == block) {
                Some((_, d)) => d.extend(gone),
                None => dropped.push((block, gone)),
            }
        }
        // Those no code of their block mentions any more leave its frame.
        for (block, mut cand) in dropped {
            let frame = crate::util::vars(program, &block);
            cand.retain(|v| frame.get(v.index()).is_some_and(|d| d.kind == VarKind::Temp));
            if cand.is_empty() {
                continue;
            }
            let used = std::cell::RefCell::new(HashSet::new());
            let note = |v| {
                used.borrow_mut().insert(v);
            };
            block_code(program, &block, &mut |l| Mentions(note).visit_stmts(l), &mut |e| Mentions(note).visit_expr(e));
            let used = used.into_inner();
            cand.retain(|v| !used.contains(v));
            remove_vars(program, &block, &cand);
        }
        Ok(())
    }
}

/// Values of control variables.
type Env = HashMap<VarId, Value>;

struct Unroller<'v> {
    /// The frame the statement list runs in (flags are added to it).
    vars: &'v mut Vec<Var>,
    /// Variables whose reads an unrolling replaced by constants (candidates for removal).
    dropped: &'v mut HashSet<VarId>,
}

/// One copy of a loop body, lowered.
struct Copy {
    stmts: Vec<Stmt>,
    exits: Exits,
    /// Values to store into control variables declared outside the loop at the start of the copy.
    outer: Vec<(VarId, Value)>,
}

/// Only the statement walk is shared: [`OperandRewriter::list`] unrolls every loop in a statement
/// list that can be; the unroller rewrites no operands.
impl OperandRewriter for Unroller<'_> {
    fn expr(&mut self, _: &mut Expr, _: &mut Guard, _: &mut Vec<Stmt>) {}

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        match s {
            Stmt::For { init, cond, update, body, span } => {
                // Whatever a failed attempt added to the frame goes again.
                let mark = self.vars.len();
                match self.unroll(&init, cond.as_ref(), &update, &body, span) {
                    Some(stmts) => {
                        let mut ctl = Vec::new();
                        let _ = header_writes(&init, &mut ctl, &mut HashSet::new());
                        let _ = header_writes(&update, &mut ctl, &mut HashSet::new());
                        self.dropped.extend(ctl);
                        out.extend(stmts)
                    }
                    None => {
                        self.vars.truncate(mark);
                        let body = self.list(body);
                        out.push(Stmt::For { init, cond, update, body, span });
                    }
                }
            }
            other => self.walk_stmt(other, out),
        }
    }
}

impl Unroller<'_> {
    fn var_type(&self, v: VarId) -> Option<&Type> {
        self.vars.get(v.index()).map(|d| &d.ty)
    }

    /// The statements that replace the loop, or `None` to leave it.
    fn unroll(
        &mut self,
        init: &[Stmt],
        cond: Option<&Expr>,
        update: &[Stmt],
        body: &[Stmt],
        span: Span,
    ) -> Option<Vec<Stmt>> {
        // The control variables, in order of first write; those the loop declares are `local`.
        let (mut ctl, mut local) = (Vec::new(), HashSet::new());
        header_writes(init, &mut ctl, &mut local)?;
        header_writes(update, &mut ctl, &mut HashSet::new())?;
        let mut types = HashMap::new();
        for v in &ctl {
            let ty = self.var_type(*v)?;
            if !is_scalar(ty) {
                return None;
            }
            types.insert(*v, ty.clone());
        }
        let mut written = HashSet::new();
        for_each_write(body, &mut |v| {
            written.insert(v);
        });
        if ctl.iter().any(|v| written.contains(v)) {
            return None;
        }
        let outer: Vec<VarId> = ctl.iter().filter(|v| !local.contains(v)).copied().collect();
        if !outer.is_empty() && runs_other_code(body) {
            return None;
        }

        // Run the loop's header at compile time, copying the body once per iteration.
        let mut env = Env::new();
        if exec(init, &mut env, &types)? != Flow::Next {
            return None;
        }
        let mut copies: Vec<Copy> = Vec::new();
        let (mut size, mut ended) = (0, false);
        loop {
            if let Some(c) = cond {
                match eval(c, &env)? {
                    Value::Bool(true) => {}
                    Value::Bool(false) => break,
                    _ => return None,
                }
            }
            if copies.len() == MAX_TRIPS {
                return None;
            }
            let copy = self.copy(body, &env, &outer, span);
            size += count(&copy.stmts);
            if size > MAX_STMTS {
                return None;
            }
            // Every path through the copy breaks, returns or exits: no later iteration runs.
            let stop = !copy.exits.falls && !copy.exits.cont;
            copies.push(copy);
            if stop {
                ended = true;
                break;
            }
            if exec(update, &mut env, &types)? == Flow::Break {
                break;
            }
        }

        let mut out = Vec::new();
        if copies.iter().any(|c| c.exits.sets_break) {
            out.push(Stmt::VarInit { var: BREAK_FLAG, init: Some(bool_const(false, span)), span });
        }
        let mut guarded = false;
        for c in copies {
            let mut stmts = outer_stores(&c.outer, &types, span);
            if c.exits.sets_continue {
                stmts.push(Stmt::VarInit { var: CONTINUE_FLAG, init: Some(bool_const(false, span)), span });
            }
            stmts.extend(c.stmts);
            push_guarded(&mut out, stmts, guarded, span);
            guarded |= c.exits.sets_break;
        }
        if !ended {
            let last: Vec<(VarId, Value)> = outer.iter().filter_map(|v| Some((*v, env.get(v)?.clone()))).collect();
            push_guarded(&mut out, outer_stores(&last, &types, span), guarded, span);
        }
        for flag in [BREAK_FLAG, CONTINUE_FLAG] {
            out = dead_flag_stores(out, flag, false).0;
        }
        self.bind_flag(&mut out, BREAK_FLAG, "break_flag");
        self.bind_flag(&mut out, CONTINUE_FLAG, "continue_flag");
        // Loops in the copies (an inner loop bounded by this one's variable is constant there now).
        let out = self.list(out);
        if count(&out) > MAX_STMTS {
            return None;
        }
        Some(out)
    }

    /// The body for one iteration: control variables replaced by their values, then folded and
    /// lowered (`break`/`continue`).
    fn copy(&mut self, body: &[Stmt], env: &Env, outer: &[VarId], span: Span) -> Copy {
        let mut stmts = body.to_vec();
        substitute(&mut stmts, env);
        let stmts = self.settle(stmts);
        let (stmts, exits) = lower_exits(stmts, true, span);
        let outer = outer.iter().filter_map(|v| Some((*v, env.get(v)?.clone()))).collect();
        Copy { stmts, exits, outer }
    }

    /// Folds constants and decided branches, and propagates constants stored into variables the copy
    /// declares, until nothing changes.
    fn settle(&mut self, mut stmts: Vec<Stmt>) -> Vec<Stmt> {
        loop {
            walk_stmts_exprs_mut(&mut stmts, &mut fold);
            stmts = simplify(stmts);
            if !self.propagate(&mut stmts) {
                return stmts;
            }
        }
    }

    /// Replaces one `init x = <constant>;` directly in `stmts` (not under a branch) by the constant in
    /// the statements after it, if `x` is a scalar that `stmts` writes nowhere else and reads nowhere
    /// before. True if it did.
    fn propagate(&mut self, stmts: &mut Vec<Stmt>) -> bool {
        for i in 0..stmts.len() {
            let Stmt::VarInit { var, init: Some(Expr { kind: ExprKind::Const(value), .. }), .. } = &stmts[i] else {
                continue;
            };
            let (x, value) = (*var, value.clone());
            if !self.var_type(x).is_some_and(is_scalar) {
                continue;
            }
            let mut writes = 0;
            for_each_write(stmts, &mut |v| writes += usize::from(v == x));
            if writes != 1 || mentions(&stmts[..i], x) {
                continue;
            }
            stmts.remove(i);
            substitute(&mut stmts[i..], &HashMap::from([(x, value)]));
            self.dropped.insert(x);
            return true;
        }
        false
    }

    /// Gives a flag placeholder a variable of the frame if something reads it; otherwise removes its
    /// stores.
    fn bind_flag(&mut self, stmts: &mut Vec<Stmt>, placeholder: VarId, name: &str) {
        let (uses, stores) = flag_uses_and_stores(stmts, placeholder);
        if uses > stores {
            let flag = fresh_var(self.vars, name, Type::Bool, VarKind::Temp);
            rename_var_inits(stmts, &|v| (v == placeholder).then_some(flag));
            walk_stmts_exprs_mut(stmts, &mut |e| {
                if matches!(e.kind, ExprKind::Var(v) if v == placeholder) {
                    e.kind = ExprKind::Var(flag);
                }
            });
        } else {
            *stmts = strip_flag(std::mem::take(stmts), placeholder);
        }
    }
}

// ---------------------------------------------------------------- the loop header at compile time

#[derive(Debug, PartialEq)]
enum Flow {
    Next,
    Break,
}

/// Collects the variables `init`/`update` statements write (`local`: those they declare); `None` if
/// they do anything but assign whole variables under `if`s.
fn header_writes(stmts: &[Stmt], ctl: &mut Vec<VarId>, local: &mut HashSet<VarId>) -> Option<()> {
    let add = |v: VarId, ctl: &mut Vec<VarId>| {
        if !ctl.contains(&v) {
            ctl.push(v);
        }
    };
    for s in stmts {
        match s {
            Stmt::VarInit { var, .. } => {
                add(*var, ctl);
                local.insert(*var);
            }
            Stmt::Assign { lhs: Expr { kind: ExprKind::Var(v), .. }, .. } => add(*v, ctl),
            Stmt::If { then, otherwise, .. } => {
                header_writes(then, ctl, local)?;
                header_writes(otherwise, ctl, local)?;
            }
            Stmt::Block(l) => header_writes(l, ctl, local)?,
            Stmt::Empty | Stmt::Break(_) => {}
            _ => return None,
        }
    }
    Some(())
}

/// Runs `init` or `update` statements on `env`; `None` if a value is not known.
fn exec(stmts: &[Stmt], env: &mut Env, types: &HashMap<VarId, Type>) -> Option<Flow> {
    for s in stmts {
        match s {
            Stmt::VarInit { var, init, .. } => {
                let ty = types.get(var)?;
                let v = match init {
                    Some(e) => coerce(eval(e, env)?, ty)?,
                    None => zero(ty)?,
                };
                env.insert(*var, v);
            }
            Stmt::Assign { lhs: Expr { kind: ExprKind::Var(var), .. }, rhs, .. } => {
                let v = coerce(eval(rhs, env)?, types.get(var)?)?;
                env.insert(*var, v);
            }
            Stmt::If { cond, then, otherwise, .. } => {
                let Value::Bool(c) = eval(cond, env)? else { return None };
                if exec(if c { then } else { otherwise }, env, types)? == Flow::Break {
                    return Some(Flow::Break);
                }
            }
            Stmt::Block(l) => {
                if exec(l, env, types)? == Flow::Break {
                    return Some(Flow::Break);
                }
            }
            Stmt::Empty => {}
            Stmt::Break(_) => return Some(Flow::Break),
            _ => return None,
        }
    }
    Some(Flow::Next)
}

fn is_scalar(ty: &Type) -> bool {
    matches!(ty, Type::Bits { .. } | Type::Bool)
}

fn zero(ty: &Type) -> Option<Value> {
    match ty {
        Type::Bits { width, signed } => Some(Value::Bits { width: *width, signed: *signed, value: BigInt::zero() }),
        Type::Bool => Some(Value::Bool(false)),
        _ => None,
    }
}

/// A value stored into a variable of type `ty`.
fn coerce(v: Value, ty: &Type) -> Option<Value> {
    match (ty, v) {
        (Type::Bool, b @ Value::Bool(_)) => Some(b),
        (Type::Bits { width, signed }, Value::Bits { value, .. } | Value::InfInt(value)) => {
            Some(bits(*width, *signed, &value))
        }
        _ => None,
    }
}

// ---------------------------------------------------------------- constant evaluation

/// `v` wrapped into `bit<width>` / `int<width>` (two's complement).
fn normalize(width: u32, signed: bool, v: &BigInt) -> BigInt {
    if width == 0 {
        return BigInt::zero();
    }
    let modulus = BigInt::one() << width;
    let mut r = v % &modulus;
    if r.is_negative() {
        r += &modulus;
    }
    if signed && r >= (BigInt::one() << (width - 1)) {
        r -= &modulus;
    }
    r
}

fn bits(width: u32, signed: bool, v: &BigInt) -> Value {
    Value::Bits { width, signed, value: normalize(width, signed, v) }
}

fn int_of(v: &Value) -> Option<&BigInt> {
    match v {
        Value::Bits { value, .. } | Value::InfInt(value) => Some(value),
        _ => None,
    }
}

/// The integer of a numeric constant expression.
fn const_int(e: &Expr) -> Option<&BigInt> {
    match &e.kind {
        ExprKind::Const(v) => int_of(v),
        _ => None,
    }
}

/// A numeric result as a value of `ty`.
fn typed(r: BigInt, ty: &Type) -> Option<Value> {
    match ty {
        Type::Bits { width, signed } => Some(bits(*width, *signed, &r)),
        // Keeps hostile constants (repeated shifts) from growing without bound.
        Type::InfInt if r.bits() <= 4096 => Some(Value::InfInt(r)),
        _ => None,
    }
}

/// The value of `e` when the variables it reads are those of `env`; `None` if it is not a constant
/// this pass folds (run-time data, calls, aggregates, a division by zero...).
fn eval(e: &Expr, env: &Env) -> Option<Value> {
    match &e.kind {
        ExprKind::Const(v) => Some(v.clone()),
        ExprKind::Var(v) => env.get(v).cloned(),
        ExprKind::Unary(op, x) => unary(*op, &eval(x, env)?),
        ExprKind::Binary(op @ (BinOp::And | BinOp::Or), l, r) => {
            let Value::Bool(a) = eval(l, env)? else { return None };
            // `&&` and `||` read their right operand only when the left one does not decide.
            if a == (*op == BinOp::Or) {
                return Some(Value::Bool(a));
            }
            match eval(r, env)? {
                b @ Value::Bool(_) => Some(b),
                _ => None,
            }
        }
        ExprKind::Binary(op, l, r) => binary(*op, &eval(l, env)?, &eval(r, env)?, &e.ty),
        ExprKind::Mux(c, a, b) => match eval(c, env)? {
            Value::Bool(true) => eval(a, env),
            Value::Bool(false) => eval(b, env),
            _ => None,
        },
        ExprKind::Cast(x) => cast(&eval(x, env)?, &e.ty),
        ExprKind::Slice(x, hi, lo) => {
            let v = eval(x, env)?;
            let pattern = match (&v, &x.ty) {
                (Value::Bits { value, .. }, Type::Bits { width, .. }) => normalize(*width, false, value),
                _ => return None,
            };
            Some(bits(hi.checked_sub(*lo)? + 1, false, &(pattern >> *lo as usize)))
        }
        _ => None,
    }
}

fn unary(op: UnOp, v: &Value) -> Option<Value> {
    match (op, v) {
        (UnOp::Not, Value::Bool(b)) => Some(Value::Bool(!b)),
        (UnOp::Plus, Value::Bits { .. } | Value::InfInt(_)) => Some(v.clone()),
        (UnOp::Neg, Value::InfInt(x)) => Some(Value::InfInt(-x)),
        (UnOp::Neg, Value::Bits { width, signed, value }) => Some(bits(*width, *signed, &-value)),
        (UnOp::BitNot, Value::Bits { width, signed, value }) => Some(bits(*width, *signed, &!value)),
        _ => None,
    }
}

/// Equality of two scalar constants (numbers compare by value); `None` for aggregates.
fn scalar_eq(a: &Value, b: &Value) -> Option<bool> {
    match (a, b) {
        (Value::Aggregate { .. }, _) | (_, Value::Aggregate { .. }) => None,
        _ => match (int_of(a), int_of(b)) {
            (Some(x), Some(y)) => Some(x == y),
            (None, None) => Some(a == b),
            _ => None,
        },
    }
}

/// `a op b` with P4's semantics; `ty` is the result's type.
fn binary(op: BinOp, a: &Value, b: &Value, ty: &Type) -> Option<Value> {
    use BinOp::*;
    match op {
        Eq => scalar_eq(a, b).map(Value::Bool),
        Ne => scalar_eq(a, b).map(|e| Value::Bool(!e)),
        And | Or => match (a, b) {
            (Value::Bool(x), Value::Bool(y)) => Some(Value::Bool(if op == And { *x && *y } else { *x || *y })),
            _ => None,
        },
        Shl | Shr => {
            let n = int_of(b)?;
            if n.is_negative() {
                return None;
            }
            let n = n.to_usize().unwrap_or(usize::MAX);
            match a {
                Value::Bits { width, signed, value } => {
                    // Shifting by more than the width gives what shifting by width + 1 gives.
                    let n = n.min(*width as usize + 1);
                    Some(bits(*width, *signed, &if op == Shl { value << n } else { value >> n }))
                }
                Value::InfInt(x) if n <= 4096 => typed(if op == Shl { x << n } else { x >> n }, ty),
                _ => None,
            }
        }
        Concat => match (a, b, ty) {
            (
                Value::Bits { width: wa, value: va, .. },
                Value::Bits { width: wb, value: vb, .. },
                Type::Bits { width, signed },
            ) => {
                let high = normalize(*wa, false, va);
                let low = normalize(*wb, false, vb);
                Some(bits(*width, *signed, &((high << *wb as usize) | low)))
            }
            _ => None,
        },
        _ => {
            let (x, y) = (int_of(a)?, int_of(b)?);
            let r = match op {
                Lt => return Some(Value::Bool(x < y)),
                Le => return Some(Value::Bool(x <= y)),
                Gt => return Some(Value::Bool(x > y)),
                Ge => return Some(Value::Bool(x >= y)),
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div | Mod => {
                    if y.is_zero() || x.is_negative() || y.is_negative() {
                        return None;
                    }
                    if op == Div {
                        x / y
                    } else {
                        x % y
                    }
                }
                BitAnd => x & y,
                BitOr => x | y,
                BitXor => x ^ y,
                AddSat | SubSat => {
                    let r = if op == AddSat { x + y } else { x - y };
                    let Type::Bits { width, signed } = ty else { return None };
                    if *width == 0 {
                        return None;
                    }
                    let (lo, hi) = if *signed {
                        let h = BigInt::one() << (width - 1);
                        (-h.clone(), h - 1)
                    } else {
                        (BigInt::zero(), (BigInt::one() << *width) - 1)
                    };
                    r.clamp(lo, hi)
                }
                _ => return None,
            };
            typed(r, ty)
        }
    }
}

/// A cast to `ty`, as the dataplane does it (a signed value is sign-extended, then wrapped).
fn cast(v: &Value, ty: &Type) -> Option<Value> {
    match (ty, v) {
        (Type::Bits { width, signed }, Value::Bool(b)) => Some(bits(*width, *signed, &BigInt::from(u8::from(*b)))),
        (Type::Bits { width, signed }, Value::Bits { value, .. } | Value::InfInt(value)) => {
            Some(bits(*width, *signed, value))
        }
        (Type::Bool, Value::Bool(_)) => Some(v.clone()),
        (Type::Bool, Value::Bits { value, .. }) => Some(Value::Bool(!value.is_zero())),
        _ => None,
    }
}

/// Folds one expression node whose operands are folded already.
fn fold(e: &mut Expr) {
    let chosen = match &e.kind {
        ExprKind::Mux(c, a, b) => match c.kind {
            ExprKind::Const(Value::Bool(k)) => Some(if k { (**a).clone() } else { (**b).clone() }),
            _ => None,
        },
        ExprKind::Binary(op @ (BinOp::And | BinOp::Or), l, r) => match l.kind {
            // `false && x` is false, `true && x` is x; `true || x` is true, `false || x` is x.
            ExprKind::Const(Value::Bool(k)) if k == (*op == BinOp::Or) => Some((**l).clone()),
            ExprKind::Const(Value::Bool(_)) => Some((**r).clone()),
            _ => None,
        },
        // `x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x`, `x | 0`, `x ^ 0`, `x << 0`, `x >> 0` are `x`
        // (left by substituting the first iterations' values).
        ExprKind::Binary(op, l, r) if l.ty == e.ty => {
            let is = |x: &Expr, k: u32| const_int(x).is_some_and(|n| *n == BigInt::from(k));
            let right_unit = match op {
                BinOp::Add | BinOp::Sub | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr => is(r, 0),
                BinOp::Mul => is(r, 1),
                _ => false,
            };
            let left_unit = r.ty == e.ty
                && match op {
                    BinOp::Add | BinOp::BitOr | BinOp::BitXor => is(l, 0),
                    BinOp::Mul => is(l, 1),
                    _ => false,
                };
            if right_unit {
                Some((**l).clone())
            } else if left_unit {
                Some((**r).clone())
            } else {
                None
            }
        }
        _ => None,
    };
    if let Some(mut c) = chosen {
        c.span = e.span;
        *e = c;
        return;
    }
    let is_const = |x: &Expr| matches!(x.kind, ExprKind::Const(_));
    let operands_const = match &e.kind {
        ExprKind::Unary(_, x) | ExprKind::Cast(x) | ExprKind::Slice(x, _, _) => is_const(x),
        ExprKind::Binary(_, l, r) => is_const(l) && is_const(r),
        _ => false,
    };
    if operands_const {
        if let Some(v) = eval(e, &Env::new()) {
            e.kind = ExprKind::Const(v);
        }
    }
}

/// Replaces reads of the variables of `env` by their values.
fn substitute(stmts: &mut [Stmt], env: &Env) {
    if env.is_empty() {
        return;
    }
    walk_stmts_exprs_mut(stmts, &mut |e| {
        if let ExprKind::Var(v) = e.kind {
            if let Some(c) = env.get(&v) {
                e.kind = ExprKind::Const(c.clone());
            }
        }
    });
}

/// Keeps only the branch taken of an `if` or `switch` on a constant, splices blocks and drops empty
/// statements and assignments of a variable to itself.
fn simplify(stmts: Vec<Stmt>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        match s {
            Stmt::If { cond: Expr { kind: ExprKind::Const(Value::Bool(c)), .. }, then, otherwise, .. } => {
                out.extend(simplify(if c { then } else { otherwise }))
            }
            Stmt::If { cond, then, otherwise, span } => {
                out.push(Stmt::If { cond, then: simplify(then), otherwise: simplify(otherwise), span })
            }
            Stmt::SwitchValue { expr: Expr { kind: ExprKind::Const(v), .. }, cases, .. } => {
                let hit = cases.iter().position(|(l, _)| l.as_ref().is_some_and(|l| scalar_eq(l, &v) == Some(true)));
                let taken = hit.or_else(|| cases.iter().position(|(l, _)| l.is_none()));
                if let Some(k) = taken {
                    let body = cases.into_iter().nth(k).map(|(_, b)| b).unwrap_or_default();
                    out.extend(simplify(body));
                }
            }
            Stmt::SwitchValue { expr, cases, span } => {
                let cases = cases.into_iter().map(|(l, b)| (l, simplify(b))).collect();
                out.push(Stmt::SwitchValue { expr, cases, span });
            }
            Stmt::SwitchAction { table, cases, span } => {
                let cases = cases.into_iter().map(|(a, b)| (a, simplify(b))).collect();
                out.push(Stmt::SwitchAction { table, cases, span });
            }
            Stmt::Block(l) => out.extend(simplify(l)),
            // `t = t + 0` folded to `t = t`.
            Stmt::Assign {
                lhs: Expr { kind: ExprKind::Var(a), .. }, rhs: Expr { kind: ExprKind::Var(b), .. }, ..
            } if a == b => {}
            Stmt::For { init, cond, update, body, span } => {
                out.push(Stmt::For { init: simplify(init), cond, update: simplify(update), body: simplify(body), span })
            }
            Stmt::Empty => {}
            other => out.push(other),
        }
    }
    out
}

// ---------------------------------------------------------------- break and continue

/// How a lowered statement list can end.
#[derive(Clone, Copy, Default)]
struct Exits {
    /// Its end may be reached (a guarded rest counts: the guard may skip it).
    falls: bool,
    /// Some path goes on to the next iteration (`continue`).
    cont: bool,
    /// Some path sets the break / continue flag.
    sets_break: bool,
    sets_continue: bool,
}

impl Exits {
    fn falls() -> Exits {
        Exits { falls: true, ..Exits::default() }
    }
    fn or(self, o: Exits) -> Exits {
        Exits {
            falls: self.falls || o.falls,
            cont: self.cont || o.cont,
            sets_break: self.sets_break || o.sets_break,
            sets_continue: self.sets_continue || o.sets_continue,
        }
    }
}

/// Lowers the loop's `break`/`continue` in `stmts` (`top`: run unconditionally in the copy, so a
/// `break`/`continue` there just ends it).
fn lower_exits(stmts: Vec<Stmt>, top: bool, span: Span) -> (Vec<Stmt>, Exits) {
    let mut out = Vec::with_capacity(stmts.len());
    let mut acc = Exits::falls();
    let mut rest = stmts.into_iter();
    while let Some(s) = rest.next() {
        let (lowered, e) = lower_exits_stmt(s, top, span);
        out.extend(lowered);
        acc = Exits { falls: acc.falls && e.falls, ..acc.or(e) };
        if !e.falls {
            // What follows never runs.
            return (out, acc);
        }
        if e.sets_break || e.sets_continue {
            let rest: Vec<Stmt> = rest.collect();
            if !rest.is_empty() {
                let (then, r) = lower_exits(rest, false, span);
                acc = Exits { falls: true, ..acc.or(r) };
                out.push(Stmt::If {
                    cond: not_flags(e.sets_break, e.sets_continue, span),
                    then,
                    otherwise: vec![],
                    span,
                });
            }
            return (out, acc);
        }
    }
    (out, acc)
}

fn lower_exits_stmt(s: Stmt, top: bool, span: Span) -> (Vec<Stmt>, Exits) {
    match s {
        Stmt::Break(_) if top => (vec![], Exits::default()),
        Stmt::Break(sp) => (vec![set_flag(BREAK_FLAG, sp)], Exits { sets_break: true, ..Exits::default() }),
        Stmt::Continue(_) if top => (vec![], Exits { cont: true, ..Exits::default() }),
        Stmt::Continue(sp) => {
            (vec![set_flag(CONTINUE_FLAG, sp)], Exits { cont: true, sets_continue: true, ..Exits::default() })
        }
        Stmt::Return(..) | Stmt::Exit(_) => (vec![s], Exits::default()),
        Stmt::If { cond, then, otherwise, span: sp } => {
            let (then, a) = lower_exits(then, false, span);
            let (otherwise, b) = lower_exits(otherwise, false, span);
            (vec![Stmt::If { cond, then, otherwise, span: sp }], a.or(b))
        }
        Stmt::SwitchValue { expr, cases, span: sp } => {
            let (cases, e) = lower_exits_cases(cases, span);
            (vec![Stmt::SwitchValue { expr, cases, span: sp }], e)
        }
        Stmt::SwitchAction { table, cases, span: sp } => {
            let (cases, e) = lower_exits_cases(cases, span);
            (vec![Stmt::SwitchAction { table, cases, span: sp }], e)
        }
        Stmt::Block(l) => lower_exits(l, top, span),
        // A nested loop's `break`/`continue` are its own.
        other => (vec![other], Exits::falls()),
    }
}

/// The cases of a `switch` of either kind (`L` is a value or an action; `None` labels the `default`).
type Cases<L> = Vec<(Option<L>, Vec<Stmt>)>;

/// [`lower_exits`] on each case of a `switch`.
fn lower_exits_cases<L>(cases: Cases<L>, span: Span) -> (Cases<L>, Exits) {
    // Without a `default`, no case may run.
    let mut e = Exits { falls: !cases.iter().any(|(l, _)| l.is_none()), ..Exits::default() };
    let cases = cases
        .into_iter()
        .map(|(l, b)| {
            let (b, x) = lower_exits(b, false, span);
            e = e.or(x);
            (l, b)
        })
        .collect();
    (cases, e)
}

fn flag_expr(flag: VarId, span: Span) -> Expr {
    Expr::new(Type::Bool, ExprKind::Var(flag), span)
}

fn set_flag(flag: VarId, span: Span) -> Stmt {
    Stmt::Assign { lhs: flag_expr(flag, span), rhs: bool_const(true, span), span }
}

fn not(e: Expr) -> Expr {
    let span = e.span;
    Expr::new(Type::Bool, ExprKind::Unary(UnOp::Not, Box::new(e)), span)
}

/// `!break_flag`, `!continue_flag` or both, joined with `&&`.
fn not_flags(brk: bool, cont: bool, span: Span) -> Expr {
    let b = not(flag_expr(BREAK_FLAG, span));
    let c = not(flag_expr(CONTINUE_FLAG, span));
    match (brk, cont) {
        (true, true) => Expr::new(Type::Bool, ExprKind::Binary(BinOp::And, Box::new(b), Box::new(c)), span),
        (true, false) => b,
        _ => c,
    }
}

/// Appends `stmts` to `out`, under `if (!break_flag)` when an earlier copy may have set it.
fn push_guarded(out: &mut Vec<Stmt>, stmts: Vec<Stmt>, guarded: bool, span: Span) {
    if !guarded {
        out.extend(stmts);
    } else if !stmts.is_empty() {
        out.push(Stmt::If { cond: not_flags(true, false, span), then: stmts, otherwise: vec![], span });
    }
}

/// `v = <value>;` for control variables declared outside the loop.
fn outer_stores(values: &[(VarId, Value)], types: &HashMap<VarId, Type>, span: Span) -> Vec<Stmt> {
    values
        .iter()
        .filter_map(|(v, value)| {
            let ty = types.get(v)?.clone();
            let lhs = Expr::new(ty.clone(), ExprKind::Var(*v), span);
            Some(Stmt::Assign { lhs, rhs: Expr::constant(value.clone(), ty, span), span })
        })
        .collect()
}

/// Removes the stores to a flag nothing reads (and the `if`s left empty).
fn strip_flag(stmts: Vec<Stmt>, flag: VarId) -> Vec<Stmt> {
    let is_flag = |e: &Expr| matches!(e.kind, ExprKind::Var(v) if v == flag);
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts {
        match s {
            Stmt::VarInit { var, .. } if var == flag => {}
            Stmt::Assign { ref lhs, .. } if is_flag(lhs) => {}
            Stmt::If { cond, then, otherwise, span } => {
                let (then, otherwise) = (strip_flag(then, flag), strip_flag(otherwise, flag));
                if then.is_empty() && otherwise.is_empty() && !crate::util::has_effects(&cond) {
                    continue;
                }
                out.push(Stmt::If { cond, then, otherwise, span });
            }
            Stmt::SwitchValue { expr, cases, span } => {
                let cases = cases.into_iter().map(|(l, b)| (l, strip_flag(b, flag))).collect();
                out.push(Stmt::SwitchValue { expr, cases, span });
            }
            Stmt::SwitchAction { table, cases, span } => {
                let cases = cases.into_iter().map(|(a, b)| (a, strip_flag(b, flag))).collect();
                out.push(Stmt::SwitchAction { table, cases, span });
            }
            Stmt::Block(l) => out.push(Stmt::Block(strip_flag(l, flag))),
            other => out.push(other),
        }
    }
    out
}

/// Removes the stores to `flag` that nothing reads afterwards (`live`: the flag is read after
/// `stmts`); also returns whether the flag is read before being stored again on entry to `stmts`.
/// Flags are only stored with constants, so a store reads nothing.
fn dead_flag_stores(stmts: Vec<Stmt>, flag: VarId, mut live: bool) -> (Vec<Stmt>, bool) {
    let is_flag = |e: &Expr| matches!(e.kind, ExprKind::Var(v) if v == flag);
    let reads = |e: &Expr| e.any(&mut |x| is_flag(x));
    let mut out = Vec::with_capacity(stmts.len());
    for s in stmts.into_iter().rev() {
        match s {
            Stmt::VarInit { var, .. } if var == flag => {
                if live {
                    out.push(s);
                }
                live = false;
            }
            Stmt::Assign { ref lhs, .. } if is_flag(lhs) => {
                if live {
                    out.push(s);
                }
                live = false;
            }
            Stmt::If { cond, then, otherwise, span } => {
                let (then, a) = dead_flag_stores(then, flag, live);
                let (otherwise, b) = dead_flag_stores(otherwise, flag, live);
                live = a || b || reads(&cond);
                if !(then.is_empty() && otherwise.is_empty() && !crate::util::has_effects(&cond)) {
                    out.push(Stmt::If { cond, then, otherwise, span });
                }
            }
            Stmt::SwitchValue { expr, cases, span } => {
                let (cases, any) = dead_flag_stores_cases(cases, flag, live);
                live = any || reads(&expr);
                out.push(Stmt::SwitchValue { expr, cases, span });
            }
            Stmt::SwitchAction { table, cases, span } => {
                let (cases, any) = dead_flag_stores_cases(cases, flag, live);
                live = any;
                out.push(Stmt::SwitchAction { table, cases, span });
            }
            Stmt::Block(l) => {
                let (l, x) = dead_flag_stores(l, flag, live);
                live = x;
                out.push(Stmt::Block(l));
            }
            // Nothing after them runs.
            Stmt::Return(..) | Stmt::Exit(_) => {
                live = false;
                out.push(s);
            }
            other => {
                // A nested loop (or anything else) that mentions the flag is kept as it is.
                live |= mentions(std::slice::from_ref(&other), flag);
                out.push(other);
            }
        }
    }
    out.reverse();
    (out, live)
}

/// [`dead_flag_stores`] on each case of a `switch`; also returns whether the flag is read on entry to
/// the cases (without a `default`, no case may run).
fn dead_flag_stores_cases<L>(cases: Cases<L>, flag: VarId, live: bool) -> (Cases<L>, bool) {
    let mut any = !cases.iter().any(|(l, _)| l.is_none()) && live;
    let cases = cases
        .into_iter()
        .map(|(l, b)| {
            let (b, x) = dead_flag_stores(b, flag, live);
            any |= x;
            (l, b)
        })
        .collect();
    (cases, any)
}

// ---------------------------------------------------------------- walks

/// Statements counted with the ones nested in them.
fn count(stmts: &[Stmt]) -> usize {
    struct Count(usize);
    impl Visit<'_> for Count {
        fn visit_stmt(&mut self, s: &Stmt) {
            self.0 += 1;
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, _: &Expr) {}
    }
    let mut n = Count(0);
    n.visit_stmts(stmts);
    n.0
}

/// Hands its function every variable an `init` declares or an expression names.
struct Mentions<F>(F);

impl<F: FnMut(VarId)> Visit<'_> for Mentions<F> {
    fn visit_stmt(&mut self, s: &Stmt) {
        if let Stmt::VarInit { var, .. } = s {
            (self.0)(*var);
        }
        walk_stmt(self, s);
    }
    fn visit_expr(&mut self, e: &Expr) {
        if let ExprKind::Var(v) = e.kind {
            (self.0)(v);
        }
        walk_expr(self, e);
    }
}

/// True if `stmts` mention variable `x` (read, write or `init`).
fn mentions(stmts: &[Stmt], x: VarId) -> bool {
    let mut found = false;
    Mentions(|v| found |= v == x).visit_stmts(stmts);
    found
}

/// How often `stmts` name `flag` in an expression, and how many of those are whole stores to it.
fn flag_uses_and_stores(stmts: &[Stmt], flag: VarId) -> (usize, usize) {
    struct Flag {
        flag: VarId,
        uses: usize,
        stores: usize,
    }
    impl Visit<'_> for Flag {
        fn visit_stmt(&mut self, s: &Stmt) {
            if let Stmt::Assign { lhs, .. } = s {
                self.stores += usize::from(matches!(lhs.kind, ExprKind::Var(v) if v == self.flag));
            }
            walk_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &Expr) {
            self.uses += usize::from(matches!(e.kind, ExprKind::Var(v) if v == self.flag));
            walk_expr(self, e);
        }
    }
    let mut f = Flag { flag, uses: 0, stores: 0 };
    f.visit_stmts(stmts);
    (f.uses, f.stores)
}

/// Calls `f` with the variable of every write in `stmts`: `init`, assignments, `out`/`inout`
/// arguments (of calls anywhere, and of sub-block applies), and the targets of header and stack
/// methods and extern methods.
fn for_each_write(stmts: &[Stmt], f: &mut dyn FnMut(VarId)) {
    struct Writes<'f>(&'f mut dyn FnMut(VarId));
    impl Writes<'_> {
        fn root_of(&mut self, e: &Expr) {
            root_var(e).into_iter().for_each(&mut *self.0);
        }
    }
    impl Visit<'_> for Writes<'_> {
        fn visit_stmt(&mut self, s: &Stmt) {
            match s {
                Stmt::VarInit { var, .. } => (self.0)(*var),
                Stmt::Assign { lhs, .. } => self.root_of(lhs),
                _ => {}
            }
            walk_stmt(self, s);
        }
        fn visit_call(&mut self, c: &Call) {
            match &c.callee {
                Callee::Builtin { builtin: Builtin::IsValid, .. } => {}
                Callee::Builtin { target, .. } | Callee::Method { target, .. } => self.root_of(target),
                _ => {}
            }
            walk_call(self, c);
        }
        fn visit_arg(&mut self, a: &Arg) {
            if matches!(a.direction, Direction::Out | Direction::InOut) {
                self.root_of(&a.expr);
            }
            walk_arg(self, a);
        }
    }
    Writes(f).visit_stmts(stmts);
}

/// True if `stmts` run code of their block that could see its variables: an action or function
/// call, a table apply, a sub-block apply.
fn runs_other_code(stmts: &[Stmt]) -> bool {
    struct OtherCode(bool);
    impl Visit<'_> for OtherCode {
        fn visit_stmt(&mut self, s: &Stmt) {
            self.0 |= matches!(s, Stmt::ApplyTable { .. } | Stmt::SwitchAction { .. } | Stmt::ApplyBlock { .. });
            walk_stmt(self, s);
        }
        fn visit_call(&mut self, c: &Call) {
            self.0 |= matches!(c.callee, Callee::Action(_) | Callee::Function(_));
            walk_call(self, c);
        }
        fn visit_expr(&mut self, e: &Expr) {
            self.0 |= matches!(e.kind, ExprKind::ApplyTable(..));
            walk_expr(self, e);
        }
    }
    let mut found = OtherCode(false);
    found.visit_stmts(stmts);
    found.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(w: u32, v: i64) -> Value {
        bits(w, false, &BigInt::from(v))
    }
    fn s(w: u32, v: i64) -> Value {
        bits(w, true, &BigInt::from(v))
    }

    #[test]
    fn arithmetic_wraps_like_the_dataplane() {
        assert_eq!(binary(BinOp::Add, &b(8, 255), &b(8, 1), &Type::bit(8)), Some(b(8, 0)));
        assert_eq!(binary(BinOp::Sub, &b(8, 0), &b(8, 1), &Type::bit(8)), Some(b(8, 255)));
        assert_eq!(binary(BinOp::Add, &s(8, 127), &s(8, 1), &Type::int(8)), Some(s(8, -128)));
        assert_eq!(binary(BinOp::Lt, &s(8, -1), &s(8, 0), &Type::Bool), Some(Value::Bool(true)));
        assert_eq!(binary(BinOp::Shl, &b(8, 0x81), &Value::InfInt(1.into()), &Type::bit(8)), Some(b(8, 2)));
        assert_eq!(binary(BinOp::Shr, &s(8, -4), &Value::InfInt(1.into()), &Type::int(8)), Some(s(8, -2)));
        assert_eq!(binary(BinOp::Concat, &b(4, 0xa), &b(8, 0x5b), &Type::bit(12)), Some(b(12, 0xa5b)));
        assert_eq!(binary(BinOp::AddSat, &b(8, 250), &b(8, 10), &Type::bit(8)), Some(b(8, 255)));
        assert_eq!(binary(BinOp::SubSat, &s(8, -100), &s(8, 100), &Type::int(8)), Some(s(8, -128)));
        assert_eq!(binary(BinOp::Div, &b(8, 7), &b(8, 0), &Type::bit(8)), None);
        assert_eq!(unary(UnOp::BitNot, &b(4, 5)), Some(b(4, 10)));
        assert_eq!(cast(&s(8, -1), &Type::bit(16)), Some(b(16, 0xffff)));
        assert_eq!(cast(&b(16, 0x1234), &Type::bit(8)), Some(b(8, 0x34)));
        assert_eq!(cast(&b(1, 1), &Type::Bool), Some(Value::Bool(true)));
    }
}
