//! Extern methods and extern functions: `core.p4`'s by name, the architecture's by the operation its
//! description gives them ([`p4_arch::ExternOp`]).


use p4_arch::{ExternOp, MetaRole};
use p4_ir::{BlockRef, Call, Callee, Expr, ExprKind, Type, Value};

use super::expr::{Leaf, Write};
use super::stmt::{push_varbit, serialize};
use super::{unsupported, Compiler, FieldKind, Loc, R};
use crate::bits::{self, mask};
use crate::exec::{Ctx, Flow, Prog, Run};
use crate::fast::runtime;
use crate::hashing::Algorithm;

/// One header to emit: its valid slot and its fields.
struct EmitHeader {
    valid: usize,
    fields: Vec<(usize, FieldKind)>,
    /// A header of fixed-width fields filling whole bytes: written straight into the output when
    /// the output is byte-aligned.
    fixed: Option<FixedLayout>,
}

/// A header whose fields are all `bit<W>`-like and fill whole bytes, as placed in its bytes.
struct FixedLayout {
    /// Length in bytes.
    len: usize,
    /// Each field's `(slot, bit offset, width)`.
    fields: Vec<(usize, usize, u32)>,
}

/// The layout of a header of fixed-width fields filling whole bytes (`None` otherwise).
fn fixed_layout(fields: &[(usize, FieldKind)]) -> Option<FixedLayout> {
    let mut at = 0usize;
    let mut placed = Vec::with_capacity(fields.len());
    for &(slot, kind) in fields {
        let FieldKind::Bits(w) = kind else { return None };
        placed.push((slot, at, w));
        at += w as usize;
    }
    at.is_multiple_of(8).then_some(FixedLayout { len: at / 8, fields: placed })
}

impl Compiler<'_> {
    fn data_leaves(&mut self, b: &BlockRef, e: &Expr) -> R<Vec<Leaf>> {
        let mut out = Vec::new();
        self.leaves(b, e, &mut out)?;
        Ok(out)
    }

    fn control_index(b: &BlockRef) -> Option<usize> {
        match b {
            BlockRef::Control(c) => Some(c.index()),
            BlockRef::Parser(_) => None,
        }
    }

    /// Compiles an extern call; `ret` receives a returned value when used as an expression.
    pub(crate) fn extern_call(&mut self, b: &BlockRef, call: &Call, ret: Option<usize>) -> R<Run> {
        let run = match &call.callee {
            Callee::Method { target, extern_type, method, .. } => self.method(b, call, target, extern_type, method, ret)?,
            Callee::ExternFunction { name, .. } => self.extern_function(b, call, name)?,
            _ => return unsupported(format!("{} as an extern call", super::callee_name(&call.callee))),
        };
        if !self.tracing {
            return Ok(run);
        }
        self.traced_call(b, call, run)
    }

    fn method(&mut self, b: &BlockRef, call: &Call, target: &Expr, ty: &str, method: &str, ret: Option<usize>) -> R<Run> {
        let id = match &target.kind {
            ExprKind::Extern(id) => Some(id.index()),
            _ => None,
        };
        let sm_len = self.intrinsic.slot(MetaRole::PacketLength);
        // `packet_in`/`packet_out` are core.p4's; every other extern is the architecture's, by operation.
        let op = p4_arch::of(self.ir).and_then(|a| a.method(ty, method)).map(|m| m.op);
        match (ty, method, op) {
            ("packet_in", "extract", _) => {
                let size = match call.args.get(1) {
                    Some(a) => Some(self.scalar(b, &a.expr)?),
                    None => None,
                };
                self.extract(b, self.arg(call, 0)?, size)
            }
            ("packet_in", "advance", _) => {
                let n = self.scalar(b, self.arg(call, 0)?)?;
                let short = self.errors.packet_too_short;
                Ok(Box::new(move |p, c| {
                    let n = n(p, c);
                    let end = u128::try_from(c.cursor).unwrap_or(u128::MAX).saturating_add(n);
                    if end > (c.pkt.len() * 8) as u128 {
                        return Flow::Reject(short);
                    }
                    c.cursor = end as usize;
                    Flow::Next
                }))
            }
            // A discarded `lookahead<T>()` still fails on a packet shorter than T (BMv2).
            ("packet_in", "lookahead", _) => {
                let Callee::Method { type_args, .. } = &call.callee else { return Ok(Box::new(|_, _| Flow::Next)) };
                let Some(t) = type_args.first() else { return Ok(Box::new(|_, _| Flow::Next)) };
                // Fixed wire bits of T (a varbit counts 0), from the IR's layouts.
                let bits = p4_ir::layout::wire_width(self.ir, t) as usize;
                let short = self.errors.packet_too_short;
                Ok(Box::new(move |_, c| if c.cursor + bits > c.pkt.len() * 8 { Flow::Reject(short) } else { Flow::Next }))
            }
            ("packet_in", "length", _) => Ok(Box::new(|_, _| Flow::Next)),
            ("packet_out", "emit", _) => self.emit(b, self.arg(call, 0)?),
            (_, _, Some(ExternOp::RegisterRead)) => {
                let id = id.ok_or_else(|| crate::DataplaneError::unsupported("register through a variable"))?;
                let (out, idx): (Write, _) = if call.args.len() >= 2 {
                    (self.writer(b, self.arg(call, 0)?)?, self.scalar(b, self.arg(call, 1)?)?)
                } else {
                    let slot = ret.ok_or_else(|| crate::DataplaneError::unsupported("register.read result"))?;
                    (super::expr::write_loc(&Loc::Static(slot)), self.scalar(b, self.arg(call, 0)?)?)
                };
                Ok(Box::new(move |p, c| {
                    let i = idx(p, c);
                    let v = runtime::register_read(c, id, i);
                    out(p, c, v);
                    Flow::Next
                }))
            }
            (_, _, Some(ExternOp::RegisterWrite)) => {
                let id = id.ok_or_else(|| crate::DataplaneError::unsupported("register through a variable"))?;
                let idx = self.scalar(b, self.arg(call, 0)?)?;
                let v = self.scalar(b, self.arg(call, 1)?)?;
                Ok(Box::new(move |p, c| {
                    let i = idx(p, c);
                    let x = v(p, c);
                    runtime::register_write(c, id, i, x);
                    Flow::Next
                }))
            }
            (_, _, Some(ExternOp::CounterCount)) => {
                let id = id.ok_or_else(|| crate::DataplaneError::unsupported("counter through a variable"))?;
                let idx = self.scalar(b, self.arg(call, 0)?)?;
                Ok(Box::new(move |p, c| {
                    let i = idx(p, c);
                    let len = sm_len.map_or(0, |s| c.get(s)) as u64;
                    runtime::counter_count(c, id, i, len);
                    Flow::Next
                }))
            }
            (_, _, Some(ExternOp::DirectCounterCount)) => Ok(Box::new(|_, _| Flow::Next)),
            (_, _, Some(ExternOp::OnesComplementSum16)) => {
                let slot = ret.ok_or_else(|| crate::DataplaneError::unsupported(format!("{ty}.{method} result unused")))?;
                let sum = checksummer(self.data_leaves(b, self.arg(call, 0)?)?, false, Algorithm::Csum16);
                Ok(Box::new(move |p, c| {
                    let v = sum(p, c);
                    c.set(slot, v);
                    Flow::Next
                }))
            }
            (_, _, Some(ExternOp::MeterExecute)) => {
                let id = id.ok_or_else(|| crate::DataplaneError::unsupported("meter through a variable"))?;
                let idx = self.scalar(b, self.arg(call, 0)?)?;
                let out = self.writer(b, self.arg(call, 1)?)?;
                Ok(Box::new(move |p, c| {
                    let i = idx(p, c);
                    let len = sm_len.map_or(0, |s| c.get(s)) as u32;
                    let colour = runtime::meter_execute(c, id, i, len);
                    out(p, c, colour);
                    Flow::Next
                }))
            }
            (_, _, Some(ExternOp::DirectMeterRead)) => {
                let id = id.ok_or_else(|| crate::DataplaneError::unsupported(format!("{ty}.{method} through a variable")))?;
                let out = self.writer(b, self.arg(call, 0)?)?;
                Ok(Box::new(move |p, c| {
                    let colour = runtime::table_meter_colour(c, id);
                    out(p, c, colour);
                    Flow::Next
                }))
            }
            _ => unsupported(format!("extern method {ty}.{method}")),
        }
    }

    /// `pkt.extract(hdr)` / `pkt.extract(hdr, varbit_size)`.
    fn extract(&mut self, b: &BlockRef, target: &Expr, size: Option<crate::exec::Ev>) -> R<Run> {
        let fields = self.header_fields(&target.ty)?;
        let fixed: usize = fields.iter().map(|(_, k)| if let FieldKind::Bits(w) = k { *w as usize } else { 0 }).sum();
        let var_max: usize = fields.iter().map(|(_, k)| if let FieldKind::Varbit(m) = k { *m as usize } else { 0 }).sum();
        let (short, oob, too_short) = (self.errors.packet_too_short, self.errors.stack_out_of_bounds, self.errors.header_too_short);
        let bad_size = self.errors.parser_invalid_argument;
        // `extract<T>(_)` skips a header's worth of bits.
        if matches!(target.kind, ExprKind::DontCare) && var_max == 0 {
            return Ok(Box::new(move |_, c| {
                if c.cursor + fixed > c.pkt.len() * 8 {
                    return Flow::Reject(short);
                }
                c.cursor += fixed;
                Flow::Next
            }));
        }
        // `stack.next` extraction advances nextIndex; other targets are plain locations.
        // `stack.next.member` (a union stack) advances nextIndex too.
        let mut next_of = target;
        while let ExprKind::Field(inner, _) = &next_of.kind {
            next_of = inner;
        }
        let (dest, next): (crate::exec::DynSlot, Option<(crate::exec::DynSlot, u128, usize)>) = match &next_of.kind {
            ExprKind::StackNext(stack) => {
                let Type::Stack(elem, n) = &stack.ty else { return unsupported("next of a non-stack") };
                let es = self.size(elem)?;
                let base = self.loc(b, stack)?.resolver();
                (self.loc(b, target)?.resolver(), Some((base, u128::from(*n), es)))
            }
            _ => (self.loc(b, target)?.resolver(), None),
        };
        let fix = self.union_fixup(b, target)?;
        // Common case: a fixed-size header at a static place, not in a union or stack.
        if let (None, None, None, 0, Loc::Static(base)) = (&size, &next, &fix, var_max, self.loc(b, target)?) {
            let widths: Vec<u32> = fields.iter().map(|&(_, k)| if let FieldKind::Bits(w) = k { w } else { 0 }).collect();
            let plan: Vec<(usize, bits::FieldRead)> =
                fields.iter().map(|&(off, _)| base + off).zip(bits::field_reads(&widths)).collect();
            return Ok(Box::new(move |_, c| {
                if c.cursor + fixed > c.pkt.len() * 8 {
                    return Flow::Reject(short);
                }
                let (pkt, frame) = (&c.pkt, &mut c.f);
                for &(slot, read) in &plan {
                    if let Some(s) = frame.get_mut(slot) {
                        *s = bits::read_field_at(pkt, c.cursor, read);
                    }
                }
                c.set(base, 1);
                c.cursor += fixed;
                Flow::Next
            }));
        }
        Ok(Box::new(move |p, c| {
            let Some(base) = dest(p, c) else { return Flow::Reject(oob) };
            let vlen = size.as_ref().map_or(0, |s| s(p, c) as usize);
            // BMv2 checks that the size is whole bytes before it checks it against the maximum.
            if !vlen.is_multiple_of(8) {
                return Flow::Reject(bad_size);
            }
            if vlen > var_max {
                return Flow::Reject(too_short);
            }
            if c.cursor + fixed + vlen > c.pkt.len() * 8 {
                return Flow::Reject(short);
            }
            c.set(base, 1);
            let mut pos = c.cursor;
            for &(off, kind) in &fields {
                match kind {
                    FieldKind::Bits(w) => {
                        let v = bits::read_bits(&c.pkt, pos, w);
                        c.set(base + off, v);
                        pos += w as usize;
                    }
                    FieldKind::Varbit(_) => {
                        c.set(base + off, vlen as u128);
                        let mut left = vlen;
                        let mut k = 1;
                        while left > 0 {
                            let take = left.min(128);
                            let v = bits::read_bits(&c.pkt, pos, take as u32);
                            c.set(base + off + k, v);
                            pos += take;
                            left -= take;
                            k += 1;
                        }
                    }
                }
            }
            c.cursor = pos;
            if let Some((sb, _, _)) = &next {
                if let Some(s) = sb(p, c) {
                    let ni = c.get(s);
                    c.set(s, ni + 1);
                }
            }
            if let Some(f) = &fix {
                f(p, c);
            }
            Flow::Next
        }))
    }

    fn emit_plan(&mut self, loc: &Loc, ty: &Type, out: &mut Vec<EmitHeader>) -> R<()> {
        let Loc::Static(base) = loc else { return unsupported("emit of a dynamically indexed header") };
        match ty {
            Type::Stack(elem, n) => {
                let es = self.size(elem)?;
                for i in 0..*n as usize {
                    self.emit_plan(&Loc::Static(base + 1 + i * es), elem, out)?;
                }
            }
            _ if self.is_header(ty) => {
                let fields: Vec<(usize, FieldKind)> = self.header_fields(ty)?.into_iter().map(|(off, k)| (base + off, k)).collect();
                let fixed = fixed_layout(&fields);
                out.push(EmitHeader { valid: *base, fields, fixed });
            }
            _ => {
                let n = self.type_def(ty).map_or(0, |d| d.fields().len());
                for i in 0..n {
                    let (off, fty) = self.field_offset(ty, i as u32)?;
                    self.emit_plan(&Loc::Static(base + off), &fty, out)?;
                }
            }
        }
        Ok(())
    }

    fn emit(&mut self, b: &BlockRef, e: &Expr) -> R<Run> {
        let loc = self.loc(b, e)?;
        let mut plan = Vec::new();
        self.emit_plan(&loc, &e.ty, &mut plan)?;
        Ok(Box::new(move |p, c| {
            for h in &plan {
                if c.get(h.valid) == 0 {
                    continue;
                }
                if let Some(layout) = &h.fixed {
                    let f = &c.f;
                    let written = c.out.put_aligned(layout.len, |bytes| {
                        for &(slot, at, w) in &layout.fields {
                            bits::or_bits(bytes, at, w, f.get(slot).copied().unwrap_or(0));
                        }
                    });
                    if written {
                        continue;
                    }
                }
                let mut out = std::mem::take(&mut c.out);
                for &(slot, kind) in &h.fields {
                    match kind {
                        FieldKind::Bits(w) => out.push(c.get(slot), w),
                        FieldKind::Varbit(_) => push_varbit(p, c, &Loc::Static(slot), &mut out),
                    }
                }
                c.out = out;
            }
            Flow::Next
        }))
    }

    fn extern_function(&mut self, b: &BlockRef, call: &Call, name: &str) -> R<Run> {
        let meta = self.intrinsic.clone();
        let here = Self::control_index(b);
        let block_name = match b {
            BlockRef::Parser(p) => self.ir.parsers.get(p.index()).map(|x| x.block.name.clone()),
            BlockRef::Control(c) => self.ir.controls.get(c.index()).map(|x| x.block.name.clone()),
        }
        .unwrap_or_default();
        let sig = p4_arch::of(self.ir).and_then(|a| Some((a, a.function(name)?)));
        let op = sig.map(|(_, f)| f.op);
        match (name, op) {
            (_, Some(ExternOp::MarkToDrop)) => {
                let Some((arch, f)) = sig else { return unsupported(format!("extern function `{name}`")) };
                let writes = self.drop_call_writes(b, arch, f, call)?;
                Ok(Box::new(move |_, c| {
                    runtime::mark_dropped(c, &writes, here);
                    Flow::Next
                }))
            }
            // core.p4's parser `verify`.
            ("verify", _) => {
                let cond = self.scalar(b, self.arg(call, 0)?)?;
                let err = self.scalar(b, self.arg(call, 1)?)?;
                Ok(Box::new(move |p, c| if cond(p, c) == 0 { Flow::Reject(err(p, c) as u32) } else { Flow::Next }))
            }
            (_, Some(ExternOp::VerifyChecksum { payload } | ExternOp::UpdateChecksum { payload })) => {
                let cond = self.scalar(b, self.arg(call, 0)?)?;
                let leaves = self.data_leaves(b, self.arg(call, 1)?)?;
                let sum_e = self.arg(call, 2)?;
                let (w, _) = self.width(&sum_e.ty);
                let algo = self.algorithm(self.arg(call, 3)?)?;
                let sum = checksummer(leaves, payload, algo);
                if matches!(op, Some(ExternOp::VerifyChecksum { .. })) {
                    let expected = self.scalar(b, sum_e)?;
                    let flag = meta.slot(MetaRole::ChecksumError);
                    Ok(Box::new(move |p, c| {
                        if cond(p, c) != 0 {
                            let got = sum(p, c) & mask(w);
                            if got != expected(p, c) {
                                if let Some(s) = flag {
                                    c.set(s, 1);
                                }
                            }
                        }
                        Flow::Next
                    }))
                } else {
                    let out = self.writer(b, sum_e)?;
                    Ok(Box::new(move |p, c| {
                        if cond(p, c) != 0 {
                            let v = sum(p, c) & mask(w);
                            out(p, c, v);
                        }
                        Flow::Next
                    }))
                }
            }
            (_, Some(ExternOp::Hash)) => {
                let res = self.arg(call, 0)?;
                let (w, _) = self.width(&res.ty);
                let out = self.writer(b, res)?;
                let algo = self.algorithm(self.arg(call, 1)?)?;
                let base = self.scalar(b, self.arg(call, 2)?)?;
                let hash = checksummer(self.data_leaves(b, self.arg(call, 3)?)?, false, algo);
                let max = self.scalar(b, self.arg(call, 4)?)?;
                Ok(Box::new(move |p, c| {
                    let h = hash(p, c);
                    let (bv, mv) = (base(p, c), max(p, c));
                    out(p, c, runtime::hash_in_range(h, bv, mv, w));
                    Flow::Next
                }))
            }
            (_, Some(ExternOp::Random)) => {
                self.draws_random.set(true);
                let res = self.arg(call, 0)?;
                let (w, _) = self.width(&res.ty);
                let out = self.writer(b, res)?;
                let lo = self.scalar(b, self.arg(call, 1)?)?;
                let hi = self.scalar(b, self.arg(call, 2)?)?;
                Ok(Box::new(move |p, c| {
                    let (l, h) = (lo(p, c), hi(p, c));
                    let v = runtime::random(c, l, h, w);
                    out(p, c, v);
                    Flow::Next
                }))
            }
            (_, Some(ExternOp::Digest)) => {
                let receiver = self.scalar(b, self.arg(call, 0)?)?;
                let leaves = self.data_leaves(b, self.arg(call, 1)?)?;
                Ok(Box::new(move |p, c| {
                    let r = receiver(p, c);
                    let line = runtime::digest_line(r, &leaf_values(p, c, &leaves));
                    c.log.push(line);
                    Flow::Next
                }))
            }
            (_, Some(ExternOp::LogMsg)) => {
                let msg = match &self.arg(call, 0)?.kind {
                    ExprKind::Const(Value::String(s)) => s.clone(),
                    _ => return unsupported(format!("{name} with a non-constant message")),
                };
                let leaves = match call.args.get(1) {
                    Some(a) => self.data_leaves(b, &a.expr)?,
                    None => Vec::new(),
                };
                Ok(Box::new(move |p, c| {
                    let mut vals = leaves.iter();
                    let line = runtime::log_line(&msg, || vals.next().map(|leaf| leaf.scalar(p, c).map(|(v, _)| v)));
                    c.log.push(line);
                    Flow::Next
                }))
            }
            (_, Some(ExternOp::Assert)) => {
                let cond = self.scalar(b, self.arg(call, 0)?)?;
                let what: std::sync::Arc<str> = format!("{name} failed in {block_name}").into();
                Ok(Box::new(move |p, c| {
                    let holds = cond(p, c) != 0;
                    runtime::assert(c, holds, &what)
                }))
            }
            (_, Some(ExternOp::Truncate)) => {
                let len = self.scalar(b, self.arg(call, 0)?)?;
                Ok(Box::new(move |p, c| {
                    let l = len(p, c);
                    runtime::truncate(c, l);
                    Flow::Next
                }))
            }
            (_, Some(ExternOp::Clone(keep))) => {
                let session = self.scalar(b, self.arg(call, 1)?)?;
                let set = self.preserved(b, call, name, keep)?;
                Ok(Box::new(move |p, c| {
                    let s = session(p, c);
                    runtime::clone(c, s, set);
                    Flow::Next
                }))
            }
            (_, Some(ExternOp::Resubmit(keep) | ExternOp::Recirculate(keep))) => {
                let set = self.preserved(b, call, name, keep)?;
                if matches!(op, Some(ExternOp::Resubmit(_))) {
                    Ok(Box::new(move |_, c| {
                        runtime::reparse_arrived(c, set);
                        Flow::Next
                    }))
                } else {
                    Ok(Box::new(move |_, c| {
                        runtime::reparse_deparsed(c, set);
                        Flow::Next
                    }))
                }
            }
            _ => unsupported(format!("extern function `{name}`")),
        }
    }

}

/// Computes `algo` over the serialised leaves (and payload).
/// The hash or checksum of `leaves` (and the packet's unparsed bytes when `payload`) by `algo`, as
/// one evaluator. The Internet checksum of fixed-width leaves without the payload (IPv4 header
/// checksums) is summed from the values themselves ([`csum16_of`]); the rest serialise the leaves
/// and hash the bytes.
fn checksummer(leaves: Vec<Leaf>, payload: bool, algo: Algorithm) -> crate::exec::Ev {
    if matches!(algo, Algorithm::Csum16) && !payload {
        if let Some(plan) = csum16_plan(&leaves) {
            return std::sync::Arc::new(move |p, c| csum16_of(p, c, &plan));
        }
    }
    std::sync::Arc::new(move |p, c| checksum(p, c, &leaves, payload, algo))
}

/// The leaves of an Internet checksum with their shifts for [`crate::hashing::Csum16Sum`]: frame
/// slots of at most 48 bits (whose shifted value fits 64 bits: header fields, the common case)
/// apart from the rest.
struct Csum16Plan {
    narrow: Vec<(usize, u32)>,
    other: Vec<(Leaf, u32)>,
}

/// The plan for `leaves` (`None` when a leaf is a varbit, whose length varies). The sum does not
/// depend on the order the values are added in, only on each one's shift.
fn csum16_plan(leaves: &[Leaf]) -> Option<Csum16Plan> {
    let mut widths = Vec::with_capacity(leaves.len());
    for leaf in leaves {
        match leaf {
            Leaf::Scalar(_, w) | Leaf::Slot(_, w) => widths.push(*w),
            Leaf::Varbit(_) => return None,
        }
    }
    let mut plan = Csum16Plan { narrow: Vec::new(), other: Vec::new() };
    for (leaf, shift) in leaves.iter().zip(crate::hashing::csum16_shifts(&widths)) {
        match leaf {
            Leaf::Slot(slot, w) if *w <= 48 => plan.narrow.push((*slot, shift)),
            _ => plan.other.push((leaf.clone(), shift)),
        }
    }
    Some(plan)
}

/// The Internet checksum of the concatenated leaves of `plan`.
fn csum16_of(p: &Prog, c: &mut Ctx, plan: &Csum16Plan) -> u128 {
    let mut sum = crate::hashing::Csum16Sum::default();
    let mut narrow = 0u64;
    for &(slot, shift) in &plan.narrow {
        // At most 48 bits shifted by at most 15: below 2^63, and a sum of two such is below 2^64.
        let v = (c.get(slot) as u64) << shift;
        let (s, carry) = narrow.overflowing_add(v);
        narrow = s;
        if carry {
            sum.add(1 << 64, 0);
        }
    }
    sum.add(u128::from(narrow), 0);
    for (leaf, shift) in &plan.other {
        sum.add(leaf.scalar(p, c).map_or(0, |(v, _)| v), *shift);
    }
    u128::from(sum.finish())
}

fn checksum(p: &Prog, c: &mut Ctx, leaves: &[Leaf], payload: bool, algo: Algorithm) -> u128 {
    serialize(p, c, leaves, payload);
    runtime::hash_scratch(c, algo)
}

fn leaf_values(p: &Prog, c: &mut Ctx, leaves: &[Leaf]) -> Vec<String> {
    let mut parts = Vec::new();
    for leaf in leaves {
        match (leaf.scalar(p, c), leaf) {
            (Some((v, _)), _) => parts.push(runtime::scalar_hex(v)),
            (None, Leaf::Varbit(loc)) => {
                let mut w = bits::BitWriter::default();
                push_varbit(p, c, loc, &mut w);
                parts.push(runtime::varbit_hex(w.finish()));
            }
            (None, _) => {}
        }
    }
    parts
}
