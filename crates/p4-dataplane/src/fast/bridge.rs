//! What this executor leaves to the closure executor's compiler: a statement or select key on a
//! value wider than 128 bits or in a place it does not know (a varbit or wide value outside a
//! header), and a call of a function. The closure executor's code reads and writes headers in
//! frame slots, so around such code the headers it touches are copied from the wire buffer into
//! their slots and back. Extern calls and the requests to the traffic manager are not bridged on
//! their own: this executor runs them itself ([`super::runtime`]); only one inside a bridged
//! statement or function runs as the closure executor's code with the rest of it.
//!
//! A bridged statement or function that may ask for the traffic manager (clone, resubmit,
//! recirculate, truncate, assert, a write of the multicast group) marks the program as one that
//! hands its packets over to it ([`super::FastProg::hands_over`]).

use p4_arch::{Architecture, MetaRole};
use p4_ir::visit::{walk_call, walk_expr, walk_stmt, Visit};
use p4_ir::{BlockRef, Call, Callee, Direction, Expr, ExprKind, Stmt};

use super::places::{FrameHeader, Places};
use super::{read_field, write_field};
use crate::compile::{Compiler, R};
use crate::exec::{Ctx, Ev, Run};

/// Whether a bridge may run `call` (`Some`: a function), and whether what it does needs the
/// switch's traffic manager (`Some(true)`: the program then hands its packets over after ingress).
fn bridgeable(ir: &p4_ir::Program, arch: &Architecture, call: &Call) -> Option<bool> {
    match &call.callee {
        Callee::Function(f) => Some(needs_traffic_manager(ir, arch, &ir.functions.get(f.index())?.body, 0)),
        _ => None,
    }
}

/// Deepest nesting of function calls looked through (deeper: assumed to need the traffic manager).
const MAX_CALL_DEPTH: usize = 16;

/// Whether `stmts` (a function body) call, directly or through functions, an operation that needs
/// the traffic manager.
fn needs_traffic_manager(ir: &p4_ir::Program, arch: &Architecture, stmts: &[Stmt], depth: usize) -> bool {
    use super::build::is_traffic_manager_op;
    let call_needs = |call: &Call| match &call.callee {
        Callee::ExternFunction { name, .. } => arch.function(name).is_none_or(|f| is_traffic_manager_op(f.op)),
        Callee::Function(f) => depth >= MAX_CALL_DEPTH || ir.functions.get(f.index()).is_none_or(|f| needs_traffic_manager(ir, arch, &f.body, depth + 1)),
        Callee::Method { extern_type, method, .. } => {
            arch.extern_type(extern_type).and_then(|t| t.methods.iter().find(|m| m.name == method)).is_some_and(|m| is_traffic_manager_op(m.op))
        }
        _ => false,
    };
    let mut found = NeedsTrafficManager { call_needs, found: false };
    found.visit_stmts(stmts);
    found.found
}

/// Looks for a call `call_needs` accepts, or a table or block apply (which a function does not
/// make; anything else here is refused elsewhere).
struct NeedsTrafficManager<F> {
    call_needs: F,
    found: bool,
}

impl<F: Fn(&Call) -> bool> Visit<'_> for NeedsTrafficManager<F> {
    fn visit_stmt(&mut self, s: &Stmt) {
        self.found |= matches!(s, Stmt::ApplyTable { .. } | Stmt::ApplyBlock { .. } | Stmt::SwitchAction { .. });
        if !self.found {
            walk_stmt(self, s);
        }
    }

    fn visit_call(&mut self, call: &Call) {
        self.found |= (self.call_needs)(call);
        if !self.found {
            walk_call(self, call);
        }
    }

    fn visit_expr(&mut self, e: &Expr) {
        self.found |= matches!(e.kind, ExprKind::ApplyTable(..));
        if !self.found {
            walk_expr(self, e);
        }
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

/// The headers `exprs` name, which bridged code must see in the frame (every header when one
/// may reach further than a static place says).
fn headers_named<'a>(cx: &mut Compiler<'_>, places: &Places, b: &BlockRef, exprs: impl IntoIterator<Item = &'a Expr>) -> R<Vec<FrameHeader>> {
    let mut ranges = Vec::new();
    let mut all_static = true;
    for e in exprs {
        all_static &= touched(cx, b, e, &mut ranges)?;
    }
    Ok(places.frame_headers(all_static.then_some(&ranges[..])))
}

/// The headers a bridged `call` must see in the frame.
fn headers_of(cx: &mut Compiler<'_>, places: &Places, b: &BlockRef, call: &Call) -> R<Vec<FrameHeader>> {
    headers_named(cx, places, b, call.args.iter().map(|a| &a.expr))
}

/// Whether an `out`/`inout` argument of `call` may write the multicast group (which only the
/// switch's traffic manager acts on).
fn writes_group(cx: &mut Compiler<'_>, b: &BlockRef, call: &Call) -> R<bool> {
    let Some(group) = cx.intrinsic.slot(MetaRole::MulticastGroup) else { return Ok(false) };
    for a in call.args.iter().filter(|a| a.direction != Direction::In) {
        let mut ranges = Vec::new();
        let all_static = touched(cx, b, &a.expr, &mut ranges)?;
        if !all_static || ranges.iter().any(|&(s, e)| (s..e).contains(&group)) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// What a bridge compiled, and whether it needs the switch's traffic manager.
pub(super) struct Bridged<T> {
    pub code: T,
    pub needs_traffic_manager: bool,
}

/// What bridging `call` needs: the headers to copy around it, and whether it needs the switch's
/// traffic manager; `why` if it is not one a bridge may run.
fn prepare(cx: &mut Compiler<'_>, places: &Places, b: &BlockRef, call: &Call, why: crate::DataplaneError) -> R<(Vec<FrameHeader>, bool)> {
    if call_emits(cx.ir, call, 0) {
        let name = match &call.callee {
            Callee::Function(f) => cx.ir.functions.get(f.index()).map_or("a function", |f| f.name.as_str()),
            Callee::Action(a) => cx.ir.actions.get(a.index()).map_or("an action", |a| a.name.as_str()),
            _ => return Err(why),
        };
        return Err(crate::DataplaneError { message: format!("a call of `{name}`, which emits"), ..why });
    }
    let Some(tm) = p4_arch::of(cx.ir).and_then(|arch| bridgeable(cx.ir, arch, call)) else { return Err(why) };
    let needs_traffic_manager = tm || writes_group(cx, b, call)?;
    Ok((headers_of(cx, places, b, call)?, needs_traffic_manager))
}

/// `run` (closure executor code) with `headers` copied into their frame slots before it and back
/// after.
fn around(headers: Vec<FrameHeader>, run: Run) -> Run {
    Box::new(move |p, c| {
        to_frame(&headers, c);
        let flow = run(p, c);
        from_frame(&headers, c);
        flow
    })
}

/// `call`, a call of a function, as a statement run by the closure executor's code, or `why` if it
/// is not one a bridge may run.
pub(super) fn call(cx: &mut Compiler<'_>, places: &Places, b: &BlockRef, call: &Call, why: crate::DataplaneError) -> R<Bridged<Run>> {
    let (headers, needs_traffic_manager) = prepare(cx, places, b, call, why)?;
    let run = cx.call_stmt(b, call)?;
    Ok(Bridged { code: around(headers, run), needs_traffic_manager })
}

/// `s`, a statement this executor does not compile itself (a value wider than 128 bits, a place it
/// does not know), run by the closure executor's code with the headers it names copied into their
/// frame slots before and back after ([`statement_headers`]); `why` if a bridge may not run it: a statement that emits
/// (the closure executor's deparser writes an output of its own) or applies a sub-block (the
/// mid-end inlines those: see `p4forge::frontend::software_switches`).
pub(super) fn statement(cx: &mut Compiler<'_>, places: &Places, b: &BlockRef, s: &Stmt, why: crate::DataplaneError) -> R<Bridged<Run>> {
    let Some(arch) = p4_arch::of(cx.ir) else { return Err(why) };
    if matches!(s, Stmt::ApplyBlock { .. }) || emits(cx.ir, std::slice::from_ref(s), 0) {
        return Err(why);
    }
    let needs_traffic_manager = needs_traffic_manager(cx.ir, arch, std::slice::from_ref(s), 0);
    let headers = statement_headers(cx, places, b, s)?;
    let run = cx.stmt(b, s)?;
    Ok(Bridged { code: around(headers, run), needs_traffic_manager })
}

/// The headers a bridged statement must see in the frame: those its expressions name, or every
/// header when it reaches further (a call of an action or function, a table, a run-time index).
fn statement_headers(cx: &mut Compiler<'_>, places: &Places, b: &BlockRef, s: &Stmt) -> R<Vec<FrameHeader>> {
    let mut exprs = Vec::new();
    if expressions(std::slice::from_ref(s), &mut exprs) {
        return headers_named(cx, places, b, exprs);
    }
    Ok(places.frame_headers(None))
}

/// The expressions of `stmts` added to `out`; `false` where a statement reaches past them (it
/// calls an action or function, or applies a table or block).
fn expressions<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Expr>) -> bool {
    stmts.iter().all(|s| match s {
        Stmt::Call(call) => {
            out.extend(call.args.iter().map(|a| &a.expr));
            match &call.callee {
                Callee::Builtin { target, .. } => {
                    out.push(target);
                    true
                }
                Callee::Method { .. } | Callee::ExternFunction { .. } => true,
                _ => false,
            }
        }
        Stmt::VarInit { init, .. } => {
            out.extend(init);
            true
        }
        Stmt::Assign { lhs, rhs, .. } => {
            out.extend([lhs, rhs]);
            true
        }
        Stmt::Return(e, _) => {
            out.extend(e);
            true
        }
        Stmt::If { cond, then, otherwise, .. } => {
            out.push(cond);
            expressions(then, out) && expressions(otherwise, out)
        }
        Stmt::SwitchValue { expr, cases, .. } => {
            out.push(expr);
            cases.iter().all(|(_, body)| expressions(body, out))
        }
        Stmt::For { init, cond, update, body, .. } => {
            out.extend(cond);
            expressions(init, out) && expressions(update, out) && expressions(body, out)
        }
        Stmt::Block(body) => expressions(body, out),
        Stmt::Exit(_) | Stmt::Break(_) | Stmt::Continue(_) | Stmt::Empty => true,
        Stmt::ApplyTable { .. } | Stmt::ApplyBlock { .. } | Stmt::SwitchAction { .. } => false,
    })
}

/// Whether `stmts`, directly or through the actions and functions they call, emit: the closure
/// executor's code emits to an output of its own (`Ctx::out`), not this executor's, so a bridge
/// may not run them. (Its extracts read the packet at the cursor both executors share.) Deeper
/// calls than [`MAX_CALL_DEPTH`] are assumed to.
fn emits(ir: &p4_ir::Program, stmts: &[Stmt], depth: usize) -> bool {
    any_call(stmts, &|call| call_emits(ir, call, depth))
}

/// Whether `call` emits, itself or through the action or function it calls ([`emits`]).
fn call_emits(ir: &p4_ir::Program, call: &Call, depth: usize) -> bool {
    match &call.callee {
        Callee::Method { extern_type, .. } => extern_type == "packet_out",
        Callee::Function(f) => depth >= MAX_CALL_DEPTH || ir.functions.get(f.index()).is_none_or(|f| emits(ir, &f.body, depth + 1)),
        Callee::Action(a) => depth >= MAX_CALL_DEPTH || ir.actions.get(a.index()).is_none_or(|a| emits(ir, &a.body, depth + 1)),
        _ => false,
    }
}

/// Whether a statement of `stmts` (not looking into actions or functions called) makes a call
/// `pred` holds for.
fn any_call(stmts: &[Stmt], pred: &dyn Fn(&Call) -> bool) -> bool {
    p4_ir::visit::any_stmt(stmts, |s| matches!(s, Stmt::Call(call) if pred(call)))
}

/// `e`, a scalar expression without calls this executor does not compute itself (a select key on
/// a field wider than 128 bits...), computed by the closure executor's code from the headers it
/// names copied into the frame; `why` if it makes a call or the closure executor's compiler
/// refuses it.
pub(super) fn expression(cx: &mut Compiler<'_>, places: &Places, b: &BlockRef, e: &Expr, why: crate::DataplaneError) -> R<Ev> {
    if e.any(&mut |x| matches!(x.kind, ExprKind::Call(_) | ExprKind::ApplyTable(..))) {
        return Err(why);
    }
    let headers = headers_named(cx, places, b, [e])?;
    let ev = cx.scalar(b, e).map_err(|_| why)?;
    // Without calls it writes nothing back.
    Ok(std::sync::Arc::new(move |p, c| {
        to_frame(&headers, c);
        ev(p, c)
    }))
}

/// `e`, a call of a function returning a value, computed by the closure executor's code, or `why`
/// if it is not one a bridge may run.
pub(super) fn value(cx: &mut Compiler<'_>, places: &Places, b: &BlockRef, e: &Expr, why: crate::DataplaneError) -> R<Bridged<Ev>> {
    let ExprKind::Call(call) = &e.kind else { return Err(why) };
    let (headers, needs_traffic_manager) = prepare(cx, places, b, call, why)?;
    let ev = cx.scalar(b, e)?;
    let code: Ev = std::sync::Arc::new(move |p, c| {
        to_frame(&headers, c);
        let v = ev(p, c);
        from_frame(&headers, c);
        v
    });
    Ok(Bridged { code, needs_traffic_manager })
}

/// Copies `headers` from the wire buffer into their frame slots (around a bridged call).
pub(super) fn to_frame(headers: &[FrameHeader], c: &mut Ctx) {
    for h in headers {
        c.set(h.valid, u128::from(c.wire_valid.has(h.region.index)));
        for &(slot, bit, width) in &h.fields {
            let v = read_field(&c.wire, bit, width);
            c.set(slot, v);
        }
        if let Some(v) = h.region.varbit {
            // Its length is in the frame already; its bits go in 128-bit pieces after it.
            let at = (h.region.at + h.region.fixed_len()) * 8;
            for (k, (bit, width)) in varbit_pieces(c.get(v.length_slot) as usize, v.max_len).enumerate() {
                let piece = read_field(&c.wire, at + bit, width);
                c.set(v.length_slot + 1 + k, piece);
            }
        }
    }
}

/// The pieces the closure executor keeps a varbit of `length` bits in (at most `max_len` bytes):
/// `(bit offset, width)` of each, 128 bits but the last.
fn varbit_pieces(length: usize, max_len: usize) -> impl Iterator<Item = (usize, u32)> {
    let length = length.min(max_len * 8);
    (0..length).step_by(128).map(move |bit| (bit, (length - bit).min(128) as u32))
}

/// Copies `headers` back from their frame slots; an invalid header's bytes become zero (this
/// executor's invariant for invalid headers).
fn from_frame(headers: &[FrameHeader], c: &mut Ctx) {
    for h in headers {
        if c.get(h.valid) != 0 {
            c.wire_valid.set(h.region.index);
            for &(slot, at, width) in &h.fields {
                let v = c.get(slot);
                write_field(&mut c.wire, at, width, v);
            }
            if let Some(v) = h.region.varbit {
                let at = h.region.at + h.region.fixed_len();
                if let Some(bytes) = c.wire.get_mut(at..at + v.max_len) {
                    bytes.fill(0);
                }
                for (k, (bit, width)) in varbit_pieces(c.get(v.length_slot) as usize, v.max_len).enumerate() {
                    let piece = c.get(v.length_slot + 1 + k);
                    write_field(&mut c.wire, at * 8 + bit, width, piece);
                }
            }
        } else {
            c.wire_valid.clear(h.region.index);
            if let Some(bytes) = c.wire.get_mut(h.region.at..h.region.at + h.region.len) {
                bytes.fill(0);
            }
        }
    }
}
