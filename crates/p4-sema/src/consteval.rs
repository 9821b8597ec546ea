//! Compile-time arithmetic with exact P4 semantics.
//!
//! Invariant: every `Value::Bits` produced here is normalised — unsigned values lie in `0..2^W`,
//! signed values in `-2^(W-1)..2^(W-1)` (two's complement wrap-around); `Value::InfInt` is exact.
//! Errors (division by zero, negative shift, ...) are returned as messages, never panics.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};
use p4_ir::{BinOp, UnOp, Value};

/// Wrap `v` into the range of `bit<width>` / `int<width>`.
pub fn normalize(width: u32, signed: bool, v: &BigInt) -> BigInt {
    if width == 0 {
        return BigInt::zero();
    }
    let modulus = BigInt::one() << width;
    let mut r = v.mod_floor(&modulus);
    if signed && r >= (BigInt::one() << (width - 1)) {
        r -= &modulus;
    }
    r
}

/// True if `v` is representable in the type without wrapping.
pub fn fits(width: u32, signed: bool, v: &BigInt) -> bool {
    normalize(width, signed, v) == *v
}

pub fn bits(width: u32, signed: bool, v: BigInt) -> Value {
    Value::Bits { width, signed, value: normalize(width, signed, &v) }
}

/// The integer carried by a numeric value (`Bits` or `InfInt`), if any.
pub fn int_of(v: &Value) -> Option<&BigInt> {
    match v {
        Value::Bits { value, .. } | Value::InfInt(value) => Some(value),
        _ => None,
    }
}

/// Apply a unary operator to a constant.
pub fn unary(op: UnOp, v: &Value) -> Result<Value, String> {
    match (op, v) {
        (UnOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
        (UnOp::Plus, v @ (Value::Bits { .. } | Value::InfInt(_))) => Ok(v.clone()),
        (UnOp::Neg, Value::InfInt(x)) => Ok(Value::InfInt(-x)),
        (UnOp::Neg, Value::Bits { width, signed, value }) => Ok(bits(*width, *signed, -value)),
        (UnOp::BitNot, Value::Bits { width, signed, value }) => Ok(bits(*width, *signed, !value)),
        (UnOp::BitNot, Value::InfInt(_)) => Err("`~` cannot be applied to an `int` value".into()),
        _ => Err(format!("operator cannot be applied to {}", describe(v))),
    }
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "a bool",
        Value::Bits { .. } => "a fixed-width integer",
        Value::InfInt(_) => "an `int`",
        Value::String(_) => "a string",
        Value::Error(_) => "an error",
        Value::Enum(..) => "an enum member",
        Value::MatchKind(_) => "a match_kind",
        Value::Aggregate { .. } => "an aggregate",
    }
}

fn shift_amount(v: &Value) -> Result<usize, String> {
    let n = int_of(v).ok_or("shift amount must be an integer")?;
    if n.is_negative() {
        return Err(format!("shift by a negative amount ({n})"));
    }
    // Shifting past any realistic width is equivalent to shifting by a large number.
    Ok(n.to_usize().unwrap_or(usize::MAX).min(1 << 20))
}

/// Apply a binary operator to two constants whose types have already been unified by the checker
/// (same type, except shifts and `++`).
pub fn binary(op: BinOp, a: &Value, b: &Value) -> Result<Value, String> {
    use BinOp::*;
    match op {
        And | Or => match (a, b) {
            (Value::Bool(x), Value::Bool(y)) => Ok(Value::Bool(if op == And { *x && *y } else { *x || *y })),
            _ => Err("`&&`/`||` need bool operands".into()),
        },
        Eq | Ne => {
            let eq = equal(a, b);
            Ok(Value::Bool(if op == Eq { eq } else { !eq }))
        }
        Shl | Shr => {
            // An `int` shifted left by more than the largest constant p4forge keeps: refused
            // before computing it (`1 << 903012108` would need a 100 MB number).
            if let (Shl, Value::InfInt(x)) = (op, a) {
                let amount = int_of(b).and_then(|n| n.to_u64()).unwrap_or(u64::MAX);
                if !x.is_zero() && amount.saturating_add(x.bits()) > MAX_INT_BITS {
                    return Err(format!("integer constant too large (more than {MAX_INT_BITS} bits)"));
                }
            }
            let n = shift_amount(b)?;
            match a {
                Value::InfInt(x) => checked_int(if op == Shl { x << n } else { x >> n }),
                Value::Bits { width, signed, value } => {
                    let r = if op == Shl { value << n.min(*width as usize + 1) } else { value >> n };
                    Ok(bits(*width, *signed, r))
                }
                _ => Err("shift of a non-integer".into()),
            }
        }
        Concat => match (a, b) {
            (Value::Bits { width: wa, signed: sa, value: va }, Value::Bits { width: wb, value: vb, .. }) => {
                let low = normalize(*wb, false, vb);
                let high = normalize(*wa, false, va);
                Ok(bits(wa + wb, *sa, (high << *wb) | low))
            }
            _ => Err("`++` needs fixed-width operands".into()),
        },
        _ => {
            let (x, y) = match (int_of(a), int_of(b)) {
                (Some(x), Some(y)) => (x, y),
                _ => return Err(format!("arithmetic on {}", describe(a))),
            };
            let shape = match (a, b) {
                (Value::Bits { width, signed, .. }, _) | (_, Value::Bits { width, signed, .. }) => Some((*width, *signed)),
                _ => None,
            };
            let cmp = |r: bool| Ok(Value::Bool(r));
            let r = match op {
                Lt => return cmp(x < y),
                Le => return cmp(x <= y),
                Gt => return cmp(x > y),
                Ge => return cmp(x >= y),
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div | Mod => {
                    if y.is_zero() {
                        return Err("division by zero".into());
                    }
                    if x.is_negative() || y.is_negative() {
                        return Err("division and modulo are only defined on non-negative values".into());
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
                    return Ok(match shape {
                        Some((w, s)) => Value::Bits { width: w, signed: s, value: saturate(w, s, r) },
                        None => Value::InfInt(r),
                    });
                }
                _ => return Err("unsupported operator".into()),
            };
            Ok(match shape {
                Some((w, s)) => bits(w, s, r),
                None => checked_int(r)?,
            })
        }
    }
}

/// Largest magnitude (in bits) an `int` constant may reach; keeps hostile constant expressions
/// (repeated squaring, huge shifts) from exhausting memory.
pub const MAX_INT_BITS: u64 = 1 << 22;

fn checked_int(r: BigInt) -> Result<Value, String> {
    if r.bits() > MAX_INT_BITS {
        return Err(format!("integer constant too large (more than {MAX_INT_BITS} bits)"));
    }
    Ok(Value::InfInt(r))
}

fn saturate(width: u32, signed: bool, v: BigInt) -> BigInt {
    let (lo, hi) = range(width, signed);
    if v < lo {
        lo
    } else if v > hi {
        hi
    } else {
        v
    }
}

/// Inclusive value range of `bit<W>` / `int<W>`.
pub fn range(width: u32, signed: bool) -> (BigInt, BigInt) {
    if width == 0 {
        return (BigInt::zero(), BigInt::zero());
    }
    if signed {
        let h = BigInt::one() << (width - 1);
        (-h.clone(), h - 1)
    } else {
        (BigInt::zero(), (BigInt::one() << width) - 1)
    }
}

/// Structural equality (numeric values compare by value).
pub fn equal(a: &Value, b: &Value) -> bool {
    match (int_of(a), int_of(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Convert a constant to `bit<W>`/`int<W>` (casts and implicit `int` conversions).
pub fn to_bits(v: &Value, width: u32, signed: bool) -> Option<Value> {
    match v {
        Value::Bool(b) => Some(bits(width, signed, BigInt::from(*b as u8))),
        Value::Bits { .. } | Value::InfInt(_) => int_of(v).map(|x| bits(width, signed, x.clone())),
        _ => None,
    }
}

/// `e[hi:lo]` of a constant.
pub fn slice(v: &Value, hi: u32, lo: u32) -> Option<Value> {
    let x = int_of(v)?;
    let w = hi - lo + 1;
    // For signed values the two's complement bit pattern is sliced.
    let pattern = match v {
        Value::Bits { width, .. } => normalize(*width, false, x),
        _ => x.clone(),
    };
    Some(bits(w, false, pattern >> lo))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(w: u32, v: i64) -> Value {
        bits(w, false, BigInt::from(v))
    }
    fn s(w: u32, v: i64) -> Value {
        bits(w, true, BigInt::from(v))
    }
    fn int(v: i64) -> Value {
        Value::InfInt(BigInt::from(v))
    }

    #[test]
    fn wraps_unsigned_and_signed() {
        assert_eq!(binary(BinOp::Add, &b(8, 250), &b(8, 10)).unwrap(), b(8, 4));
        assert_eq!(binary(BinOp::Sub, &b(8, 1), &b(8, 2)).unwrap(), b(8, 255));
        assert_eq!(binary(BinOp::Add, &s(8, 127), &s(8, 1)).unwrap(), s(8, -128));
        assert_eq!(unary(UnOp::Neg, &b(4, 1)).unwrap(), b(4, 15));
        assert_eq!(unary(UnOp::BitNot, &b(4, 5)).unwrap(), b(4, 10));
        assert_eq!(binary(BinOp::Mul, &b(8, 16), &b(8, 17)).unwrap(), b(8, 16));
    }

    #[test]
    fn saturating_ops_clamp() {
        assert_eq!(binary(BinOp::AddSat, &b(8, 250), &b(8, 10)).unwrap(), b(8, 255));
        assert_eq!(binary(BinOp::SubSat, &b(8, 3), &b(8, 10)).unwrap(), b(8, 0));
        assert_eq!(binary(BinOp::AddSat, &s(8, 100), &s(8, 100)).unwrap(), s(8, 127));
        assert_eq!(binary(BinOp::SubSat, &s(8, -100), &s(8, 100)).unwrap(), s(8, -128));
    }

    #[test]
    fn infinite_precision_ints() {
        let big = binary(BinOp::Shl, &int(1), &int(100)).unwrap();
        assert_eq!(big, Value::InfInt(BigInt::one() << 100));
        assert_eq!(binary(BinOp::Div, &int(7), &int(2)).unwrap(), int(3));
        assert_eq!(binary(BinOp::Mod, &int(7), &int(2)).unwrap(), int(1));
        assert!(binary(BinOp::Div, &int(-7), &int(2)).unwrap_err().contains("non-negative"));
        assert_eq!(binary(BinOp::Div, &int(1), &int(0)).unwrap_err(), "division by zero");
    }

    #[test]
    fn huge_int_constants_are_refused() {
        let big = binary(BinOp::Shl, &int(1), &int(1 << 20)).unwrap();
        let mut x = big;
        let mut err = None;
        for _ in 0..8 {
            match binary(BinOp::Mul, &x, &x) {
                Ok(v) => x = v,
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        assert_eq!(err.unwrap(), "integer constant too large (more than 4194304 bits)");
    }

    #[test]
    fn shifts_and_concat() {
        assert_eq!(binary(BinOp::Shl, &b(8, 0x81), &int(1)).unwrap(), b(8, 2));
        assert_eq!(binary(BinOp::Shr, &s(8, -4), &int(1)).unwrap(), s(8, -2));
        assert_eq!(binary(BinOp::Shl, &b(8, 1), &int(200)).unwrap(), b(8, 0));
        assert!(binary(BinOp::Shl, &b(8, 1), &int(-1)).unwrap_err().contains("negative"));
        assert_eq!(binary(BinOp::Concat, &b(4, 0xa), &b(8, 0x5b)).unwrap(), b(12, 0xa5b));
        assert_eq!(binary(BinOp::Concat, &s(4, -1), &b(4, 1)).unwrap(), s(8, -15));
    }

    #[test]
    fn comparisons_and_slices() {
        assert_eq!(binary(BinOp::Lt, &s(8, -1), &s(8, 0)).unwrap(), Value::Bool(true));
        assert_eq!(binary(BinOp::Eq, &b(8, 3), &b(8, 3)).unwrap(), Value::Bool(true));
        assert_eq!(slice(&b(16, 0xabcd), 11, 4).unwrap(), b(8, 0xbc));
        assert_eq!(slice(&s(8, -1), 3, 0).unwrap(), b(4, 15));
        assert_eq!(to_bits(&int(-1), 8, false).unwrap(), b(8, 255));
        assert_eq!(to_bits(&b(8, 200), 8, true).unwrap(), s(8, -56));
        assert!(fits(4, false, &BigInt::from(15)) && !fits(4, false, &BigInt::from(16)));
    }
}
