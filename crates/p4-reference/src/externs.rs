//! Extern functions and methods: `core.p4`'s packet methods and `verify` by name, every other one
//! by the operation the architecture's description gives it ([`p4_arch::ExternOp`]).

use num_bigint::BigUint;
use num_traits::ToPrimitive;
use p4_arch::{ExternOp, HashAlgorithm, MetaRole, Preserve, SharedKind};
use p4_control::ControlPlane;
use p4_ir::{BlockRef, Call, Expr, ExprKind, Type, TypeDef};

use crate::value::{self, Value};
use crate::{Flow, Interpreter, Run};

impl Interpreter {
    fn arg<'c>(&self, call: &'c Call, i: usize) -> Option<&'c Expr> {
        call.args.get(i).map(|a| &a.expr)
    }

    fn arg_value(&mut self, b: &BlockRef, call: &Call, i: usize) -> Run<Value> {
        match call.args.get(i) {
            Some(a) => self.eval(b, &a.expr),
            None => Ok(Value::Opaque),
        }
    }

    /// Writes `v`, converted to the argument's type, to the l-value argument `i`.
    fn write_arg(&mut self, b: &BlockRef, call: &Call, i: usize, v: Value) -> Run<()> {
        let Some(e) = self.arg(call, i) else { return Ok(()) };
        let v = value::convert(&self.program, v, &e.ty);
        if let Some(p) = self.place(b, e)? {
            self.write_place(&p, v);
        }
        Ok(())
    }

    /// The scalar leaves of a data argument (a list, struct or header: its fields in order).
    fn leaves(&mut self, b: &BlockRef, e: &Expr) -> Run<Vec<Value>> {
        let mut out = Vec::new();
        match &e.kind {
            ExprKind::Aggregate(items) => {
                for item in items {
                    out.extend(self.leaves(b, item)?);
                }
            }
            ExprKind::Cast(inner) if matches!(inner.kind, ExprKind::Aggregate(_)) => out = self.leaves(b, inner)?,
            _ => flatten(self.eval(b, e)?, &mut out),
        }
        Ok(out)
    }

    /// The leaves' bits, concatenated, as bytes (and the unparsed packet after them).
    fn serialize(&self, leaves: &[Value], payload: bool) -> Vec<u8> {
        let mut bits = Vec::new();
        for leaf in leaves {
            let (v, width) = match leaf {
                Value::Varbit { len, v, .. } => (v.clone(), *len),
                other => (other.to_biguint(), other.width()),
            };
            for i in (0..width).rev() {
                bits.push(v.bit(u64::from(i)));
            }
        }
        let mut bytes = crate::hash::pack(&bits);
        if payload {
            let start = self.state.cursor.div_ceil(8).min(self.state.data.len());
            bytes.extend_from_slice(&self.state.data[start..]);
        }
        bytes
    }

    pub(crate) fn compute(&mut self, algo: HashAlgorithm, data: &[u8]) -> u128 {
        use crate::hash::*;
        match algo {
            // BMv2's custom CRCs default to the parameters of the standard ones.
            HashAlgorithm::Crc32 | HashAlgorithm::Crc32Custom => u128::from(crc32(data)),
            HashAlgorithm::Crc16 | HashAlgorithm::Crc16Custom => u128::from(crc16(data)),
            HashAlgorithm::Random => u128::from(self.next_random()),
            HashAlgorithm::Identity => identity(data),
            HashAlgorithm::Csum16 => u128::from(csum16(data)),
            HashAlgorithm::Xor16 => u128::from(xor16(data)),
        }
    }

    /// The algorithm a `HashAlgorithm` member argument names.
    fn algorithm(&self, e: Option<&Expr>) -> Option<HashAlgorithm> {
        let ExprKind::Const(p4_ir::Value::Enum(t, i)) = &e?.kind else { return None };
        let TypeDef::Enum { members, .. } = self.program.types.get(t.index())? else { return None };
        self.arch.hash_algorithm(&members.get(*i as usize)?.0)
    }

    fn block_name(&self, b: &BlockRef) -> String {
        self.block_of(b).name.clone()
    }

    pub(crate) fn extern_function(&mut self, b: &BlockRef, call: &Call, name: &str) -> Run<Option<Value>> {
        if name == "verify" {
            let ok = self.arg_value(b, call, 0)?.is_true();
            let error = self.arg_value(b, call, 1)?.to_u128() as u32;
            return if ok { Ok(None) } else { Err(Flow::Reject(error)) };
        }
        let Some(sig) = self.arch.function(name) else { return Ok(None) };
        match sig.op {
            ExternOp::MarkToDrop => {
                self.mark_to_drop(b, call, sig.writes)?;
                if let BlockRef::Control(c) = b {
                    self.fx.marked_in = Some(c.index());
                }
            }
            ExternOp::VerifyChecksum { payload } | ExternOp::UpdateChecksum { payload } => {
                if !self.arg_value(b, call, 0)?.is_true() {
                    return Ok(None);
                }
                let leaves = match self.arg(call, 1) {
                    Some(e) => self.leaves(b, e)?,
                    None => Vec::new(),
                };
                let Some(algo) = self.algorithm(self.arg(call, 3)) else { return Ok(None) };
                let bytes = self.serialize(&leaves, payload);
                let sum_expr = self.arg(call, 2).cloned();
                let width = sum_expr.as_ref().map_or(16, |e| p4_ir::layout::scalar_width(&self.program, &e.ty));
                let sum = BigUint::from(self.compute(algo, &bytes)) & value::mask(width);
                if matches!(sig.op, ExternOp::VerifyChecksum { .. }) {
                    let expected = self.arg_value(b, call, 2)?.to_biguint();
                    if sum != expected {
                        self.meta_set(MetaRole::ChecksumError, 1);
                    }
                } else {
                    self.write_arg(b, call, 2, Value::Int(sum.into()))?;
                }
            }
            ExternOp::Hash => {
                let algo = self.algorithm(self.arg(call, 1));
                let base = self.arg_value(b, call, 2)?.to_biguint();
                let leaves = match self.arg(call, 3) {
                    Some(e) => self.leaves(b, e)?,
                    None => Vec::new(),
                };
                let max = self.arg_value(b, call, 4)?.to_biguint();
                let Some(algo) = algo else { return Ok(None) };
                let bytes = self.serialize(&leaves, false);
                let h = BigUint::from(self.compute(algo, &bytes));
                let r = if max >= BigUint::from(1u8) { base + h % max } else { base };
                self.write_arg(b, call, 0, Value::Int(r.into()))?;
            }
            ExternOp::Random => {
                let lo = self.arg_value(b, call, 1)?.to_u128();
                let hi = self.arg_value(b, call, 2)?.to_u128();
                let r = u128::from(self.next_random());
                let v = match (hi > lo, (hi - lo.min(hi)).checked_add(1)) {
                    (false, _) => lo,
                    (true, Some(span)) => lo + r % span,
                    (true, None) => r,
                };
                self.write_arg(b, call, 0, Value::Int(v.into()))?;
            }
            ExternOp::Digest => {
                let receiver = self.arg_value(b, call, 0)?.to_biguint();
                let leaves = match self.arg(call, 1) {
                    Some(e) => self.leaves(b, e)?,
                    None => Vec::new(),
                };
                let parts: Vec<String> = leaves
                    .iter()
                    .map(|leaf| match leaf {
                        Value::Varbit { len, v, .. } => {
                            let bits: Vec<bool> = (0..*len).rev().map(|i| v.bit(u64::from(i))).collect();
                            crate::hash::pack(&bits).iter().map(|b| format!("{b:02x}")).collect()
                        }
                        other => format!("0x{:x}", other.to_biguint()),
                    })
                    .collect();
                self.log.push(format!("digest {receiver}: {}", parts.join(", ")));
                // The control-plane object is the data's named type's (a tuple has none: id 0).
                let id = match self.arg(call, 1).map(|e| &e.ty) {
                    Some(p4_ir::Type::Named(ty)) => self.layouts.ids.id(p4_ir::layout::Target::Digest(*ty)).unwrap_or(0),
                    _ => 0,
                };
                let bits: u32 = leaves.iter().map(|l| if let Value::Varbit { len, .. } = l { *len } else { l.width() }).sum();
                let varbit_lengths = leaves.iter().filter_map(|l| if let Value::Varbit { len, .. } = l { Some(*len) } else { None }).collect();
                let data = self.serialize(&leaves, false);
                let receiver = u128::try_from(receiver).unwrap_or(u128::MAX);
                self.digests.push(p4_control::Digest { id, receiver, data, bits: bits as usize, varbit_lengths });
            }
            ExternOp::LogMsg => {
                let message = match self.arg(call, 0).map(|e| &e.kind) {
                    Some(ExprKind::Const(p4_ir::Value::String(s))) => s.clone(),
                    _ => String::new(),
                };
                let leaves = match self.arg(call, 1) {
                    Some(e) => self.leaves(b, e)?,
                    None => Vec::new(),
                };
                let mut values = leaves.iter();
                let mut parts = message.split("{}");
                let mut line = parts.next().unwrap_or("").to_string();
                for part in parts {
                    match values.next() {
                        Some(Value::Varbit { .. }) => line.push_str("<varbit>"),
                        Some(v) => line.push_str(&v.to_biguint().to_string()),
                        None => line.push_str("{}"),
                    }
                    line.push_str(part);
                }
                self.log.push(line);
            }
            ExternOp::Assert if !self.arg_value(b, call, 0)?.is_true() => {
                return Err(Flow::Abort(format!("{name} failed in {}", self.block_name(b))));
            }
            ExternOp::Truncate => {
                let len = self.arg_value(b, call, 0)?.to_u128() as u32;
                self.fx.truncate = Some(len);
            }
            ExternOp::Clone(keep) => {
                let session = self.arg_value(b, call, 1)?.to_u128() as u32;
                let preserve = self.preserved(b, call, keep)?;
                self.fx.clone = Some((session, preserve));
            }
            ExternOp::Resubmit(keep) => self.fx.resubmit = Some(self.preserved(b, call, keep)?),
            ExternOp::Recirculate(keep) => self.fx.recirculate = Some(self.preserved(b, call, keep)?),
            _ => {}
        }
        Ok(None)
    }

    /// The drop call: the drop marker gets its drop value and the other fields the description
    /// names get 0, in the struct passed as argument (which may be an action's copy of the
    /// intrinsic metadata) or, without one, in the intrinsic metadata itself.
    fn mark_to_drop(&mut self, b: &BlockRef, call: &Call, writes: &[MetaRole]) -> Run<()> {
        let p4_arch::DropMarker::AllOnes(marker) = self.arch.drop;
        let drop_value = self.drop_value();
        let value_of = |r: MetaRole| if r == marker { drop_value } else { 0 };
        if let Some(arg) = self.arg(call, 0) {
            if let (Some(place), Type::Named(id)) = (self.place(b, arg)?, &arg.ty) {
                let p = self.program.clone();
                if let TypeDef::Struct { name, fields } = p.type_def(*id) {
                    for (i, f) in fields.iter().enumerate() {
                        if let Some(r) = self.arch.role_in(name, &f.name).filter(|r| writes.contains(r)) {
                            let mut fp = place.clone();
                            fp.path.push(crate::place::Step::Field(i));
                            self.write_place(&fp, value::convert(&p, Value::Int(value_of(r).into()), &f.ty));
                        }
                    }
                    return Ok(());
                }
            }
        }
        for r in writes {
            self.meta_set(*r, value_of(*r));
        }
        Ok(())
    }

    /// Which fields a clone, resubmit or recirculate keeps, as paths into the shared parameters.
    fn preserved(&mut self, b: &BlockRef, call: &Call, keep: Preserve) -> Run<crate::Preserve> {
        let mut out = Vec::new();
        match keep {
            Preserve::Nothing => {}
            Preserve::Data(i) => {
                let Some(e) = self.arg(call, i) else { return Ok(out) };
                let items: Vec<&Expr> = match &e.kind {
                    ExprKind::Aggregate(items) => items.iter().collect(),
                    ExprKind::Cast(inner) => match &inner.kind {
                        ExprKind::Aggregate(items) => items.iter().collect(),
                        _ => vec![e],
                    },
                    _ => vec![e],
                };
                for item in items {
                    if !item.is_lvalue() {
                        continue;
                    }
                    if let Some(p) = self.place(b, item)? {
                        if let Some(si) = self.aliases.get(&crate::alias_key(&p.block, p.var)) {
                            out.push((*si, p.path));
                        }
                    }
                }
            }
            Preserve::FieldList(i) => {
                let index = self.arg_value(b, call, i)?.to_u128() as u64;
                let Some(si) = self.shared_index(SharedKind::UserMetadata) else { return Ok(out) };
                let Some(ty) = self.shared_type(si) else { return Ok(out) };
                for f in self.program.field_list_fields(&ty, index) {
                    out.push((si, vec![crate::place::Step::Field(f)]));
                }
            }
        }
        Ok(out)
    }

    pub(crate) fn extern_method(
        &mut self,
        b: &BlockRef,
        call: &Call,
        target: &Expr,
        ty: &str,
        method: &str,
    ) -> Run<Option<Value>> {
        match (ty, method) {
            ("packet_in", "extract") => {
                let Some(t) = self.arg(call, 0) else { return Ok(None) };
                self.extract(b, t, self.arg(call, 1))?;
                return Ok(None);
            }
            ("packet_in", "lookahead") => {
                let p4_ir::Callee::Method { type_args, .. } = &call.callee else { return Ok(None) };
                let Some(t) = type_args.first() else { return Ok(None) };
                return self.lookahead(t).map(Some);
            }
            ("packet_in", "advance") => {
                let n = self.arg_value(b, call, 0)?.to_u128();
                self.advance(n)?;
                return Ok(None);
            }
            ("packet_in", "length") => return Ok(Some(Value::bit(32, self.state.data.len() as u128))),
            ("packet_out", "emit") => {
                if let Some(e) = self.arg(call, 0) {
                    let v = self.eval(b, e)?;
                    self.emit_value(&v);
                }
                return Ok(None);
            }
            _ => {}
        }
        let Some(sig) = self.arch.method(ty, method) else { return Ok(None) };
        let ExprKind::Extern(id) = &target.kind else { return Ok(None) };
        let id = id.index();
        let name = self.program.externs[id].name.clone();
        let length = self.meta_get(MetaRole::PacketLength).unwrap_or(0) as u64;
        match sig.op {
            ExternOp::RegisterRead => {
                // `r.read(out result, index)`, or `r.read(index)` as a value.
                let (index_arg, out_arg) = if call.args.len() >= 2 { (1, Some(0)) } else { (0, None) };
                let index = self.arg_value(b, call, index_arg)?.to_biguint().to_u64().unwrap_or(u64::MAX);
                let v = self.control.register_read(&name, index).unwrap_or_default();
                let v = Value::Int(v.into());
                match out_arg {
                    Some(i) => self.write_arg(b, call, i, v)?,
                    None => return Ok(Some(v)),
                }
            }
            ExternOp::RegisterWrite => {
                let index = self.arg_value(b, call, 0)?.to_biguint().to_u64().unwrap_or(u64::MAX);
                let v = self.arg_value(b, call, 1)?.to_biguint();
                let width = self.control.catalog().externs[id].width;
                // An index out of range writes nothing.
                let _ = self.control.register_write(&name, index, v & value::mask(width));
            }
            ExternOp::CounterCount => {
                let index = self.arg_value(b, call, 0)?.to_biguint().to_u64().unwrap_or(u64::MAX);
                if let Ok((packets, bytes)) = self.control.counter_read(&name, index) {
                    let _ = self.control.counter_write(&name, index, packets + 1, bytes + length);
                }
            }
            ExternOp::MeterExecute => {
                let index = self.arg_value(b, call, 0)?.to_biguint().to_u64().unwrap_or(u64::MAX);
                let info = self.control.catalog().externs[id].clone();
                let colour = if index < info.size {
                    let units = if info.bytes { length } else { 1 };
                    self.meters.execute(id, index, units, self.now_us as f64)
                } else {
                    crate::meter::GREEN
                };
                self.write_arg(b, call, 1, Value::Int(colour.into()))?;
            }
            ExternOp::DirectMeterRead => {
                let colour = self.direct_colours.get(&id).copied().unwrap_or(crate::meter::GREEN);
                self.write_arg(b, call, 0, Value::Int(colour.into()))?;
            }
            ExternOp::OnesComplementSum16 => {
                let leaves = match self.arg(call, 0) {
                    Some(e) => self.leaves(b, e)?,
                    None => Vec::new(),
                };
                let bytes = self.serialize(&leaves, false);
                return Ok(Some(Value::bit(16, u128::from(crate::hash::csum16(&bytes)))));
            }
            _ => {}
        }
        Ok(None)
    }
}

/// The scalars of a value in order (headers, structs, unions and stacks by their parts).
fn flatten(v: Value, out: &mut Vec<Value>) {
    match v {
        Value::Header { fields: items, .. }
        | Value::Struct(items)
        | Value::Union(items)
        | Value::Stack { elems: items, .. } => {
            for item in items {
                flatten(item, out);
            }
        }
        other => out.push(other),
    }
}
