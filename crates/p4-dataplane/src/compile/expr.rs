//! Expressions: l-value locations, scalar evaluation, writers and aggregate sources.

use std::sync::Arc;

use p4_ir::{BinOp, BlockRef, Builtin, Callee, Expr, ExprKind, Type, TypeDef, UnOp};

use super::{unsupported, wide, Compiler, Loc, R};
use crate::bits::{self, mask};
use crate::exec::{Build, Ctx, Ev, Prog};

/// A writer of a scalar l-value.
pub(crate) type Write = Arc<dyn Fn(&Prog, &mut Ctx, u128) + Send + Sync>;

/// An aggregate-valued source.
pub(crate) enum Src {
    Loc(Loc),
    Build(Build),
}

/// One item of a built aggregate: a scalar, or a nested aggregate with its slot count.
type Part = Result<Ev, (Build, usize)>;

/// One piece of a serialised data list (hash/checksum input, log/digest arguments).
#[derive(Clone)]
pub(crate) enum Leaf {
    /// A computed scalar of the given width.
    Scalar(Ev, u32),
    /// A scalar read from a fixed frame slot (most header fields): read without a closure call.
    Slot(usize, u32),
    Varbit(Loc),
}

impl Leaf {
    /// The value and width of a scalar leaf (`None`: a varbit).
    #[inline]
    pub(crate) fn scalar(&self, p: &Prog, c: &mut Ctx) -> Option<(u128, u32)> {
        match self {
            Leaf::Scalar(ev, w) => Some((ev(p, c), *w)),
            Leaf::Slot(s, w) => Some((c.get(*s), *w)),
            Leaf::Varbit(_) => None,
        }
    }
}

/// The leaf reading a scalar of width `w` at `loc`.
fn scalar_leaf(loc: &Loc, w: u32) -> Leaf {
    match loc {
        Loc::Static(s) => Leaf::Slot(*s, w),
        _ => Leaf::Scalar(read_loc(loc), w),
    }
}

fn konst(v: u128) -> Ev {
    Arc::new(move |_, _| v)
}

pub(crate) fn read_loc(loc: &Loc) -> Ev {
    match loc {
        Loc::Static(s) => {
            let s = *s;
            Arc::new(move |_, c| c.get(s))
        }
        Loc::Dyn(d) => {
            let d = d.clone();
            Arc::new(move |p, c| match d(p, c) {
                Some(s) => c.get(s),
                None => 0,
            })
        }
        Loc::Discard => konst(0),
    }
}

pub(crate) fn write_loc(loc: &Loc) -> Write {
    match loc {
        Loc::Static(s) => {
            let s = *s;
            Arc::new(move |_, c, v| c.set(s, v))
        }
        Loc::Dyn(d) => {
            let d = d.clone();
            Arc::new(move |p, c, v| {
                if let Some(s) = d(p, c) {
                    c.set(s, v)
                }
            })
        }
        Loc::Discard => Arc::new(|_, _, _| {}),
    }
}

/// One step of an aggregate comparison (offsets relative to the value's base slot).
enum EqPart {
    /// These slots must be equal.
    Slots(usize, usize),
    /// A header of this many slots: equal when both are invalid, else when all its slots are.
    Header(usize, usize),
}

/// Whether `e` names storage (so `loc` can resolve it without building a value).
fn is_place(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Var(_) | ExprKind::DontCare | ExprKind::Field(..) | ExprKind::Index(..) | ExprKind::StackNext(_) | ExprKind::StackLast(_)
    )
}

/// Copies an aggregate of `len` slots from `src` into the frame at `dst`.
pub(crate) fn copy_src(src: &Src, len: usize) -> Build {
    match src {
        Src::Build(b) => b.clone(),
        Src::Loc(Loc::Static(s)) => {
            let s = *s;
            Arc::new(move |_, c, dst| c.copy(s, dst, len))
        }
        Src::Loc(Loc::Dyn(d)) => {
            let d = d.clone();
            Arc::new(move |p, c, dst| match d(p, c) {
                Some(s) => c.copy(s, dst, len),
                None => c.zero(dst, len),
            })
        }
        Src::Loc(Loc::Discard) => Arc::new(move |_, c, dst| c.zero(dst, len)),
    }
}

impl Compiler<'_> {
    fn stack_info(&mut self, ty: &Type) -> R<(usize, u128)> {
        match ty {
            Type::Stack(elem, n) => Ok((self.size(elem)?, u128::from(*n))),
            _ => unsupported(format!("{} is not a header stack", super::type_name(self.ir, ty))),
        }
    }

    /// The storage an l-value expression denotes.
    pub(crate) fn loc(&mut self, b: &BlockRef, e: &Expr) -> R<Loc> {
        Ok(match &e.kind {
            ExprKind::Var(v) => Loc::Static(self.var_slot(b, *v)?),
            ExprKind::DontCare => Loc::Discard,
            ExprKind::Field(inner, i) => {
                let l = if is_place(inner) {
                    self.loc(b, inner)?
                } else {
                    // A field of a computed value (`lookahead<T>().f`, `{..}.f`): build the value into
                    // a temporary range on every read.
                    Loc::Dyn(self.materialize(b, inner)?)
                };
                let (off, _) = self.field_offset(&inner.ty, *i)?;
                l.offset(off)
            }
            ExprKind::Index(stack, idx) => {
                let l = self.loc(b, stack)?;
                let (es, n) = self.stack_info(&stack.ty)?;
                if let ExprKind::Const(v) = &idx.kind {
                    let k = self.scalar_value(v, &idx.ty)?;
                    if k < n {
                        return Ok(l.offset(1 + k as usize * es));
                    }
                    return Ok(Loc::Dyn(Arc::new(|_, _| None)));
                }
                let ie = self.scalar(b, idx)?;
                let base = l.resolver();
                Loc::Dyn(Arc::new(move |p, c| {
                    let i = ie(p, c);
                    if i < n {
                        base(p, c).map(|s| s + 1 + i as usize * es)
                    } else {
                        None
                    }
                }))
            }
            ExprKind::StackNext(stack) | ExprKind::StackLast(stack) => {
                let last = matches!(e.kind, ExprKind::StackLast(_));
                let l = self.loc(b, stack)?;
                let (es, n) = self.stack_info(&stack.ty)?;
                let base = l.resolver();
                Loc::Dyn(Arc::new(move |p, c| {
                    let s = base(p, c)?;
                    let mut i = c.get(s);
                    if last {
                        i = i.checked_sub(1)?;
                    }
                    (i < n).then(|| s + 1 + i as usize * es)
                }))
            }
            _ => return unsupported(format!("{} is not an l-value", super::describe(self.ir, e))),
        })
    }

    /// A writer for a scalar l-value (slices are read-modify-write).
    pub(crate) fn writer(&mut self, b: &BlockRef, e: &Expr) -> R<Write> {
        if let ExprKind::Slice(inner, hi, lo) = &e.kind {
            let (hi, lo) = (*hi, *lo);
            if wide::is_wide(&inner.ty) {
                return self.wide_slice_writer(b, inner, hi, lo);
            }
            let rd = self.scalar(b, inner)?;
            let wr = self.writer(b, inner)?;
            return Ok(Arc::new(move |p, c, v| {
                let old = rd(p, c);
                wr(p, c, bits::set_slice(old, hi, lo, v))
            }));
        }
        let loc = self.loc(b, e)?;
        Ok(write_loc(&loc))
    }

    /// Compiles a scalar-valued expression; an error is located at the innermost expression.
    pub(crate) fn scalar(&mut self, b: &BlockRef, e: &Expr) -> R<Ev> {
        self.scalar_at(b, e).map_err(|error| error.at(e.span))
    }

    fn scalar_at(&mut self, b: &BlockRef, e: &Expr) -> R<Ev> {
        if wide::is_wide(&e.ty) {
            return unsupported(format!(
                "a {} value where at most 128 bits can be used (as a table key, index, condition or extern argument)",
                super::type_name(self.ir, &e.ty)
            ));
        }
        if wide::reads_wide(e) {
            return self.narrow_of_wide(b, e);
        }
        Ok(match &e.kind {
            ExprKind::Const(v) => konst(self.scalar_value(v, &e.ty)?),
            ExprKind::Var(_)
            | ExprKind::Field(..)
            | ExprKind::Index(..)
            | ExprKind::StackNext(_)
            | ExprKind::StackLast(_) => {
                let loc = self.loc(b, e)?;
                read_loc(&loc)
            }
            ExprKind::StackLastIndex(stack) => {
                let base = self.loc(b, stack)?.resolver();
                Arc::new(move |p, c| base(p, c).map_or(0, |s| c.get(s).wrapping_sub(1) & mask(32)))
            }
            ExprKind::Slice(inner, hi, lo) => {
                let (hi, lo) = (*hi, *lo);
                let x = self.scalar(b, inner)?;
                Arc::new(move |p, c| bits::slice(x(p, c), hi, lo))
            }
            ExprKind::Unary(op, inner) => {
                let x = self.scalar(b, inner)?;
                let (w, _) = self.width(&e.ty);
                match op {
                    UnOp::Not => Arc::new(move |p, c| x(p, c) ^ 1),
                    UnOp::BitNot => Arc::new(move |p, c| !x(p, c) & mask(w)),
                    UnOp::Neg => Arc::new(move |p, c| x(p, c).wrapping_neg() & mask(w)),
                    UnOp::Plus => x,
                }
            }
            ExprKind::Binary(op, l, r) => self.binary(b, *op, l, r, &e.ty)?,
            ExprKind::Mux(cond, a, bb) => {
                let (cnd, x, y) = (self.scalar(b, cond)?, self.scalar(b, a)?, self.scalar(b, bb)?);
                Arc::new(move |p, c| if cnd(p, c) != 0 { x(p, c) } else { y(p, c) })
            }
            ExprKind::Cast(inner) => {
                let x = self.scalar(b, inner)?;
                let (fw, fs) = self.width(&inner.ty);
                match (&inner.ty, &e.ty) {
                    (_, Type::Bool) if inner.ty != Type::Bool => Arc::new(move |p, c| u128::from(x(p, c) != 0)),
                    _ => {
                        let (tw, _) = self.width(&e.ty);
                        if fs && tw > fw {
                            Arc::new(move |p, c| bits::cast(x(p, c), fw, true, tw))
                        } else if tw >= fw && !matches!(inner.ty, Type::InfInt) {
                            x
                        } else {
                            let m = mask(tw);
                            Arc::new(move |p, c| x(p, c) & m)
                        }
                    }
                }
            }
            ExprKind::Call(call) => self.call_value(b, call, &e.ty)?,
            // The mid-end makes `action_run` a value only for tables none of whose actions may
            // exit; hit/miss flag an exit for the statement around them (`pending_exit`).
            ExprKind::ApplyTable(t, p4_ir::ApplyResult::ActionRun) => {
                let t = t.index();
                super::by_tracing!(self.tracing, T => Arc::new(move |p, c| crate::exec::TableProg::apply::<T>(p, c, t).action as u128))
            }
            ExprKind::ApplyTable(t, res) => {
                let t = t.index();
                let want_hit = *res == p4_ir::ApplyResult::Hit;
                super::by_tracing!(self.tracing, T => Arc::new(move |p, c| {
                    let out = crate::exec::TableProg::apply::<T>(p, c, t);
                    c.exit_pending |= out.flow == crate::exec::Flow::Exit;
                    u128::from(out.hit == want_hit)
                }))
            }
            _ => return unsupported(format!("{} used as a scalar", super::describe(self.ir, e))),
        })
    }

    fn binary(&mut self, b: &BlockRef, op: BinOp, l: &Expr, r: &Expr, ty: &Type) -> R<Ev> {
        if matches!(op, BinOp::Eq | BinOp::Ne) && !self.is_scalar(&l.ty) {
            let eq = self.agg_eq(b, l, r)?;
            let want = op == BinOp::Eq;
            return Ok(Arc::new(move |p, c| u128::from((eq(p, c) != 0) == want)));
        }
        let (w, s) = self.width(&l.ty);
        let (rw, _) = self.width(ty);
        let m = mask(rw);
        if let Some(k) = self.const_operand(r) {
            if let Some(ev) = self.binary_const(b, op, l, k, w, s, m)? {
                return Ok(ev);
            }
        }
        let x = self.scalar(b, l)?;
        let y = self.scalar(b, r)?;
        macro_rules! op {
            (|$a:ident, $bb:ident| $body:expr) => {
                Arc::new(move |p: &Prog, c: &mut Ctx| {
                    let $a = x(p, c);
                    let $bb = y(p, c);
                    $body
                })
            };
        }
        Ok(match op {
            BinOp::Add => op!(|a, bb| a.wrapping_add(bb) & m),
            BinOp::Sub => op!(|a, bb| a.wrapping_sub(bb) & m),
            BinOp::Mul => op!(|a, bb| a.wrapping_mul(bb) & m),
            BinOp::Div => op!(|a, bb| a.checked_div(bb).unwrap_or(0) & m),
            BinOp::Mod => op!(|a, bb| a.checked_rem(bb).unwrap_or(0) & m),
            BinOp::AddSat => op!(|a, bb| bits::add_sat(a, bb, w, s)),
            BinOp::SubSat => op!(|a, bb| bits::sub_sat(a, bb, w, s)),
            BinOp::Shl => op!(|a, bb| bits::shl(a, bb, w)),
            BinOp::Shr => op!(|a, bb| bits::shr(a, bb, w, s)),
            BinOp::Eq => op!(|a, bb| u128::from(a == bb)),
            BinOp::Ne => op!(|a, bb| u128::from(a != bb)),
            BinOp::Lt => op!(|a, bb| u128::from(bits::lt(a, bb, w, s))),
            BinOp::Le => op!(|a, bb| u128::from(!bits::lt(bb, a, w, s))),
            BinOp::Gt => op!(|a, bb| u128::from(bits::lt(bb, a, w, s))),
            BinOp::Ge => op!(|a, bb| u128::from(!bits::lt(a, bb, w, s))),
            BinOp::BitAnd => op!(|a, bb| a & bb),
            BinOp::BitOr => op!(|a, bb| a | bb),
            BinOp::BitXor => op!(|a, bb| a ^ bb),
            BinOp::Concat => {
                let (rwid, _) = self.width(&r.ty);
                op!(|a, bb| (a.checked_shl(rwid).unwrap_or(0) | bb) & m)
            }
            BinOp::And => Arc::new(move |p, c| u128::from(x(p, c) != 0 && y(p, c) != 0)),
            BinOp::Or => Arc::new(move |p, c| u128::from(x(p, c) != 0 || y(p, c) != 0)),
        })
    }

    fn const_operand(&self, e: &Expr) -> Option<u128> {
        match &e.kind {
            ExprKind::Const(v) => self.scalar_value(v, &e.ty).ok(),
            _ => None,
        }
    }

    /// Fast forms of `l op k` for a constant `k` (and a statically placed `l`): one closure instead of
    /// three. Returns `None` for operators without a fast form.
    #[allow(clippy::too_many_arguments)]
    fn binary_const(&mut self, b: &BlockRef, op: BinOp, l: &Expr, k: u128, w: u32, s: bool, m: u128) -> R<Option<Ev>> {
        let slot = match &l.kind {
            ExprKind::Var(_) | ExprKind::Field(..) => match self.loc(b, l)? {
                Loc::Static(slot) => Some(slot),
                _ => None,
            },
            _ => None,
        };
        macro_rules! fast {
            (|$a:ident| $body:expr) => {
                match slot {
                    Some(sl) => Some(Arc::new(move |_: &Prog, c: &mut Ctx| {
                        let $a = c.get(sl);
                        $body
                    }) as Ev),
                    None => {
                        let x = self.scalar(b, l)?;
                        Some(Arc::new(move |p: &Prog, c: &mut Ctx| {
                            let $a = x(p, c);
                            $body
                        }) as Ev)
                    }
                }
            };
        }
        Ok(match op {
            BinOp::Eq => fast!(|a| u128::from(a == k)),
            BinOp::Ne => fast!(|a| u128::from(a != k)),
            BinOp::Add => fast!(|a| a.wrapping_add(k) & m),
            BinOp::Sub => fast!(|a| a.wrapping_sub(k) & m),
            BinOp::BitAnd => fast!(|a| a & k),
            BinOp::Lt if !s => fast!(|a| u128::from(a < k)),
            BinOp::Le if !s => fast!(|a| u128::from(a <= k)),
            BinOp::Gt if !s => fast!(|a| u128::from(a > k)),
            BinOp::Ge if !s => fast!(|a| u128::from(a >= k)),
            BinOp::Shl => fast!(|a| bits::shl(a, k, w)),
            BinOp::Shr if !s => fast!(|a| bits::shr(a, k, w, false)),
            _ => None,
        })
    }

    /// Aggregate (header, struct, tuple, union, stack, varbit) equality: two invalid headers are
    /// equal whatever their stale fields hold, and a stack's next index takes no part.
    fn agg_eq(&mut self, b: &BlockRef, l: &Expr, r: &Expr) -> R<Ev> {
        let mut plan = Vec::new();
        self.eq_plan(&l.ty, 0, &mut plan)?;
        let lb = self.materialize(b, l)?;
        let rb = self.materialize(b, r)?;
        Ok(Arc::new(move |p, c| {
            let (Some(x), Some(y)) = (lb(p, c), rb(p, c)) else { return 0 };
            let same = |off: usize, len: usize| match (c.f.get(x + off..x + off + len), c.f.get(y + off..y + off + len)) {
                (Some(a), Some(bb)) => a == bb,
                _ => false,
            };
            let all = plan.iter().all(|part| match *part {
                EqPart::Slots(off, len) => same(off, len),
                EqPart::Header(off, len) => (c.get(x + off) == 0 && c.get(y + off) == 0) || same(off, len),
            });
            u128::from(all)
        }))
    }

    /// The slot ranges that decide equality of a value of `ty` placed at `off`.
    fn eq_plan(&mut self, ty: &Type, off: usize, out: &mut Vec<EqPart>) -> R<()> {
        if self.is_header(ty) {
            out.push(EqPart::Header(off, self.size(ty)?));
            return Ok(());
        }
        match ty {
            Type::Stack(elem, n) => {
                let es = self.size(elem)?;
                for i in 0..*n as usize {
                    self.eq_plan(elem, off + 1 + i * es, out)?;
                }
            }
            Type::Tuple(items) => {
                for i in 0..items.len() {
                    let (foff, fty) = self.field_offset(ty, i as u32)?;
                    self.eq_plan(&fty, off + foff, out)?;
                }
            }
            _ => match self.type_def(ty) {
                Some(TypeDef::Struct { fields, .. }) | Some(TypeDef::Union { fields, .. }) => {
                    for i in 0..fields.len() {
                        let (foff, fty) = self.field_offset(ty, i as u32)?;
                        self.eq_plan(&fty, off + foff, out)?;
                    }
                }
                _ => out.push(EqPart::Slots(off, self.size(ty)?)),
            },
        }
        Ok(())
    }

    /// A resolver of an aggregate expression's slots, building non-l-values into a temporary range.
    pub(crate) fn materialize(&mut self, b: &BlockRef, e: &Expr) -> R<crate::exec::DynSlot> {
        match self.agg_src(b, e)? {
            Src::Loc(l) => Ok(l.resolver()),
            Src::Build(build) => {
                let tmp = self.alloc(&e.ty)?;
                Ok(Arc::new(move |p, c| {
                    build(p, c, tmp);
                    Some(tmp)
                }))
            }
        }
    }

    /// Compiles an aggregate-valued expression (including values wider than 128 bits); an error is
    /// located at the innermost expression.
    pub(crate) fn agg_src(&mut self, b: &BlockRef, e: &Expr) -> R<Src> {
        self.agg_src_at(b, e).map_err(|error| error.at(e.span))
    }

    fn agg_src_at(&mut self, b: &BlockRef, e: &Expr) -> R<Src> {
        if wide::computes_wide(e) {
            return self.wide_src(b, e);
        }
        let len = self.size(&e.ty)?;
        Ok(match &e.kind {
            ExprKind::Var(_)
            | ExprKind::Field(..)
            | ExprKind::Index(..)
            | ExprKind::StackNext(_)
            | ExprKind::StackLast(_)
            | ExprKind::DontCare => Src::Loc(self.loc(b, e)?),
            ExprKind::Const(v) => {
                let mut vals = Vec::new();
                self.flatten_value(v, &e.ty, &mut vals)?;
                Src::Build(Arc::new(move |_, c, dst| {
                    if let Some(r) = c.f.get_mut(dst..dst + vals.len()) {
                        r.copy_from_slice(&vals);
                    }
                }))
            }
            ExprKind::InvalidHeader => Src::Build(Arc::new(move |_, c, dst| c.zero(dst, len))),
            ExprKind::Aggregate(items) => self.build_items(b, items, &e.ty)?,
            ExprKind::Cast(inner) => match &inner.kind {
                ExprKind::Aggregate(items) => self.build_items(b, items, &e.ty)?,
                _ => self.agg_src(b, inner)?,
            },
            ExprKind::Mux(cond, x, y) => {
                let cnd = self.scalar(b, cond)?;
                let xs = copy_src(&self.agg_src(b, x)?, len);
                let ys = copy_src(&self.agg_src(b, y)?, len);
                Src::Build(Arc::new(move |p, c, dst| if cnd(p, c) != 0 { xs(p, c, dst) } else { ys(p, c, dst) }))
            }
            ExprKind::Call(call) => self.call_agg(b, call, &e.ty)?,
            _ => return unsupported(format!("{} used as an aggregate value", super::describe(self.ir, e))),
        })
    }

    /// `{a, b, c}` laid out as `ty` (a header gets its valid bit set).
    fn build_items(&mut self, b: &BlockRef, items: &[Expr], ty: &Type) -> R<Src> {
        let header = self.is_header(ty);
        let mut parts: Vec<(usize, Part)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let (off, fty) = self.field_offset(ty, i as u32)?;
            if self.is_scalar(&fty) {
                parts.push((off, Ok(self.scalar(b, item)?)));
            } else {
                let n = self.size(&fty)?;
                let src = self.agg_src(b, item)?;
                parts.push((off, Err((copy_src(&src, n), n))));
            }
        }
        Ok(Src::Build(Arc::new(move |p, c, dst| {
            if header {
                c.set(dst, 1);
            }
            for (off, part) in &parts {
                match part {
                    Ok(ev) => {
                        let v = ev(p, c);
                        c.set(dst + off, v);
                    }
                    Err((build, _)) => build(p, c, dst + off),
                }
            }
        })))
    }

    /// Serialisable leaves of a data argument, in order (headers contribute their fields).
    pub(crate) fn leaves(&mut self, b: &BlockRef, e: &Expr, out: &mut Vec<Leaf>) -> R<()> {
        match &e.kind {
            ExprKind::Aggregate(items) => {
                for i in items {
                    self.leaves(b, i, out)?;
                }
                return Ok(());
            }
            ExprKind::Cast(inner) if matches!(inner.kind, ExprKind::Aggregate(_)) => return self.leaves(b, inner, out),
            _ => {}
        }
        if self.is_scalar(&e.ty) {
            let (w, _) = self.width(&e.ty);
            match self.fixed_scalar_slot(b, e) {
                Some(slot) => out.push(Leaf::Slot(slot, w)),
                None => out.push(Leaf::Scalar(self.scalar(b, e)?, w)),
            }
            return Ok(());
        }
        if let Type::Varbit(_) = e.ty {
            out.push(Leaf::Varbit(self.loc(b, e)?));
            return Ok(());
        }
        let loc = match self.agg_src(b, e)? {
            Src::Loc(l) => l,
            // Every leaf read rebuilds the value, so only side-effect-free values may be built here.
            Src::Build(_) if matches!(e.kind, ExprKind::Call(_)) => {
                return unsupported(format!("computed aggregate in a data list: {}", super::describe(self.ir, e)));
            }
            Src::Build(build) => {
                let tmp = self.alloc(&e.ty)?;
                Loc::Dyn(Arc::new(move |p, c| {
                    build(p, c, tmp);
                    Some(tmp)
                }))
            }
        };
        self.loc_leaves(&loc, &e.ty, out)
    }

    /// The frame slot `e` is read from when it is a scalar variable or field at a fixed place
    /// (what [`Compiler::scalar`] would compile to one slot read), so that hot paths read the slot
    /// without a closure call; `None` for anything else.
    pub(crate) fn fixed_scalar_slot(&mut self, b: &BlockRef, e: &Expr) -> Option<usize> {
        let plain = matches!(e.kind, ExprKind::Var(_) | ExprKind::Field(..)) && self.is_scalar(&e.ty) && !wide::reads_wide(e);
        match self.loc(b, e) {
            Ok(Loc::Static(slot)) if plain => Some(slot),
            _ => None,
        }
    }

    fn loc_leaves(&mut self, loc: &Loc, ty: &Type, out: &mut Vec<Leaf>) -> R<()> {
        if self.is_scalar(ty) {
            let (w, _) = self.width(ty);
            out.push(scalar_leaf(loc, w));
            return Ok(());
        }
        match ty {
            Type::Varbit(_) => out.push(Leaf::Varbit(loc.clone())),
            Type::Bits { width, .. } => {
                let chunks = (*width as usize).div_ceil(128);
                for k in 0..chunks {
                    let w = if k == 0 && width % 128 != 0 { width % 128 } else { 128 };
                    out.push(scalar_leaf(&loc.offset(k), w));
                }
            }
            Type::Stack(elem, n) => {
                let es = self.size(elem)?;
                for i in 0..*n as usize {
                    self.loc_leaves(&loc.offset(1 + i * es), elem, out)?;
                }
            }
            _ => {
                let nfields = match ty {
                    Type::Tuple(t) => t.len(),
                    _ => self.type_def(ty).map_or(0, |d| d.fields().len()),
                };
                for i in 0..nfields {
                    let (off, fty) = self.field_offset(ty, i as u32)?;
                    self.loc_leaves(&loc.offset(off), &fty, out)?;
                }
            }
        }
        Ok(())
    }

    /// A value-returning call.
    fn call_value(&mut self, b: &BlockRef, call: &p4_ir::Call, ty: &Type) -> R<Ev> {
        match &call.callee {
            Callee::Builtin { target, builtin: Builtin::IsValid } => self.is_valid(b, target),
            Callee::Function(_) => {
                let (run, ret) = self.function_call(b, call)?;
                let Some(ret) = ret else { return unsupported("value of a void function") };
                Ok(Arc::new(move |p, c| {
                    run(p, c);
                    c.get(ret)
                }))
            }
            Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "lookahead" => {
                let (w, _) = self.width(ty);
                let short = self.errors.packet_too_short;
                Ok(Arc::new(move |_, c| {
                    if c.cursor + w as usize > c.pkt.len() * 8 {
                        c.pending_err.get_or_insert(short);
                        return 0;
                    }
                    bits::read_bits(&c.pkt, c.cursor, w)
                }))
            }
            Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "length" => {
                Ok(Arc::new(|_, c| c.pkt.len() as u128))
            }
            _ => {
                // Extern calls that return a value through the frame: run as a statement into a temp.
                let tmp = self.alloc(ty)?;
                let run = self.extern_call(b, call, Some(tmp))?;
                Ok(Arc::new(move |p, c| {
                    run(p, c);
                    c.get(tmp)
                }))
            }
        }
    }

    /// An aggregate-returning call (`lookahead<header>()`, functions returning structs).
    fn call_agg(&mut self, b: &BlockRef, call: &p4_ir::Call, ty: &Type) -> R<Src> {
        let len = self.size(ty)?;
        match &call.callee {
            Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "lookahead" => {
                let fields = self.header_fields(ty)?;
                let mut total = 0usize;
                let mut plan = Vec::new();
                for (off, k) in fields {
                    match k {
                        super::FieldKind::Bits(w) => {
                            plan.push((off, w));
                            total += w as usize;
                        }
                        super::FieldKind::Varbit(_) => return unsupported("lookahead of a header with a varbit field"),
                    }
                }
                let short = self.errors.packet_too_short;
                Ok(Src::Build(Arc::new(move |_, c, dst| {
                    if c.cursor + total > c.pkt.len() * 8 {
                        c.pending_err.get_or_insert(short);
                        c.zero(dst, len);
                        return;
                    }
                    let mut pos = c.cursor;
                    c.set(dst, 1);
                    for &(off, w) in &plan {
                        let v = bits::read_bits(&c.pkt, pos, w);
                        c.set(dst + off, v);
                        pos += w as usize;
                    }
                })))
            }
            Callee::Function(_) => {
                let (run, ret) = self.function_call(b, call)?;
                let Some(ret) = ret else { return unsupported("value of a void function") };
                Ok(Src::Build(Arc::new(move |p, c, dst| {
                    run(p, c);
                    c.copy(ret, dst, len);
                })))
            }
            _ => unsupported(format!("{} returning {}", super::callee_name(&call.callee), super::type_name(self.ir, ty))),
        }
    }

    /// `x.isValid()` for headers and unions.
    pub(crate) fn is_valid(&mut self, b: &BlockRef, target: &Expr) -> R<Ev> {
        let loc = self.loc(b, target)?;
        if let Some(TypeDef::Union { fields, .. }) = self.type_def(&target.ty) {
            let fields = fields.clone();
            let mut offs = Vec::new();
            for i in 0..fields.len() {
                offs.push(self.field_offset(&target.ty, i as u32)?.0);
            }
            let base = loc.resolver();
            return Ok(Arc::new(move |p, c| {
                let Some(s) = base(p, c) else { return 0 };
                u128::from(offs.iter().any(|o| c.get(s + o) != 0))
            }));
        }
        Ok(read_loc(&loc))
    }
}
