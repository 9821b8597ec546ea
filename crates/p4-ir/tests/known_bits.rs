//! `Expr::known_low_zeros`: the low bits an expression leaves zero whatever its inputs, as the
//! hardware target uses it for varbit lengths.

use p4_ir::*;

fn bits(width: u32, v: u64) -> Expr {
    Expr::constant(Value::Bits { width, signed: false, value: v.into() }, Type::bit(width), Span::DUMMY)
}
fn var(width: u32) -> Expr {
    Expr::new(Type::bit(width), ExprKind::Var(VarId(0)), Span::DUMMY)
}
fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = a.ty.clone();
    Expr::new(ty, ExprKind::Binary(op, Box::new(a), Box::new(b)), Span::DUMMY)
}
fn cast(width: u32, e: Expr) -> Expr {
    Expr::new(Type::bit(width), ExprKind::Cast(Box::new(e)), Span::DUMMY)
}

#[test]
fn constants_count_their_trailing_zeros() {
    assert_eq!(bits(16, 0x28).known_low_zeros(), 3);
    assert_eq!(bits(16, 1).known_low_zeros(), 0);
    assert_eq!(bits(16, 0).known_low_zeros(), 64);
}

#[test]
fn a_length_in_bytes_times_eight_is_whole_bytes() {
    // (bit<32>)(msgSize - 10) << 3, as mdp computes its opaque body's length.
    let len = bin(BinOp::Shl, cast(32, bin(BinOp::Sub, var(16), bits(16, 10))), bits(8, 3));
    assert_eq!(len.known_low_zeros(), 3);
    // (ihl - 5) * 32, as IPv4 options are sized.
    assert_eq!(bin(BinOp::Mul, bin(BinOp::Sub, var(4), bits(4, 5)), bits(32, 32)).known_low_zeros(), 5);
    // Adding a byte-aligned constant keeps it; adding one bit loses it.
    assert_eq!(bin(BinOp::Add, len.clone(), bits(32, 16)).known_low_zeros(), 3);
    assert_eq!(bin(BinOp::Add, len.clone(), bits(32, 1)).known_low_zeros(), 0);
    // A mask that clears the low bits adds zeros; a slice above them removes them.
    assert_eq!(bin(BinOp::BitAnd, var(32), bits(32, 0xfff8)).known_low_zeros(), 3);
    let slice = Expr::new(Type::bit(8), ExprKind::Slice(Box::new(len), 9, 2), Span::DUMMY);
    assert_eq!(slice.known_low_zeros(), 1);
}

#[test]
fn unknown_values_and_shifts_by_variables_know_nothing() {
    assert_eq!(var(32).known_low_zeros(), 0);
    assert_eq!(bin(BinOp::Shl, var(32), var(8)).known_low_zeros(), 0);
    assert_eq!(bin(BinOp::Shr, bin(BinOp::Shl, var(32), bits(8, 3)), bits(8, 1)).known_low_zeros(), 0);
    assert_eq!(bin(BinOp::AddSat, bits(32, 8), bits(32, 8)).known_low_zeros(), 0);
}
