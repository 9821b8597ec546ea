//! Expression typing and lowering (§8 of the spec).
//!
//! Invariant: a [`TE`] carries the checker's type and, when the expression is a compile-time
//! constant, its folded value; [`Sema::lower_te`] turns constants into `ExprKind::Const`. `int` literals
//! take the width of their context (expected type, other operand, parameter) before reaching the IR.

use crate::consteval as ce;
use crate::sema::{Callable, Global, Local, Sema, R};
use crate::types::{NamedKind, Ty};
use num_bigint::BigInt;
use num_traits::{Signed, ToPrimitive, Zero};
use p4_ir::{self as ir, BinOp, UnOp, Value};
use p4_syntax::ast::{self, ExprKind as A};
use p4_syntax::span::Span;

/// A typed expression under construction.
#[derive(Clone, Debug)]
pub struct TE {
    pub ty: Ty,
    pub kind: ir::ExprKind,
    pub span: Span,
    pub val: Option<Value>,
    /// `Some(writable)` if the expression denotes storage.
    pub lv: Option<bool>,
}

impl TE {
    pub fn new(ty: Ty, kind: ir::ExprKind, span: Span) -> TE {
        TE { ty, kind, span, val: None, lv: None }
    }
    /// A value whose type is not known (generic code checked before elaboration, or error
    /// recovery). It is compatible with everything, including being assigned to.
    pub fn unknown(span: Span) -> TE {
        TE { lv: Some(true), ..TE::new(Ty::Unknown, ir::ExprKind::DontCare, span) }
    }
}

impl<'a> Sema<'a> {
    pub fn konst(&mut self, v: Value, ty: Ty, span: Span) -> TE {
        TE { ty, kind: ir::ExprKind::DontCare, span, val: Some(v), lv: None }
    }

    pub fn lower_te(&mut self, te: TE) -> ir::Expr {
        let ty = self.ir_type(&te.ty);
        match te.val {
            Some(v) => ir::Expr::constant(v, ty, te.span),
            None => ir::Expr::new(ty, te.kind, te.span),
        }
    }

    pub fn lower(&mut self, e: &'a ast::Expr, expected: Option<&Ty>) -> R<ir::Expr> {
        let te = self.expr(e, expected)?;
        let te = match expected {
            Some(t) => self.coerce(te, t, e.span)?,
            None => te,
        };
        Ok(self.lower_te(te))
    }

    pub fn unify(&mut self, a: &Ty, b: &Ty) -> bool {
        if self.subst.unify(a, b) {
            return true;
        }
        // Two specialisations of one generic struct unify through their type arguments.
        let (ra, rb) = (self.subst.resolve(a), self.subst.resolve(b));
        if let (Ty::Named(x), Ty::Named(y)) = (&ra, &rb) {
            if let (Some((dx, ax)), Some((dy, ay))) = (self.generic_origin.get(x).cloned(), self.generic_origin.get(y).cloned()) {
                if dx == dy && ax.len() == ay.len() {
                    return ax.iter().zip(&ay).all(|(p, q)| self.unify(p, q));
                }
            }
        }
        // While checking generic code, type parameters are opaque; elaboration re-checks concretely.
        // A type parameter itself is one unknown type, though: it is not `int`, a tuple or another
        // parameter (p4c: "equate type ..."), whatever it is later bound to.
        let rigid = |x: &Ty, y: &Ty| matches!(x, Ty::Param(_)) && !matches!(y, Ty::Param(_) | Ty::Infer(_) | Ty::Unknown | Ty::DontCare) && !has_param(y);
        let clash = rigid(&ra, &rb) || rigid(&rb, &ra) || matches!((&ra, &rb), (Ty::Param(p), Ty::Param(q)) if p != q);
        self.check_mode && (has_param(a) || has_param(b)) && !clash
    }

    /// Convert `te` to type `to` where an implicit conversion exists (`int` constants); else error.
    pub fn coerce(&mut self, mut te: TE, to: &Ty, span: Span) -> R<TE> {
        let to = self.subst.resolve(to);
        let from = self.subst.resolve(&te.ty);
        if from == Ty::InfInt {
            if let Ty::Bits { width, signed } = to {
                return self.int_to_bits(te, width, signed, span);
            }
        }
        // A list expression converts to a struct or header with the same field types (a value of
        // tuple type does not: p4c "type-error").
        let is_list = matches!(te.kind, ir::ExprKind::Aggregate(_)) || matches!(te.val, Some(Value::Aggregate { .. }));
        if let (Ty::Tuple(ts), Ty::Named(n), true) = (&from, &to, is_list) {
            let fields: Vec<Ty> = self.named[*n].fields.iter().map(|(_, t)| t.clone()).collect();
            if matches!(self.named[*n].kind, NamedKind::Struct | NamedKind::Header) && fields.len() == ts.len() && fields.iter().zip(ts).all(|(a, b)| a == b) {
                let inner = self.lower_te(te);
                return Ok(TE::new(to.clone(), ir::ExprKind::Cast(Box::new(inner)), span));
            }
        }
        // A serializable enum converts implicitly to its underlying type.
        if let Some(u) = self.ser_enum_underlying(&from) {
            if u == to {
                return Ok(self.enum_to_underlying(te, u));
            }
        }
        if self.unify(&from, &to) {
            if !matches!(to, Ty::Infer(_)) && !to.is_unknown() {
                te.ty = to;
            }
            return Ok(te);
        }
        let (f, t) = (self.show(&from), self.show(&to));
        self.error_at(span, format!("type mismatch: expected `{t}`, found `{f}`"), format!("this has type `{f}`"));
        Err(())
    }

    fn int_to_bits(&mut self, mut te: TE, width: u32, signed: bool, span: Span) -> R<TE> {
        let Some(v) = te.val.as_ref().and_then(ce::int_of).cloned() else {
            // A directionless `int` parameter of a parser or control: compile-time known at each
            // call, but not a constant inside the block's body.
            if let (ir::ExprKind::Var(var), Some(cx)) = (&te.kind, &self.cx) {
                if cx.ctor_vars.contains(var) {
                    if !self.check_mode {
                        self.warn(span, "unsupported: a directionless `int` parameter used in a parser or control body");
                        self.unsupported = true;
                    }
                    let to = Ty::Bits { width, signed };
                    let inner = self.lower_te(te);
                    return Ok(TE::new(to, ir::ExprKind::Cast(Box::new(inner)), span));
                }
            }
            self.error(span, "an `int` value must be a compile-time constant");
            return Err(());
        };
        let conv = ce::bits(width, signed, v.clone());
        // Negative values that fit the signed type of the same width are intended bit patterns.
        let pattern = v.is_negative() && !signed && ce::fits(width, true, &v);
        if !ce::fits(width, signed, &v) && !pattern {
            self.warn(span, format!("value {v} does not fit in {} bits; it is truncated", width));
        }
        te.val = Some(conv);
        te.ty = Ty::Bits { width, signed };
        Ok(te)
    }

    // ------------------------------------------------------------ names

    pub fn expr(&mut self, e: &'a ast::Expr, expected: Option<&Ty>) -> R<TE> {
        let span = e.span;
        match &e.kind {
            A::Bool(b) => Ok(self.konst(Value::Bool(*b), Ty::Bool, span)),
            A::Int(lit) => self.int_lit(lit, expected, span),
            A::String(s) => Ok(self.konst(Value::String(s.clone()), Ty::String, span)),
            A::Name(p) => self.name_expr(p, span),
            A::This if !self.in_abstract_impl => {
                self.error(span, "`this` can only be used in the implementation of an abstract method");
                Err(())
            }
            A::This => {
                // Abstract method implementations are checked but not elaborated; uses of `this`
                // are not type-checked further.
                self.unsupported = true;
                Ok(TE::unknown(span))
            }
            A::Member(base, m) => self.member(base, m, span),
            A::Index(base, idx) => self.index(base, idx, span),
            A::Slice(base, hi, lo) => {
                let b = self.expr(base, None)?;
                let h = self.const_u32(hi, "slice bound")?;
                let l = self.const_u32(lo, "slice bound")?;
                self.slice(b, h, l, span)
            }
            A::IndexedSlice(base, lo, w) => {
                let b = self.expr(base, None)?;
                let l = self.expr(lo, None)?;
                let Some(l) = l.val.as_ref().and_then(ce::int_of).and_then(|v| v.to_u32()) else {
                    self.warn(lo.span, "unsupported: `e[lo +: w]` with a run-time `lo`");
                    self.unsupported = true;
                    return Err(());
                };
                let w = self.const_u32(w, "slice width")?;
                if w == 0 {
                    self.error(span, "slice width must be positive");
                    return Err(());
                }
                let Some(h) = l.checked_add(w - 1) else {
                    self.error(span, "slice bounds are too large");
                    return Err(());
                };
                self.slice(b, h, l, span)
            }
            A::Call { .. } => match self.call(e, expected)? {
                crate::stmt::CallOut::Expr(te) => Ok(te),
                crate::stmt::CallOut::Stmt(_) => {
                    self.error(span, "this call does not return a value");
                    Err(())
                }
            },
            A::Construct { ty, args } => {
                // An extern instantiated inside an expression (`Hash<..>(..).get(x)`) is an anonymous
                // instance of the enclosing block, as in p4c.
                let t = self.resolve_type(ty);
                if !matches!(t, Ty::Extern(..)) || self.cx.is_none() {
                    self.error(span, "instantiations are only allowed in declarations and as package/constructor arguments");
                    return Err(());
                }
                let local = format!("anon_{}", span.lo);
                let name = self.hoisted_instance_name(&[], &local);
                let (id, t) = self.instantiate_extern(&t, args, name, &[], None, span)?;
                Ok(TE::new(t, ir::ExprKind::Extern(id), span))
            }
            A::Unary(op, x) => self.unary(*op, x, expected, span),
            A::Binary(op, l, r) => self.binary(*op, l, r, expected, span),
            A::Ternary(c, a, b) => self.ternary(c, a, b, expected, span),
            A::Cast(t, x) => {
                let to = self.resolve_type(t);
                self.cast(to, x, span)
            }
            A::List(items) => self.list(items, expected, span),
            A::StructInit { fields, has_dots } => self.struct_init(fields, *has_dots, expected, span),
            A::InvalidHeader => match expected.map(|t| self.subst.resolve(t)) {
                Some(t @ Ty::Named(n)) if matches!(self.named[n].kind, NamedKind::Header | NamedKind::Union) => {
                    Ok(TE::new(t, ir::ExprKind::InvalidHeader, span))
                }
                Some(Ty::Param(_) | Ty::Unknown) => Ok(TE::unknown(span)),
                _ => {
                    self.error(span, "`{#}` needs a header or header union type from the context");
                    Err(())
                }
            },
            // `_` stands for a value only as a call's argument (checked there) and in keysets.
            A::DontCare if self.dont_care_argument => Ok(TE { lv: Some(true), ..TE::new(expected.cloned().unwrap_or(Ty::DontCare), ir::ExprKind::DontCare, span) }),
            A::DontCare => {
                self.error(span, "`_` (don't care) can only be an `out` argument or a keyset");
                Err(())
            }
            A::Default | A::Mask(..) | A::Range(..) | A::Tuple(_) | A::Dots => {
                self.error(span, "keyset expressions are only allowed in select cases and table entries");
                Err(())
            }
            A::Type(t) => {
                let t = self.resolve_type(t);
                let s = self.show(&t);
                self.error(span, format!("type `{s}` used where a value is expected"));
                Err(())
            }
            A::Error => Err(()),
        }
    }

    fn int_lit(&mut self, lit: &ast::IntLit, expected: Option<&Ty>, span: Span) -> R<TE> {
        match lit.width {
            Some((width, signed)) => {
                if width > crate::sema::MAX_WIDTH {
                    self.error(span, format!("literal width {width} exceeds the supported maximum of {} bits", crate::sema::MAX_WIDTH));
                    return Err(());
                }
                if width == 0 && signed {
                    self.error(span, "signed integer literal must be at least 1 bit wide");
                    return Err(());
                }
                // A signed literal's digits are its two's complement bit pattern (`8s0b1010_1010` is
                // -86, per the spec), so it must fit in W bits as an unsigned number.
                // Written in decimal it is a number, and one that does not fit wraps with a
                // warning like any other (the spec's table: `2s3` is -1, overflow warning).
                let digits = self.text(span).to_ascii_lowercase();
                let digits = digits.split_once('s').map(|(_, d)| d.to_string()).unwrap_or_default();
                let pattern_notation = ["0x", "0b", "0o"].iter().any(|p| digits.starts_with(p));
                let as_pattern = signed && pattern_notation && ce::fits(width, false, &lit.value);
                let value = if !as_pattern && !ce::fits(width, signed, &lit.value) {
                    // Per the spec's table of literals (`1w10` is 0), the value wraps: a warning.
                    let kind = if signed { "int" } else { "bit" };
                    let wrapped = ce::bits(width, signed, lit.value.clone());
                    let shown = ce::int_of(&wrapped).map(|v| v.to_string()).unwrap_or_default();
                    self.warn(span, format!("value {} does not fit in {kind}<{width}>; it wraps to {shown}", lit.value));
                    wrapped
                } else {
                    ce::bits(width, signed, lit.value.clone())
                };
                Ok(self.konst(value, Ty::Bits { width, signed }, span))
            }
            None => {
                let te = self.konst(Value::InfInt(lit.value.clone()), Ty::InfInt, span);
                match expected.map(|t| self.subst.resolve(t)) {
                    Some(Ty::Bits { width, signed }) => self.int_to_bits(te, width, signed, span),
                    _ => Ok(te),
                }
            }
        }
    }

    fn name_expr(&mut self, p: &'a ast::Path, span: Span) -> R<TE> {
        if !p.global {
            if let Some(l) = self.lookup_local(&p.name.name).cloned() {
                return match l {
                    Local::Var { id, ty, writable } => Ok(TE { lv: Some(writable), ..TE::new(ty, ir::ExprKind::Var(id), span) }),
                    Local::Const { value, ty } => Ok(self.konst(value, ty, span)),
                    Local::Extern { id, ty } => Ok(TE::new(ty, ir::ExprKind::Extern(id), span)),
                    _ => {
                        self.error(span, format!("`{}` is not a value", p.name.name));
                        Err(())
                    }
                };
            }
        }
        match self.lookup_global(&p.name.name).cloned() {
            Some(Global::Const { value, ty }) => {
                if ty.is_unknown() {
                    return Err(());
                }
                Ok(self.konst(value, ty, span))
            }
            Some(Global::Instance(d)) => {
                let (id, ty) = self.global_instance(d, span)?;
                Ok(TE::new(ty, ir::ExprKind::Extern(id), span))
            }
            Some(_) => {
                self.error(span, format!("`{}` is not a value", p.name.name));
                Err(())
            }
            // A `match_kind` member used as a value (`const tuple<match_kind> k = { exact };`).
            None if self.match_kinds.iter().any(|k| *k == p.name.name) => {
                let i = self.match_kinds.iter().position(|m| *m == p.name.name).unwrap_or(0);
                Ok(self.konst(Value::MatchKind(i as u32), Ty::MatchKind, span))
            }
            None => {
                self.error_at(p.name.span, format!("undeclared name `{}`", p.name.name), "not found in this scope");
                Err(())
            }
        }
    }

    /// If `e` names a type (`E`, `error`, `bit<8>`), that type.
    pub fn expr_as_type(&mut self, e: &'a ast::Expr) -> Option<Ty> {
        match &e.kind {
            A::Type(t) => Some(self.resolve_type(t)),
            A::Name(p) if !p.global && self.lookup_local(&p.name.name).is_some() => None,
            A::Name(p) => {
                if !p.global {
                    if let Some(t) = self.tparams.get(p.name.name.as_str()) {
                        return Some(t.clone());
                    }
                }
                if p.name.name == "error" && self.lookup_global("error").is_none() {
                    return Some(Ty::Error);
                }
                match self.lookup_global(&p.name.name) {
                    Some(Global::Type(t)) => Some(t.clone()),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    // ------------------------------------------------------------ members, indexing

    fn member(&mut self, base: &'a ast::Expr, m: &'a ast::Ident, span: Span) -> R<TE> {
        if let Some(t) = self.expr_as_type(base) {
            return self.type_member(&t, m, span);
        }
        // `t.apply().hit`
        if let A::Call { callee, args, .. } = &base.kind {
            if let A::Member(tb, apply) = &callee.kind {
                if apply.name == "apply" && args.is_empty() {
                    if let Some(Local::Table { id, .. }) = self.name_local(tb) {
                        let r = match m.name.as_str() {
                            "hit" => ir::ApplyResult::Hit,
                            "miss" => ir::ApplyResult::Miss,
                            "action_run" => {
                                self.error(span, "`action_run` can only be used as a `switch` expression");
                                return Err(());
                            }
                            _ => {
                                self.error(m.span, format!("table apply result has no member `{}`", m.name));
                                return Err(());
                            }
                        };
                        self.check_table_apply_context(span)?;
                        return Ok(TE::new(Ty::Bool, ir::ExprKind::ApplyTable(id, r), span));
                    }
                }
            }
        }
        let b = self.expr(base, None)?;
        let bt = self.subst.resolve(&b.ty);
        match &bt {
            Ty::Named(n) if self.named[*n].kind != NamedKind::Enum => {
                let Some(i) = self.named[*n].fields.iter().position(|(f, _)| *f == m.name) else {
                    let tn = self.named[*n].name.clone();
                    self.error(m.span, format!("`{tn}` has no field `{}`", m.name));
                    return Err(());
                };
                let fty = self.named[*n].fields[i].1.clone();
                let val = match &b.val {
                    Some(Value::Aggregate { fields, .. }) => fields.get(i).cloned(),
                    _ => None,
                };
                let lv = b.lv;
                let base_ir = self.lower_te(b);
                Ok(TE { val, lv, ..TE::new(fty, ir::ExprKind::Field(Box::new(base_ir), i as u32), span) })
            }
            Ty::Stack(elem, n) => {
                let lv = b.lv;
                let elem = (**elem).clone();
                let n = *n;
                let base_ir = self.lower_te(b);
                let bx = Box::new(base_ir);
                let in_parser = self.cx.as_ref().is_some_and(|c| c.kind == crate::sema::BlockKind::Parser);
                if matches!(m.name.as_str(), "next" | "last" | "lastIndex") && !in_parser {
                    self.error(m.span, format!("`{}` of a header stack can only be used in parsers", m.name));
                    return Err(());
                }
                match m.name.as_str() {
                    "next" => Ok(TE { lv, ..TE::new(elem, ir::ExprKind::StackNext(bx), span) }),
                    "last" => Ok(TE { lv, ..TE::new(elem, ir::ExprKind::StackLast(bx), span) }),
                    "lastIndex" => Ok(TE::new(Ty::bit(32), ir::ExprKind::StackLastIndex(bx), span)),
                    "size" => Ok(self.konst(ce::bits(32, false, BigInt::from(n)), Ty::bit(32), span)),
                    _ => {
                        self.error(m.span, format!("header stacks have no member `{}`", m.name));
                        Err(())
                    }
                }
            }
            Ty::Param(_) | Ty::Unknown if self.check_mode || bt.is_unknown() => Ok(TE::unknown(span)),
            other => {
                let s = self.show(other);
                self.error(m.span, format!("type `{s}` has no member `{}`", m.name));
                Err(())
            }
        }
    }

    fn type_member(&mut self, t: &Ty, m: &'a ast::Ident, span: Span) -> R<TE> {
        match t {
            Ty::Error => match self.errors.iter().position(|e| *e == m.name) {
                Some(i) => Ok(self.konst(Value::Error(i as u32), Ty::Error, span)),
                None => {
                    self.error(m.span, format!("`error` has no member `{}`", m.name));
                    Err(())
                }
            },
            Ty::Named(n) if self.named[*n].kind == NamedKind::Enum => {
                let Some(i) = self.named[*n].members.iter().position(|(x, _)| *x == m.name) else {
                    let en = self.named[*n].name.clone();
                    self.error(m.span, format!("enum `{en}` has no member `{}`", m.name));
                    return Err(());
                };
                let tid = self.ir_type_id(t);
                Ok(self.konst(Value::Enum(tid, i as u32), t.clone(), span))
            }
            Ty::Param(_) if self.check_mode => Ok(TE::unknown(span)),
            _ => {
                let s = self.show(t);
                self.error(span, format!("type `{s}` has no member `{}`", m.name));
                Err(())
            }
        }
    }

    pub fn name_local(&self, e: &ast::Expr) -> Option<Local<'a>> {
        match &e.kind {
            A::Name(p) if !p.global => self.lookup_local(&p.name.name).cloned(),
            _ => None,
        }
    }

    pub fn check_table_apply_context(&mut self, span: Span) -> R<()> {
        match self.callable {
            Callable::ControlApply => Ok(()),
            Callable::Action => {
                self.error(span, "tables cannot be applied inside actions");
                Err(())
            }
            Callable::Function { .. } => {
                self.error(span, "tables cannot be applied inside functions");
                Err(())
            }
            _ => {
                self.error(span, "tables can only be applied in a control's apply block");
                Err(())
            }
        }
    }

    fn index(&mut self, base: &'a ast::Expr, idx: &'a ast::Expr, span: Span) -> R<TE> {
        let b = self.expr(base, None)?;
        match self.subst.resolve(&b.ty) {
            Ty::Stack(elem, n) => {
                let i = self.expr(idx, None)?;
                let i = match self.subst.resolve(&i.ty) {
                    Ty::InfInt => self.coerce(i, &Ty::bit(32), idx.span)?,
                    Ty::Bits { .. } => i,
                    Ty::Unknown => i,
                    // A serializable enum index is used through its underlying type (as p4c does).
                    t @ Ty::Named(_) if self.ser_enum_underlying(&t).is_some() => {
                        let u = self.ser_enum_underlying(&t).unwrap_or(Ty::Unknown);
                        self.enum_to_underlying(i, u)
                    }
                    other => {
                        let s = self.show(&other);
                        self.error(idx.span, format!("stack index must be an integer, not `{s}`"));
                        return Err(());
                    }
                };
                if let Some(v) = i.val.as_ref().and_then(ce::int_of) {
                    if v.is_negative() || *v >= BigInt::from(n) {
                        self.error(idx.span, format!("index {v} is out of bounds for a stack of size {n}"));
                        return Err(());
                    }
                }
                let lv = b.lv;
                let (bi, ii) = (self.lower_te(b), self.lower_te(i));
                Ok(TE { lv, ..TE::new(*elem, ir::ExprKind::Index(Box::new(bi), Box::new(ii)), span) })
            }
            Ty::Tuple(ts) => {
                let i = self.expr(idx, None)?;
                let k = i.val.as_ref().and_then(ce::int_of).and_then(|v| v.to_usize());
                match (k, &b.val) {
                    (Some(k), Some(Value::Aggregate { fields, .. })) if k < ts.len() => {
                        let v = fields.get(k).cloned().unwrap_or(Value::Bool(false));
                        Ok(self.konst(v, ts[k].clone(), span))
                    }
                    (Some(k), _) if k >= ts.len() => {
                        self.error(idx.span, format!("index {k} is out of bounds for a tuple of {} elements", ts.len()));
                        Err(())
                    }
                    (Some(k), _) => {
                        // Tuple elements are addressed like struct fields (see `ExprKind::Field`).
                        let lv = b.lv;
                        let bi = self.lower_te(b);
                        Ok(TE { lv, ..TE::new(ts[k].clone(), ir::ExprKind::Field(Box::new(bi), k as u32), span) })
                    }
                    (None, _) => {
                        self.error(idx.span, "a tuple index must be a compile-time constant");
                        Err(())
                    }
                }
            }
            Ty::Bits { .. } | Ty::InfInt => {
                self.error(span, "bit-string slices are written `e[hi:lo]`; `e[i]` needs a stack");
                Err(())
            }
            Ty::Unknown | Ty::Param(_) => Ok(TE::unknown(span)),
            other => {
                let s = self.show(&other);
                self.error(span, format!("cannot index a value of type `{s}`"));
                Err(())
            }
        }
    }

    fn slice(&mut self, b: TE, h: u32, l: u32, span: Span) -> R<TE> {
        // A serializable enum's value is sliced as its underlying `bit<W>` (read only).
        let b = match self.ser_enum_underlying(&self.subst.resolve(&b.ty)) {
            Some(u) => self.enum_to_underlying(b, u),
            None => b,
        };
        if h < l {
            self.error(span, format!("slice [{h}:{l}] has its high bound below its low bound"));
            return Err(());
        }
        if h >= crate::sema::MAX_WIDTH {
            self.error(span, format!("slice [{h}:{l}] is out of range"));
            return Err(());
        }
        let ty = Ty::bit(h - l + 1);
        match self.subst.resolve(&b.ty) {
            Ty::Bits { width, .. } => {
                if h >= width {
                    let s = self.show(&b.ty);
                    self.error(span, format!("slice [{h}:{l}] is out of range for `{s}`"));
                    return Err(());
                }
                let val = b.val.as_ref().and_then(|v| ce::slice(v, h, l));
                let lv = b.lv;
                let bi = self.lower_te(b);
                Ok(TE { val, lv, ..TE::new(ty, ir::ExprKind::Slice(Box::new(bi), h, l), span) })
            }
            Ty::InfInt => match b.val.as_ref().and_then(|v| ce::slice(v, h, l)) {
                Some(v) => Ok(self.konst(v, ty, span)),
                None => {
                    self.error(span, "slice of a non-constant `int`");
                    Err(())
                }
            },
            Ty::Unknown | Ty::Param(_) => Ok(TE::unknown(span)),
            other => {
                let s = self.show(&other);
                self.error(span, format!("cannot slice a value of type `{s}`"));
                Err(())
            }
        }
    }

    // ------------------------------------------------------------ operators

    fn unary(&mut self, op: UnOp, x: &'a ast::Expr, expected: Option<&Ty>, span: Span) -> R<TE> {
        let exp = expected.filter(|t| t.is_bits()).cloned();
        let a = self.expr(x, if op == UnOp::Not { None } else { exp.as_ref() })?;
        let t = self.subst.resolve(&a.ty);
        let ok = match op {
            UnOp::Not => t == Ty::Bool,
            UnOp::BitNot => t.is_bits(),
            UnOp::Neg | UnOp::Plus => t.is_numeric(),
        } || t.is_unknown()
            || matches!(t, Ty::Param(_));
        if !ok {
            let s = self.show(&t);
            let sym = match op {
                UnOp::Not => "!",
                UnOp::BitNot => "~",
                UnOp::Neg => "-",
                UnOp::Plus => "+",
            };
            let hint = if op == UnOp::BitNot && t == Ty::InfInt { " (give the literal a width, e.g. `~8w0`)" } else { "" };
            self.error(span, format!("operator `{sym}` cannot be applied to `{s}`{hint}"));
            return Err(());
        }
        let val = match &a.val {
            Some(v) => match ce::unary(op, v) {
                Ok(v) => Some(v),
                Err(msg) => {
                    self.error(span, msg);
                    return Err(());
                }
            },
            None => None,
        };
        let ai = self.lower_te(a);
        Ok(TE { val, ..TE::new(t, ir::ExprKind::Unary(op, Box::new(ai)), span) })
    }

    /// Two operands of the same serializable enum type, used arithmetically, become its underlying type.
    fn decay_enums(&mut self, l: TE, r: TE) -> (TE, TE) {
        match self.ser_enum_underlying(&self.subst.resolve(&l.ty)) {
            Some(u) => {
                let l = self.enum_to_underlying(l, u.clone());
                let r = self.enum_to_underlying(r, u);
                (l, r)
            }
            None => (l, r),
        }
    }

    pub fn ser_enum_underlying(&self, t: &Ty) -> Option<Ty> {
        match t {
            Ty::Named(n) if self.named[*n].kind == NamedKind::Enum => self.named[*n].underlying.clone(),
            _ => None,
        }
    }

    fn enum_to_underlying(&mut self, te: TE, u: Ty) -> TE {
        let span = te.span;
        let val = te.val.as_ref().and_then(|v| self.fold_cast(v, &u, span));
        let inner = self.lower_te(te);
        TE { val, ..TE::new(u, ir::ExprKind::Cast(Box::new(inner)), span) }
    }

    /// Bring two operands to one type (`int` constants take the other side's width; serializable
    /// enums meeting other types decay to their underlying type).
    fn unify_operands(&mut self, l: TE, r: TE, op: BinOp, span: Span) -> R<(TE, TE)> {
        let (lt, rt) = (self.subst.resolve(&l.ty), self.subst.resolve(&r.ty));
        if lt != rt {
            let (lu, ru) = (self.ser_enum_underlying(&lt), self.ser_enum_underlying(&rt));
            if lu.is_some() || ru.is_some() {
                let l = match lu {
                    Some(u) => self.enum_to_underlying(l, u),
                    None => l,
                };
                let r = match ru {
                    Some(u) => self.enum_to_underlying(r, u),
                    None => r,
                };
                return self.unify_operands(l, r, op, span);
            }
        }
        if lt == Ty::InfInt && rt.is_bits() {
            let l = self.coerce(l, &rt, span)?;
            return Ok((l, r));
        }
        if rt == Ty::InfInt && lt.is_bits() {
            let r = self.coerce(r, &lt, span)?;
            return Ok((l, r));
        }
        if self.unify(&lt, &rt) {
            return Ok((l, r));
        }
        let (a, b) = (self.show(&lt), self.show(&rt));
        self.error(span, format!("operator `{}` cannot be applied to `{a}` and `{b}`", op.symbol()));
        Err(())
    }

    /// p4c: a list with `...` (default values for the rest) only initializes or is assigned; it
    /// cannot be compared, returned or passed as an argument (`what` names the use).
    pub fn reject_default_values(&mut self, e: &ast::Expr, what: &str) -> R<()> {
        let dots = match &e.kind {
            A::List(items) => items.iter().any(|i| matches!(i.kind, A::Dots)),
            A::StructInit { has_dots, .. } => *has_dots,
            _ => false,
        };
        if dots {
            self.error(e.span, format!("a list with default values `...` cannot be used in {what}"));
            return Err(());
        }
        Ok(())
    }

    fn binary(&mut self, op: BinOp, le: &'a ast::Expr, re: &'a ast::Expr, expected: Option<&Ty>, span: Span) -> R<TE> {
        use BinOp::*;
        // The context's width flows into the operands (so `x = ~0 & m` works), except for `/` and
        // `%`, whose operands must keep their signs (`-8 / -2` is an error, not 248 / 254).
        let arith = matches!(op, Add | Sub | Mul | AddSat | SubSat | BitAnd | BitOr | BitXor);
        let exp = if arith { expected.filter(|t| t.is_bits()).cloned() } else { None };
        let structured = |e: &ast::Expr| matches!(e.kind, A::List(_) | A::StructInit { .. } | A::InvalidHeader);
        if matches!(op, Eq | Ne) {
            let word = if op == Eq { "`==`" } else { "`!=`" };
            for e in [le, re] {
                self.reject_default_values(e, word)?;
            }
        }
        if matches!(op, Eq | Ne) && structured(le) && structured(re) {
            self.error(span, "cannot compare two list expressions: neither side has a type");
            return Err(());
        }
        if matches!(op, Eq | Ne) && (structured(le) || structured(re)) {
            // `s == { 1, 2 }`: the list takes the other side's type.
            let (first, second) = if structured(re) { (le, re) } else { (re, le) };
            let a = self.expr(first, None)?;
            let at = self.subst.resolve(&a.ty);
            let b = self.expr(second, Some(&at))?;
            let b = self.coerce(b, &at, second.span)?;
            let (l, r) = if structured(re) { (a, b) } else { (b, a) };
            return self.binary_te(op, l, r, le.span, re.span, span);
        }
        let l = self.expr(le, exp.as_ref());
        let r = self.expr(re, if matches!(op, Shl | Shr) { None } else { exp.as_ref() });
        let (l, r) = (l?, r?);
        self.binary_te(op, l, r, le.span, re.span, span)
    }

    /// Type and fold `l op r` for already-lowered operands (also used by compound assignments).
    pub fn binary_te(&mut self, op: BinOp, l: TE, r: TE, lspan: Span, rspan: Span, span: Span) -> R<TE> {
        use BinOp::*;
        let (lt, rt) = (self.subst.resolve(&l.ty), self.subst.resolve(&r.ty));
        if lt.is_unknown() || rt.is_unknown() || matches!(lt, Ty::Param(_)) || matches!(rt, Ty::Param(_)) {
            let result = if matches!(op, Eq | Ne | Lt | Le | Gt | Ge | And | Or) { Ty::Bool } else { Ty::Unknown };
            return Ok(TE::unknown(span)).map(|mut t| {
                t.ty = result;
                t
            });
        }
        let (l, r, ty) = match op {
            And | Or => {
                if lt != Ty::Bool || rt != Ty::Bool {
                    let (a, b) = (self.show(&lt), self.show(&rt));
                    self.error(span, format!("operator `{}` needs bool operands, found `{a}` and `{b}`", op.symbol()));
                    return Err(());
                }
                (l, r, Ty::Bool)
            }
            Eq | Ne => {
                let (l, r) = self.unify_operands(l, r, op, span)?;
                let t = self.subst.resolve(&l.ty);
                if matches!(t, Ty::Extern(..) | Ty::Block(..) | Ty::Void | Ty::String) || (t == Ty::InfInt && (l.val.is_none() || r.val.is_none())) {
                    let s = self.show(&t);
                    self.error(span, format!("values of type `{s}` cannot be compared"));
                    return Err(());
                }
                (l, r, Ty::Bool)
            }
            Lt | Le | Gt | Ge => {
                let (l, r) = self.unify_operands(l, r, op, span)?;
                let (l, r) = self.decay_enums(l, r);
                let t = self.subst.resolve(&l.ty);
                if !t.is_numeric() {
                    let s = self.show(&t);
                    self.error(span, format!("operator `{}` needs numeric operands, found `{s}`", op.symbol()));
                    return Err(());
                }
                (l, r, Ty::Bool)
            }
            Shl | Shr => {
                if !lt.is_numeric() {
                    let s = self.show(&lt);
                    self.error(lspan, format!("cannot shift a value of type `{s}`"));
                    return Err(());
                }
                // A serializable enum shift amount converts to its underlying type.
                let (r, rt) = match self.ser_enum_underlying(&rt) {
                    Some(u) => (self.coerce(r, &u, rspan)?, u),
                    None => (r, rt),
                };
                match &rt {
                    Ty::Bits { signed: true, .. } => {
                        self.error(rspan, "the shift amount must be unsigned (bit<W>) or a non-negative constant");
                        return Err(());
                    }
                    Ty::Bits { .. } => {}
                    Ty::InfInt => match r.val.as_ref().and_then(ce::int_of) {
                        Some(v) if v.is_negative() => {
                            self.error(rspan, format!("shift by a negative amount ({v})"));
                            return Err(());
                        }
                        Some(_) => {}
                        None => {
                            self.error(rspan, "an `int` shift amount must be a compile-time constant");
                            return Err(());
                        }
                    },
                    other => {
                        let s = self.show(other);
                        self.error(rspan, format!("shift amount must be an unsigned integer, not `{s}`"));
                        return Err(());
                    }
                }
                if lt == Ty::InfInt && r.val.is_none() {
                    self.error(lspan, "shifting an `int` by a run-time amount: the left operand needs a width");
                    return Err(());
                }
                if let (Ty::Bits { width, .. }, Some(v)) = (&lt, r.val.as_ref().and_then(ce::int_of)) {
                    if *v > BigInt::from(*width) {
                        self.warn(span, format!("shifting a {width}-bit value by {v} always produces 0"));
                    }
                }
                let r = if rt == Ty::InfInt && lt.is_bits() {
                    let amount = r.val.as_ref().and_then(ce::int_of).cloned().unwrap_or_default();
                    let w = (amount.bits() as u32).max(1);
                    self.coerce(r, &Ty::bit(w.max(8)), rspan)?
                } else {
                    r
                };
                (l, r, lt)
            }
            Concat => {
                match (&lt, &rt) {
                    // Strings concatenate at compile time only (spec, "Operations on strings").
                    (Ty::String, Ty::String) => {
                        return match (&l.val, &r.val) {
                            (Some(Value::String(a)), Some(Value::String(b))) => {
                                let joined = Value::String(format!("{a}{b}"));
                                Ok(self.konst(joined, Ty::String, span))
                            }
                            _ => {
                                self.error(span, "strings can be concatenated only at compile time: both operands must be constants");
                                Err(())
                            }
                        };
                    }
                    (Ty::Bits { width: a, signed }, Ty::Bits { width: b, .. }) => {
                        if a.saturating_add(*b) > crate::sema::MAX_WIDTH {
                            self.error(span, "the concatenation is too wide");
                            return Err(());
                        }
                        let t = Ty::Bits { width: a + b, signed: *signed };
                        (l, r, t)
                    }
                    _ => {
                        let (a, b) = (self.show(&lt), self.show(&rt));
                        self.error(span, format!("operator `++` needs fixed-width operands, found `{a}` and `{b}`"));
                        return Err(());
                    }
                }
            }
            _ => {
                // A negative `int` constant operand of `/` or `%` (`x / -1`): the operations are
                // only defined on non-negative values, and the constant would silently become a
                // large unsigned one below.
                if matches!(op, Div | Mod) {
                    for (side, sp) in [(&l, lspan), (&r, rspan)] {
                        if side.ty == Ty::InfInt && side.val.as_ref().and_then(ce::int_of).is_some_and(|v| v.sign() == num_bigint::Sign::Minus) {
                            self.error(sp, "division and modulo are only defined on non-negative values");
                            return Err(());
                        }
                    }
                }
                let (l, r) = self.unify_operands(l, r, op, span)?;
                let (l, r) = self.decay_enums(l, r);
                let t = self.subst.resolve(&l.ty);
                if !t.is_numeric() {
                    let s = self.show(&t);
                    self.error(span, format!("operator `{}` cannot be applied to `{s}`", op.symbol()));
                    return Err(());
                }
                if matches!(op, Div | Mod) {
                    if let Some(v) = r.val.as_ref().and_then(ce::int_of) {
                        if v.is_zero() {
                            self.error(rspan, "division by zero");
                            return Err(());
                        }
                    }
                    if matches!(t, Ty::Bits { signed: true, .. }) && (l.val.is_none() || r.val.is_none()) {
                        self.error(span, format!("operator `{}` is not defined on signed values computed at run time", op.symbol()));
                        return Err(());
                    }
                    // The specification defines `/` and `%` on `int` and `int<W>` only; on
                    // `bit<W>` they are what the reference compiler makes of them: computed at
                    // compile time, or a shift and a mask for a constant power-of-two divisor.
                    let pow2 = r.val.as_ref().and_then(ce::int_of).is_some_and(|v| v.sign() == num_bigint::Sign::Plus && (v & (v - 1u32)).is_zero());
                    if (l.val.is_none() || r.val.is_none()) && !pow2 {
                        self.error(span, format!("`{}` on a run-time value needs a constant power-of-two divisor (computed at compile time otherwise)", op.symbol()));
                        return Err(());
                    }
                }
                if t == Ty::InfInt && (l.val.is_none() || r.val.is_none()) {
                    self.error(span, "arithmetic on `int` needs compile-time constants");
                    return Err(());
                }
                (l, r, t)
            }
        };
        let val = match (&l.val, &r.val) {
            (Some(a), Some(b)) => match ce::binary(op, a, b) {
                Ok(v) => Some(v),
                Err(msg) => {
                    self.error(span, msg);
                    return Err(());
                }
            },
            _ => None,
        };
        let (li, ri) = (self.lower_te(l), self.lower_te(r));
        Ok(TE { val, ..TE::new(ty, ir::ExprKind::Binary(op, Box::new(li), Box::new(ri)), span) })
    }

    fn ternary(&mut self, c: &'a ast::Expr, a: &'a ast::Expr, b: &'a ast::Expr, expected: Option<&Ty>, span: Span) -> R<TE> {
        let c = self.expr(c, None);
        // Like p4c, the context's width does not flow into the branches: `c ? 1 : 0` needs a
        // width on at least one side (structured values still take the expected type).
        let exp = expected.filter(|t| !t.is_bits());
        let x = self.expr(a, exp);
        let y = self.expr(b, exp);
        let (c, x, y) = (c?, x?, y?);
        let c = self.coerce(c, &Ty::Bool, span)?;
        let (xt, yt) = (self.subst.resolve(&x.ty), self.subst.resolve(&y.ty));
        let (x, y) = if xt == Ty::InfInt && yt.is_bits() {
            (self.coerce(x, &yt, span)?, y)
        } else if yt == Ty::InfInt && xt.is_bits() {
            let y = self.coerce(y, &xt, span)?;
            (x, y)
        } else if self.unify(&xt, &yt) {
            (x, y)
        } else {
            let (a, b) = (self.show(&xt), self.show(&yt));
            self.error(span, format!("the branches of `?:` have different types: `{a}` and `{b}`"));
            return Err(());
        };
        let ty = self.subst.resolve(&x.ty);
        let val = match &c.val {
            Some(Value::Bool(true)) => x.val.clone(),
            Some(Value::Bool(false)) => y.val.clone(),
            _ => None,
        };
        if ty == Ty::InfInt && val.is_none() {
            self.error(span, "width must be specified for at least one branch of `?:` (both are `int` literals)");
            return Err(());
        }
        let (ci, xi, yi) = (self.lower_te(c), self.lower_te(x), self.lower_te(y));
        Ok(TE { val, ..TE::new(ty, ir::ExprKind::Mux(Box::new(ci), Box::new(xi), Box::new(yi)), span) })
    }

    fn cast(&mut self, to: Ty, x: &'a ast::Expr, span: Span) -> R<TE> {
        let to = self.subst.resolve(&to);
        let structured = matches!(x.kind, A::List(_) | A::StructInit { .. } | A::InvalidHeader);
        // p4c: a struct of only fixed-width fields and `bit<W>` of its total width convert both
        // ways. Accepted; p4forge cannot elaborate it (no IR form for it).
        if !structured {
            if let Some(w) = self.flat_struct_width(&to) {
                let a = self.expr(x, None)?;
                let from = self.subst.resolve(&a.ty);
                if matches!(from, Ty::Bits { width, signed: false } if width == w) {
                    return Ok(self.struct_bits_cast(a, to, span));
                }
                let s = self.show(&to);
                self.error(span, format!("cannot cast to `{s}`: struct and header values can only be built from `{{...}}` lists (or, for a struct of fixed-width fields, from `bit<{w}>`)"));
                return Err(());
            }
        }
        if !structured && matches!(&to, Ty::Named(n) if self.named[*n].kind != NamedKind::Enum) {
            let s = self.show(&to);
            self.error(span, format!("cannot cast to `{s}`: struct and header values can only be built from `{{...}}` lists"));
            return Err(());
        }
        let a = self.expr(x, if structured { Some(&to) } else { None })?;
        let from = self.subst.resolve(&a.ty);
        if structured || from == to {
            return self.coerce(a, &to, span);
        }
        if from.is_unknown() || to.is_unknown() || matches!(from, Ty::Param(_)) || matches!(to, Ty::Param(_)) {
            return Ok(TE { ty: to, ..a });
        }
        let underlying = |s: &Self, t: &Ty| -> Option<Ty> {
            match t {
                Ty::Named(n) if s.named[*n].kind == NamedKind::Enum => s.named[*n].underlying.clone(),
                Ty::NewType(n) => Some(s.newtypes[*n].underlying.clone()),
                _ => None,
            }
        };
        if let (Some(w), Ty::Bits { width, signed: false }) = (self.flat_struct_width(&from), &to) {
            if w == *width {
                return Ok(self.struct_bits_cast(a, to, span));
            }
        }
        let ok = match (&from, &to) {
            (Ty::Bits { width: a, signed: s }, Ty::Bits { width: b, signed: t }) => a == b || s == t,
            (Ty::Bool, Ty::Bits { width: 1, signed: false }) | (Ty::Bits { width: 1, signed: false }, Ty::Bool) => true,
            (Ty::InfInt, Ty::Bits { .. }) => true,
            (Ty::Bits { .. }, Ty::InfInt) => true,
            (Ty::InfInt, Ty::Bool) => matches!(a.val.as_ref().and_then(ce::int_of).and_then(|v| v.to_i64()), Some(0 | 1)),
            // Between two serializable enums (p4c): when their underlying types could be cast.
            (Ty::Named(_), Ty::Named(_)) if underlying(self, &from).is_some() && underlying(self, &to).is_some() => {
                match (underlying(self, &from), underlying(self, &to)) {
                    (Some(Ty::Bits { width: a, signed: s }), Some(Ty::Bits { width: b, signed: t })) => a == b || s == t,
                    (u, v) => u == v,
                }
            }
            // As p4c: into a `type` or serializable enum only from exactly its underlying type
            // (or an `int` constant).
            (_, Ty::NewType(_) | Ty::Named(_)) if underlying(self, &to).is_some() => {
                let u = underlying(self, &to).unwrap_or(Ty::Unknown);
                u == from || from == Ty::InfInt
            }
            (Ty::NewType(_) | Ty::Named(_), _) if underlying(self, &from).is_some() => {
                let u = underlying(self, &from).unwrap_or(Ty::Unknown);
                u == to || matches!((&u, &to), (Ty::Bits{width: a, ..}, Ty::Bits{width: b, ..}) if a == b)
            }
            _ => false,
        };
        if !ok {
            let (f, t) = (self.show(&from), self.show(&to));
            self.error(span, format!("cannot cast `{f}` to `{t}`"));
            return Err(());
        }
        let val = a.val.as_ref().and_then(|v| self.fold_cast(v, &to, span));
        let ai = self.lower_te(a);
        Ok(TE { val, ..TE::new(to, ir::ExprKind::Cast(Box::new(ai)), span) })
    }

    /// The total width of a struct whose fields are all `bit<W>`, `int<W>`, `bool` or such
    /// structs; `None` for anything else.
    fn flat_struct_width(&self, t: &Ty) -> Option<u32> {
        match self.subst.resolve(t) {
            Ty::Named(n) if self.named[n].kind == NamedKind::Struct && !self.named[n].fields.is_empty() => {
                let mut total: u32 = 0;
                for (_, f) in &self.named[n].fields {
                    let w = match f {
                        Ty::Bits { width, .. } => *width,
                        Ty::Bool => 1,
                        other => self.flat_struct_width(other)?,
                    };
                    total = total.checked_add(w)?;
                }
                Some(total)
            }
            _ => None,
        }
    }

    /// A cast between a flat struct and `bit<W>` (see [`Self::flat_struct_width`]).
    fn struct_bits_cast(&mut self, a: TE, to: Ty, span: Span) -> TE {
        if !self.check_mode {
            self.warn(span, "unsupported: a cast between a struct and `bit<W>`");
            self.unsupported = true;
        }
        let ai = self.lower_te(a);
        TE::new(to, ir::ExprKind::Cast(Box::new(ai)), span)
    }

    /// Whether member `i` of the enum of IR type `t` is named `name`.
    pub(crate) fn enum_member_is(&self, t: ir::TypeId, i: u32, name: &str) -> bool {
        let Some((Ty::Named(n), _)) = self.type_ids.iter().find(|(_, id)| **id == t) else { return false };
        self.named[*n].members.get(i as usize).is_some_and(|m| m.0 == name)
    }

    fn fold_cast(&mut self, v: &Value, to: &Ty, _span: Span) -> Option<Value> {
        let v = match v {
            Value::Enum(_, i) => {
                let n = self.named.iter().position(|d| d.kind == NamedKind::Enum && d.underlying.is_some() && d.members.len() > *i as usize)?;
                let _ = n;
                // Find the enum by its type id.
                let (t, _) = self.type_ids.iter().find(|(_, id)| matches!(v, Value::Enum(x, _) if x == *id))?;
                let Ty::Named(n) = t else { return None };
                Value::InfInt(self.named[*n].members.get(*i as usize)?.1.clone()?)
            }
            other => other.clone(),
        };
        match to {
            Ty::Bits { width, signed } => ce::to_bits(&v, *width, *signed),
            Ty::InfInt => ce::int_of(&v).map(|x| Value::InfInt(x.clone())),
            Ty::Bool => ce::int_of(&v).map(|x| Value::Bool(!x.is_zero())).or(match v {
                Value::Bool(b) => Some(Value::Bool(b)),
                _ => None,
            }),
            Ty::NewType(n) => {
                let u = self.newtypes[*n].underlying.clone();
                self.fold_cast(&v, &u, _span)
            }
            Ty::Named(n) if self.named[*n].kind == NamedKind::Enum => {
                let x = ce::int_of(&v)?.clone();
                let i = self.named[*n].members.iter().position(|(_, m)| m.as_ref() == Some(&x));
                match i {
                    Some(i) => {
                        let tid = self.ir_type_id(to);
                        Some(Value::Enum(tid, i as u32))
                    }
                    // A value without a named member stays numeric (the IR keeps a Cast).
                    None => None,
                }
            }
            _ => None,
        }
    }

    // ------------------------------------------------------------ aggregates

    fn list(&mut self, items: &'a [ast::Expr], expected: Option<&Ty>, span: Span) -> R<TE> {
        let exp = expected.map(|t| self.subst.resolve(t));
        if let Some(pos) = items.iter().position(|e| matches!(e.kind, A::Dots)) {
            return self.list_with_dots(&items[..pos], pos + 1 == items.len(), exp, span);
        }
        let field_tys: Option<Vec<Ty>> = match &exp {
            Some(Ty::Named(n)) if matches!(self.named[*n].kind, NamedKind::Struct | NamedKind::Header) => {
                Some(self.named[*n].fields.iter().map(|(_, t)| t.clone()).collect())
            }
            Some(Ty::Tuple(ts)) => Some(ts.clone()),
            Some(Ty::List(t)) => Some(vec![(**t).clone(); items.len()]),
            Some(Ty::Stack(t, n)) if *n as usize == items.len() => Some(vec![(**t).clone(); items.len()]),
            _ => None,
        };
        if let Some(fts) = &field_tys {
            if fts.len() != items.len() {
                let s = self.show(exp.as_ref().unwrap_or(&Ty::Unknown));
                self.error(span, format!("`{s}` has {} fields but the list has {} elements", fts.len(), items.len()));
                return Err(());
            }
        }
        let mut tes = vec![];
        let mut ok = true;
        for (i, it) in items.iter().enumerate() {
            let ft = field_tys.as_ref().and_then(|f| f.get(i).cloned());
            match self.expr(it, ft.as_ref()) {
                Ok(te) => match &ft {
                    Some(ft) => match self.coerce(te, ft, it.span) {
                        Ok(te) => tes.push(te),
                        Err(()) => ok = false,
                    },
                    None => tes.push(te),
                },
                Err(()) => ok = false,
            }
        }
        if !ok {
            return Err(());
        }
        let ty = match (&exp, field_tys.is_some()) {
            (Some(t), true) => t.clone(),
            _ => Ty::Tuple(tes.iter().map(|t| self.subst.resolve(&t.ty)).collect()),
        };
        self.aggregate(ty, tes, span)
    }

    /// `{ a, b, ... }`: the remaining fields take default values.
    fn list_with_dots(&mut self, items: &'a [ast::Expr], dots_last: bool, exp: Option<Ty>, span: Span) -> R<TE> {
        if !dots_last {
            self.error(span, "`...` must be the last element of a list");
            return Err(());
        }
        let field_tys: Vec<Ty> = match &exp {
            Some(Ty::Named(n)) if matches!(self.named[*n].kind, NamedKind::Struct | NamedKind::Header) => self.named[*n].fields.iter().map(|(_, t)| t.clone()).collect(),
            Some(Ty::Tuple(ts)) => ts.clone(),
            Some(Ty::Unknown | Ty::Param(_)) => return Ok(TE::unknown(span)),
            _ => {
                self.error(span, "a list with `...` needs a struct, header or tuple type from the context");
                return Err(());
            }
        };
        if items.len() > field_tys.len() {
            self.error(span, format!("the list has {} elements but the type has only {} fields", items.len(), field_tys.len()));
            return Err(());
        }
        let mut tes = vec![];
        for (it, ft) in items.iter().zip(&field_tys) {
            let te = self.expr(it, Some(ft))?;
            tes.push(self.coerce(te, ft, it.span)?);
        }
        for ft in &field_tys[items.len()..] {
            tes.push(self.default_value(ft, span));
        }
        let ty = exp.unwrap_or(Ty::Unknown);
        self.aggregate(ty, tes, span)
    }

    fn aggregate(&mut self, ty: Ty, tes: Vec<TE>, span: Span) -> R<TE> {
        let val = tes.iter().map(|t| t.val.clone()).collect::<Option<Vec<_>>>().map(|fields| Value::Aggregate { valid: true, fields });
        let irs = tes.into_iter().map(|t| self.lower_te(t)).collect();
        Ok(TE { val, ..TE::new(ty, ir::ExprKind::Aggregate(irs), span) })
    }

    fn struct_init(&mut self, fields: &'a [(ast::Ident, ast::Expr)], has_dots: bool, expected: Option<&Ty>, span: Span) -> R<TE> {
        let exp = expected.map(|t| self.subst.resolve(t));
        let Some(Ty::Named(n)) = exp.clone() else {
            if let Some(Ty::Unknown | Ty::Param(_)) = exp {
                return Ok(TE::unknown(span));
            }
            self.error(span, "a `{ field = value }` initializer needs a struct or header type from the context");
            return Err(());
        };
        if !matches!(self.named[n].kind, NamedKind::Struct | NamedKind::Header) {
            self.error(span, "a `{ field = value }` initializer needs a struct or header type");
            return Err(());
        }
        let decl_fields = self.named[n].fields.clone();
        let mut given: Vec<Option<TE>> = vec![None; decl_fields.len()];
        let mut ok = true;
        for (name, e) in fields {
            let Some(i) = decl_fields.iter().position(|(f, _)| *f == name.name) else {
                let tn = self.named[n].name.clone();
                self.error(name.span, format!("`{tn}` has no field `{}`", name.name));
                ok = false;
                continue;
            };
            if given[i].is_some() {
                self.error(name.span, format!("field `{}` initialized twice", name.name));
                ok = false;
                continue;
            }
            let ft = decl_fields[i].1.clone();
            match self.expr(e, Some(&ft)).and_then(|te| self.coerce(te, &ft, e.span)) {
                Ok(te) => given[i] = Some(te),
                Err(()) => ok = false,
            }
        }
        if !ok {
            return Err(());
        }
        let mut tes = vec![];
        for (i, g) in given.into_iter().enumerate() {
            match g {
                Some(te) => tes.push(te),
                None if has_dots => {
                    let ft = decl_fields[i].1.clone();
                    tes.push(self.default_value(&ft, span));
                }
                None => {
                    let tn = self.named[n].name.clone();
                    self.error(span, format!("field `{}` of `{tn}` is not initialized", decl_fields[i].0));
                    return Err(());
                }
            }
        }
        self.aggregate(Ty::Named(n), tes, span)
    }

    /// The value of an uninitialized/`...` field: zero, false, invalid.
    pub fn default_value(&mut self, t: &Ty, span: Span) -> TE {
        match self.subst.resolve(t) {
            Ty::Bool => self.konst(Value::Bool(false), Ty::Bool, span),
            Ty::Bits { width, signed } => self.konst(ce::bits(width, signed, BigInt::zero()), t.clone(), span),
            Ty::Error => self.konst(Value::Error(0), Ty::Error, span),
            Ty::Named(n) if matches!(self.named[n].kind, NamedKind::Header | NamedKind::Union) => TE::new(t.clone(), ir::ExprKind::InvalidHeader, span),
            Ty::Named(n) if self.named[n].kind == NamedKind::Struct => {
                let fs: Vec<Ty> = self.named[n].fields.iter().map(|(_, t)| t.clone()).collect();
                let tes = fs.iter().map(|f| self.default_value(f, span)).collect();
                self.aggregate(t.clone(), tes, span).unwrap_or_else(|_| TE::unknown(span))
            }
            other => TE::new(other, ir::ExprKind::DontCare, span),
        }
    }

    // ------------------------------------------------------------ sizes

    /// `minSizeInBits`-style size of a type: (min, max) in bits.
    pub fn type_size(&mut self, t: &Ty, span: Span) -> R<(u64, u64)> {
        Ok(match self.subst.resolve(t) {
            Ty::Bits { width, .. } => (width as u64, width as u64),
            Ty::Bool => (1, 1),
            Ty::Varbit(w) => (0, w as u64),
            Ty::Named(n) => {
                if let Some(u) = self.named[n].underlying.clone() {
                    return self.type_size(&u, span);
                }
                let fs: Vec<Ty> = self.named[n].fields.iter().map(|(_, t)| t.clone()).collect();
                let is_union = self.named[n].kind == NamedKind::Union;
                let (mut lo, mut hi) = (0u64, 0u64);
                for f in fs {
                    let (a, b) = self.type_size(&f, span)?;
                    if is_union {
                        lo = if lo == 0 { a } else { lo.min(a) };
                        hi = hi.max(b);
                    } else {
                        lo = lo.saturating_add(a);
                        hi = hi.saturating_add(b);
                    }
                }
                (lo, hi)
            }
            Ty::NewType(n) => {
                let u = self.newtypes[n].underlying.clone();
                self.type_size(&u, span)?
            }
            Ty::Stack(e, n) => {
                let (a, b) = self.type_size(&e, span)?;
                (a.saturating_mul(n as u64), b.saturating_mul(n as u64))
            }
            Ty::Tuple(ts) => {
                let (mut lo, mut hi) = (0u64, 0u64);
                for t in ts {
                    let (a, b) = self.type_size(&t, span)?;
                    lo = lo.saturating_add(a);
                    hi = hi.saturating_add(b);
                }
                (lo, hi)
            }
            other => {
                let s = self.show(&other);
                self.error(span, format!("type `{s}` has no size"));
                return Err(());
            }
        })
    }
}

fn has_param(t: &Ty) -> bool {
    match t {
        Ty::Param(_) => true,
        Ty::Stack(e, _) | Ty::List(e) => has_param(e),
        Ty::Tuple(ts) | Ty::Extern(_, ts) | Ty::Block(_, ts) => ts.iter().any(has_param),
        _ => false,
    }
}
