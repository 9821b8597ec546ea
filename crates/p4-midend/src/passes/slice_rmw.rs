//! `slice-rmw`: an assignment to a bit slice becomes a read-modify-write of the whole value.
//!
//! `x[hi:lo] = v` (with `x` of type `bit<W>`) becomes
//! `x = (x & K) | ((bit<W>)v << lo)` where the constant `K` (`~M`, folded) keeps every bit but `hi..=lo`; for `int<W>` the same
//! is computed on `(bit<W>)x` and cast back. Why: a register in hardware, a field of the wire-format
//! header in a fast executor, and every later pass (three-address form, scalarisation, def-use) then
//! see one kind of write: whole storage locations. A nested slice (`x[7:0][3:0] = v`) is rewritten
//! until no slice is left on the left.
//!
//! Evaluation order is kept: the original writes the slice after evaluating `v`, and reads nothing of
//! `x` first. So when `v` may have effects (a call, a table apply) it is evaluated into a temporary
//! first; if the place of `x` is not fixed at compile time as well (a run-time stack index, `.next`),
//! the statement is left alone, since hoisting `v` would move its effects before the place is chosen.
//!
//! A slice passed as an `out`/`inout` argument goes through a temporary: `f(x[7:4])` becomes
//! `tmp = x[7:4]; f(tmp); x = (x & K) | ((bit<W>)tmp << 4);` when that keeps the order (no argument
//! has effects, the slice names fixed storage and overlaps no other writable argument); otherwise the
//! call is left as it is. Slices in `apply` arguments of sub-blocks are left (the inliners remove
//! those applies first).

use crate::util::{
    bodies, for_each_nested_list, fresh_var, has_effects, is_static_place, may_overlap, put_body, take_body, vars_mut,
};
use crate::{Pass, PassError};
use num_bigint::BigInt;
use num_traits::One;
use p4_ir::{Arg, BinOp, Call, Direction, Expr, ExprKind, Program, Span, Stmt, Type, Value, VarKind};

pub const NAME: &str = "slice-rmw";

pub struct SliceRmw;

impl Pass for SliceRmw {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program) -> Result<(), PassError> {
        for (block, body) in bodies(program) {
            let mut stmts = take_body(program, body);
            let Some(vars) = vars_mut(program, &block) else { continue };
            rewrite_list(&mut stmts, vars);
            put_body(program, body, stmts);
        }
        Ok(())
    }
}

fn rewrite_list(stmts: &mut Vec<Stmt>, vars: &mut Vec<p4_ir::Var>) {
    for_each_nested_list(stmts, &mut |l| rewrite_flat(l, vars));
    rewrite_flat(stmts, vars);
}

/// Rewrites the slice assignments directly in `stmts` (nested lists are done by the caller).
fn rewrite_flat(stmts: &mut Vec<Stmt>, vars: &mut Vec<p4_ir::Var>) {
    let mut out = Vec::with_capacity(stmts.len());
    for s in std::mem::take(stmts) {
        match s {
            Stmt::Assign { lhs, rhs, span } if matches!(lhs.kind, ExprKind::Slice(..)) => {
                let effects = has_effects(&rhs);
                if effects && !is_static_place(&lhs) {
                    out.push(Stmt::Assign { lhs, rhs, span });
                    continue;
                }
                let rhs = if effects {
                    // Evaluate the value first, into a temporary, as the original order does.
                    let tmp = fresh_var(vars, "slice_value", rhs.ty.clone(), VarKind::Temp);
                    out.push(Stmt::VarInit { var: tmp, init: Some(rhs.clone()), span });
                    Expr::new(rhs.ty.clone(), ExprKind::Var(tmp), rhs.span)
                } else {
                    rhs
                };
                let (mut lhs, mut rhs) = (lhs, rhs);
                // Peel slices until a whole location is written.
                while let ExprKind::Slice(base, hi, lo) = lhs.kind {
                    rhs = merge(&base, hi, lo, rhs, span);
                    lhs = *base;
                }
                out.push(Stmt::Assign { lhs, rhs, span });
            }
            Stmt::Call(call) if slice_out_args(&call) => {
                let (before, call, after) = through_temporaries(call, vars);
                out.extend(before);
                out.push(Stmt::Call(call));
                // Each copy-back is itself a slice assignment: rewrite it like the others.
                let mut after = after;
                rewrite_flat(&mut after, vars);
                out.extend(after);
            }
            other => out.push(other),
        }
    }
    *stmts = out;
}

/// True if the call passes a slice as an `out`/`inout` argument and the rewrite keeps its order:
/// no argument has effects (reading the slice early is then unobservable), each slice names fixed
/// storage, and no writable argument the call writes itself overlaps it (the slices' copy-backs run
/// after the call in parameter order, as the copy-backs they replace did, so slices of one value may
/// overlap each other).
fn slice_out_args(call: &Call) -> bool {
    let writable = |a: &Arg| matches!(a.direction, Direction::Out | Direction::InOut);
    let slices: Vec<usize> = call
        .args
        .iter()
        .enumerate()
        .filter(|(_, a)| writable(a) && matches!(a.expr.kind, ExprKind::Slice(..)))
        .map(|(i, _)| i)
        .collect();
    !slices.is_empty()
        && call.args.iter().all(|a| !has_effects(&a.expr))
        && slices.iter().all(|&i| {
            is_static_place(&call.args[i].expr)
                && call
                    .args
                    .iter()
                    .enumerate()
                    .all(|(j, b)| slices.contains(&j) || !writable(b) || !may_overlap(&call.args[i].expr, &b.expr))
        })
}

/// `f(x[7:4])` with an `out`/`inout` slice becomes `tmp = x[7:4]; f(tmp); x[7:4] = tmp;` (`init tmp;`
/// for `out`): the call then writes a whole variable, and the copy-back is a slice assignment that
/// this pass turns into a read-modify-write.
fn through_temporaries(mut call: Call, vars: &mut Vec<p4_ir::Var>) -> (Vec<Stmt>, Call, Vec<Stmt>) {
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let span = call.span;
    for a in &mut call.args {
        if !(matches!(a.direction, Direction::Out | Direction::InOut) && matches!(a.expr.kind, ExprKind::Slice(..))) {
            continue;
        }
        let tmp = fresh_var(vars, "slice_arg", a.expr.ty.clone(), VarKind::Temp);
        let tmp_expr = Expr::new(a.expr.ty.clone(), ExprKind::Var(tmp), a.expr.span);
        let init = if a.direction == Direction::InOut { Some(a.expr.clone()) } else { None };
        before.push(Stmt::VarInit { var: tmp, init, span });
        let place = std::mem::replace(&mut a.expr, tmp_expr.clone());
        after.push(Stmt::Assign { lhs: place, rhs: tmp_expr, span });
    }
    (before, call, after)
}

fn bits_const(width: u32, value: BigInt, span: Span) -> Expr {
    Expr::constant(Value::Bits { width, signed: false, value }, Type::bit(width), span)
}

fn cast(e: Expr, ty: Type) -> Expr {
    let span = e.span;
    Expr::new(ty, ExprKind::Cast(Box::new(e)), span)
}

fn bin(op: BinOp, l: Expr, r: Expr) -> Expr {
    let (ty, span) = (l.ty.clone(), l.span);
    Expr::new(ty, ExprKind::Binary(op, Box::new(l), Box::new(r)), span)
}

/// The whole new value of `base` after writing `value` into bits `hi..=lo`.
fn merge(base: &Expr, hi: u32, lo: u32, value: Expr, span: Span) -> Expr {
    let (width, signed) = match base.ty {
        Type::Bits { width, signed } => (width, signed),
        // Slices exist only on bit<W>/int<W>; keep anything else as a plain write of the base type.
        _ => return value,
    };
    let unsigned = Type::bit(width);
    if lo == 0 && hi + 1 == width {
        // The slice is the whole value (`x[7:0]` of a `bit<8>`): a plain write.
        return if value.ty == base.ty { value } else { cast(value, base.ty.clone()) };
    }
    let ones = |n: u32| (BigInt::one() << n) - BigInt::one();
    let field_mask = ones(hi + 1) - ones(lo);
    let keep_mask = ones(width) - &field_mask;
    let old = if signed { cast(base.clone(), unsigned.clone()) } else { base.clone() };
    let kept = bin(BinOp::BitAnd, old, bits_const(width, keep_mask, span));
    let widened = if value.ty == unsigned { value } else { cast(value, unsigned.clone()) };
    let shifted = if lo == 0 {
        widened
    } else {
        bin(BinOp::Shl, widened, Expr::constant(Value::InfInt(BigInt::from(lo)), Type::InfInt, span))
    };
    // `v` has exactly hi-lo+1 bits, so after the shift it occupies the slice and nothing else.
    let merged = bin(BinOp::BitOr, kept, shifted);
    if signed {
        cast(merged, base.ty.clone())
    } else {
        merged
    }
}
