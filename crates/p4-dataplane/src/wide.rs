//! Arithmetic on values wider than 128 bits (`bit<256>`, `int<200>`) as [`BigUint`] bit patterns:
//! the helpers the executors share. A value is an unsigned `width`-bit number (two's complement
//! for `int<W>`); signed operations convert to [`BigInt`] where the sign matters. Results wrap to
//! the result width, as P4 demands; division and modulo by zero give 0, as the 128-bit path does.

use num_bigint::{BigInt, BigUint};
use num_traits::{One, ToPrimitive, Zero};
use p4_ir::{Type, Value};

/// True for `bit<W>`/`int<W>` with `W > 128`.
pub(crate) fn is_wide(ty: &Type) -> bool {
    matches!(ty, Type::Bits { width, .. } if *width > 128)
}

/// True when a narrow `e` needs a wide operand evaluated (a comparison, slice or cast of one).
pub(crate) fn reads_wide(e: &p4_ir::Expr) -> bool {
    use p4_ir::{BinOp, ExprKind};
    match &e.kind {
        ExprKind::Binary(op, l, r) => {
            matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne)
                && (is_wide(&l.ty) || is_wide(&r.ty))
        }
        ExprKind::Slice(inner, ..) | ExprKind::Cast(inner) => is_wide(&inner.ty),
        _ => false,
    }
}

/// `width` one bits.
pub(crate) fn ones(width: u32) -> BigUint {
    (BigUint::one() << width) - 1u32
}

/// 128-bit pieces a value of `width` bits takes.
pub(crate) fn pieces(width: u32) -> usize {
    (width as usize).div_ceil(128).max(1)
}

/// The two's-complement reading of a `width`-bit pattern.
pub(crate) fn signed(v: &BigUint, width: u32) -> BigInt {
    let x = BigInt::from(v.clone());
    if width > 0 && v.bit(u64::from(width - 1)) {
        x - (BigInt::one() << width)
    } else {
        x
    }
}

/// `v` modulo `2^width`, as a bit pattern.
pub(crate) fn wrap(v: BigInt, width: u32) -> BigUint {
    let modulus = BigInt::one() << width;
    let r = ((v % &modulus) + &modulus) % &modulus;
    r.to_biguint().unwrap_or_default()
}

/// A compile-time value as a `width`-bit pattern.
pub(crate) fn constant(v: &Value, width: u32) -> Option<BigUint> {
    match v {
        Value::Bits { value, .. } | Value::InfInt(value) => Some(wrap(value.clone(), width)),
        Value::Bool(b) => Some(BigUint::from(u8::from(*b))),
        _ => None,
    }
}

/// Piece `k` (of `n`, most significant first) of `v`.
pub(crate) fn piece(v: &BigUint, n: usize, k: usize) -> u128 {
    ((v >> (128 * (n - 1 - k))) & BigUint::from(u128::MAX)).to_u128().unwrap_or(0)
}

/// A shift amount (saturating: any amount past `u64` shifts everything out).
pub(crate) fn shift_amount(v: &BigUint) -> u64 {
    v.to_u64().unwrap_or(u64::MAX)
}

/// `a op b` at `width` bits for the arithmetic and bitwise operators (`None`: another operator).
/// Shifts and concatenation take operands of other widths: see [`shift`].
pub(crate) fn binary(
    op: p4_ir::BinOp,
    width: u32,
    is_signed: bool,
) -> Option<std::sync::Arc<dyn Fn(BigUint, BigUint) -> BigUint + Send + Sync>> {
    use p4_ir::BinOp;
    let m = ones(width);
    let w = width;
    Some(match op {
        BinOp::Add => std::sync::Arc::new(move |a, b| (a + b) & &m),
        BinOp::Sub => std::sync::Arc::new(move |a, b| wrap(BigInt::from(a) - BigInt::from(b), w)),
        BinOp::Mul => std::sync::Arc::new(move |a, b| (a * b) & &m),
        BinOp::Div => std::sync::Arc::new(|a, b: BigUint| if b.is_zero() { b } else { a / b }),
        BinOp::Mod => std::sync::Arc::new(|a, b: BigUint| if b.is_zero() { b } else { a % b }),
        BinOp::BitAnd => std::sync::Arc::new(|a, b| a & b),
        BinOp::BitOr => std::sync::Arc::new(|a, b| a | b),
        BinOp::BitXor => std::sync::Arc::new(|a, b| a ^ b),
        BinOp::AddSat | BinOp::SubSat => {
            let sub = op == BinOp::SubSat;
            std::sync::Arc::new(move |a, b| saturate(a, b, sub, w, is_signed))
        }
        _ => return None,
    })
}

/// `x << n` or `x >> n` (arithmetic for a signed `x`) at `width` bits.
pub(crate) fn shift(left: bool, x: BigUint, n: &BigUint, width: u32, is_signed: bool) -> BigUint {
    let n = shift_amount(n);
    if left {
        return if n >= u64::from(width) { BigUint::zero() } else { (x << n) & ones(width) };
    }
    let n = n.min(u64::from(width));
    if is_signed {
        // BigInt's shift rounds towards minus infinity, copying the sign bit.
        wrap(signed(&x, width) >> n, width)
    } else {
        x >> n
    }
}

/// The comparison `op` of two `width`-bit patterns, signed or not (`None`: not a comparison).
pub(crate) fn compare(op: p4_ir::BinOp, a: &BigUint, b: &BigUint, width: u32, is_signed: bool) -> Option<bool> {
    use p4_ir::BinOp;
    let ord = if is_signed { signed(a, width).cmp(&signed(b, width)) } else { a.cmp(b) };
    Some(match op {
        BinOp::Lt => ord.is_lt(),
        BinOp::Le => ord.is_le(),
        BinOp::Gt => ord.is_gt(),
        BinOp::Ge => ord.is_ge(),
        BinOp::Eq => ord.is_eq(),
        BinOp::Ne => ord.is_ne(),
        _ => return None,
    })
}

/// A cast of the `from`-bit pattern `x` (signed or not) to `to` bits: truncation, or zero or sign
/// extension by the source's signedness.
pub(crate) fn cast(x: BigUint, from: u32, from_signed: bool, to: u32) -> BigUint {
    if from_signed && to > from {
        wrap(signed(&x, from), to)
    } else {
        x & ones(to)
    }
}

/// Saturating `a + b` / `a - b` at `width` bits, signed or unsigned.
pub(crate) fn saturate(a: BigUint, b: BigUint, sub: bool, width: u32, is_signed: bool) -> BigUint {
    let (x, y) = if is_signed { (signed(&a, width), signed(&b, width)) } else { (BigInt::from(a), BigInt::from(b)) };
    let exact = if sub { x - y } else { x + y };
    let (lo, hi) = if is_signed {
        (-(BigInt::one() << (width - 1)), (BigInt::one() << (width - 1)) - 1)
    } else {
        (BigInt::zero(), (BigInt::one() << width) - 1)
    };
    let clamped = if exact < lo {
        lo
    } else if exact > hi {
        hi
    } else {
        exact
    };
    wrap(clamped, width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twos_complement_helpers() {
        let minus_one = ones(200);
        assert_eq!(signed(&minus_one, 200), BigInt::from(-1));
        assert_eq!(wrap(BigInt::from(-1), 200), minus_one);
        assert_eq!(
            wrap(signed(&BigUint::from(8u8), 200) * -1, 200) >> 199u32,
            BigUint::one(),
            "negative has the top bit"
        );
        // Arithmetic shift rounds towards minus infinity: -7 >> 1 == -4.
        assert_eq!(shift(false, wrap(BigInt::from(-7), 200), &BigUint::one(), 200, true), wrap(BigInt::from(-4), 200));
        assert_eq!(shift(true, BigUint::one(), &BigUint::from(200u32), 200, false), BigUint::zero());
        assert_eq!(saturate(ones(200), BigUint::one(), false, 200, false), ones(200));
        assert_eq!(saturate(BigUint::one(), BigUint::from(2u8), true, 200, false), BigUint::zero());
        assert_eq!(saturate(ones(199), BigUint::one(), false, 200, true), ones(199), "int<200> max stays max");
        assert_eq!(cast(ones(130), 130, true, 200), ones(200), "-1 sign-extends");
        assert_eq!(cast(ones(130), 130, false, 200), ones(130));
        assert_eq!(piece(&ones(200), 2, 0), (1u128 << 72) - 1);
        assert_eq!(compare(p4_ir::BinOp::Lt, &ones(200), &BigUint::one(), 200, true), Some(true), "-1 < 1 signed");
    }
}
