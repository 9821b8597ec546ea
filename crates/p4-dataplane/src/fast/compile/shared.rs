//! What both executors' compilers know of extern calls before any code runs: the architecture's
//! constant arguments (hash algorithms, field-list indices), the field sets a clone or re-parse
//! preserves, what the drop function writes, and how a traced build records a call. The code that
//! runs the calls is each executor's own (the wire-format executor's: [`crate::fast::runtime`]).

use p4_arch::{DropMarker, MetaRole, Preserve};
use p4_ir::{BlockRef, Call, Callee, Expr, ExprKind, Type, TypeDef, Value};

use crate::fast::exec::KeyMatch;

use super::{unsupported, Compiler, R};
use crate::bits;
use crate::fast::exec::{Flow, Run};
use crate::hashing::Algorithm;

impl Compiler<'_> {
    /// A select case's keyset for a key of type `ty`, as both executors match it.
    pub(crate) fn keyset(&mut self, ks: &p4_ir::Keyset, ty: &Type) -> R<KeyMatch> {
        let (w, _) = self.width(ty);
        let cv = |this: &Self, e: &Expr| -> R<u128> {
            match &e.kind {
                ExprKind::Const(v) => Ok(this.scalar_value(v, ty)? & crate::bits::mask(w)),
                _ => unsupported("a non-constant select keyset"),
            }
        };
        Ok(match ks {
            p4_ir::Keyset::Value(e) => KeyMatch::Mask(cv(self, e)?, crate::bits::mask(w)),
            p4_ir::Keyset::Mask(v, m) => {
                let m = cv(self, m)?;
                KeyMatch::Mask(cv(self, v)? & m, m)
            }
            p4_ir::Keyset::Range(lo, hi) => KeyMatch::Range(cv(self, lo)?, cv(self, hi)?),
            p4_ir::Keyset::Any => KeyMatch::Any,
            p4_ir::Keyset::ValueSet(id) => KeyMatch::ValueSet(id.index()),
            p4_ir::Keyset::Lpm(v, len) => {
                let m = crate::table::prefix_mask(*len, w);
                KeyMatch::Mask(cv(self, v)? & m, m)
            }
        })
    }

    /// The frame slot of a place written as variables, field accesses and header stack elements
    /// at constant indices within the stack (`None`: anything else).
    pub(crate) fn static_slot(&mut self, b: &BlockRef, e: &Expr) -> R<Option<usize>> {
        Ok(match &e.kind {
            ExprKind::Var(v) => Some(self.var_slot(b, *v)?),
            ExprKind::Field(inner, i) => match self.static_slot(b, inner)? {
                Some(base) => Some(base + self.field_offset(&inner.ty, *i)?.0),
                None => None,
            },
            ExprKind::Index(stack, index) => match (&stack.ty, &index.kind) {
                (Type::Stack(elem, n), ExprKind::Const(k)) => {
                    let k = self.scalar_value(k, &index.ty)?;
                    match self.static_slot(b, stack)? {
                        Some(base) if k < u128::from(*n) => Some(base + 1 + k as usize * self.size(elem)?),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        })
    }

    fn enum_member(&self, e: &Expr) -> Option<&str> {
        let ExprKind::Const(Value::Enum(t, i)) = &e.kind else { return None };
        match self.ir.types.get(t.index()) {
            Some(TypeDef::Enum { members, .. }) => members.get(*i as usize).map(|m| m.0.as_str()),
            _ => None,
        }
    }

    fn const_u64(&self, e: &Expr) -> Option<u64> {
        match &e.kind {
            ExprKind::Const(v) => self.scalar_value(v, &e.ty).ok().map(|x| x as u64),
            _ => None,
        }
    }

    pub(crate) fn algorithm(&self, e: &Expr) -> R<Algorithm> {
        let arch = p4_arch::of(self.ir);
        match self.enum_member(e).and_then(|n| arch?.hash_algorithm(n)) {
            Some(a) => {
                if a == Algorithm::Random {
                    self.draws_random.set(true);
                }
                Ok(a)
            }
            None => unsupported("a hash algorithm that is not a constant HashAlgorithm member"),
        }
    }

    /// Argument `i` of `call`.
    pub(crate) fn arg<'e>(&self, call: &'e Call, i: usize) -> R<&'e Expr> {
        match call.args.get(i) {
            Some(a) => Ok(&a.expr),
            None => unsupported(format!("{}: missing argument {i}", super::callee_name(&call.callee))),
        }
    }

    /// Field-set index for the l-values listed in an old-style `data` argument ([`Preserve::Data`]).
    pub(crate) fn data_field_set(&mut self, b: &BlockRef, e: &Expr) -> R<usize> {
        let items: Vec<&Expr> = match &e.kind {
            ExprKind::Aggregate(items) => items.iter().collect(),
            ExprKind::Cast(inner) => match &inner.kind {
                ExprKind::Aggregate(items) => items.iter().collect(),
                _ => vec![e],
            },
            _ => vec![e],
        };
        let mut ranges = Vec::new();
        for it in items {
            if it.is_lvalue() {
                if let Ok(Some(s)) = self.static_slot(b, it) {
                    ranges.push((s, self.size(&it.ty)?));
                }
            }
        }
        self.field_sets.push(ranges);
        Ok(self.field_sets.len() - 1)
    }

    /// A traced build's extern call: the call as written goes into the trace before it runs; an
    /// `extract` also records the header's fields as they were on the wire. Packet I/O other than
    /// `extract` (`emit`, `advance`, `lookahead`) is not shown.
    pub(crate) fn traced_call(&mut self, b: &BlockRef, call: &Call, run: Run) -> R<Run> {
        use crate::trace::{value_text, Event};
        let vars = self.block_vars(b);
        // A list argument as written (`{a, b}`), without the type the front end gave it.
        let print = |e: &Expr| match &e.kind {
            ExprKind::Aggregate(items) => {
                let items: Vec<String> = items.iter().map(|i| p4_ir::printer::expr_to_string(self.ir, vars, i)).collect();
                format!("{{{}}}", items.join(", "))
            }
            _ => p4_ir::printer::expr_to_string(self.ir, vars, e),
        };
        let args: Vec<String> = call.args.iter().map(|a| print(&a.expr)).collect();
        match &call.callee {
            Callee::Method { target, extern_type, method, .. } if extern_type == "packet_in" && method == "extract" => {
                let Some(header) = call.args.first() else { return Ok(run) };
                let name = print(&header.expr);
                let layouts = self.layouts.clone();
                let fields: Vec<(String, u32, bool)> = layouts
                    .header(&header.expr.ty)
                    .map(|h| h.fields.iter().map(|f| (f.name.clone(), f.width, f.varbit)).collect())
                    .unwrap_or_default();
                Ok(Box::new(move |p, c| {
                    let from = c.cursor;
                    let flow = run(p, c);
                    if flow == Flow::Next && c.trace.is_some() {
                        let fixed: usize = fields.iter().filter(|f| !f.2).map(|f| f.1 as usize).sum();
                        let mut pos = from;
                        let mut values = Vec::with_capacity(fields.len());
                        for (fname, width, varbit) in &fields {
                            let w = if *varbit { (c.cursor - from).saturating_sub(fixed) as u32 } else { *width };
                            let text = if *varbit { format!("{w} bits") } else { value_text(bits::read_bits(&c.pkt, pos, w), w) };
                            values.push((fname.clone(), text));
                            pos += w as usize;
                        }
                        if let Some(trace) = c.trace.as_mut() {
                            trace.push(Event::Extract { header: name.clone(), offset: from, fields: values });
                        }
                    }
                    flow
                }))
            }
            Callee::Method { extern_type, .. } if extern_type == "packet_in" || extern_type == "packet_out" => Ok(run),
            Callee::Method { target, method, .. } => {
                let text = format!("{}.{method}({})", print(target), args.join(", "));
                Ok(traced(text, run))
            }
            Callee::ExternFunction { name, .. } => Ok(traced(format!("{name}({})", args.join(", ")), run)),
            _ => Ok(run),
        }
    }

    /// What the architecture's drop function writes: the fields its description names, the drop
    /// marker its drop value and every other one 0 (v1model, as BMv2: the output port and the
    /// multicast group), in the struct `call` passes it: a function's or an action's parameter
    /// holding a copy of the intrinsic metadata is written there, and copied out when it returns.
    /// Every executor's drop call writes these.
    pub(crate) fn drop_call_writes(&mut self, b: &BlockRef, arch: &p4_arch::Architecture, f: &p4_arch::FunctionSig, call: &Call) -> R<Vec<(usize, u128)>> {
        let DropMarker::AllOnes(marker) = arch.drop;
        let drop_value = self.intrinsic.drop_value;
        let value = |r: MetaRole| if r == marker { drop_value } else { 0 };
        if let Some(arg) = call.args.first() {
            if let (Some(base), Some(TypeDef::Struct { name, fields })) = (self.static_slot(b, &arg.expr)?, self.type_def(&arg.expr.ty)) {
                let mut writes = Vec::new();
                for (i, field) in fields.iter().enumerate() {
                    if let Some(r) = arch.role_in(name, &field.name).filter(|r| f.writes.contains(r)) {
                        writes.push((base + self.field_offset(&arg.expr.ty, i as u32)?.0, value(r)));
                    }
                }
                return Ok(writes);
            }
        }
        Ok(f.writes.iter().filter_map(|r| Some((self.intrinsic.slot(*r)?, value(*r)))).collect())
    }

    /// The field set a clone or re-parse keeps (0: none).
    pub(crate) fn preserved(&mut self, b: &BlockRef, call: &Call, name: &str, keep: Preserve) -> R<usize> {
        Ok(match keep {
            Preserve::Nothing => 0,
            Preserve::Data(i) => match call.args.get(i) {
                Some(a) => self.data_field_set(b, &a.expr)?,
                None => 0,
            },
            Preserve::FieldList(i) => {
                let idx = self
                    .const_u64(self.arg(call, i)?)
                    .ok_or_else(|| crate::DataplaneError::unsupported(format!("{name} index must be constant")))?;
                self.field_list(idx)?
            }
        })
    }
}

/// `run`, recording `call` in the trace first.
fn traced(call: String, run: Run) -> Run {
    Box::new(move |p, c| {
        if let Some(trace) = c.trace.as_mut() {
            trace.push(crate::trace::Event::Call { call: call.clone() });
        }
        run(p, c)
    })
}
