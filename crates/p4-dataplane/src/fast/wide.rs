//! Values wider than 128 bits on this executor: computed as [`BigUint`] bit patterns (the
//! arithmetic is [`crate::wide`]'s), read from and written to their places whole
//! ([`WidePlace`]: header fields in the wire buffer, other values in 128-bit frame slots). A slow
//! path, but the one implementation: the machine code calls these closures for such statements.

use std::sync::Arc;

use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};
use p4_ir::{BinOp, BlockRef, Expr, ExprKind, Type, UnOp};

use super::build::FastCompiler;
use super::places::WidePlace;
use super::{Dest, Val};
use crate::bits::mask;
use crate::fast::compile::{unsupported, R};
use crate::fast::exec::{Ctx, Flow, Prog, Run};
use crate::wide::{constant, is_wide, ones, shift};

/// Evaluates a value of any bit width as an unsigned number of that width.
pub(super) type WideEv = Arc<dyn Fn(&Prog, &mut Ctx) -> BigUint + Send + Sync>;

impl FastCompiler<'_, '_> {
    /// `e` (a bit/int value of any width) as an unsigned number of its width.
    pub(super) fn wide(&mut self, b: &BlockRef, e: &Expr) -> R<WideEv> {
        let (w, _) = self.cx.width(&e.ty);
        if let ExprKind::Const(v) = &e.kind {
            let k = constant(v, w)
                .ok_or_else(|| crate::DataplaneError::unsupported("a non-numeric constant in wide arithmetic"))?;
            return Ok(Arc::new(move |_, _| k.clone()));
        }
        if !is_wide(&e.ty) {
            let x = self.val(b, e)?;
            return Ok(Arc::new(move |p, c| BigUint::from(x.read(p, c))));
        }
        match &e.kind {
            ExprKind::Unary(op, inner) => {
                let x = self.wide(b, inner)?;
                let m = ones(w);
                Ok(match op {
                    UnOp::BitNot => Arc::new(move |p, c| x(p, c) ^ &m),
                    UnOp::Neg => Arc::new(move |p, c| crate::wide::wrap(-num_bigint::BigInt::from(x(p, c)), w)),
                    UnOp::Plus => x,
                    UnOp::Not => return unsupported("`!` on a bit<W> value"),
                })
            }
            ExprKind::Binary(op, l, r) => self.wide_binary(b, *op, l, r, &e.ty),
            ExprKind::Cast(inner) => {
                if inner.ty == Type::Bool {
                    let x = self.val(b, inner)?;
                    return Ok(Arc::new(move |p, c| BigUint::from(x.read(p, c) & 1)));
                }
                let (fw, fs) = self.cx.width(&inner.ty);
                let infinite = matches!(inner.ty, Type::InfInt);
                let x = self.wide_operand(b, inner, if infinite { w } else { fw })?;
                let (fw, fs) = if infinite { (w, false) } else { (fw, fs) };
                Ok(Arc::new(move |p, c| crate::wide::cast(x(p, c), fw, fs, w)))
            }
            ExprKind::Slice(inner, hi, lo) => {
                let (hi, lo) = (*hi, *lo);
                let x = self.wide(b, inner)?;
                let m = ones(hi - lo + 1);
                Ok(Arc::new(move |p, c| (x(p, c) >> lo) & &m))
            }
            ExprKind::Mux(cond, x, y) => {
                let (cnd, x, y) = (self.val(b, cond)?, self.wide(b, x)?, self.wide(b, y)?);
                Ok(Arc::new(move |p, c| if cnd.read(p, c) != 0 { x(p, c) } else { y(p, c) }))
            }
            ExprKind::Var(_) | ExprKind::Field(..) | ExprKind::Index(..) => {
                let place = self.places.wide(self.cx, b, e)?;
                Ok(Arc::new(move |_, c| place.read(c)))
            }
            _ => unsupported(format!(
                "{} (the wire-format executor does not compute it)",
                crate::fast::compile::describe(self.cx.ir, e)
            )),
        }
    }

    /// An operand of a `width`-bit operation: constants (untyped integers too) at that width.
    fn wide_operand(&mut self, b: &BlockRef, e: &Expr, width: u32) -> R<WideEv> {
        if let ExprKind::Const(v) = &e.kind {
            if let Some(k) = constant(v, width) {
                return Ok(Arc::new(move |_, _| k.clone()));
            }
        }
        self.wide(b, e)
    }

    fn wide_binary(&mut self, b: &BlockRef, op: BinOp, l: &Expr, r: &Expr, ty: &Type) -> R<WideEv> {
        let (w, s) = self.cx.width(ty);
        if op == BinOp::Concat {
            let (lw, rw) = (self.cx.width(&l.ty).0, self.cx.width(&r.ty).0);
            let (x, y) = (self.wide_operand(b, l, lw)?, self.wide_operand(b, r, rw)?);
            return Ok(Arc::new(move |p, c| (x(p, c) << rw) | y(p, c)));
        }
        let x = self.wide_operand(b, l, w)?;
        if matches!(op, BinOp::Shl | BinOp::Shr) {
            let y = self.wide(b, r)?;
            let left = op == BinOp::Shl;
            return Ok(Arc::new(move |p, c| {
                let (v, n) = (x(p, c), y(p, c));
                shift(left, v, &n, w, s)
            }));
        }
        let y = self.wide_operand(b, r, w)?;
        let Some(f) = crate::wide::binary(op, w, s) else {
            return unsupported(format!(
                "operator {} on {}",
                crate::fast::compile::binop_name(op),
                crate::fast::compile::type_name(self.cx.ir, ty)
            ));
        };
        Ok(Arc::new(move |p, c| {
            let (a, bb) = (x(p, c), y(p, c));
            f(a, bb)
        }))
    }

    /// A narrow value computed from wide operands: a comparison, a slice or a cast of one.
    pub(super) fn narrow_of_wide(&mut self, b: &BlockRef, e: &Expr) -> R<Val> {
        let to_scalar = |v: BigUint| v.to_u128().unwrap_or(0);
        Ok(Val::Eval(match &e.kind {
            ExprKind::Binary(op, l, r) => {
                let w = self.cx.width(&l.ty).0.max(self.cx.width(&r.ty).0);
                let s = self.cx.width(&l.ty).1;
                let (x, y) = (self.wide_operand(b, l, w)?, self.wide_operand(b, r, w)?);
                let op = *op;
                if crate::wide::compare(op, &BigUint::zero(), &BigUint::zero(), w, s).is_none() {
                    return unsupported(format!("{} with a wide operand", crate::fast::compile::describe(self.cx.ir, e)));
                }
                Arc::new(move |p, c| {
                    let (a, bb) = (x(p, c), y(p, c));
                    u128::from(crate::wide::compare(op, &a, &bb, w, s).unwrap_or(false))
                })
            }
            ExprKind::Slice(inner, hi, lo) => {
                let (hi, lo) = (*hi, *lo);
                let x = self.wide(b, inner)?;
                let m = ones(hi - lo + 1);
                Arc::new(move |p, c| to_scalar((x(p, c) >> lo) & &m))
            }
            ExprKind::Cast(inner) if e.ty == Type::Bool => {
                let x = self.wide(b, inner)?;
                Arc::new(move |p, c| u128::from(!x(p, c).is_zero()))
            }
            ExprKind::Cast(inner) => {
                let x = self.wide(b, inner)?;
                let m = BigUint::from(mask(self.cx.width(&e.ty).0));
                Arc::new(move |p, c| to_scalar(x(p, c) & &m))
            }
            _ => return unsupported(format!("{} with a wide operand", crate::fast::compile::describe(self.cx.ir, e))),
        }))
    }

    /// `lhs = rhs` of a value wider than 128 bits (`rhs` `None`: zero, as `init` leaves it).
    pub(super) fn assign_wide(&mut self, b: &BlockRef, lhs: &Expr, rhs: Option<&Expr>) -> R<Run> {
        let place = self.places.wide(self.cx, b, lhs)?;
        let v = match rhs {
            Some(rhs) => self.wide_operand(b, rhs, place.width())?,
            None => Arc::new(|_: &Prog, _: &mut Ctx| BigUint::zero()),
        };
        Ok(Box::new(move |p, c| {
            let x = v(p, c);
            place.write(c, &x);
            Flow::Next
        }))
    }

    /// A slice (of at most 128 bits) of a wide place as a destination: read, replace the bits,
    /// write.
    pub(super) fn wide_slice_dest(&mut self, b: &BlockRef, inner: &Expr, hi: u32, lo: u32) -> R<Dest> {
        let place: WidePlace = self.places.wide(self.cx, b, inner)?;
        let field = ones(hi - lo + 1) << lo;
        let keep = ones(place.width()) ^ &field;
        Ok(Dest::Other(Arc::new(move |_, c, v| {
            let old = place.read(c);
            let new = (old & &keep) | ((BigUint::from(v) << lo) & &field);
            place.write(c, &new);
        })))
    }
}
