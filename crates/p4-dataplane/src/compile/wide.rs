//! Values wider than 128 bits (`bit<256>`, `int<200>`): arithmetic, bitwise operations, shifts,
//! concatenation, slices, casts and comparisons on a slow path through [`BigUint`].
//!
//! Such a value lives in 128-bit slots, most significant first, the first slot holding the
//! `width % 128` top bits (see `Compiler::size`). A wide expression compiles to a [`WideEv`] giving
//! its value as an unsigned `width`-bit number (two's complement for `int<W>`); signed operations
//! convert to [`BigInt`] where the sign matters. Results wrap to the result width, as P4 demands;
//! division and modulo by zero give 0, as the 128-bit path does.

use std::sync::Arc;

use num_bigint::{BigInt, BigUint};
use num_traits::{ToPrimitive, Zero};
use p4_ir::{BinOp, BlockRef, Expr, ExprKind, Type, UnOp};

use super::expr::{Src, Write};
use super::{unsupported, Compiler, Loc, R};
use crate::bits::mask;
pub(crate) use crate::wide::{is_wide, reads_wide};
use crate::wide::{constant, ones, piece, pieces, saturate, shift_amount, signed, wrap};
use crate::exec::{Build, Ctx, Ev, Prog};

/// Evaluates a value of any bit width as an unsigned number of that width.
pub(crate) type WideEv = Arc<dyn Fn(&Prog, &mut Ctx) -> BigUint + Send + Sync>;

/// True when `e` computes a wide value (rather than naming or copying one).
pub(crate) fn computes_wide(e: &Expr) -> bool {
    is_wide(&e.ty) && matches!(e.kind, ExprKind::Unary(..) | ExprKind::Binary(..) | ExprKind::Cast(_) | ExprKind::Slice(..))
}

/// Reads a wide value from its slots.
pub(crate) fn read_wide(c: &Ctx, base: usize, width: u32) -> BigUint {
    (0..pieces(width)).fold(BigUint::zero(), |acc, k| (acc << 128u32) | BigUint::from(c.get(base + k)))
}

/// Writes a wide value (already `width` bits) into its slots.
pub(crate) fn write_wide(c: &mut Ctx, base: usize, width: u32, v: &BigUint) {
    let n = pieces(width);
    for k in 0..n {
        c.set(base + k, piece(v, n, k));
    }
}

impl Compiler<'_> {
    /// Compiles `e` (a bit/int value of any width) to its value as an unsigned number of its width.
    pub(crate) fn wide(&mut self, b: &BlockRef, e: &Expr) -> R<WideEv> {
        let (w, _) = self.width(&e.ty);
        if let ExprKind::Const(v) = &e.kind {
            let k = constant(v, w).ok_or_else(|| crate::DataplaneError::unsupported("a non-numeric constant in wide arithmetic"))?;
            return Ok(Arc::new(move |_, _| k.clone()));
        }
        if !is_wide(&e.ty) {
            let x = self.scalar(b, e)?;
            return Ok(Arc::new(move |p, c| BigUint::from(x(p, c))));
        }
        match &e.kind {
            ExprKind::Unary(op, inner) => self.wide_unary(b, *op, inner, w),
            ExprKind::Binary(op, l, r) => self.wide_binary(b, *op, l, r, &e.ty),
            ExprKind::Cast(inner) => self.wide_cast(b, inner, &e.ty),
            ExprKind::Slice(inner, hi, lo) => {
                let (hi, lo) = (*hi, *lo);
                let x = self.wide(b, inner)?;
                let m = ones(hi - lo + 1);
                Ok(Arc::new(move |p, c| (x(p, c) >> lo) & &m))
            }
            ExprKind::Mux(cond, x, y) => {
                let (cnd, x, y) = (self.scalar(b, cond)?, self.wide(b, x)?, self.wide(b, y)?);
                Ok(Arc::new(move |p, c| if cnd(p, c) != 0 { x(p, c) } else { y(p, c) }))
            }
            // Places, calls: their slots hold the value.
            _ => {
                let at = self.materialize(b, e)?;
                Ok(Arc::new(move |p, c| at(p, c).map_or_else(BigUint::zero, |s| read_wide(c, s, w))))
            }
        }
    }

    /// An operand of a `width`-bit operation: constants (including untyped integers) at that width.
    fn wide_operand(&mut self, b: &BlockRef, e: &Expr, width: u32) -> R<WideEv> {
        if let ExprKind::Const(v) = &e.kind {
            if let Some(k) = constant(v, width) {
                return Ok(Arc::new(move |_, _| k.clone()));
            }
        }
        self.wide(b, e)
    }

    fn wide_unary(&mut self, b: &BlockRef, op: UnOp, inner: &Expr, w: u32) -> R<WideEv> {
        let x = self.wide(b, inner)?;
        let m = ones(w);
        Ok(match op {
            UnOp::BitNot => Arc::new(move |p, c| x(p, c) ^ &m),
            UnOp::Neg => Arc::new(move |p, c| wrap(-BigInt::from(x(p, c)), w)),
            UnOp::Plus => x,
            UnOp::Not => return unsupported("`!` on a bit<W> value"),
        })
    }

    fn wide_binary(&mut self, b: &BlockRef, op: BinOp, l: &Expr, r: &Expr, ty: &Type) -> R<WideEv> {
        let (w, s) = self.width(ty);
        if op == BinOp::Concat {
            let (lw, rw) = (self.width(&l.ty).0, self.width(&r.ty).0);
            let (x, y) = (self.wide_operand(b, l, lw)?, self.wide_operand(b, r, rw)?);
            return Ok(Arc::new(move |p, c| (x(p, c) << rw) | y(p, c)));
        }
        let x = self.wide_operand(b, l, w)?;
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            let y = self.wide(b, r)?;
            let m = ones(w);
            return Ok(match (op, s) {
                (BinOp::Shl, _) => Arc::new(move |p, c| {
                    let n = shift_amount(&y(p, c));
                    if n >= u64::from(w) { BigUint::zero() } else { (x(p, c) << n) & &m }
                }),
                (_, false) => Arc::new(move |p, c| {
                    let n = shift_amount(&y(p, c)).min(u64::from(w));
                    x(p, c) >> n
                }),
                // Arithmetic: BigInt's shift rounds towards minus infinity, copying the sign bit.
                (_, true) => Arc::new(move |p, c| {
                    let n = shift_amount(&y(p, c)).min(u64::from(w));
                    wrap(signed(&x(p, c), w) >> n, w)
                }),
            });
        }
        let y = self.wide_operand(b, r, w)?;
        let m = ones(w);
        let op_fn: Arc<dyn Fn(BigUint, BigUint) -> BigUint + Send + Sync> = match op {
            BinOp::Add => Arc::new(move |a, bb| (a + bb) & &m),
            BinOp::Sub => Arc::new(move |a, bb| wrap(BigInt::from(a) - BigInt::from(bb), w)),
            BinOp::Mul => Arc::new(move |a, bb| (a * bb) & &m),
            BinOp::Div => Arc::new(|a, bb| if bb.is_zero() { bb } else { a / bb }),
            BinOp::Mod => Arc::new(|a, bb| if bb.is_zero() { bb } else { a % bb }),
            BinOp::BitAnd => Arc::new(|a, bb| a & bb),
            BinOp::BitOr => Arc::new(|a, bb| a | bb),
            BinOp::BitXor => Arc::new(|a, bb| a ^ bb),
            BinOp::AddSat | BinOp::SubSat => {
                let sub = op == BinOp::SubSat;
                Arc::new(move |a, bb| saturate(a, bb, sub, w, s))
            }
            _ => return unsupported(format!("operator {} on {}", super::binop_name(op), super::type_name(self.ir, ty))),
        };
        Ok(Arc::new(move |p, c| op_fn(x(p, c), y(p, c))))
    }

    /// A cast to a wide type: truncation, or zero/sign extension by the source's signedness.
    fn wide_cast(&mut self, b: &BlockRef, inner: &Expr, to: &Type) -> R<WideEv> {
        let (tw, _) = self.width(to);
        if inner.ty == Type::Bool {
            let x = self.scalar(b, inner)?;
            return Ok(Arc::new(move |p, c| BigUint::from(x(p, c) & 1)));
        }
        let (fw, fs) = self.width(&inner.ty);
        let x = self.wide_operand(b, inner, if matches!(inner.ty, Type::InfInt) { tw } else { fw })?;
        if fs && tw > fw && !matches!(inner.ty, Type::InfInt) {
            return Ok(Arc::new(move |p, c| wrap(signed(&x(p, c), fw), tw)));
        }
        let m = ones(tw);
        Ok(Arc::new(move |p, c| x(p, c) & &m))
    }

    /// A narrow value computed from wide operands: a comparison, a slice or a cast of one.
    pub(crate) fn narrow_of_wide(&mut self, b: &BlockRef, e: &Expr) -> R<Ev> {
        let to_scalar = |v: BigUint| v.to_u128().unwrap_or(0);
        match &e.kind {
            ExprKind::Binary(op, l, r) => {
                let w = self.width(&l.ty).0.max(self.width(&r.ty).0);
                let s = self.width(&l.ty).1;
                let (x, y) = (self.wide_operand(b, l, w)?, self.wide_operand(b, r, w)?);
                let op = *op;
                Ok(Arc::new(move |p, c| {
                    let (a, bb) = (x(p, c), y(p, c));
                    let ord = if s { signed(&a, w).cmp(&signed(&bb, w)) } else { a.cmp(&bb) };
                    u128::from(match op {
                        BinOp::Lt => ord.is_lt(),
                        BinOp::Le => ord.is_le(),
                        BinOp::Gt => ord.is_gt(),
                        BinOp::Ge => ord.is_ge(),
                        BinOp::Eq => ord.is_eq(),
                        _ => ord.is_ne(),
                    })
                }))
            }
            ExprKind::Slice(inner, hi, lo) => {
                let (hi, lo) = (*hi, *lo);
                let x = self.wide(b, inner)?;
                let m = ones(hi - lo + 1);
                Ok(Arc::new(move |p, c| to_scalar((x(p, c) >> lo) & &m)))
            }
            ExprKind::Cast(inner) if e.ty == Type::Bool => {
                let x = self.wide(b, inner)?;
                Ok(Arc::new(move |p, c| u128::from(!x(p, c).is_zero())))
            }
            ExprKind::Cast(inner) => {
                let x = self.wide(b, inner)?;
                let m = mask(self.width(&e.ty).0);
                Ok(Arc::new(move |p, c| to_scalar(x(p, c) & BigUint::from(m))))
            }
            _ => unsupported(format!("{} with a wide operand", super::describe(self.ir, e))),
        }
    }

    /// A computed wide value as an aggregate source (written into its slots).
    pub(crate) fn wide_src(&mut self, b: &BlockRef, e: &Expr) -> R<Src> {
        let (w, _) = self.width(&e.ty);
        let x = self.wide(b, e)?;
        let build: Build = Arc::new(move |p, c, dst| {
            let v = x(p, c);
            write_wide(c, dst, w, &v);
        });
        Ok(Src::Build(build))
    }

    /// A writer of a slice (of at most 128 bits) of a wide l-value: read, replace the bits, write.
    pub(crate) fn wide_slice_writer(&mut self, b: &BlockRef, inner: &Expr, hi: u32, lo: u32) -> R<Write> {
        let (w, _) = self.width(&inner.ty);
        let place = match self.loc(b, inner)? {
            Loc::Static(s) => Arc::new(move |_: &Prog, _: &mut Ctx| Some(s)) as crate::exec::DynSlot,
            Loc::Dyn(d) => d,
            Loc::Discard => return Ok(Arc::new(|_, _, _| {})),
        };
        let field = ones(hi - lo + 1) << lo;
        let keep = ones(w) ^ &field;
        Ok(Arc::new(move |p, c, v| {
            let Some(s) = place(p, c) else { return };
            let old = read_wide(c, s, w);
            let new = (old & &keep) | ((BigUint::from(v) << lo) & &field);
            write_wide(c, s, w, &new);
        }))
    }
}
