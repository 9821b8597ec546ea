//! Expressions: evaluated to [`Value`]s by walking the tree, with big-integer arithmetic modulo
//! the type's width.

use num_bigint::{BigInt, BigUint};
use num_traits::{ToPrimitive, Zero};
use p4_ir::{ApplyResult, BinOp, BlockRef, Expr, ExprKind, Type, UnOp};

use crate::place::{slice_of, Place};
use crate::value::{self, wrap, Value};
use crate::{Interpreter, Run};

impl Interpreter {
    /// The value of `e` in block `b`.
    pub(crate) fn eval(&mut self, b: &BlockRef, e: &Expr) -> Run<Value> {
        let p = self.program.clone();
        Ok(match &e.kind {
            ExprKind::Const(c) => value::constant(&p, c, &e.ty),
            ExprKind::Var(_)
            | ExprKind::Field(..)
            | ExprKind::Index(..)
            | ExprKind::StackNext(_)
            | ExprKind::StackLast(_)
            | ExprKind::Slice(..)
                if e.is_lvalue() =>
            {
                let place: Option<Place> = self.place(b, e)?;
                match place {
                    Some(pl) => self.read_lvalue(&pl, &e.ty),
                    None => value::default_of(&p, &e.ty),
                }
            }
            // The same, on a value that is not stored anywhere (a call's result).
            ExprKind::Field(base, i) => match self.eval(b, base)? {
                Value::Header { valid: false, .. } => value::default_of(&p, &e.ty),
                Value::Header { fields, .. } | Value::Struct(fields) | Value::Union(fields) => {
                    fields.into_iter().nth(*i as usize).unwrap_or_else(|| value::default_of(&p, &e.ty))
                }
                _ => value::default_of(&p, &e.ty),
            },
            ExprKind::Index(base, index) => {
                let stack = self.eval(b, base)?;
                let i = self.eval(b, index)?.to_biguint().to_usize();
                match (stack, i) {
                    (Value::Stack { elems, .. }, Some(i)) if i < elems.len() => elems[i].clone(),
                    _ => value::default_of(&p, &e.ty),
                }
            }
            ExprKind::Slice(base, hi, lo) => slice_of(&self.eval(b, base)?, *hi, *lo),
            ExprKind::StackNext(_) | ExprKind::StackLast(_) => value::default_of(&p, &e.ty),
            ExprKind::StackLastIndex(stack) => {
                let next = match self.eval(b, stack)? {
                    Value::Stack { next, .. } => next,
                    _ => 0,
                };
                // `lastIndex` of an empty stack wraps to all ones, as an unsigned `next - 1`.
                Value::bits(32, false, wrap(&(BigInt::from(next) - 1), 32))
            }
            ExprKind::Unary(op, x) => {
                let x = self.eval(b, x)?;
                unary(*op, x)
            }
            ExprKind::Binary(BinOp::And, x, y) => Value::Bool(self.eval(b, x)?.is_true() && self.eval(b, y)?.is_true()),
            ExprKind::Binary(BinOp::Or, x, y) => Value::Bool(self.eval(b, x)?.is_true() || self.eval(b, y)?.is_true()),
            ExprKind::Binary(op, x, y) => {
                let (x, y) = (self.eval(b, x)?, self.eval(b, y)?);
                binary(*op, x, y)
            }
            ExprKind::Mux(c, x, y) => {
                if self.eval(b, c)?.is_true() {
                    self.eval(b, x)?
                } else {
                    self.eval(b, y)?
                }
            }
            ExprKind::Cast(x) => {
                let v = self.eval(b, x)?;
                value::convert(&p, v, &e.ty)
            }
            ExprKind::Call(call) => self.call(b, call)?.unwrap_or_else(|| value::default_of(&p, &e.ty)),
            ExprKind::ApplyTable(t, what) => {
                let (hit, action) = self.apply_table(*t)?;
                match what {
                    ApplyResult::Hit => Value::Bool(hit),
                    ApplyResult::Miss => Value::Bool(!hit),
                    ApplyResult::ActionRun => Value::bit(32, action as u128),
                }
            }
            ExprKind::Aggregate(items) => {
                let mut values = Vec::new();
                for item in items {
                    values.push(self.eval(b, item)?);
                }
                match &e.ty {
                    Type::Tuple(_) => Value::Struct(values),
                    ty => value::convert(&p, Value::Struct(values), ty),
                }
            }
            ExprKind::InvalidHeader => value::default_of(&p, &e.ty),
            ExprKind::Extern(_) | ExprKind::DontCare => Value::Opaque,
            ExprKind::Var(_) => value::default_of(&p, &e.ty),
        })
    }
}

fn unary(op: UnOp, x: Value) -> Value {
    match (op, x) {
        (UnOp::Not, x) => Value::Bool(!x.is_true()),
        (UnOp::BitNot, Value::Bits { width, signed, v }) => Value::Bits { width, signed, v: v ^ value::mask(width) },
        (UnOp::Neg, Value::Bits { width, signed, v }) => {
            Value::Bits { width, signed, v: wrap(&-BigInt::from(v), width) }
        }
        (UnOp::Neg, Value::Int(i)) => Value::Int(-i),
        (UnOp::BitNot, Value::Int(i)) => Value::Int(!i),
        (_, x) => x,
    }
}

/// Equality of any two values of the same type: scalars by their bits, headers by validity and
/// (when valid) fields — two invalid headers are equal —, stacks by their elements.
pub(crate) fn equal(x: &Value, y: &Value) -> bool {
    match (x, y) {
        (Value::Header { valid: a, fields: fa }, Value::Header { valid: b, fields: fb }) => {
            a == b && (!a || fa.iter().zip(fb).all(|(x, y)| equal(x, y)))
        }
        (Value::Struct(a), Value::Struct(b)) | (Value::Union(a), Value::Union(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| equal(x, y))
        }
        (Value::Stack { elems: a, .. }, Value::Stack { elems: b, .. }) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| equal(x, y))
        }
        (Value::Varbit { len: la, v: a, .. }, Value::Varbit { len: lb, v: b, .. }) => la == lb && a == b,
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::Int(_), _) | (_, Value::Int(_)) => x.to_bigint() == y.to_bigint(),
        (Value::Str(a), Value::Str(b)) => a == b,
        _ => x.to_biguint() == y.to_biguint(),
    }
}

fn binary(op: BinOp, x: Value, y: Value) -> Value {
    use BinOp::*;
    match op {
        Eq => return Value::Bool(equal(&x, &y)),
        Ne => return Value::Bool(!equal(&x, &y)),
        Concat => {
            let (wx, sx, wy) = (x.width(), matches!(x, Value::Bits { signed: true, .. }), y.width());
            return Value::bits(wx + wy, sx, (x.to_biguint() << wy) | y.to_biguint());
        }
        _ => {}
    }
    // Compile-time `int` on both sides (rare at run time): plain integer arithmetic.
    let (width, signed) = match (&x, &y) {
        (Value::Bits { width, signed, .. }, _) => (*width, *signed),
        (_, Value::Bits { width, signed, .. }) if !matches!(op, Shl | Shr) => (*width, *signed),
        (Value::Bool(_), _) => (1, false),
        _ => return int_binary(op, x.to_bigint(), y.to_bigint()),
    };
    if signed {
        signed_binary(op, width, x.to_bigint(), y.to_bigint(), y.to_biguint())
    } else {
        unsigned_binary(op, width, x.to_biguint(), y.to_biguint())
    }
}

/// `bit<width>` arithmetic: modulo `2^width` on the values.
fn unsigned_binary(op: BinOp, width: u32, a: BigUint, b: BigUint) -> Value {
    use BinOp::*;
    let bits = |v: BigUint| Value::Bits { width, signed: false, v: value::truncate(v, width) };
    match op {
        Add => bits(a + b),
        // `b < 2^width`, so adding the modulus first keeps the difference non-negative.
        Sub => bits((a + (BigUint::from(1u8) << width)) - value::truncate(b, width)),
        Mul => bits(a * b),
        // Division by zero gives 0 (the switch's choice; P4 leaves it unspecified).
        Div => bits(if b.is_zero() { BigUint::zero() } else { a / b }),
        Mod => bits(if b.is_zero() { BigUint::zero() } else { a % b }),
        AddSat => bits((a + b).min(value::mask(width))),
        SubSat => bits(if a > b { a - b } else { BigUint::zero() }),
        Shl => match b.to_u64() {
            Some(s) if s < u64::from(width) => bits(a << s),
            _ => bits(BigUint::zero()),
        },
        Shr => match b.to_u64() {
            Some(s) if s < u64::from(width) => bits(a >> s),
            _ => bits(BigUint::zero()),
        },
        Lt => Value::Bool(a < b),
        Le => Value::Bool(a <= b),
        Gt => Value::Bool(a > b),
        Ge => Value::Bool(a >= b),
        BitAnd => bits(a & b),
        BitOr => bits(a | b),
        BitXor => bits(a ^ b),
        Eq | Ne | Concat | And | Or => unreachable!("handled by the caller"),
    }
}

/// `int<width>` arithmetic: on the numbers, wrapped to two's complement; `shift` is the
/// right operand's bit pattern (a shift amount is unsigned).
fn signed_binary(op: BinOp, width: u32, a: BigInt, b: BigInt, shift: BigUint) -> Value {
    use BinOp::*;
    let bits = |v: BigInt| Value::Bits { width, signed: true, v: wrap(&v, width) };
    let pattern = |v: &BigInt| wrap(v, width);
    match op {
        Add => bits(a + b),
        Sub => bits(a - b),
        Mul => bits(a * b),
        // As on the switch: division of the bit patterns (P4 allows no run-time signed division).
        Div | Mod => {
            let (ua, ub) = (pattern(&a), pattern(&b));
            let r = match (ub.is_zero(), op) {
                (true, _) => BigUint::zero(),
                (false, Div) => ua / ub,
                (false, _) => ua % ub,
            };
            bits(BigInt::from(r))
        }
        AddSat | SubSat => {
            let r = if op == AddSat { a + b } else { a - b };
            let (lo, hi) = (-(BigInt::from(1) << (width - 1)), (BigInt::from(1) << (width - 1)) - 1);
            bits(r.clamp(lo, hi))
        }
        Shl => match shift.to_u64() {
            Some(s) if s < u64::from(width) => bits(a << s),
            _ => bits(BigInt::zero()),
        },
        // Arithmetic shift: the sign fills.
        Shr => bits(a >> shift.to_u64().unwrap_or(u64::MAX).min(u64::from(width))),
        Lt => Value::Bool(a < b),
        Le => Value::Bool(a <= b),
        Gt => Value::Bool(a > b),
        Ge => Value::Bool(a >= b),
        BitAnd => bits(BigInt::from(pattern(&a) & pattern(&b))),
        BitOr => bits(BigInt::from(pattern(&a) | pattern(&b))),
        BitXor => bits(BigInt::from(pattern(&a) ^ pattern(&b))),
        Eq | Ne | Concat | And | Or => unreachable!("handled by the caller"),
    }
}

fn int_binary(op: BinOp, a: BigInt, b: BigInt) -> Value {
    use BinOp::*;
    let shift = |n: &BigInt| n.to_usize().unwrap_or(0);
    match op {
        Add | AddSat => Value::Int(a + b),
        Sub | SubSat => Value::Int(a - b),
        Mul => Value::Int(a * b),
        Div => Value::Int(if b.is_zero() { BigInt::zero() } else { a / b }),
        Mod => Value::Int(if b.is_zero() { BigInt::zero() } else { a % b }),
        Shl => Value::Int(a << shift(&b)),
        Shr => Value::Int(a >> shift(&b)),
        Lt => Value::Bool(a < b),
        Le => Value::Bool(a <= b),
        Gt => Value::Bool(a > b),
        Ge => Value::Bool(a >= b),
        BitAnd => Value::Int(a & b),
        BitOr => Value::Int(a | b),
        BitXor => Value::Int(a ^ b),
        Eq => Value::Bool(a == b),
        Ne => Value::Bool(a != b),
        And => Value::Bool(!a.is_zero() && !b.is_zero()),
        Or => Value::Bool(!a.is_zero() || !b.is_zero()),
        Concat => Value::Int((a << 0usize) | b),
    }
}

/// A value as `bit<width>` bits (for keys and data): `bool` 0/1, signed as two's complement.
pub(crate) fn to_bits(v: &Value, width: u32) -> BigUint {
    wrap(&v.to_bigint(), width)
}
