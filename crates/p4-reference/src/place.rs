//! L-values: where an assignment, an `out` argument or a builtin like `setValid` writes. A place
//! is a variable and a path of field and element steps below it; dynamic stack indexes are
//! evaluated once, when the place is found, as P4 evaluates l-values before the call or
//! assignment that writes them.

use p4_ir::{BlockRef, Expr, ExprKind, Type, TypeDef, VarId};

use crate::value::{self, Value};
use crate::{Interpreter, Run};

/// One step from a value to a part of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Field of a struct, header or union, or item of a tuple.
    Field(usize),
    /// Element of a stack; `None` for an index out of range (reads give 0, writes are ignored).
    Elem(Option<usize>),
}

/// A place to write.
#[derive(Clone, Debug)]
pub struct Place {
    pub block: BlockRef,
    pub var: VarId,
    pub path: Vec<Step>,
    /// `x[hi:lo] = v` writes only those bits.
    pub slice: Option<(u32, u32)>,
}

impl Place {
    /// Whether the place is out of range of a stack (writes to it are ignored).
    pub fn out_of_range(&self) -> bool {
        self.path.contains(&Step::Elem(None))
    }
}

/// The part of `v` at `path` (`None` past an out-of-range element).
pub fn at<'v>(v: &'v Value, path: &[Step]) -> Option<&'v Value> {
    let mut cur = v;
    for step in path {
        cur = match (cur, step) {
            (Value::Header { fields, .. } | Value::Struct(fields) | Value::Union(fields), Step::Field(i)) => {
                fields.get(*i)?
            }
            (Value::Stack { elems, .. }, Step::Elem(Some(i))) => elems.get(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

pub fn at_mut<'v>(v: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    let mut cur = v;
    for step in path {
        cur = match (cur, step) {
            (Value::Header { fields, .. } | Value::Struct(fields) | Value::Union(fields), Step::Field(i)) => {
                fields.get_mut(*i)?
            }
            (Value::Stack { elems, .. }, Step::Elem(Some(i))) => elems.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(cur)
}

impl Interpreter {
    /// The place l-value `e` denotes in block `b` (`None` for `_`, or an expression that is no
    /// l-value).
    pub(crate) fn place(&mut self, b: &BlockRef, e: &Expr) -> Run<Option<Place>> {
        Ok(match &e.kind {
            ExprKind::Var(v) => Some(Place { block: b.clone(), var: *v, path: Vec::new(), slice: None }),
            ExprKind::Field(base, i) => self.place(b, base)?.map(|mut p| {
                p.path.push(Step::Field(*i as usize));
                p
            }),
            ExprKind::Index(base, index) => {
                let Some(mut p) = self.place(b, base)? else { return Ok(None) };
                let i = self.eval(b, index)?.to_biguint();
                let size = stack_size(&base.ty);
                let i = u64::try_from(i).ok().filter(|i| *i < u64::from(size)).map(|i| i as usize);
                p.path.push(Step::Elem(i));
                Some(p)
            }
            ExprKind::StackNext(base) | ExprKind::StackLast(base) => {
                let Some(mut p) = self.place(b, base)? else { return Ok(None) };
                let next = match self.read_place(&p) {
                    Some(Value::Stack { next, .. }) => *next,
                    _ => 0,
                };
                let size = stack_size(&base.ty);
                let i = if matches!(e.kind, ExprKind::StackNext(_)) { Some(next) } else { next.checked_sub(1) };
                p.path.push(Step::Elem(i.filter(|i| *i < size).map(|i| i as usize)));
                Some(p)
            }
            ExprKind::Slice(base, hi, lo) => self.place(b, base)?.map(|mut p| {
                // A slice of a slice: the inner bounds are relative to the outer slice.
                p.slice = Some(match p.slice {
                    Some((_, outer_lo)) => (hi + outer_lo, lo + outer_lo),
                    None => (*hi, *lo),
                });
                p
            }),
            _ => None,
        })
    }

    /// The value at a place, as stored (`None` past an out-of-range element).
    pub(crate) fn read_place(&self, p: &Place) -> Option<&Value> {
        at(self.var_ref(&p.block, p.var), &p.path)
    }

    /// Reads an l-value expression the way an expression reads it: a field below an invalid
    /// header reads as 0, an out-of-range element as an invalid header.
    pub(crate) fn read_lvalue(&self, p: &Place, ty: &Type) -> Value {
        let mut cur = self.var_ref(&p.block, p.var);
        for step in &p.path {
            let next = match (cur, step) {
                (Value::Header { valid: false, .. }, Step::Field(_)) => None,
                (Value::Header { fields, .. } | Value::Struct(fields) | Value::Union(fields), Step::Field(i)) => {
                    fields.get(*i)
                }
                (Value::Stack { elems, .. }, Step::Elem(Some(i))) => elems.get(*i),
                _ => None,
            };
            match next {
                Some(v) => cur = v,
                None => return value::default_of(&self.program, ty),
            }
        }
        match p.slice {
            Some((hi, lo)) => slice_of(cur, hi, lo),
            None => cur.clone(),
        }
    }

    /// Writes `v` to place `p` (a slice writes its bits only; out of range: nothing).
    pub(crate) fn write_place(&mut self, p: &Place, v: Value) {
        if p.out_of_range() {
            return;
        }
        let Some(target) = at_mut(self.var_mut(&p.block, p.var), &p.path) else { return };
        match p.slice {
            None => *target = v,
            Some((hi, lo)) => {
                if let Value::Bits { width, signed, v: old } = target {
                    let n = hi - lo + 1;
                    let keep = value::mask(*width) ^ (value::mask(n) << lo);
                    let new = (old.clone() & keep) | ((v.to_biguint() & value::mask(n)) << lo);
                    *target = Value::Bits { width: *width, signed: *signed, v: new };
                }
            }
        }
    }

    /// After a union member was written or made valid: if it is valid now, the other members
    /// become invalid (a union holds at most one valid header). `e` is the member expression.
    pub(crate) fn union_fixup(&mut self, b: &BlockRef, e: &Expr) -> Run<()> {
        let ExprKind::Field(parent, idx) = &e.kind else { return Ok(()) };
        let Type::Named(id) = &parent.ty else { return Ok(()) };
        if !matches!(self.program.type_def(*id), TypeDef::Union { .. }) {
            return Ok(());
        }
        let Some(p) = self.place(b, parent)? else { return Ok(()) };
        if p.out_of_range() {
            return Ok(());
        }
        let program = self.program.clone();
        let member_types = value::field_types(&program, &parent.ty);
        if let Some(Value::Union(members)) = at_mut(self.var_mut(&p.block, p.var), &p.path) {
            if members.get(*idx as usize).is_some_and(Value::is_valid) {
                for (i, m) in members.iter_mut().enumerate() {
                    if i != *idx as usize {
                        *m = value::default_of(&program, &member_types[i]);
                    }
                }
            }
        }
        Ok(())
    }
}

/// Bits `hi..lo` of a scalar, as `bit<hi - lo + 1>`.
pub fn slice_of(v: &Value, hi: u32, lo: u32) -> Value {
    Value::bits(hi - lo + 1, false, v.to_biguint() >> lo)
}

pub fn stack_size(ty: &Type) -> u32 {
    match ty {
        Type::Stack(_, n) => *n,
        _ => 0,
    }
}
