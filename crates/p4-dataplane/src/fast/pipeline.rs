//! One packet through the wire-format executor: arrival, parser, ingress, the traffic manager's
//! one-copy decision, egress and deparser, with every slot and control body resolved when the
//! program was built ([`super::PacketPlan`]).

use super::jit::{self, PacketFn};
use super::{run_parser, FastProg, PacketPlan};
use crate::batch::{BatchOut, PacketIn};
use crate::fast::exec::{Ctx, Effects, Flow, PipelineMeta, Prog};

/// Why this executor made no copy of a packet (the caller words a drop's reason: it needs the
/// switch's names).
pub(crate) enum Stopped {
    /// The arrival port does not fit the program's port fields.
    PortTooWide,
    /// The drop marker holds the drop value after ingress or egress.
    Marked,
    /// A loop that did not end (or an `assert` in code called from a block) stopped the packet
    /// in egress or the deparser (`Ctx::fx.aborted` says why); in ingress the packet goes to the
    /// traffic manager as [`Stopped::HandedOver`] with `aborted`.
    Aborted,
    /// The packet needs the switch's traffic manager ([`super::FastProg::hands_over`]): it went
    /// through parser and ingress here, and the traffic manager continues with its state as
    /// ingress left it (`aborted`: an assert stopped it).
    HandedOver { aborted: bool },
    /// The ingress asked for this multicast group and nothing else of the traffic manager, in a
    /// program whose egress and deparser run here: the caller makes the replicas
    /// ([`replicate`]).
    Multicast(u32),
}

/// Runs `packet` through the program of `p` (which has a wire-format build) and appends its copy,
/// if any, to `res`.
#[inline]
pub(crate) fn process(p: &Prog, c: &mut Ctx, packet: &PacketIn<'_>, res: &mut BatchOut) -> Result<(), Stopped> {
    let f = FastProg::of(p);
    let plan = &f.plan;
    if packet.port > plan.max_port {
        return Err(Stopped::PortTooWide);
    }
    c.now_us = packet.now_ns / 1000;
    c.now_ns = packet.now_ns;
    if let (true, Some(code)) = (c.jit, f.jit.as_ref().and_then(|j| j.packet)) {
        return whole_packet(plan, p, c, packet, res, code);
    }
    arrive(plan, &p.pipeline_meta, c, packet.data, packet.port, plan.normal_instance);
    parse_and_note_error(p, c, plan);
    if f.hands_over {
        let aborted = ingress::<false>(p, c);
        if !f.hands_over_when_asked {
            return Err(Stopped::HandedOver { aborted });
        }
        if aborted || asks_traffic_manager(plan, c) {
            if let (false, Some(group)) = (aborted, only_multicast(plan, c)) {
                return Err(Stopped::Multicast(group));
            }
            return Err(Stopped::HandedOver { aborted });
        }
    } else if c.fx.aborted.is_some() || stage_aborts(f, p, c, &plan.ingress) {
        return Err(Stopped::HandedOver { aborted: true });
    }
    if marked_to_drop(plan, c) {
        return Err(Stopped::Marked);
    }
    let port = plan.out_port_field.map_or(0, |s| c.get(s)) as u32;
    egress_and_deparse(f, p, c, port, 0, None, res)
}

/// One copy of the packet in `c` leaving for `port` with replication id `rid` (and instance type
/// `instance`, else the arrival's): departure metadata, egress, deparser, appended to `res`.
fn egress_and_deparse(f: &FastProg, p: &Prog, c: &mut Ctx, port: u32, rid: u32, instance: Option<u128>, res: &mut BatchOut) -> Result<(), Stopped> {
    let plan = &f.plan;
    p.pipeline_meta.depart(c, port, rid);
    if let (Some(i), Some(s)) = (instance, p.pipeline_meta.instance_field()) {
        c.set(s, i);
    }
    c.fx = Effects::default();
    if stage_aborts(f, p, c, &plan.egress) {
        return Err(Stopped::Aborted);
    }
    if marked_to_drop(plan, c) {
        return Err(Stopped::Marked);
    }
    // The deparser appends straight to the batch's buffer (lent to the context meanwhile).
    std::mem::swap(&mut c.wire_out, &mut res.bytes);
    let first = c.wire_out.len();
    c.wire_out_tail = 0;
    if stage_aborts(f, p, c, &plan.deparse) {
        c.wire_out.truncate(first);
        std::mem::swap(&mut c.wire_out, &mut res.bytes);
        return Err(Stopped::Aborted);
    }
    let payload = c.cursor.div_ceil(8).min(c.pkt.len());
    c.wire_out.extend_from_slice(c.pkt.get(payload..).unwrap_or(&[]));
    std::mem::swap(&mut c.wire_out, &mut res.bytes);
    res.push_written(port, first);
    if let Some(at) = p.tx_stamp_request(c) {
        res.ask_tx_stamp(at);
    }
    Ok(())
}

/// [`process`] by the generated whole-packet function: the packet state prepared here as for
/// the closures (a self-contained function's batches go through [`whole_batch`]), everything from
/// the arrival metadata to the payload's copy done by `code`.
#[inline]
fn whole_packet(plan: &PacketPlan, p: &Prog, c: &mut Ctx, packet: &PacketIn<'_>, res: &mut BatchOut, code: PacketFn) -> Result<(), Stopped> {
    zero_frame(plan, c);
    c.enter(packet.data);
    c.jit_frame.in_port = u64::from(packet.port);
    c.jit_frame.now_us = c.now_us;
    c.jit_frame.now_stamp = p4_ir::time::stamp(packet.now_ns);
    // The function appends straight to the batch's buffer (lent to the context meanwhile).
    std::mem::swap(&mut c.wire_out, &mut res.bytes);
    let first = c.wire_out.len();
    let r = jit::call(code.code, p, c, code.emits + packet.data.len());
    if r == jit::ABORTED {
        c.wire_out.truncate(first);
    }
    std::mem::swap(&mut c.wire_out, &mut res.bytes);
    match r {
        jit::DROPPED => return Err(Stopped::Marked),
        jit::ABORTED => return Err(Stopped::Aborted),
        _ => {}
    }
    res.push_written(c.jit_frame.out_port as u32, first);
    if let Some(at) = p.tx_stamp_request(c) {
        res.ask_tx_stamp(at);
    }
    Ok(())
}

/// [`process`] for every packet of `batch`, when the program has a self-contained whole-packet
/// function and machine code is on (else `false`, nothing done): what stays the same from packet
/// to packet (the frame's pointers, the lent output buffer) is set once.
pub(crate) fn whole_batch(p: &Prog, c: &mut Ctx, batch: &[PacketIn<'_>], res: &mut BatchOut) -> bool {
    let f = FastProg::of(p);
    let Some(code) = f.jit.as_ref().and_then(|j| j.packet).filter(|code| code.self_contained && c.jit) else { return false };
    let plan = &f.plan;
    // Other executors (`Ctx::enter`) may have left any slot written.
    if !c.frame_tidy {
        zero_frame(plan, c);
        c.frame_tidy = true;
    }
    std::mem::swap(&mut c.wire_out, &mut res.bytes);
    // From here to the end of the batch the context is reached only through `cp`, the pointer
    // the generated code is given, so that the frame's pointers, derived from it once (the
    // context's buffers do not move while the batch runs), stay valid for every packet.
    let cp: *mut Ctx = c;
    // SAFETY: `cp` comes from the exclusive `c`, which is not used until the batch ends.
    unsafe { jit::start_batch(p, cp) };
    for (index, packet) in batch.iter().enumerate() {
        res.input = index as u32;
        if packet.port > plan.max_port {
            res.push_drop(crate::batch::DropReason::PortTooWide(packet.port));
            continue;
        }
        // SAFETY: as above, and `code` was generated for `p`. The packet is read where it lies
        // (nothing calls back into code reading `Ctx::pkt`), and `packet.data` outlives the call.
        unsafe {
            let now_us = packet.now_ns / 1000;
            (*cp).now_us = now_us;
            (*cp).now_ns = packet.now_ns;
            let frame = std::ptr::addr_of_mut!((*cp).jit_frame);
            (*frame).set_packet(packet.data, u64::from(packet.port), packet.now_ns);
            let first = (*cp).wire_out.len();
            if jit::call_raw(code.code, cp, code.emits + packet.data.len()) == jit::DROPPED {
                res.push_drop(p.drop_reason(&*cp));
            } else {
                res.push_range((*frame).out_port as u32, first, (*cp).wire_out.len() - first);
                if let Some(at) = p.tx_stamp_request(&*cp) {
                    res.ask_tx_stamp(at);
                }
            }
        }
    }
    std::mem::swap(&mut c.wire_out, &mut res.bytes);
    true
}

/// Zeroes every frame slot a packet must find zeroed.
#[inline]
fn zero_frame(plan: &PacketPlan, c: &mut Ctx) {
    for &(start, end) in &plan.zero {
        if let Some(slots) = c.f.get_mut(start..end) {
            slots.fill(0);
        }
    }
}

/// The state a packet enters the parser with: the frame's non-header slots and the headers
/// zeroed, the packet copied in, no effects, and the arrival metadata with instance type
/// `instance`.
#[inline]
fn arrive(plan: &PacketPlan, meta: &PipelineMeta, c: &mut Ctx, data: &[u8], port: u32, instance: u128) {
    zero_frame(plan, c);
    c.enter(data);
    meta.arrive(c, port, data.len(), instance);
}

/// The state a packet entering pipeline `pipeline` of two ([`crate::fast::exec::TwoPipelineMeta`])
/// starts from: that pipeline's slots and the compiler's temporaries zeroed, the packet copied in,
/// no effects, the arrival metadata with instance type `instance`.
pub(crate) fn enter_pipeline(p: &Prog, c: &mut Ctx, pipeline: usize, data: &[u8], port: u32, instance: u128) {
    if let Some(tp) = &p.two_pipelines {
        for &(start, end) in tp.zero.get(pipeline).map_or(&[][..], Vec::as_slice) {
            if let Some(slots) = c.f.get_mut(start..end) {
                slots.fill(0);
            }
        }
        if let Some(temps) = c.f.get_mut(tp.temps_from..) {
            temps.fill(0);
        }
    }
    c.enter(data);
    p.pipeline_meta.arrive(c, port, data.len(), instance);
}

/// Runs the parser; the error it ends with goes to the parser-error field.
#[inline]
fn parse_and_note_error(p: &Prog, c: &mut Ctx, plan: &PacketPlan) {
    if let (Err(e), Some(s)) = (run_parser(p, c), plan.error_field) {
        c.set(s, u128::from(e));
    }
}

/// The state a packet the switch's traffic manager sends into the parser enters it with
/// (arriving from a port, resubmitted, recirculated, or an ingress-to-egress clone re-parsed):
/// [`arrive`] with instance type `instance`.
pub(crate) fn arrive_at(p: &Prog, c: &mut Ctx, data: &[u8], port: u32, instance: u128) {
    arrive(&FastProg::of(p).plan, &p.pipeline_meta, c, data, port, instance);
}

/// The ingress controls up to one an assert (or a loop that did not end) stops; returns whether
/// one did (one that failed in the parser stops the packet before them). `TRACED`: a traced
/// switch's, recording each control and the fields it changed.
pub(crate) fn ingress<const TRACED: bool>(p: &Prog, c: &mut Ctx) -> bool {
    let f = FastProg::of(p);
    c.fx.aborted.is_some() || stage::<TRACED>(f, p, c, &p.pipeline.ingress, &f.plan.ingress)
}

/// The egress controls of a packet the switch's traffic manager sends to egress; returns
/// whether an assert stopped it.
pub(crate) fn egress<const TRACED: bool>(p: &Prog, c: &mut Ctx) -> bool {
    let f = FastProg::of(p);
    stage::<TRACED>(f, p, c, &p.pipeline.egress, &f.plan.egress)
}

/// The deparser of a packet the switch's traffic manager sends to egress, emitting into
/// `Ctx::wire_out` (cleared first); returns whether an assert stopped it.
pub(crate) fn deparse<const TRACED: bool>(p: &Prog, c: &mut Ctx) -> bool {
    let f = FastProg::of(p);
    c.wire_out.clear();
    c.wire_out_tail = 0;
    stage::<TRACED>(f, p, c, &p.pipeline.deparse, &f.plan.deparse)
}

/// The deparser of the first of two pipelines (PSA's ingress deparser), emitting into
/// `Ctx::wire_out` (cleared first); returns whether an assert stopped it.
pub(crate) fn ingress_deparse<const TRACED: bool>(p: &Prog, c: &mut Ctx) -> bool {
    let f = FastProg::of(p);
    c.wire_out.clear();
    c.wire_out_tail = 0;
    stage::<TRACED>(f, p, c, &p.pipeline.ingress_deparse, &f.plan.ingress_deparse)
}

/// One stage: every control of the pipeline's `all` traced, else the ones with a body
/// (`with_body`, the plan's) as they are; returns whether an assert stopped the packet.
#[inline]
fn stage<const TRACED: bool>(f: &FastProg, p: &Prog, c: &mut Ctx, all: &[usize], with_body: &[usize]) -> bool {
    if TRACED {
        stage_traced(f, p, c, all)
    } else {
        stage_aborts(f, p, c, with_body)
    }
}

/// Runs the control bodies of `stage` in order (an `exit` ends only its own control) up to one an
/// assert or a loop that did not end stops; returns
/// whether one did.
#[inline]
fn stage_aborts(f: &FastProg, p: &Prog, c: &mut Ctx, stage: &[usize]) -> bool {
    stage.iter().any(|&ctl| matches!(f.controls.get(ctl), Some(Some(body)) if body(p, c) == Flow::Abort))
}

/// [`stage_aborts`] of a traced switch over every control of the stage (`stage`: the
/// pipeline's, empty controls included), recording each: the control's name, its steps, then
/// the fields it changed.
fn stage_traced(f: &FastProg, p: &Prog, c: &mut Ctx, stage: &[usize]) -> bool {
    for &ctl in stage {
        if let (Some(trace), Some(name)) = (c.trace.as_mut(), p.control_names.get(ctl)) {
            trace.push(crate::trace::Event::Control { name: name.clone() });
        }
        let flow = match f.controls.get(ctl) {
            Some(Some(body)) => body(p, c),
            _ => Flow::Next,
        };
        super::note_changes(p, c, true);
        if flow == Flow::Abort {
            return true;
        }
    }
    false
}

/// The multicast group the ingress asked for when that is all it asked of the traffic manager.
#[inline]
fn only_multicast(plan: &PacketPlan, c: &Ctx) -> Option<u32> {
    let fx = &c.fx;
    if fx.clone.is_some() || fx.reparse_arrived.is_some() || fx.reparse_deparsed.is_some() || fx.truncate.is_some() {
        return None;
    }
    let group = c.get(plan.group_field?);
    u32::try_from(group).ok().filter(|&g| g != 0)
}

/// The replicas of a packet [`process`] stopped with [`Stopped::Multicast`]: for each `(rid,
/// port)` of `members`, in order, the packet state as ingress left it (saved in `saved`, a buffer
/// kept for reuse), then egress and deparser as for the replica of instance type `instance`.
/// At most `limit` copies; returns whether there were more (the caller drops the packet for it).
/// Copies egress marks to drop, or a loop or assert stops, go to `dropped` with why.
pub(crate) fn replicate(p: &Prog, c: &mut Ctx, members: impl Iterator<Item = (u32, u32)>, instance: u128, limit: usize, saved: &mut Saved, res: &mut BatchOut, mut dropped: impl FnMut(&Prog, &mut Ctx, &mut BatchOut, Stopped)) -> bool {
    let f = FastProg::of(p);
    saved.frame.clear();
    saved.frame.extend_from_slice(&c.f);
    saved.wire.clear();
    saved.wire.extend_from_slice(&c.wire);
    let (valid, cursor) = (c.wire_valid, c.cursor);
    for (made, (rid, port)) in members.enumerate() {
        if made == limit {
            return true;
        }
        if made > 0 {
            c.f.copy_from_slice(&saved.frame);
            c.wire.copy_from_slice(&saved.wire);
            (c.wire_valid, c.cursor) = (valid, cursor);
        }
        if let Err(stopped) = egress_and_deparse(f, p, c, port, rid, Some(instance), res) {
            dropped(p, c, res, stopped);
        }
    }
    false
}

/// Where [`replicate`] keeps the packet state between replicas (reused from packet to packet).
#[derive(Default)]
pub(crate) struct Saved {
    frame: Vec<u128>,
    wire: Vec<u8>,
}

/// Whether the ingress asked the traffic manager for more than one copy to one port or a drop:
/// a clone, a resubmission, a recirculation, a truncation or a multicast group.
#[inline]
fn asks_traffic_manager(plan: &PacketPlan, c: &Ctx) -> bool {
    let fx = &c.fx;
    fx.clone.is_some() || fx.reparse_arrived.is_some() || fx.reparse_deparsed.is_some() || fx.truncate.is_some() || plan.group_field.is_some_and(|g| c.get(g) != 0)
}

#[inline]
fn marked_to_drop(plan: &PacketPlan, c: &Ctx) -> bool {
    plan.drop_marker.is_some_and(|(slot, value)| c.get(slot) == value)
}
