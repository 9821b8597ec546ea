//! Scalar values as the wire-format executor computes them: an IR expression translated once
//! ([`FastCompiler::scalar`]) into a [`Scalar`], with its places, widths and constants resolved.
//! Both ways of running a program consume that one translation: the closures
//! ([`Scalar::closure`]) and the machine code (`jit`), which generates the operations it knows
//! and calls the closure of any other node. What has no node of its own here (an extern call, a
//! `lookahead`, a field of a stack element chosen at run time, a wide or aggregate comparison, a
//! P4 function's result) is [`ScalarKind::Computed`]: its one implementation, a closure built by
//! the executor's compiler.

use std::sync::Arc;

use p4_ir::{ApplyResult, BinOp, BlockRef, Builtin, Callee, Expr, ExprKind, Type, UnOp};

use super::build::FastCompiler;
use super::places::Place;
use super::Val;
use crate::bits::{self, mask};
use crate::fast::compile::{unsupported, R};
use crate::fast::exec::{Ev, Flow};

/// A scalar of `width` bits (bits above it zero) and how it is computed.
#[derive(Clone)]
pub(crate) struct Scalar {
    pub width: u32,
    pub kind: ScalarKind,
}

#[derive(Clone)]
pub(crate) enum ScalarKind {
    Const(u128),
    Slot(usize),
    /// A header field's bits in `Ctx::wire`.
    Field { bit: usize },
    /// `isValid()`: the header's bit (a header union's: its members') in word `word` of
    /// `Ctx::wire_valid`.
    Valid { word: usize, mask: u64 },
    /// Bits `lo ..= lo + width - 1` of `of`.
    Slice { of: Box<Scalar>, lo: u32 },
    /// `!`, `~` or unary `-` (`+` is its operand).
    Unary { op: UnOp, of: Box<Scalar> },
    /// `signed`: the operands'. `&&` and `||` read the right operand only when it decides.
    Binary { op: BinOp, signed: bool, l: Box<Scalar>, r: Box<Scalar> },
    Mux { cond: Box<Scalar>, yes: Box<Scalar>, no: Box<Scalar> },
    Cast { of: Box<Scalar>, how: Cast },
    /// The result of applying table `table`.
    Applied { table: usize, result: ApplyResult },
    Computed(Ev),
}

/// How a conversion changes its operand's bits.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Cast {
    /// To `bool`: 1 when not zero.
    NonZero,
    /// A signed value to a wider type.
    SignExtend,
    /// To a type at least as wide: the bits unchanged.
    Same,
    /// Cut to the new width.
    Cut,
}

impl Scalar {
    fn new(width: u32, kind: ScalarKind) -> Scalar {
        Scalar { width, kind }
    }

    fn boxed(self) -> Box<Scalar> {
        Box::new(self)
    }

    pub(crate) fn constant(&self) -> Option<u128> {
        match self.kind {
            ScalarKind::Const(k) => Some(k),
            _ => None,
        }
    }

    /// The closure form of this value, for the closures that run a program (`tracing`: table
    /// applications record their steps).
    pub(crate) fn closure(self, tracing: bool) -> Val {
        let eval = |f: Ev| Val::Eval(f);
        let w = self.width;
        match self.kind {
            ScalarKind::Const(k) => Val::Const(k),
            ScalarKind::Slot(s) => Val::Slot(s),
            ScalarKind::Field { bit } => Val::Field { bit, width: w },
            ScalarKind::Valid { word, mask } => Val::Valid { word, mask },
            ScalarKind::Computed(f) => Val::Eval(f),
            ScalarKind::Slice { of, lo } => {
                let x = of.closure(tracing);
                let hi = lo + w - 1;
                eval(Arc::new(move |p, c| bits::slice(x.read(p, c), hi, lo)))
            }
            ScalarKind::Unary { op, of } => {
                let x = of.closure(tracing);
                match op {
                    UnOp::Not => eval(Arc::new(move |p, c| x.read(p, c) ^ 1)),
                    UnOp::BitNot => eval(Arc::new(move |p, c| !x.read(p, c) & mask(w))),
                    UnOp::Neg => eval(Arc::new(move |p, c| x.read(p, c).wrapping_neg() & mask(w))),
                    UnOp::Plus => x,
                }
            }
            ScalarKind::Binary { op, signed, l, r } => binary_closure(op, signed, *l, *r, w, tracing),
            ScalarKind::Mux { cond, yes, no } => {
                let (cnd, x, y) = (cond.closure(tracing), yes.closure(tracing), no.closure(tracing));
                eval(Arc::new(move |p, c| if cnd.read(p, c) != 0 { x.read(p, c) } else { y.read(p, c) }))
            }
            ScalarKind::Cast { of, how } => {
                let fw = of.width;
                let x = of.closure(tracing);
                match how {
                    Cast::NonZero => eval(Arc::new(move |p, c| u128::from(x.read(p, c) != 0))),
                    Cast::SignExtend => eval(Arc::new(move |p, c| bits::cast(x.read(p, c), fw, true, w))),
                    Cast::Same => x,
                    Cast::Cut => {
                        let m = mask(w);
                        eval(Arc::new(move |p, c| x.read(p, c) & m))
                    }
                }
            }
            ScalarKind::Applied { table: t, result } => match result {
                ApplyResult::ActionRun => crate::fast::compile::by_tracing!(tracing, T => eval(Arc::new(move |p, c| super::apply_table::<T>(p, c, t).action as u128))),
                ApplyResult::Hit | ApplyResult::Miss => {
                    let want_hit = result == ApplyResult::Hit;
                    crate::fast::compile::by_tracing!(tracing, T => eval(Arc::new(move |p, c| {
                        let out = super::apply_table::<T>(p, c, t);
                        c.exit_pending |= out.flow == Flow::Exit;
                        u128::from(out.hit == want_hit)
                    })))
                }
            },
        }
    }
}

fn binary_closure(op: BinOp, s: bool, l: Scalar, r: Scalar, rw: u32, tracing: bool) -> Val {
    let (w, rwid) = (l.width, r.width);
    let m = mask(rw);
    let x = l.closure(tracing);
    let y = r.closure(tracing);
    // The operators packets meet most, against a constant, without the operator dispatch.
    if let Val::Const(k) = y {
        let x = x.clone();
        let f: Option<Ev> = match op {
            BinOp::Eq => Some(Arc::new(move |p, c| u128::from(x.read(p, c) == k))),
            BinOp::Ne => Some(Arc::new(move |p, c| u128::from(x.read(p, c) != k))),
            BinOp::Add => Some(Arc::new(move |p, c| x.read(p, c).wrapping_add(k) & m)),
            BinOp::Sub => Some(Arc::new(move |p, c| x.read(p, c).wrapping_sub(k) & m)),
            BinOp::BitAnd => Some(Arc::new(move |p, c| x.read(p, c) & k)),
            _ => None,
        };
        if let Some(f) = f {
            return Val::Eval(f);
        }
    }
    Val::Eval(match op {
        BinOp::And => Arc::new(move |p, c| u128::from(x.read(p, c) != 0 && y.read(p, c) != 0)),
        BinOp::Or => Arc::new(move |p, c| u128::from(x.read(p, c) != 0 || y.read(p, c) != 0)),
        _ => Arc::new(move |p, c| {
            let a = x.read(p, c);
            let bb = y.read(p, c);
            binop(op, a, bb, w, s, m, rwid)
        }),
    })
}

/// A binary operator on normalised scalars: `w`/`s` the operands' width and signedness, `m` the
/// result's mask, `rwid` the right operand's width (for `++`).
#[inline]
fn binop(op: BinOp, a: u128, b: u128, w: u32, s: bool, m: u128, rwid: u32) -> u128 {
    match op {
        BinOp::Add => a.wrapping_add(b) & m,
        BinOp::Sub => a.wrapping_sub(b) & m,
        BinOp::Mul => a.wrapping_mul(b) & m,
        BinOp::Div => a.checked_div(b).unwrap_or(0) & m,
        BinOp::Mod => a.checked_rem(b).unwrap_or(0) & m,
        BinOp::AddSat => bits::add_sat(a, b, w, s),
        BinOp::SubSat => bits::sub_sat(a, b, w, s),
        BinOp::Shl => bits::shl(a, b, w),
        BinOp::Shr => bits::shr(a, b, w, s),
        BinOp::Eq => u128::from(a == b),
        BinOp::Ne => u128::from(a != b),
        BinOp::Lt => u128::from(bits::lt(a, b, w, s)),
        BinOp::Le => u128::from(!bits::lt(b, a, w, s)),
        BinOp::Gt => u128::from(bits::lt(b, a, w, s)),
        BinOp::Ge => u128::from(!bits::lt(a, b, w, s)),
        BinOp::BitAnd => a & b,
        BinOp::BitOr => a | b,
        BinOp::BitXor => a ^ b,
        BinOp::Concat => (a.checked_shl(rwid).unwrap_or(0) | b) & m,
        BinOp::And => u128::from(a != 0 && b != 0),
        BinOp::Or => u128::from(a != 0 || b != 0),
    }
}

impl FastCompiler<'_, '_> {
    /// The one translation of the scalar expression `e` (at most 128 bits); an error names what
    /// this executor cannot compute, located at `e`.
    pub(crate) fn scalar(&mut self, b: &BlockRef, e: &Expr) -> R<Scalar> {
        self.scalar_at(b, e).map_err(|error| error.at(e.span))
    }

    fn scalar_at(&mut self, b: &BlockRef, e: &Expr) -> R<Scalar> {
        if crate::wide::reads_wide(e) {
            let Val::Eval(f) = self.narrow_of_wide(b, e)? else { unreachable!("narrow_of_wide computes") };
            return Ok(Scalar::new(self.cx.width(&e.ty).0, ScalarKind::Computed(f)));
        }
        if crate::wide::is_wide(&e.ty) {
            let ty = crate::fast::compile::type_name(self.cx.ir, &e.ty);
            return unsupported(format!("a {ty} value where at most 128 bits can be used (as a table key, index, condition or extern argument)"));
        }
        if !self.cx.is_scalar(&e.ty) {
            return unsupported(format!("{} as a value", crate::fast::compile::describe(self.cx.ir, e)));
        }
        let (w, _) = self.cx.width(&e.ty);
        let of = |kind| Ok(Scalar::new(w, kind));
        let computed = |f: Ev| Ok(Scalar::new(w, ScalarKind::Computed(f)));
        match &e.kind {
            ExprKind::Const(v) => of(ScalarKind::Const(self.cx.scalar_value(v, &e.ty)?)),
            ExprKind::Field(inner, _) if super::build::lookahead_of(inner) => computed(self.lookahead_field(e)?),
            ExprKind::Var(_) | ExprKind::Field(..) => match self.place(b, e) {
                Ok(Place::Slot(s)) => of(ScalarKind::Slot(s)),
                Ok(Place::Field { bit, width }) => Ok(Scalar::new(width, ScalarKind::Field { bit })),
                Ok(Place::Header(_)) => unsupported("a header as a value"),
                Err(why) => computed(self.element_field(b, e).unwrap_or(Err(why))?),
            },
            ExprKind::Slice(inner, _, lo) => of(ScalarKind::Slice { of: self.scalar(b, inner)?.boxed(), lo: *lo }),
            ExprKind::Unary(UnOp::Plus, inner) => self.scalar(b, inner),
            ExprKind::Unary(op, inner) => of(ScalarKind::Unary { op: *op, of: self.scalar(b, inner)?.boxed() }),
            ExprKind::Binary(op, l, r) if !self.cx.is_scalar(&l.ty) => {
                let eq = self.equal_aggregates(b, l, r)?;
                match op {
                    BinOp::Eq => computed(eq),
                    BinOp::Ne => computed(Arc::new(move |p, c| eq(p, c) ^ 1)),
                    _ => unsupported("an operator other than == and != on aggregates"),
                }
            }
            ExprKind::Binary(op, l, r) => {
                let signed = self.cx.width(&l.ty).1;
                of(ScalarKind::Binary { op: *op, signed, l: self.scalar(b, l)?.boxed(), r: self.scalar(b, r)?.boxed() })
            }
            ExprKind::Mux(cond, x, y) => {
                of(ScalarKind::Mux { cond: self.scalar(b, cond)?.boxed(), yes: self.scalar(b, x)?.boxed(), no: self.scalar(b, y)?.boxed() })
            }
            ExprKind::Cast(inner) => self.cast(b, inner, &e.ty),
            ExprKind::Call(call) => match &call.callee {
                Callee::Builtin { target, builtin: Builtin::IsValid } => self.is_valid(b, target),
                Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "lookahead" && w <= 128 => {
                    computed(self.read_ahead(w as usize, 0, w))
                }
                Callee::Method { .. } | Callee::ExternFunction { .. } => {
                    // The call leaves its result in a temporary slot, read after it.
                    let slot = self.cx.alloc(&e.ty)?;
                    let run = self.extern_call(b, call, Some(slot))?;
                    let run = if self.cx.tracing { self.cx.traced_call(b, call, run)? } else { run };
                    computed(Arc::new(move |p, c| {
                        run(p, c);
                        c.get(slot)
                    }))
                }
                Callee::Function(f) => {
                    let (run, ret) = self.function_call(b, f.index(), call)?;
                    let Some(ret) = ret else { return unsupported("the value of a function returning none") };
                    computed(Arc::new(move |p, c| {
                        run(p, c);
                        c.get(ret)
                    }))
                }
                _ => unsupported(format!("{} (the wire-format executor has no such value call)", crate::fast::compile::callee_name(&call.callee))),
            },
            ExprKind::ApplyTable(t, result) => {
                self.table(t.index())?;
                of(ScalarKind::Applied { table: t.index(), result: *result })
            }
            _ => unsupported(format!("{} (the wire-format executor does not compute it)", crate::fast::compile::describe(self.cx.ir, e))),
        }
    }

    /// A conversion of `inner` to `to`; of a constant, the constant converted.
    fn cast(&mut self, b: &BlockRef, inner: &Expr, to: &Type) -> R<Scalar> {
        let x = self.scalar(b, inner)?;
        let (fw, fs) = self.cx.width(&inner.ty);
        let (tw, _) = self.cx.width(to);
        let how = if matches!(to, Type::Bool) && inner.ty != Type::Bool {
            Cast::NonZero
        } else if fs && tw > fw {
            Cast::SignExtend
        } else if tw >= fw && !matches!(inner.ty, Type::InfInt) {
            Cast::Same
        } else {
            Cast::Cut
        };
        let width = if how == Cast::NonZero { 1 } else { tw };
        Ok(match (x.constant(), how) {
            (Some(k), Cast::NonZero) => Scalar::new(width, ScalarKind::Const(u128::from(k != 0))),
            (Some(k), Cast::SignExtend) => Scalar::new(width, ScalarKind::Const(bits::cast(k, fw, true, tw))),
            (Some(k), Cast::Cut) => Scalar::new(width, ScalarKind::Const(k & mask(tw))),
            (_, Cast::Same) if x.width == width => x,
            _ => Scalar::new(width, ScalarKind::Cast { of: x.boxed(), how }),
        })
    }

    /// `target.isValid()`.
    fn is_valid(&mut self, b: &BlockRef, target: &Expr) -> R<Scalar> {
        let valid = |word, mask| Ok(Scalar::new(1, ScalarKind::Valid { word, mask }));
        if !self.cx.is_header(&target.ty) {
            // A header union is valid when one of its members is.
            let members = self.places.union(self.cx, b, target)?;
            return match members.first().map(|r| r.index / 64) {
                Some(word) if members.iter().all(|r| r.index / 64 == word) => valid(word, members.iter().fold(0, |m, r| m | 1u64 << (r.index % 64))),
                _ => Ok(Scalar::new(1, ScalarKind::Computed(Arc::new(move |_, c| u128::from(members.iter().any(|r| c.wire_valid.has(r.index))))))),
            };
        }
        if let Some(f) = self.element_valid(b, target) {
            return Ok(Scalar::new(1, ScalarKind::Computed(f?)));
        }
        let i = self.header_index(b, target)?;
        valid(i / 64, 1 << (i % 64))
    }
}
