//! Calls this executor leaves to the closure executor's compiler: the stateful and hashing externs
//! (registers, counters, meters, hashes, random numbers, digests, log messages) and checksums it
//! does not compute itself. The closure executor's code reads and writes headers in frame slots,
//! so around such a call the headers its arguments touch are copied from the wire buffer into
//! their slots and back.
//!
//! Only operations whose effect stays inside the packet's state and the extern instances are
//! bridged: nothing that needs the traffic manager's copies (clone, resubmit, recirculate,
//! truncate) or stops the packet (assert).

use p4_arch::{Architecture, ExternOp, MetaRole};
use p4_ir::{BlockRef, Call, Callee, Direction, Expr, ExprKind};

use super::places::{FrameHeader, Places};
use super::{read_field, write_field};
use crate::compile::{unsupported, Compiler, R};
use crate::exec::{Ctx, Ev, Run};

/// The operation `call` performs, if it is one a bridge may run.
fn bridgeable(arch: &Architecture, call: &Call) -> Option<ExternOp> {
    let op = match &call.callee {
        Callee::Method { extern_type, method, .. } => arch.extern_type(extern_type)?.methods.iter().find(|m| m.name == method)?.op,
        Callee::ExternFunction { name, .. } => arch.function(name)?.op,
        _ => return None,
    };
    use ExternOp::*;
    match op {
        RegisterRead | RegisterWrite | CounterCount | DirectCounterCount | MeterExecute | DirectMeterRead | DirectMeterExecute
        | OnesComplementSum16 | VerifyChecksum { .. } | UpdateChecksum { .. } | Hash | Random | Digest | LogMsg | ChecksumClear
        | ChecksumAdd | ChecksumSubtract | ChecksumGet | ChecksumGetState | ChecksumSetState => Some(op),
        IsPath(_) | MarkToDrop | Assert | Truncate | Clone(_) | Resubmit(_) | Recirculate(_) => None,
    }
}

/// The frame slot ranges `e` reads or writes, added to `out`; `false`: it may touch more than a
/// static place can say (a stack index, a nested call), so every header must be copied.
fn touched(cx: &mut Compiler<'_>, b: &BlockRef, e: &Expr, out: &mut Vec<(usize, usize)>) -> R<bool> {
    if matches!(e.kind, ExprKind::Var(_) | ExprKind::Field(..)) {
        if let Some(slot) = Places::static_slot(cx, b, e)? {
            out.push((slot, slot + cx.size(&e.ty)?));
            return Ok(true);
        }
    }
    Ok(match &e.kind {
        ExprKind::Const(_) | ExprKind::DontCare | ExprKind::Extern(_) | ExprKind::InvalidHeader => true,
        ExprKind::Field(x, _) | ExprKind::Slice(x, ..) | ExprKind::Unary(_, x) | ExprKind::Cast(x) => touched(cx, b, x, out)?,
        ExprKind::Binary(_, x, y) => touched(cx, b, x, out)? && touched(cx, b, y, out)?,
        ExprKind::Mux(x, y, z) => touched(cx, b, x, out)? && touched(cx, b, y, out)? && touched(cx, b, z, out)?,
        ExprKind::Aggregate(xs) => {
            let mut all_static = true;
            for x in xs {
                all_static &= touched(cx, b, x, out)?;
            }
            all_static
        }
        _ => false,
    })
}

/// The headers a bridged `call` must see in the frame.
fn headers_of(cx: &mut Compiler<'_>, places: &Places, b: &BlockRef, call: &Call) -> R<Vec<FrameHeader>> {
    let mut ranges = Vec::new();
    let mut all_static = true;
    for a in &call.args {
        all_static &= touched(cx, b, &a.expr, &mut ranges)?;
    }
    Ok(places.frame_headers(all_static.then_some(&ranges[..])))
}

/// Refuses a call whose `out`/`inout` argument covers the multicast group: this executor sends
/// one copy, so nothing it runs may ask for more.
fn check_outputs(cx: &mut Compiler<'_>, b: &BlockRef, call: &Call) -> R<()> {
    let Some(group) = cx.intrinsic.slot(MetaRole::MulticastGroup) else { return Ok(()) };
    for a in call.args.iter().filter(|a| a.direction != Direction::In) {
        let mut ranges = Vec::new();
        let all_static = touched(cx, b, &a.expr, &mut ranges)?;
        if !all_static || ranges.iter().any(|&(s, e)| (s..e).contains(&group)) {
            return unsupported("an extern writing the multicast group (the wire-format executor makes one copy)");
        }
    }
    Ok(())
}

/// `call` as a statement run by the closure executor's code, or `why` if it is not one a bridge
/// may run.
pub(super) fn call(cx: &mut Compiler<'_>, places: &Places, b: &BlockRef, call: &Call, why: crate::DataplaneError) -> R<Run> {
    let Some(arch) = p4_arch::of(cx.ir) else { return Err(why) };
    if bridgeable(arch, call).is_none() {
        return Err(why);
    }
    check_outputs(cx, b, call)?;
    let headers = headers_of(cx, places, b, call)?;
    let run = cx.call_stmt(b, call)?;
    Ok(Box::new(move |p, c| {
        to_frame(&headers, c);
        let flow = run(p, c);
        from_frame(&headers, c);
        flow
    }))
}

/// `e`, a value-returning call, computed by the closure executor's code, or `why` if it is not one
/// a bridge may run.
pub(super) fn value(cx: &mut Compiler<'_>, places: &Places, b: &BlockRef, e: &Expr, why: crate::DataplaneError) -> R<Ev> {
    let (Some(arch), ExprKind::Call(call)) = (p4_arch::of(cx.ir), &e.kind) else { return Err(why) };
    if bridgeable(arch, call).is_none() {
        return Err(why);
    }
    check_outputs(cx, b, call)?;
    let headers = headers_of(cx, places, b, call)?;
    let ev = cx.scalar(b, e)?;
    Ok(std::sync::Arc::new(move |p, c| {
        to_frame(&headers, c);
        let v = ev(p, c);
        from_frame(&headers, c);
        v
    }))
}

/// Copies `headers` from the wire buffer into their frame slots.
fn to_frame(headers: &[FrameHeader], c: &mut Ctx) {
    for h in headers {
        c.set(h.valid, u128::from(c.wire_valid >> h.region.index & 1));
        for &(slot, bit, width) in &h.fields {
            let v = read_field(&c.wire, bit, width);
            c.set(slot, v);
        }
    }
}

/// Copies `headers` back from their frame slots; an invalid header's bytes become zero (this
/// executor's invariant for invalid headers).
fn from_frame(headers: &[FrameHeader], c: &mut Ctx) {
    for h in headers {
        let bit = 1u64 << h.region.index;
        if c.get(h.valid) != 0 {
            c.wire_valid |= bit;
            for &(slot, at, width) in &h.fields {
                let v = c.get(slot);
                write_field(&mut c.wire, at, width, v);
            }
        } else {
            c.wire_valid &= !bit;
            if let Some(bytes) = c.wire.get_mut(h.region.at..h.region.at + h.region.len) {
                bytes.fill(0);
            }
        }
    }
}
