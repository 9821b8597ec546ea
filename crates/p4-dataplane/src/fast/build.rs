//! Compiles a program for the wire-format executor, or says which construct it cannot run.

use std::sync::Arc;

use p4_arch::{DropMarker, ExternOp, MetaRole, ParamType};
use p4_ir::{BlockRef, Builtin, Call, Callee, Direction, Expr, ExprKind, Stmt, Type};

use super::code::{ChecksumTarget, Code, ParserCode, StateCode, TransitionCode};
use super::places::{Place, Places, Region};
use super::scalar::Scalar;
use super::{runtime, Dest, Write, FastProg, PacketPlan, FastState, FastTable, FastTransition, TableAction, Val, SLACK};
use crate::bits;
use crate::fast::compile::{unsupported, Compiler, R};
use crate::fast::exec::{Ev, Flow, KeyMatch, Prog, Run, SwitchArms, seq};
use crate::hashing::{csum16_shifts, Algorithm};

/// Compiles the pipeline of `prog` (built by `cx`) for the wire-format executor; an error names the
/// first construct it cannot run.
pub(crate) fn build(cx: &mut Compiler<'_>, prog: &Prog) -> R<FastProg> {
    let places = Places::of(cx)?;
    let wire_len = places.wire_len + SLACK;
    let mut fc = FastCompiler {
        cx,
        places,
        action_code: Vec::new(),
        tables: Vec::new(),
        key_code: Vec::new(),
        written: Vec::new(),
        hands_over: false,
        reads_ahead: false,
        functions: Vec::new(),
        current_ret: None,
    };
    fc.action_code.resize_with(fc.cx.ir.actions.len(), || None);
    fc.tables.resize_with(fc.cx.ir.tables.len(), || None);
    fc.key_code.resize_with(fc.cx.ir.tables.len(), Vec::new);
    fc.functions.resize_with(fc.cx.ir.functions.len(), || None);
    // The one translation of the pipeline's blocks (and, on demand, of the actions and tables
    // they apply), which both back ends below consume.
    let parser = fc.parser_code(prog.pipeline.parser)?;
    let mut controls: Vec<Option<Vec<Code>>> = Vec::new();
    controls.resize_with(fc.cx.ir.controls.len(), || None);
    for &i in &prog.pipeline.ingress {
        controls[i] = fc.control_code(i)?;
    }
    // The pipeline here sends one copy to one port or drops it: a packet asking for more (a
    // multicast group, a clone, a re-parse, a truncation) or stopped by an assert goes to the
    // switch's traffic manager, which runs the blocks compiled here for each copy.
    if let Some(group) = prog.intrinsic.slot(MetaRole::MulticastGroup) {
        fc.hands_over |= fc.written.contains(&group);
    }
    // When egress or deparser may ask the traffic manager for something, every packet goes to
    // it after ingress; else only the packets whose ingress asked.
    let ingress_hands_over = std::mem::replace(&mut fc.hands_over, false);
    let pl = &prog.pipeline;
    for &i in pl.ingress_deparse.iter().chain(&pl.egress).chain(&pl.deparse) {
        controls[i] = fc.control_code(i)?;
    }
    // Two pipelines: every packet goes through the switch's traffic manager for them, which
    // runs the second parser (closures only) on each copy.
    let egress_parser = match pl.egress_parser {
        Some(i) => {
            fc.hands_over = true;
            Some((i, fc.parser_code(i)?))
        }
        None => None,
    };
    let hands_over_when_asked = ingress_hands_over && !fc.hands_over;
    fc.hands_over |= ingress_hands_over;
    let with_body: Vec<bool> = controls.iter().map(Option::is_some).collect();
    let plan = packet_plan(prog, &fc.places, &with_body, fc.cx.next_slot);
    // Machine code, where the machine takes it; for a program that does not hand over, the whole
    // packet as one function too. A traced build records its steps from the closures.
    let compiled: Vec<usize> = (0..controls.len()).filter(|&i| with_body[i]).collect();
    let pipeline = (!fc.hands_over).then_some((&plan, &prog.pipeline_meta));
    let jit = if fc.cx.tracing { None } else { super::jit::compile(&mut fc, &parser, &controls, prog.pipeline.parser, &compiled, pipeline) };
    // The closures.
    let (parser_init, states) = fc.parser_closures(prog.pipeline.parser, parser);
    let egress_parser = egress_parser.map(|(i, code)| fc.parser_closures(i, code));
    let mut controls: Vec<Option<Run>> = controls.into_iter().enumerate().map(|(i, code)| code.map(|code| fc.control_closures(i, code))).collect();
    if let Some(j) = &jit {
        for (i, body) in controls.iter_mut().enumerate() {
            // A control that did not become machine code keeps its closures.
            let Some((code, emits)) = j.controls.get(i).copied().flatten() else { continue };
            if let Some(closures) = body.take() {
                *body = Some(super::jit::control_body(code, emits, closures));
            }
        }
    }
    let actions = fc.action_closures();
    // The traffic manager restores preserved fields in the frame, where this executor keeps no
    // header.
    let preserved: Vec<(usize, usize)> = fc.cx.field_sets.iter().flatten().map(|&(s, len)| (s, s + len)).collect();
    if !fc.places.frame_headers(Some(&preserved)).is_empty() {
        return unsupported("a header field among the fields a clone, resubmission or recirculation preserves");
    }
    let frame_headers = fc.places.frame_headers(None);
    Ok(FastProg { parser_init, states, egress_parser, controls, tables: fc.tables, actions, functions: fc.functions, wire_len, plan, hands_over: fc.hands_over, hands_over_when_asked, frame_headers, jit })
}

fn packet_plan(prog: &Prog, places: &Places, controls: &[bool], frame_len: usize) -> PacketPlan {
    let meta = &prog.intrinsic;
    let with_body = |stage: &[usize]| stage.iter().copied().filter(|i| controls.get(*i) == Some(&true)).collect();
    let DropMarker::AllOnes(marker) = prog.arch.drop;
    PacketPlan {
        zero: places.frame_ranges(frame_len),
        ingress: with_body(&prog.pipeline.ingress),
        ingress_deparse: with_body(&prog.pipeline.ingress_deparse),
        egress: with_body(&prog.pipeline.egress),
        deparse: with_body(&prog.pipeline.deparse),
        error_field: meta.slot(MetaRole::ParserError),
        out_port_field: meta.slot(MetaRole::EgressSpec),
        tx_stamp_fields: [meta.slot(MetaRole::TxTimestamp), meta.slot(MetaRole::TxTimestampOffset)],
        drop_marker: meta.slot(marker).map(|s| (s, meta.drop_value)),
        normal_instance: u128::from(prog.arch.instance_value(p4_arch::PacketInstance::Normal)),
        max_port: meta.max_port(),
        group_field: meta.slot(MetaRole::MulticastGroup),
    }
}

/// How a place reached through a header stack element picks the element per packet.
enum ElementIndex {
    /// `hs[i]`: the index expression's value.
    Expr(Expr),
    /// `hs.next`, or `hs.last` (`last`): the stack's next index, less one for `last`.
    Next { stack: Expr, last: bool },
}

/// For a place reached through a header stack element chosen per packet (`hs[i].f`,
/// `hs.last.f`, `hs.next`): how the element is chosen, and the place once per element with the
/// element made a constant index (`hs[0].f`, `hs[1].f`, ...); `None` for any other expression.
fn per_element(e: &Expr) -> Option<(ElementIndex, Vec<Expr>)> {
    match &e.kind {
        ExprKind::Field(inner, f) => {
            let (index, inners) = per_element(inner)?;
            Some((index, inners.into_iter().map(|i| Expr { kind: ExprKind::Field(Box::new(i), *f), ..e.clone() }).collect()))
        }
        ExprKind::Index(stack, index) if !matches!(index.kind, ExprKind::Const(_)) => {
            let Type::Stack(_, n) = &stack.ty else { return None };
            let elements = (0..*n).map(|k| element(e, stack, k, index)).collect();
            Some((ElementIndex::Expr((**index).clone()), elements))
        }
        ExprKind::StackNext(stack) | ExprKind::StackLast(stack) => {
            let Type::Stack(_, n) = &stack.ty else { return None };
            let like = Expr { kind: ExprKind::Const(p4_ir::Value::InfInt(0.into())), ty: Type::Bits { width: 32, signed: false }, span: e.span };
            let elements = (0..*n).map(|k| element(e, stack, k, &like)).collect();
            Some((ElementIndex::Next { stack: (**stack).clone(), last: matches!(e.kind, ExprKind::StackLast(_)) }, elements))
        }
        _ => None,
    }
}

/// `stack[k]` in place of `e` (an element of `stack` chosen at run time), the constant `k` of the
/// type and span of `index` (a `bit<32>` stands for the `nextIndex` of `next` and `last`).
fn element(e: &Expr, stack: &Expr, k: u32, index: &Expr) -> Expr {
    let value = match index.ty {
        Type::Bits { width, signed } => p4_ir::Value::Bits { width, signed, value: k.into() },
        _ => p4_ir::Value::InfInt(k.into()),
    };
    let k = Expr { kind: ExprKind::Const(value), ..index.clone() };
    Expr { kind: ExprKind::Index(Box::new(stack.clone()), Box::new(k)), ..e.clone() }
}

/// `body` of state `state` of parser `parser`, recording first that the parser entered it (a
/// traced build).
fn entering_state(parser: &str, state: &str, body: Run) -> Run {
    let event = crate::trace::Event::State { parser: parser.to_string(), state: state.to_string() };
    Box::new(move |p, c| {
        if let Some(trace) = c.trace.as_mut() {
            trace.push(event.clone());
        }
        body(p, c)
    })
}

/// The control a drop call in block `b` marks the packet in (`None`: the parser).
pub(super) fn mark_site(b: &BlockRef) -> Option<usize> {
    match b {
        BlockRef::Control(c) => Some(c.index()),
        BlockRef::Parser(_) => None,
    }
}

impl FastCompiler<'_, '_> {
    /// The bytes the program's headers take in `Ctx::wire` (before the slack).
    pub(super) fn header_bytes(&self) -> usize {
        self.places.wire_len
    }
}

pub(super) struct FastCompiler<'c, 'a> {
    pub(super) cx: &'c mut Compiler<'a>,
    pub(super) places: Places,
    /// By IR action id: the action's body, translated once (`None`: not yet, or never needed).
    pub(super) action_code: Vec<Option<Arc<Vec<Code>>>>,
    pub(super) tables: Vec<Option<FastTable>>,
    /// By IR table id: its key fields, in the layout's order, translated once.
    pub(super) key_code: Vec<Vec<Scalar>>,
    /// Frame slots some compiled statement assigns.
    pub(super) written: Vec<usize>,
    /// Something compiled needs the switch's traffic manager ([`FastProg::hands_over`]).
    pub(super) hands_over: bool,
    /// The parser state being compiled reads ahead (`lookahead`), which can fail where it is an
    /// expression: it leaves its error in `Ctx::pending_err` for the state to reject with.
    pub(super) reads_ahead: bool,
    /// By IR function id; `None` for a function nothing compiled here calls.
    functions: Vec<Option<Run>>,
    /// The return variable's slot of the function being compiled (`None`: not in a function, or
    /// one returning nothing).
    current_ret: Option<usize>,
}


/// `Return` ends only the action or control it is in (`stmts`: its statements; without a
/// `return` among them, `body` is used as it is).
fn ending_return(stmts: &[&[Stmt]], body: Run) -> Run {
    if !stmts.iter().any(|s| returns(s)) {
        return body;
    }
    Box::new(move |p, c| match body(p, c) {
        Flow::Return => Flow::Next,
        f => f,
    })
}

/// Whether a `return` is among `stmts` (nested in any block).
fn returns(stmts: &[Stmt]) -> bool {
    p4_ir::visit::any_stmt(stmts, |s| matches!(s, Stmt::Return(..)))
}


impl FastCompiler<'_, '_> {
    pub(super) fn place(&mut self, b: &BlockRef, e: &Expr) -> R<Place> {
        self.places.place(self.cx, b, e)
    }

    fn header(&mut self, b: &BlockRef, e: &Expr) -> R<Region> {
        match self.place(b, e)? {
            Place::Header(r) => Ok(r),
            _ => unsupported(format!("{} where a header is expected", crate::fast::compile::describe(self.cx.ir, e))),
        }
    }

    // ------------------------------------------------------------------ expressions

    fn ev(&mut self, b: &BlockRef, e: &Expr) -> R<Ev> {
        Ok(self.val(b, e)?.into_ev())
    }

    /// `e` as the closures read it (its one translation, [`FastCompiler::scalar`], made closures).
    pub(super) fn val(&mut self, b: &BlockRef, e: &Expr) -> R<Val> {
        Ok(self.scalar(b, e)?.closure(self.cx.tracing))
    }

    /// Field `i` of `lookahead<T>()` (the expression `e`): its bits at its offset in T, read ahead
    /// of the cursor; the whole of T must be in the packet.
    pub(super) fn lookahead_field(&mut self, e: &Expr) -> R<Ev> {
        let ExprKind::Field(inner, i) = &e.kind else { return unsupported("a field of a lookahead") };
        let fields = p4_ir::layout::wire_fields(self.cx.ir, &inner.ty);
        let Some(f) = fields.iter().find(|f| f.path == [*i]) else { return unsupported("a field of a lookahead that is not a scalar") };
        if f.varbit || f.width > 128 {
            return unsupported("a field of a lookahead that is not a scalar of at most 128 bits");
        }
        let total = p4_ir::layout::wire_width(self.cx.ir, &inner.ty) as usize;
        Ok(self.read_ahead(total, f.bit_offset as usize, f.width))
    }

    /// A field of the stack element a run-time index chooses: each element's, chosen per packet;
    /// past the stack's end 0. `None`: `e` is not such a field.
    pub(super) fn element_field(&mut self, b: &BlockRef, e: &Expr) -> Option<R<Ev>> {
        let (index, elements) = per_element(e)?;
        Some((|| {
            let index = self.element_index(b, &index)?;
            let each = elements.iter().map(|el| self.val(b, el)).collect::<R<Vec<Val>>>()?;
            let f: Ev = Arc::new(move |p, c| {
                let i = index.read(p, c);
                usize::try_from(i).ok().and_then(|i| each.get(i)).map_or(0, |v| v.read(p, c))
            });
            Ok(f)
        })())
    }

    /// Whether the stack element a run-time index chooses is valid (past the stack's end not).
    /// `None`: `target` is not such an element.
    pub(super) fn element_valid(&mut self, b: &BlockRef, target: &Expr) -> Option<R<Ev>> {
        let (index, elements) = self.headers_per_element(b, target)?;
        Some((|| {
            let index = self.element_index(b, &index)?;
            let mut each = Vec::with_capacity(elements.len());
            for el in &elements {
                let i = self.header(b, el)?.index;
                each.push(Val::Valid { word: i / 64, mask: 1 << (i % 64) });
            }
            let f: Ev = Arc::new(move |p, c| {
                let i = index.read(p, c);
                usize::try_from(i).ok().and_then(|i| each.get(i)).map_or(0, |v| v.read(p, c))
            });
            Ok(f)
        })())
    }

    pub(super) fn header_index(&mut self, b: &BlockRef, e: &Expr) -> R<usize> {
        Ok(self.header(b, e)?.index)
    }

    // ------------------------------------------------------------------ places written

    fn writer(&mut self, b: &BlockRef, e: &Expr) -> R<Write> {
        Ok(match self.dest(b, e)? {
            Dest::Other(w) => w,
            d => Arc::new(move |p, c, v| d.write(p, c, v)),
        })
    }

    /// The index of the element a place through a stack element is in, per packet (past the
    /// stack's end: no element).
    fn element_index(&mut self, b: &BlockRef, index: &ElementIndex) -> R<Val> {
        match index {
            ElementIndex::Expr(e) => self.val(b, e),
            ElementIndex::Next { stack, last } => {
                let (_, next) = self.places.stack(self.cx, b, stack)?;
                Ok(if *last { Val::Eval(Arc::new(move |_, c| c.get(next).wrapping_sub(1))) } else { Val::Slot(next) })
            }
        }
    }

    /// For a header that is a stack element a run-time index chooses (`hs[i]`, `hs.next`,
    /// `hs.last`, whose index reads no call): how the element is chosen and the header once per
    /// element; `None` for any other expression, or one this executor places as it is.
    fn headers_per_element(&mut self, b: &BlockRef, e: &Expr) -> Option<(ElementIndex, Vec<Expr>)> {
        if !self.cx.is_header(&e.ty) || self.header(b, e).is_ok() {
            return None;
        }
        let (index, elements) = per_element(e)?;
        let calls = |x: &Expr| x.any(&mut |y| matches!(y.kind, ExprKind::Call(_) | ExprKind::ApplyTable(..)));
        match &index {
            ElementIndex::Expr(i) if calls(i) => None,
            _ => Some((index, elements)),
        }
    }

    pub(super) fn dest(&mut self, b: &BlockRef, e: &Expr) -> R<Dest> {
        if let ExprKind::Slice(inner, hi, lo) = &e.kind {
            let (hi, lo) = (*hi, *lo);
            if crate::wide::is_wide(&inner.ty) {
                return self.wide_slice_dest(b, inner, hi, lo);
            }
            let read = self.val(b, inner)?;
            let write = self.dest(b, inner)?;
            return Ok(Dest::Other(Arc::new(move |p, c, v| {
                let old = read.read(p, c);
                write.write(p, c, bits::set_slice(old, hi, lo, v));
            })));
        }
        match (self.place(b, e), per_element(e)) {
            (Ok(Place::Slot(s)), _) => {
                self.written.push(s);
                Ok(Dest::Slot(s))
            }
            (Ok(Place::Field { bit, width }), _) => Ok(Dest::Field { bit, width }),
            (Ok(Place::Header(_)), _) => unsupported("a header written as a scalar"),
            // A field of the stack element a run-time index chooses (read after the value, as
            // P4 evaluates l-values first); past the stack's end nothing is written.
            (Err(_), Some((index, elements))) => {
                let index = self.element_index(b, &index)?;
                let each = elements.iter().map(|el| self.dest(b, el)).collect::<R<Vec<Dest>>>()?;
                Ok(Dest::Other(Arc::new(move |p, c, v| {
                    let i = index.read(p, c);
                    if let Some(d) = usize::try_from(i).ok().and_then(|i| each.get(i)) {
                        d.write(p, c, v);
                    }
                })))
            }
            (Err(why), None) => Err(why),
        }
    }

    // ------------------------------------------------------------------ statements

    /// `stmts` as closures, from their one translation.
    fn block(&mut self, b: &BlockRef, stmts: &[Stmt]) -> R<Run> {
        let code = self.code_block(b, stmts)?;
        Ok(self.closures(code))
    }

    /// Statement `s` compiled as a closure of its own ([`Code::Run`](super::code::Code::Run)).
    pub(super) fn stmt(&mut self, b: &BlockRef, s: &Stmt) -> R<Run> {
        Ok(crate::fast::compile::pending_exit::after(s, self.stmt_body(b, s)?))
    }

    fn stmt_body(&mut self, b: &BlockRef, s: &Stmt) -> R<Run> {
        Ok(match s {
            Stmt::VarInit { var, init, span } => {
                let slot = self.cx.var_slot(b, *var)?;
                let ty = self.cx.var_type(b, *var).cloned().unwrap_or(Type::Void);
                if !self.cx.is_scalar(&ty) {
                    let at = |e: crate::DataplaneError| e.at(*span);
                    let place = Expr::new(ty, ExprKind::Var(*var), *span);
                    return match init {
                        Some(e) => self.assign(b, &place, e).map_err(at),
                        None => self.clear(b, &place).map_err(at),
                    };
                }
                self.written.push(slot);
                match init {
                    Some(e) => {
                        let v = self.ev(b, e)?;
                        Box::new(move |p, c| {
                            let x = v(p, c);
                            c.set(slot, x);
                            Flow::Next
                        })
                    }
                    None => Box::new(move |_, c| {
                        c.set(slot, 0);
                        Flow::Next
                    }),
                }
            }
            Stmt::Assign { lhs, rhs, span } => self.assign(b, lhs, rhs).map_err(|e| e.at(*span))?,
            Stmt::Call(call) => self.call(b, call).map_err(|e| e.at(call.span))?,
            Stmt::SwitchAction { table, cases, .. } => {
                let t = table.index();
                self.table(t)?;
                let arms = SwitchArms::build(cases, |a, body| Ok::<_, crate::DataplaneError>((a.map(|a| a.index()), self.block(b, body)?)))?;
                crate::fast::compile::by_tracing!(self.cx.tracing, T => Box::new(move |p, c| {
                    let out = super::apply_table::<T>(p, c, t);
                    if out.flow != Flow::Next {
                        return out.flow;
                    }
                    arms.run(&out.action, p, c)
                }))
            }
            // Translated as nodes of their own.
            Stmt::Block(_) | Stmt::If { .. } | Stmt::ApplyTable { .. } | Stmt::SwitchValue { .. } | Stmt::Exit(_) | Stmt::Return(None, _) | Stmt::Empty => self.block(b, std::slice::from_ref(s))?,
            Stmt::Return(Some(e), span) => {
                let Some(ret) = self.current_ret else { return unsupported("`return` with a value outside a function").map_err(|x: crate::DataplaneError| x.at(*span)) };
                let v = self.val(b, e)?;
                Box::new(move |p, c| {
                    let x = v.read(p, c);
                    c.set(ret, x);
                    Flow::Return
                })
            }
            // Loops the mid-end could not unroll (bounded by run-time values), as the closure
            // executor runs them.
            Stmt::For { init, cond, update, body, span } => {
                let at = |e: crate::DataplaneError| e.at(*span);
                let init = self.block(b, init).map_err(at)?;
                let cond = cond.as_ref().map(|e| self.val(b, e)).transpose().map_err(at)?;
                let update = self.block(b, update).map_err(at)?;
                let body = self.block(b, body).map_err(at)?;
                // A loop that runs too long stops the packet (`Flow::Abort`), which the pipeline
                // drops as it does a failed assert (`Stopped::Aborted`).
                Box::new(move |p, c| crate::fast::runtime::run_loop(p, c, &init, |p, c| cond.as_ref().is_none_or(|cnd| cnd.read(p, c) != 0), &body, &update))
            }
            Stmt::Break(_) => Box::new(|_, _| Flow::Break),
            Stmt::Continue(_) => Box::new(|_, _| Flow::Continue),
            Stmt::ApplyBlock { span, .. } => return unsupported("a sub-block application").map_err(|e: crate::DataplaneError| e.at(*span)),
        })
    }

    /// `lhs = rhs` where `lhs` is a scalar in the stack element a run-time index chooses and
    /// `rhs` makes a call, which may change the index: the index is read first, as P4 evaluates
    /// an l-value before the value assigned; past the stack's end nothing is written.
    fn assign_indexed_first(&mut self, b: &BlockRef, lhs: &Expr, rhs: &Expr) -> R<Run> {
        let (Some((index, elements)), true) = (per_element(lhs), self.cx.is_scalar(&lhs.ty)) else {
            return unsupported("an assignment of a value a call computes to an aggregate in a stack element chosen per packet");
        };
        let index = self.element_index(b, &index)?;
        let each = elements.iter().map(|el| self.dest(b, el)).collect::<R<Vec<Dest>>>()?;
        let v = self.val(b, rhs)?;
        Ok(Box::new(move |p, c| {
            let i = index.read(p, c);
            let x = v.read(p, c);
            if let Some(d) = usize::try_from(i).ok().and_then(|i| each.get(i)) {
                d.write(p, c, x);
            }
            Flow::Next
        }))
    }

    fn assign(&mut self, b: &BlockRef, lhs: &Expr, rhs: &Expr) -> R<Run> {
        if index_after_call(lhs, rhs) {
            return self.assign_indexed_first(b, lhs, rhs);
        }
        if crate::wide::is_wide(&lhs.ty) {
            return self.assign_wide(b, lhs, Some(rhs));
        }
        if self.cx.is_scalar(&lhs.ty) {
            let w = self.writer(b, lhs)?;
            let v = self.ev(b, rhs)?;
            return Ok(Box::new(move |p, c| {
                let x = v(p, c);
                w(p, c, x);
                Flow::Next
            }));
        }
        if !self.cx.is_header(&lhs.ty) {
            return self.assign_aggregate(b, lhs, rhs);
        }
        if let Some((index, elements)) = self.headers_per_element(b, lhs) {
            // Into the element a run-time index chooses; past the stack's end nothing is written.
            let index = self.element_index(b, &index)?;
            let each = elements.iter().map(|el| self.assign(b, el, rhs)).collect::<R<Vec<Run>>>()?;
            return Ok(by_element(index, each, None));
        }
        if let Some((index, elements)) = self.headers_per_element(b, rhs) {
            // From the element a run-time index chooses; past the stack's end an invalid header,
            // as P4 reads one.
            let dst = self.header(b, lhs)?;
            let index = self.element_index(b, &index)?;
            let each = elements.iter().map(|el| self.assign(b, lhs, el)).collect::<R<Vec<Run>>>()?;
            return Ok(by_element(index, each, Some(invalidate(dst))));
        }
        let dst = self.header(b, lhs)?;
        if let ExprKind::InvalidHeader = rhs.kind {
            return Ok(invalidate(dst));
        }
        if lookahead_of(rhs) && dst.varbit.is_none() {
            return Ok(self.lookahead_into(dst));
        }
        let fields: Vec<Type> = self.cx.type_def(&lhs.ty).map(|d| d.fields().iter().map(|f| f.ty.clone()).collect()).unwrap_or_default();
        if let ExprKind::Const(p4_ir::Value::Aggregate { valid: false, .. }) = rhs.kind {
            return Ok(invalidate(dst));
        }
        if let Some(items) = list_items(rhs, &fields) {
            // A list (or a valid constant) makes the header valid with its values, all computed
            // before any is written.
            let write = self.assign_list(b, lhs, &fields, &items)?;
            let set_valid: Run = Box::new(move |_, c| {
                c.wire_valid.set(dst.index);
                Flow::Next
            });
            return Ok(self.union_fixup(dst, seq(vec![write, set_valid])));
        }
        let src = self.header(b, rhs)?;
        let copy = copy_header(src, dst)?;
        Ok(self.union_fixup(dst, copy))
    }

    /// `run`, which may make header `r` valid, then the other members of the header union `r`
    /// belongs to invalid if it did (at most one member of a union is valid); `run` alone for a
    /// header in no union.
    fn union_fixup(&self, r: Region, run: Run) -> Run {
        let siblings = self.places.union_siblings(r);
        if siblings.is_empty() {
            return run;
        }
        Box::new(move |p, c| {
            let flow = run(p, c);
            if c.wire_valid.has(r.index) {
                for &other in &siblings {
                    invalidate_in(c, other);
                }
            }
            flow
        })
    }

    /// `lhs = items` member by member (`fields`: the members' types, all scalars), every item
    /// computed before any member is written: the list may read what it replaces (`p = {p.y, p.x}`).
    fn assign_list(&mut self, b: &BlockRef, lhs: &Expr, fields: &[Type], items: &[Expr]) -> R<Run> {
        if items.len() != fields.len() || !fields.iter().all(|f| self.cx.is_scalar(f)) {
            return unsupported(format!("{} assigned from a list of other members", crate::fast::compile::describe(self.cx.ir, lhs)));
        }
        let mut writes = Vec::new();
        for (i, item) in items.iter().enumerate() {
            writes.push((self.dest(b, &member(lhs, i, &fields[i]))?, self.val(b, item)?));
        }
        Ok(Box::new(move |p, c| {
            let mut values = [0u128; 16];
            let mut many = Vec::new();
            let computed: &[u128] = if writes.len() <= values.len() {
                for (v, (_, item)) in values.iter_mut().zip(&writes) {
                    *v = item.read(p, c);
                }
                &values[..writes.len()]
            } else {
                many.extend(writes.iter().map(|(_, item)| item.read(p, c)));
                &many
            };
            for ((dest, _), v) in writes.iter().zip(computed) {
                dest.write(p, c, *v);
            }
            Flow::Next
        }))
    }

    /// [`FastCompiler::fixed_extract`], or an error for a header with a varbit field.
    pub(super) fn extract_fixed(&self, r: Region) -> R<Run> {
        if r.varbit.is_some() {
            return unsupported("extract of a header with a varbit field without its size");
        }
        Ok(self.fixed_extract(r))
    }

    /// `extract` of header `r`, which has no varbit field: its bytes copied (or its bits, off a
    /// byte), its validity bit set, the cursor moved; a packet too short rejects.
    pub(super) fn fixed_extract(&self, r: Region) -> Run {
        let short = self.cx.errors.packet_too_short;
        if r.bits.is_multiple_of(8) {
            Box::new(move |_, c| {
                let from = c.cursor / 8;
                match c.pkt.get(from..from + r.len) {
                    Some(bytes) if c.cursor.is_multiple_of(8) => {
                        if let Some(to) = c.wire.get_mut(r.at..r.at + r.len) {
                            to.copy_from_slice(bytes);
                        }
                        c.wire_valid.set(r.index);
                        c.cursor += r.len * 8;
                        Flow::Next
                    }
                    Some(_) => extract_bits(c, r, short),
                    None => Flow::Reject(short),
                }
            })
        } else {
            Box::new(move |_, c| extract_bits(c, r, short))
        }
    }

    /// `extract(hs.next)`: into the element the stack's next index names, which then moves on;
    /// past the stack's end the parser rejects (`StackOutOfBounds`) before it reads anything.
    fn extract_next(&mut self, b: &BlockRef, stack: &Expr) -> R<Run> {
        let (elements, next) = self.places.stack(self.cx, b, stack)?;
        let runs = elements.iter().map(|r| self.extract_fixed(*r)).collect::<R<Vec<Run>>>()?;
        Ok(self.into_next(next, runs))
    }

    /// `extract(us.next.m)`: into member `m` of the element of the header-union stack `us` its
    /// next index names (the union's other members invalid), which then moves on; past the
    /// stack's end the parser rejects (`StackOutOfBounds`).
    fn extract_next_member(&mut self, b: &BlockRef, target: &Expr) -> R<Run> {
        let (ExprKind::Field(inner, _), Some((ElementIndex::Next { stack, .. }, members))) = (&target.kind, per_element(target)) else {
            return unsupported(format!("extract into {}", crate::fast::compile::describe(self.cx.ir, target)));
        };
        if !matches!(inner.kind, ExprKind::StackNext(_)) {
            return unsupported(format!("extract into {}", crate::fast::compile::describe(self.cx.ir, target)));
        }
        let Some(next) = Places::static_slot(self.cx, b, &stack)? else {
            return unsupported(format!("{} as a place", crate::fast::compile::describe(self.cx.ir, &stack)));
        };
        let mut runs = Vec::with_capacity(members.len());
        for m in &members {
            let r = self.header(b, m)?;
            let run = self.extract_fixed(r)?;
            runs.push(self.union_fixup(r, run));
        }
        Ok(self.into_next(next, runs))
    }

    /// `runs[nextIndex]` (one per element of a stack whose next index is in slot `next`), then
    /// the next index moved on; past the stack's end a rejection with `StackOutOfBounds`.
    fn into_next(&self, next: usize, runs: Vec<Run>) -> Run {
        let oob = self.cx.errors.stack_out_of_bounds;
        Box::new(move |p, c| {
            let i = c.get(next);
            let Some(run) = usize::try_from(i).ok().and_then(|k| runs.get(k)) else { return Flow::Reject(oob) };
            let flow = run(p, c);
            if flow == Flow::Next {
                c.set(next, i + 1);
            }
            flow
        })
    }

    /// `dst = lookahead<T>()` of a header without a varbit: the packet's next bits copied in
    /// without moving the cursor, `dst` valid; with too few bits left `dst` is invalid and the
    /// state rejects with PacketTooShort.
    fn lookahead_into(&mut self, dst: Region) -> Run {
        let short = self.cx.errors.packet_too_short;
        self.reads_ahead = true;
        self.union_fixup(
            dst,
            Box::new(move |_, c| {
                if c.cursor + dst.bits > c.pkt.len() * 8 {
                    c.pending_err.get_or_insert(short);
                    invalidate_in(c, dst);
                } else {
                    take_bits(c, dst, dst.bits);
                    c.wire_valid.set(dst.index);
                }
                Flow::Next
            }),
        )
    }

    /// Moves the cursor `n` bits on, rejecting with PacketTooShort where the packet has fewer
    /// left (`advance`, `extract<T>(_)`); `unaligned` says why, when `n` may not be whole bytes.
    fn skip(&mut self, n: Val, unaligned: &str) -> Run {
        if !matches!(n, Val::Const(k) if k.is_multiple_of(8)) && self.places.unaligned.is_none() {
            self.places.unaligned = Some(unaligned.into());
        }
        let short = self.cx.errors.packet_too_short;
        Box::new(move |p, c| {
            let end = u128::try_from(c.cursor).unwrap_or(u128::MAX).saturating_add(n.read(p, c));
            if end > (c.pkt.len() * 8) as u128 {
                return Flow::Reject(short);
            }
            c.cursor = end as usize;
            Flow::Next
        })
    }

    /// `width` bits `off` bits ahead of the cursor, of a `lookahead` of `total` bits: past the
    /// packet's end the value is 0 and the state rejects with PacketTooShort (the closure
    /// executor's semantics).
    pub(super) fn read_ahead(&mut self, total: usize, off: usize, width: u32) -> Ev {
        let short = self.cx.errors.packet_too_short;
        self.reads_ahead = true;
        Arc::new(move |_, c| {
            if c.cursor + total > c.pkt.len() * 8 {
                c.pending_err.get_or_insert(short);
                return 0;
            }
            bits::read_bits(&c.pkt, c.cursor + off, width)
        })
    }

    /// The other members of the header union `r` belongs to (empty: none).
    pub(super) fn union_siblings(&self, r: Region) -> Vec<Region> {
        self.places.union_siblings(r)
    }

    /// `lhs = rhs` of a struct or a header stack: member by member from another place of its type,
    /// or from a list of scalar values all computed before any is written (the list may read
    /// what it replaces: `p = {p.y, p.x}`).
    fn assign_aggregate(&mut self, b: &BlockRef, lhs: &Expr, rhs: &Expr) -> R<Run> {
        if let Some(p4_ir::TypeDef::Extern { .. }) = self.cx.type_def(&lhs.ty) {
            // An extern instance (the `packet_out` a function the mid-end inlined took) holds
            // nothing a copy carries: it takes no frame slot.
            return Ok(Box::new(|_, _| Flow::Next));
        }
        if let Some(p4_ir::TypeDef::Union { .. }) = self.cx.type_def(&lhs.ty) {
            let dst = self.places.union(self.cx, b, lhs)?;
            if let ExprKind::InvalidHeader = rhs.kind {
                return Ok(seq(dst.into_iter().map(invalidate).collect()));
            }
            let src = self.places.union(self.cx, b, rhs)?;
            return Ok(seq(src.into_iter().zip(dst).map(|(s, d)| copy_header(s, d)).collect::<R<Vec<Run>>>()?));
        }
        if let Type::Stack(..) = lhs.ty {
            let ((dst, dst_next), (src, src_next)) = (self.places.stack(self.cx, b, lhs)?, self.places.stack(self.cx, b, rhs)?);
            let mut runs: Vec<Run> = Vec::new();
            for (d, s) in dst.iter().zip(&src) {
                runs.push(copy_header(*s, *d)?);
            }
            runs.push(Box::new(move |_, c| {
                c.set(dst_next, c.get(src_next));
                Flow::Next
            }));
            return Ok(seq(runs));
        }
        let Some(fields) = self.members(&lhs.ty) else {
            return unsupported(format!("{} assigned as a whole", crate::fast::compile::describe(self.cx.ir, lhs)));
        };
        let member = |e: &Expr, i: usize| member(e, i, &fields[i]);
        match list_items(rhs, &fields) {
            Some(items) if items.len() == fields.len() && fields.iter().all(|f| self.cx.is_scalar(f)) => self.assign_list(b, lhs, &fields, &items),
            // With headers in it, member by member: only when the list reads nothing of the
            // variable it is assigned to, so no member written first changes what a later one reads.
            Some(items) if items.len() == fields.len() && !reads_root_of(&items, lhs) => {
                let mut runs = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    runs.push(self.assign(b, &member(lhs, i), item)?);
                }
                Ok(seq(runs))
            }
            Some(_) => unsupported(format!("{} assigned from a list that reads it", crate::fast::compile::describe(self.cx.ir, lhs))),
            None => {
                if Places::static_slot(self.cx, b, rhs)?.is_none() {
                    return unsupported(format!("{} assigned from a computed value", crate::fast::compile::describe(self.cx.ir, lhs)));
                }
                let mut runs = Vec::new();
                for i in 0..fields.len() {
                    runs.push(self.assign(b, &member(lhs, i), &member(rhs, i))?);
                }
                Ok(seq(runs))
            }
        }
    }

    /// `init x;` of a struct or header stack: every header in it invalid, every scalar 0.
    fn clear(&mut self, b: &BlockRef, e: &Expr) -> R<Run> {
        if let Some(p4_ir::TypeDef::Extern { .. }) = self.cx.type_def(&e.ty) {
            return Ok(Box::new(|_, _| Flow::Next));
        }
        if crate::wide::is_wide(&e.ty) {
            return self.assign_wide(b, e, None);
        }
        if self.cx.is_scalar(&e.ty) {
            let d = self.dest(b, e)?;
            return Ok(Box::new(move |p, c| {
                d.write(p, c, 0);
                Flow::Next
            }));
        }
        if self.cx.is_header(&e.ty) {
            return Ok(invalidate(self.header(b, e)?));
        }
        if let Some(p4_ir::TypeDef::Union { .. }) = self.cx.type_def(&e.ty) {
            return Ok(seq(self.places.union(self.cx, b, e)?.into_iter().map(invalidate).collect()));
        }
        if let Type::Stack(..) = e.ty {
            let (elements, next) = self.places.stack(self.cx, b, e)?;
            let mut runs: Vec<Run> = elements.into_iter().map(invalidate).collect();
            runs.push(Box::new(move |_, c| {
                c.set(next, 0);
                Flow::Next
            }));
            return Ok(seq(runs));
        }
        let Some(fields) = self.members(&e.ty) else {
            return unsupported(format!("{} (the wire-format executor does not place it)", crate::fast::compile::describe(self.cx.ir, e)));
        };
        let mut runs = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            runs.push(self.clear(b, &member(e, i, f))?);
        }
        Ok(seq(runs))
    }

    /// The member types of a struct or a tuple (`None`: another type).
    fn members(&self, ty: &Type) -> Option<Vec<Type>> {
        match (ty, self.cx.type_def(ty)) {
            (Type::Tuple(items), _) => Some(items.clone()),
            (_, Some(p4_ir::TypeDef::Struct { fields, .. })) => Some(fields.iter().map(|f| f.ty.clone()).collect()),
            _ => None,
        }
    }

    /// `l == r` of two structs, tuples or headers (`Ne`: its negation), as P4 compares them
    /// compares them: member by member; headers equal when both are invalid or both valid with
    /// the same bytes.
    pub(super) fn equal_aggregates(&mut self, b: &BlockRef, l: &Expr, r: &Expr) -> R<Ev> {
        if crate::wide::is_wide(&l.ty) {
            let (x, y) = (self.wide(b, l)?, self.wide(b, r)?);
            return Ok(Arc::new(move |p, c| u128::from(x(p, c) == y(p, c))));
        }
        if self.cx.is_scalar(&l.ty) {
            let (x, y) = (self.val(b, l)?, self.val(b, r)?);
            return Ok(Arc::new(move |p, c| u128::from(x.read(p, c) == y.read(p, c))));
        }
        if self.cx.is_header(&l.ty) {
            let (x, y) = (self.header(b, l)?, self.header(b, r)?);
            let eq = equal_headers(x, y)?;
            return Ok(Arc::new(move |_, c| u128::from(eq(c))));
        }
        if let (Type::Varbit(_), ExprKind::Field(lh, _), ExprKind::Field(rh, _)) = (&l.ty, &l.kind, &r.kind) {
            // Header varbit fields (always their header's last): equal lengths and bits.
            let (x, y) = (self.header(b, lh)?, self.header(b, rh)?);
            let eq = equal_varbits(x, y)?;
            return Ok(Arc::new(move |_, c| u128::from(eq(c))));
        }
        if let Type::Stack(..) = l.ty {
            // Element by element; the next indices do not count.
            let ((xs, _), (ys, _)) = (self.places.stack(self.cx, b, l)?, self.places.stack(self.cx, b, r)?);
            let all = xs.into_iter().zip(ys).map(|(x, y)| equal_headers(x, y)).collect::<R<Vec<_>>>()?;
            return Ok(Arc::new(move |_, c| u128::from(all.iter().all(|eq| eq(c)))));
        }
        let Some(fields) = self.members(&l.ty) else {
            return unsupported(format!("comparison of {}", crate::fast::compile::describe(self.cx.ir, l)));
        };
        let mut all = Vec::with_capacity(fields.len());
        for (i, f) in fields.iter().enumerate() {
            all.push(self.equal_aggregates(b, &member(l, i, f), &member(r, i, f))?);
        }
        Ok(Arc::new(move |p, c| u128::from(all.iter().all(|eq| eq(p, c) != 0))))
    }

    fn call(&mut self, b: &BlockRef, call: &Call) -> R<Run> {
        match self.own_call(b, call) {
            // A traced build records an extern call.
            Ok(run) if self.cx.tracing && matches!(call.callee, Callee::Method { .. } | Callee::ExternFunction { .. }) => self.cx.traced_call(b, call, run),
            compiled => compiled,
        }
    }

    /// A call this executor compiles itself.
    fn own_call(&mut self, b: &BlockRef, call: &Call) -> R<Run> {
        match &call.callee {
            Callee::Action(a) => self.action_call(b, a.index(), call),
            Callee::Function(f) => Ok(self.function_call(b, f.index(), call)?.0),
            Callee::Builtin { target, builtin: Builtin::PushFront(k) } => self.shift_stack(b, target, *k as usize, true),
            Callee::Builtin { target, builtin: Builtin::PopFront(k) } => self.shift_stack(b, target, *k as usize, false),
            Callee::Builtin { target, .. } if self.headers_per_element(b, target).is_some() => {
                // On the element a run-time index chooses; past the stack's end nothing happens.
                let Some((index, elements)) = self.headers_per_element(b, target) else { unreachable!("matched above") };
                let index = self.element_index(b, &index)?;
                let mut each = Vec::with_capacity(elements.len());
                for el in elements {
                    let Callee::Builtin { builtin, .. } = &call.callee else { unreachable!("matched above") };
                    let one = Call { callee: Callee::Builtin { target: Box::new(el), builtin: *builtin }, ..call.clone() };
                    each.push(self.own_call(b, &one)?);
                }
                Ok(by_element(index, each, None))
            }
            Callee::Builtin { target, builtin } => {
                let r = self.header(b, target)?;
                match builtin {
                    Builtin::IsValid => Ok(Box::new(|_, _| Flow::Next)),
                    Builtin::SetValid => Ok(self.union_fixup(
                        r,
                        Box::new(move |_, c| {
                            c.wire_valid.set(r.index);
                            Flow::Next
                        }),
                    )),
                    Builtin::SetInvalid => Ok(invalidate(r)),
                    Builtin::PushFront(_) | Builtin::PopFront(_) => unreachable!("shifts are matched above"),
                }
            }
            Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "extract" && call.args.len() == 2 => {
                let r = self.header(b, &call.args[0].expr)?;
                let size = self.val(b, &call.args[1].expr)?;
                let run = self.extract_varbit(r, size)?;
                Ok(self.union_fixup(r, run))
            }
            Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "extract" && call.args.len() == 1 && matches!(call.args[0].expr.kind, ExprKind::DontCare) => {
                // `extract<T>(_)` skips a header's worth of bits.
                let bits = p4_ir::layout::wire_width(self.cx.ir, &call.args[0].expr.ty);
                Ok(self.skip(Val::Const(bits.into()), "an `extract` into `_` of bits that are not whole bytes"))
            }
            Callee::Method { extern_type, method, type_args, .. } if extern_type == "packet_in" && method == "lookahead" => {
                // A discarded `lookahead<T>()` still fails on a packet shorter than T (BMv2).
                let bits = type_args.first().map_or(0, |t| p4_ir::layout::wire_width(self.cx.ir, t) as usize);
                let short = self.cx.errors.packet_too_short;
                Ok(Box::new(move |_, c| if c.cursor + bits > c.pkt.len() * 8 { Flow::Reject(short) } else { Flow::Next }))
            }
            Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "extract" && call.args.len() == 1 => {
                if let ExprKind::StackNext(stack) = &call.args[0].expr.kind {
                    return self.extract_next(b, stack);
                }
                if matches!(&call.args[0].expr.kind, ExprKind::Field(inner, _) if matches!(inner.kind, ExprKind::StackNext(_))) {
                    return self.extract_next_member(b, &call.args[0].expr);
                }
                let r = self.header(b, &call.args[0].expr)?;
                let run = self.extract_fixed(r)?;
                Ok(self.union_fixup(r, run))
            }
            Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "advance" && call.args.len() == 1 => {
                let n = self.val(b, &call.args[0].expr)?;
                Ok(self.skip(n, "an `advance` by bits that may not be whole bytes"))
            }
            Callee::Method { extern_type, method, .. } if extern_type == "packet_out" && method == "emit" && call.args.len() == 1 => {
                let mut regions = Vec::new();
                self.emit_plan(b, &call.args[0].expr, &mut regions)?;
                Ok(self.closure(Code::Emit(regions)))
            }
            Callee::ExternFunction { .. } | Callee::Method { .. } if !is_packet_io(&call.callee) => self.extern_call(b, call, None),
            _ => unsupported(format!("{} (the wire-format executor has no such call)", crate::fast::compile::callee_name(&call.callee))),
        }
    }

    /// `extract(hdr, size)` of a header whose last field is a varbit, checked in BMv2's order:
    /// `size` bits not whole bytes is ParserInvalidArgument, more than the varbit's
    /// maximum HeaderTooShort, more than the packet has PacketTooShort.
    fn extract_varbit(&mut self, r: Region, size: Val) -> R<Run> {
        let Some(varbit) = r.varbit else { return unsupported("extract with a size of a header without a varbit field") };
        let errors = &self.cx.errors;
        let (bad_size, too_short, short) = (errors.parser_invalid_argument, errors.header_too_short, errors.packet_too_short);
        let fixed = r.fixed_len();
        Ok(Box::new(move |p, c| {
            let bits = size.read(p, c);
            if !bits.is_multiple_of(8) {
                return Flow::Reject(bad_size);
            }
            if bits > varbit.max_bits as u128 {
                return Flow::Reject(too_short);
            }
            let len = fixed + bits as usize / 8;
            if c.cursor + len * 8 > c.pkt.len() * 8 {
                return Flow::Reject(short);
            }
            take_bits(c, r, len * 8);
            c.set(varbit.length_slot, bits);
            c.wire_valid.set(r.index);
            c.cursor += len * 8;
            Flow::Next
        }))
    }

    /// `push_front(k)` (`push`) or `pop_front(k)` of a header stack: its elements' bytes and
    /// validity moved `k` places towards the back (front), the `k` emptied ones invalid (so zero,
    /// as every invalid header here), and `nextIndex` moved by `k` (the specification's `push_front`/`pop_front`).
    fn shift_stack(&mut self, b: &BlockRef, target: &Expr, k: usize, push: bool) -> R<Run> {
        let (elements, next) = self.places.stack(self.cx, b, target)?;
        let n = elements.len();
        // Moves in an order that reads every element before it is overwritten.
        let order: Vec<usize> = if push { (0..n).rev().collect() } else { (0..n).collect() };
        Ok(Box::new(move |_, c| {
            for &i in &order {
                let dst = elements[i];
                let from = if push { i.checked_sub(k) } else { Some(i + k).filter(|&j| j < n) };
                match from {
                    Some(j) => copy_in(c, elements[j], dst),
                    None => invalidate_in(c, dst),
                }
            }
            let index = c.get(next) as usize;
            c.set(next, if push { (index + k).min(n) } else { index.saturating_sub(k) } as u128);
            Flow::Next
        }))
    }

    /// The header instances `e` (a header, a header stack or a struct of them) emits, in order.
    pub(super) fn emit_plan(&mut self, b: &BlockRef, e: &Expr, out: &mut Vec<Region>) -> R<()> {
        if self.cx.is_header(&e.ty) {
            out.push(self.header(b, e)?);
            return Ok(());
        }
        if let Type::Stack(elem, n) = &e.ty {
            if let Some(p4_ir::TypeDef::Union { .. }) = self.cx.type_def(elem) {
                // A stack of unions: each element's members, element by element.
                for k in 0..*n {
                    let index = Expr::new(Type::Bits { width: 32, signed: false }, ExprKind::Const(p4_ir::Value::Bits { width: 32, signed: false, value: k.into() }), e.span);
                    let element = Expr::new((**elem).clone(), ExprKind::Index(Box::new(e.clone()), Box::new(index)), e.span);
                    self.emit_plan(b, &element, out)?;
                }
                return Ok(());
            }
            out.extend(self.places.stack(self.cx, b, e)?.0);
            return Ok(());
        }
        if let Some(p4_ir::TypeDef::Union { .. }) = self.cx.type_def(&e.ty) {
            // At most one member is valid: emitting each valid one emits it.
            out.extend(self.places.union(self.cx, b, e)?);
            return Ok(());
        }
        let Some(p4_ir::TypeDef::Struct { fields, .. }) = self.cx.type_def(&e.ty) else {
            return unsupported(format!("emit of {}", crate::fast::compile::describe(self.cx.ir, e)));
        };
        for (i, f) in fields.iter().enumerate() {
            let member = Expr::new(f.ty.clone(), ExprKind::Field(Box::new(e.clone()), i as u32), e.span);
            self.emit_plan(b, &member, out)?;
        }
        Ok(())
    }

    /// An extern call (a method of an extern instance or an extern function) as this executor
    /// runs it: its arguments read and its results written here, what it does in
    /// [`super::runtime`]; `ret`: the frame slot a value call leaves its result in. A call that
    /// asks for the traffic manager, or may write the multicast group, makes the program hand
    /// over ([`FastProg::hands_over`]).
    pub(super) fn extern_call(&mut self, b: &BlockRef, call: &Call, ret: Option<usize>) -> R<Run> {
        let written = self.written.len();
        let (run, op) = match &call.callee {
            Callee::Method { target, extern_type, method, .. } => self.extern_method(b, call, target, extern_type, method, ret)?,
            Callee::ExternFunction { name, .. } => self.extern_function(b, call, name)?,
            _ => return unsupported(format!("{} as an extern call", crate::fast::compile::callee_name(&call.callee))),
        };
        let group = self.cx.intrinsic.slot(MetaRole::MulticastGroup);
        self.hands_over |= op.is_some_and(is_traffic_manager_op) || group.is_some_and(|g| self.written[written..].contains(&g));
        Ok(run)
    }

    /// A method of an extern instance, with the operation the architecture gives it.
    fn extern_method(&mut self, b: &BlockRef, call: &Call, target: &Expr, ty: &str, method: &str, ret: Option<usize>) -> R<(Run, Option<ExternOp>)> {
        let Some(sig) = p4_arch::of(self.cx.ir).and_then(|a| a.method_with_arity(ty, method, call.args.len()).or_else(|| a.method(ty, method))) else {
            return unsupported(format!("{} (the wire-format executor has no such call)", crate::fast::compile::callee_name(&call.callee)));
        };
        let op = sig.op;
        // Whether the method writes its result to an `out` argument (v1model) or returns it, and
        // where a colour or a packet length is given.
        let returns = !sig.params.iter().any(|(_, d, _)| *d == Direction::Out);
        let colour_at = sig.params.iter().position(|p| p.2 == ParamType::Colour);
        let length_at = sig.params.iter().position(|p| p.2 == ParamType::PacketLength);
        let id = match &target.kind {
            ExprKind::Extern(id) => Some(id.index()),
            _ => None,
        };
        let id = |what: &str| id.ok_or_else(|| crate::DataplaneError::unsupported(format!("{what} through a variable")));
        let length_slot = self.cx.intrinsic.slot(MetaRole::PacketLength);
        let length = move |c: &crate::fast::exec::Ctx| length_slot.map_or(0, |s| c.get(s));
        let run: Run = match op {
            ExternOp::RegisterRead => {
                let id = id("register")?;
                let (out, index) = if call.args.len() >= 2 {
                    (self.dest(b, self.cx.arg(call, 0)?)?, self.val(b, self.cx.arg(call, 1)?)?)
                } else {
                    let slot = ret.ok_or_else(|| crate::DataplaneError::unsupported("register.read result"))?;
                    (Dest::Slot(slot), self.val(b, self.cx.arg(call, 0)?)?)
                };
                Box::new(move |p, c| {
                    let i = index.read(p, c);
                    let v = runtime::register_read(c, id, i);
                    out.write(p, c, v);
                    Flow::Next
                })
            }
            ExternOp::RegisterWrite => {
                let id = id("register")?;
                let index = self.val(b, self.cx.arg(call, 0)?)?;
                let value = self.val(b, self.cx.arg(call, 1)?)?;
                Box::new(move |p, c| {
                    let i = index.read(p, c);
                    let v = value.read(p, c);
                    runtime::register_write(c, id, i, v);
                    Flow::Next
                })
            }
            ExternOp::CounterCount => {
                let id = id("counter")?;
                let index = self.val(b, self.cx.arg(call, 0)?)?;
                let given = self.optional_arg(b, call, length_at)?;
                Box::new(move |p, c| {
                    let i = index.read(p, c);
                    let bytes = match &given {
                        Some(v) => v.read(p, c),
                        None => length(c),
                    } as u64;
                    runtime::counter_count(c, id, i, bytes);
                    Flow::Next
                })
            }
            // The table counts when it hits.
            ExternOp::DirectCounterCount => Box::new(|_, _| Flow::Next),
            ExternOp::OnesComplementSum16 => {
                let slot = ret.ok_or_else(|| crate::DataplaneError::unsupported(format!("{ty}.{method} result unused")))?;
                let sum = self.checksum(b, self.cx.arg(call, 0)?, false, Algorithm::Csum16)?;
                Box::new(move |p, c| {
                    let v = sum(p, c);
                    c.set(slot, v);
                    Flow::Next
                })
            }
            // A method returning the colour (PSA's `execute(index)` and colour-aware
            // `execute(index, colour)`).
            ExternOp::MeterExecute if returns => {
                let id = id("meter")?;
                let index = self.val(b, self.cx.arg(call, 0)?)?;
                let pre = self.optional_arg(b, call, colour_at)?;
                let given = self.optional_arg(b, call, length_at)?;
                let colours = self.colours()?;
                Box::new(move |p, c| {
                    let i = index.read(p, c);
                    let pre = pre.as_ref().map_or(crate::meter::GREEN, |v| colour_of(&colours, v.read(p, c)));
                    let bytes = match &given {
                        Some(v) => v.read(p, c),
                        None => length(c),
                    } as u32;
                    let colour = runtime::meter_execute_coloured(c, id, i, bytes, pre);
                    if let Some(slot) = ret {
                        c.set(slot, colours[colour as usize]);
                    }
                    Flow::Next
                })
            }
            // The colour the table's hit gave the packet, no better than the one it came with.
            ExternOp::DirectMeterExecute => {
                let id = id(&format!("{ty}.{method}"))?;
                let pre = self.optional_arg(b, call, colour_at)?;
                let colours = self.colours()?;
                // The meter ran when the table hit: an unused result leaves nothing to do.
                let Some(slot) = ret else { return Ok((Box::new(|_, _| Flow::Next), Some(op))) };
                Box::new(move |p, c| {
                    let pre = pre.as_ref().map_or(crate::meter::GREEN, |v| colour_of(&colours, v.read(p, c)));
                    let colour = runtime::table_meter_colour(c, id).max(pre).min(crate::meter::RED);
                    c.set(slot, colours[colour as usize]);
                    Flow::Next
                })
            }
            // `get_hash(data)` and `get_hash(base, data, max)` of a hash unit.
            ExternOp::Hash => {
                let eid = id("hash")?;
                let (algo, width) = (self.instance_algorithm(eid)?, self.type_arg_width(eid)?);
                let slot = self.result_slot(ret, ty, method)?;
                let ranged = call.args.len() == 3;
                let hash = self.checksum(b, self.cx.arg(call, usize::from(ranged))?, false, algo)?;
                let range = if ranged { Some((self.val(b, self.cx.arg(call, 0)?)?, self.val(b, self.cx.arg(call, 2)?)?)) } else { None };
                Box::new(move |p, c| {
                    let h = hash(p, c);
                    let v = match &range {
                        Some((base, max)) => runtime::hash_in_range(h, base.read(p, c), max.read(p, c), width),
                        None => h & crate::bits::mask(width),
                    };
                    c.set(slot, v);
                    Flow::Next
                })
            }
            // A random unit's `read()`, between the bounds it was made with.
            ExternOp::Random => {
                let eid = id("random")?;
                self.cx.draws_random.set(true);
                let width = self.type_arg_width(eid)?;
                let slot = self.result_slot(ret, ty, method)?;
                let inst = &self.cx.ir.externs[eid];
                let bound = |i: usize| -> R<u128> {
                    let (Some(Some(v)), Some(t)) = (inst.ctor_args.get(i), inst.type_args.first()) else { return unsupported(format!("{ty}: bound {i} not a constant")) };
                    crate::fast::compile::const_scalar(self.cx.ir, v, t)
                };
                let (lo, hi) = (bound(0)?, bound(1)?);
                Box::new(move |_, c| {
                    let v = runtime::random(c, lo, hi, width);
                    c.set(slot, v);
                    Flow::Next
                })
            }
            // A digest unit's `pack(data)`: the data to the control plane.
            ExternOp::Digest => {
                let data = self.cx.arg(call, 0)?;
                let digest = match &data.ty {
                    Type::Named(t) => self.cx.layouts.ids.id(p4_ir::layout::Target::Digest(*t)).unwrap_or(0),
                    _ => 0,
                };
                let mut pieces = Vec::new();
                self.pieces(b, data, &mut pieces)?;
                Box::new(move |p, c| {
                    runtime::digest(p, c, 0, digest, &pieces);
                    Flow::Next
                })
            }
            ExternOp::ChecksumClear => {
                let eid = id("checksum")?;
                Box::new(move |_, c| {
                    runtime::checksum_clear(c, eid);
                    Flow::Next
                })
            }
            ExternOp::ChecksumAdd | ExternOp::ChecksumSubtract => {
                let eid = id("checksum")?;
                let subtract = op == ExternOp::ChecksumSubtract;
                let data = self.cx.arg(call, 0)?;
                match self.instance_algorithm(eid).unwrap_or(Algorithm::Csum16) {
                    Algorithm::Csum16 => {
                        let sum = self.checksum(b, data, false, Algorithm::Csum16)?;
                        Box::new(move |p, c| {
                            let v = sum(p, c);
                            runtime::checksum_add_sum(c, eid, v, subtract);
                            Flow::Next
                        })
                    }
                    _ if subtract => return unsupported(format!("{ty}.{method} of a checksum other than the Internet checksum")),
                    _ => {
                        let mut pieces = Vec::new();
                        self.pieces(b, data, &mut pieces)?;
                        Box::new(move |p, c| {
                            runtime::checksum_add_data(p, c, eid, &pieces);
                            Flow::Next
                        })
                    }
                }
            }
            ExternOp::ChecksumGet => {
                let eid = id("checksum")?;
                let algo = self.instance_algorithm(eid).unwrap_or(Algorithm::Csum16);
                let width = self.type_arg_width(eid).unwrap_or(16);
                let slot = self.result_slot(ret, ty, method)?;
                Box::new(move |_, c| {
                    let v = runtime::checksum_get(c, eid, algo, width);
                    c.set(slot, v);
                    Flow::Next
                })
            }
            ExternOp::ChecksumGetState => {
                let eid = id("checksum")?;
                let slot = self.result_slot(ret, ty, method)?;
                Box::new(move |_, c| {
                    let v = runtime::checksum_state(c, eid, None);
                    c.set(slot, v);
                    Flow::Next
                })
            }
            ExternOp::ChecksumSetState => {
                let eid = id("checksum")?;
                let value = self.val(b, self.cx.arg(call, 0)?)?;
                Box::new(move |p, c| {
                    let v = value.read(p, c);
                    runtime::checksum_state(c, eid, Some(v));
                    Flow::Next
                })
            }
            ExternOp::MeterExecute => {
                let id = id("meter")?;
                let index = self.val(b, self.cx.arg(call, 0)?)?;
                let out = self.dest(b, self.cx.arg(call, 1)?)?;
                Box::new(move |p, c| {
                    let i = index.read(p, c);
                    let bytes = length(c) as u32;
                    let colour = runtime::meter_execute(c, id, i, bytes);
                    out.write(p, c, colour);
                    Flow::Next
                })
            }
            ExternOp::DirectMeterRead => {
                let id = id(&format!("{ty}.{method}"))?;
                let out = self.dest(b, self.cx.arg(call, 0)?)?;
                Box::new(move |p, c| {
                    let colour = runtime::table_meter_colour(c, id);
                    out.write(p, c, colour);
                    Flow::Next
                })
            }
            _ => return unsupported(format!("extern method {ty}.{method}")),
        };
        Ok((run, Some(op)))
    }

    /// The slot a value-returning method leaves its result in.
    fn result_slot(&self, ret: Option<usize>, ty: &str, method: &str) -> R<usize> {
        ret.ok_or_else(|| crate::DataplaneError::unsupported(format!("{ty}.{method} whose result is not used")))
    }

    /// The values of green, yellow and red in this program's architecture.
    fn colours(&self) -> R<[u128; 3]> {
        let ir = self.cx.ir;
        p4_arch::of(ir).and_then(|a| a.colour_values_in(ir)).ok_or_else(|| crate::DataplaneError::unsupported("meter colours the program does not declare"))
    }

    /// Argument `i` of `call`, if there is one.
    fn optional_arg(&mut self, b: &BlockRef, call: &Call, i: Option<usize>) -> R<Option<Val>> {
        i.and_then(|i| call.args.get(i)).map(|a| self.val(b, &a.expr)).transpose()
    }

    /// The hash algorithm extern instance `eid` was made with.
    fn instance_algorithm(&self, eid: usize) -> R<Algorithm> {
        let ir = self.cx.ir;
        let inst = ir.externs.get(eid).ok_or_else(|| crate::DataplaneError::unsupported(format!("extern instance {eid}")))?;
        let algo = p4_arch::of(ir).and_then(|a| a.instance_algorithm(ir, inst));
        let algo = algo.ok_or_else(|| crate::DataplaneError::unsupported(format!("{}: a hash algorithm this dataplane computes", inst.name)))?;
        if algo == Algorithm::Random {
            self.cx.draws_random.set(true);
        }
        Ok(algo)
    }

    /// The width of extern instance `eid`'s first type argument (a hash's or random unit's result).
    fn type_arg_width(&mut self, eid: usize) -> R<u32> {
        let inst = self.cx.ir.externs.get(eid).and_then(|e| e.type_args.first()).cloned();
        let ty = inst.ok_or_else(|| crate::DataplaneError::unsupported(format!("extern instance {eid} without a type argument")))?;
        Ok(self.cx.width(&ty).0)
    }

    fn extern_function(&mut self, b: &BlockRef, call: &Call, name: &str) -> R<(Run, Option<ExternOp>)> {
        let arg = |i: usize| call.args.get(i).map(|a| &a.expr).ok_or_else(|| crate::DataplaneError::unsupported(format!("{name}: missing argument {i}")));
        if name == "verify" {
            let (ok, error) = (self.scalar(b, arg(0)?)?, self.scalar(b, arg(1)?)?);
            return Ok((self.closure(Code::Verify { ok, error }), None));
        }
        let Some((arch, sig)) = p4_arch::of(self.cx.ir).and_then(|a| Some((a, a.function(name)?))) else {
            return unsupported(format!("extern function `{name}`"));
        };
        let meta = self.cx.intrinsic.clone();
        let run: Run = match sig.op {
            ExternOp::MarkToDrop => {
                let writes = self.cx.drop_call_writes(b, arch, sig, call)?;
                self.closure(Code::MarkToDrop { writes, site: mark_site(b) })
            }
            ExternOp::VerifyChecksum { payload } | ExternOp::UpdateChecksum { payload } => {
                let algo = self.cx.algorithm(arg(3)?)?;
                let cond = self.scalar(b, arg(0)?)?;
                let sum = self.checksum(b, arg(1)?, payload, algo)?;
                let target = arg(2)?;
                let (w, _) = self.cx.width(&target.ty);
                let target = if matches!(sig.op, ExternOp::VerifyChecksum { .. }) {
                    ChecksumTarget::Verify { expected: self.scalar(b, target)?, error_flag: meta.slot(MetaRole::ChecksumError) }
                } else {
                    ChecksumTarget::Update(self.dest(b, target)?)
                };
                super::code::checksum_run(cond, sum, w, target, self.cx.tracing)
            }
            ExternOp::Hash => {
                let result = arg(0)?;
                let (w, _) = self.cx.width(&result.ty);
                let out = self.dest(b, result)?;
                let algo = self.cx.algorithm(arg(1)?)?;
                let base = self.val(b, arg(2)?)?;
                let hash = self.checksum(b, arg(3)?, false, algo)?;
                let max = self.val(b, arg(4)?)?;
                Box::new(move |p, c| {
                    let h = hash(p, c);
                    let (lo, n) = (base.read(p, c), max.read(p, c));
                    out.write(p, c, runtime::hash_in_range(h, lo, n, w));
                    Flow::Next
                })
            }
            ExternOp::Random => {
                self.cx.draws_random.set(true);
                let result = arg(0)?;
                let (w, _) = self.cx.width(&result.ty);
                let out = self.dest(b, result)?;
                let (lo, hi) = (self.val(b, arg(1)?)?, self.val(b, arg(2)?)?);
                Box::new(move |p, c| {
                    let (l, h) = (lo.read(p, c), hi.read(p, c));
                    let v = runtime::random(c, l, h, w);
                    out.write(p, c, v);
                    Flow::Next
                })
            }
            ExternOp::Digest => {
                let receiver = self.val(b, arg(0)?)?;
                let data = arg(1)?;
                let id = match &data.ty {
                    Type::Named(ty) => self.cx.layouts.ids.id(p4_ir::layout::Target::Digest(*ty)).unwrap_or(0),
                    _ => 0,
                };
                let mut pieces = Vec::new();
                self.pieces(b, data, &mut pieces)?;
                Box::new(move |p, c| {
                    let r = receiver.read(p, c);
                    runtime::digest(p, c, r, id, &pieces);
                    Flow::Next
                })
            }
            ExternOp::LogMsg => {
                let msg = match &arg(0)?.kind {
                    ExprKind::Const(p4_ir::Value::String(s)) => s.clone(),
                    _ => return unsupported(format!("{name} with a non-constant message")),
                };
                let mut pieces = Vec::new();
                if let Some(a) = call.args.get(1) {
                    self.pieces(b, &a.expr, &mut pieces)?;
                }
                Box::new(move |p, c| {
                    runtime::log_message(p, c, &msg, &pieces);
                    Flow::Next
                })
            }
            ExternOp::Assert => {
                let cond = self.val(b, arg(0)?)?;
                let block = match b {
                    BlockRef::Parser(p) => self.cx.ir.parsers.get(p.index()).map(|x| x.block.name.clone()),
                    BlockRef::Control(c) => self.cx.ir.controls.get(c.index()).map(|x| x.block.name.clone()),
                };
                let what: Arc<str> = format!("{name} failed in {}", block.unwrap_or_default()).into();
                Box::new(move |p, c| {
                    let holds = cond.read(p, c) != 0;
                    runtime::assert(c, holds, &what)
                })
            }
            ExternOp::Truncate => {
                let len = self.val(b, arg(0)?)?;
                Box::new(move |p, c| {
                    let l = len.read(p, c);
                    runtime::truncate(c, l);
                    Flow::Next
                })
            }
            ExternOp::Clone(keep) => {
                let session = self.val(b, arg(1)?)?;
                let set = self.cx.preserved(b, call, name, keep)?;
                Box::new(move |p, c| {
                    let s = session.read(p, c);
                    runtime::clone(c, s, set);
                    Flow::Next
                })
            }
            ExternOp::Resubmit(keep) => {
                let set = self.cx.preserved(b, call, name, keep)?;
                Box::new(move |_, c| {
                    runtime::reparse_arrived(c, set);
                    Flow::Next
                })
            }
            ExternOp::Recirculate(keep) => {
                let set = self.cx.preserved(b, call, name, keep)?;
                Box::new(move |_, c| {
                    runtime::reparse_deparsed(c, set);
                    Flow::Next
                })
            }
            _ => return unsupported(format!("extern function `{name}`")),
        };
        Ok((run, Some(sig.op)))
    }

    /// The checksum or hash `algo` of data list `list` (and the payload when `payload`): the
    /// Internet checksum of fixed-width values without the payload summed in place
    /// ([`FastCompiler::csum16`]), any other serialised and hashed ([`runtime::hash`]).
    fn checksum(&mut self, b: &BlockRef, list: &Expr, payload: bool, algo: Algorithm) -> R<Ev> {
        if algo == Algorithm::Csum16 && !payload && !self.has_varbit(list) {
            return self.csum16(b, list);
        }
        let mut pieces = Vec::new();
        self.pieces(b, list, &mut pieces)?;
        Ok(Arc::new(move |p, c| runtime::hash(p, c, &pieces, payload, algo)))
    }

    /// Whether data list `e` holds a varbit (its length varies per packet).
    pub(super) fn has_varbit(&mut self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Aggregate(items) => return items.iter().any(|i| self.has_varbit(i)),
            ExprKind::Cast(inner) if matches!(inner.kind, ExprKind::Aggregate(_)) => return self.has_varbit(inner),
            _ => {}
        }
        self.type_has_varbit(&e.ty, 0)
    }

    fn type_has_varbit(&self, ty: &Type, depth: usize) -> bool {
        if depth > 32 {
            return true;
        }
        match ty {
            Type::Varbit(_) => true,
            Type::Stack(elem, _) => self.type_has_varbit(elem, depth + 1),
            Type::Tuple(items) => items.iter().any(|t| self.type_has_varbit(t, depth + 1)),
            _ => self.cx.type_def(ty).is_some_and(|d| match d {
                p4_ir::TypeDef::Struct { fields, .. } | p4_ir::TypeDef::Header { fields, .. } | p4_ir::TypeDef::Union { fields, .. } => {
                    fields.iter().any(|f| self.type_has_varbit(&f.ty, depth + 1))
                }
                _ => false,
            }),
        }
    }

    /// The pieces of data list `e` in order, as BMv2 serialises a field list: a scalar
    /// value, header fields one by one (a field wider than 128 bits as its 128-bit pieces; a
    /// header's validity is not data), a varbit at its length, and the members of structs,
    /// tuples, stacks and unions in order.
    pub(super) fn pieces(&mut self, b: &BlockRef, e: &Expr, out: &mut Vec<runtime::Piece>) -> R<()> {
        use runtime::Piece;
        match &e.kind {
            ExprKind::Aggregate(items) => {
                for i in items {
                    self.pieces(b, i, out)?;
                }
                return Ok(());
            }
            ExprKind::Cast(inner) if matches!(inner.kind, ExprKind::Aggregate(_)) => return self.pieces(b, inner, out),
            _ => {}
        }
        if self.cx.is_scalar(&e.ty) {
            let (w, _) = self.cx.width(&e.ty);
            if matches!(e.kind, ExprKind::Var(_) | ExprKind::Field(..)) {
                if let Ok(Place::Field { bit, width }) = self.place(b, e) {
                    out.push(Piece::Wire { bit, width });
                    return Ok(());
                }
            }
            out.push(Piece::Value(self.val(b, e)?, w));
            return Ok(());
        }
        if self.cx.is_header(&e.ty) {
            let r = self.header(b, e)?;
            self.header_pieces(r, out);
            return Ok(());
        }
        if let Some(p4_ir::TypeDef::Union { .. }) = self.cx.type_def(&e.ty) {
            for r in self.places.union(self.cx, b, e)? {
                self.header_pieces(r, out);
            }
            return Ok(());
        }
        match &e.ty {
            Type::Stack(elem, n) => {
                for k in 0..*n {
                    let index = Expr::new(Type::Bits { width: 32, signed: false }, ExprKind::Const(p4_ir::Value::Bits { width: 32, signed: false, value: k.into() }), e.span);
                    let element = Expr::new((**elem).clone(), ExprKind::Index(Box::new(e.clone()), Box::new(index)), e.span);
                    self.pieces(b, &element, out)?;
                }
                Ok(())
            }
            Type::Varbit(_) | Type::Bits { .. } => {
                // A header's varbit, or a header field wider than 128 bits.
                let why = || crate::DataplaneError::unsupported(format!("{} in a data list (the wire-format executor does not place it)", crate::fast::compile::describe(self.cx.ir, e)));
                let slot = self.cx.static_slot(b, e)?.ok_or_else(why)?;
                if let Type::Varbit(_) = e.ty {
                    let r = self.places.varbit_header(slot).ok_or_else(why)?;
                    let v = r.varbit.ok_or_else(why)?;
                    out.push(Piece::Varbit { bit: (r.at + r.fixed_len()) * 8, length_slot: v.length_slot, max_bits: v.max_bits });
                    return Ok(());
                }
                let len = self.cx.size(&e.ty)?;
                let pieces = self.places.field_pieces(slot, len).ok_or_else(why)?;
                out.extend(pieces.into_iter().map(|(bit, width)| Piece::Wire { bit, width }));
                Ok(())
            }
            _ => {
                let Some(fields) = self.members(&e.ty) else {
                    return unsupported(format!("{} in a data list", crate::fast::compile::describe(self.cx.ir, e)));
                };
                for (i, f) in fields.iter().enumerate() {
                    self.pieces(b, &member(e, i, f), out)?;
                }
                Ok(())
            }
        }
    }

    /// The pieces of header `r`: its fields, then its varbit.
    fn header_pieces(&self, r: Region, out: &mut Vec<runtime::Piece>) {
        out.extend(self.places.header_fields(r).into_iter().map(|(bit, width)| runtime::Piece::Wire { bit, width }));
        if let Some(v) = r.varbit {
            out.push(runtime::Piece::Varbit { bit: (r.at + r.fixed_len()) * 8, length_slot: v.length_slot, max_bits: v.max_bits });
        }
    }

    /// The Internet checksum of the values `list` concatenates: header fields next to each other
    /// on the wire are summed as 64-bit pieces of the wire buffer.
    fn csum16(&mut self, b: &BlockRef, list: &Expr) -> R<Ev> {
        let mut leaves = Vec::new();
        self.leaves_with(b, list, &mut leaves, &mut |fc, e, _| fc.scalar(b, e))?;
        Ok(super::code::csum16_sum(csum16_plan(leaves), self.cx.tracing))
    }

    /// What a checksum list `e` sums, in order: header bytes and fields as bits of the wire
    /// buffer, any other value as `value` makes it (given its width).
    pub(super) fn leaves_with<V>(&mut self, b: &BlockRef, e: &Expr, out: &mut Vec<Leaf<V>>, value: &mut dyn FnMut(&mut Self, &Expr, u32) -> R<V>) -> R<()> {
        match &e.kind {
            ExprKind::Aggregate(items) => {
                for i in items {
                    self.leaves_with(b, i, out, value)?;
                }
                return Ok(());
            }
            ExprKind::Cast(inner) if matches!(inner.kind, ExprKind::Aggregate(_)) => return self.leaves_with(b, inner, out, value),
            _ => {}
        }
        if self.cx.is_header(&e.ty) {
            // A header's fields are its bytes, in order.
            let r = self.header(b, e)?;
            if r.varbit.is_some() {
                return unsupported("a header with a varbit field in a checksum list");
            }
            out.push(Leaf::Wire { bit: r.at * 8, width: r.bits });
            return Ok(());
        }
        if !self.cx.is_scalar(&e.ty) {
            return unsupported(format!("{} in a checksum list", crate::fast::compile::describe(self.cx.ir, e)));
        }
        if matches!(e.kind, ExprKind::Var(_) | ExprKind::Field(..)) {
            if let Place::Field { bit, width } = self.place(b, e)? {
                out.push(Leaf::Wire { bit, width: width as usize });
                return Ok(());
            }
        }
        let (w, _) = self.cx.width(&e.ty);
        out.push(Leaf::Value(value(self, e, w)?, w));
        Ok(())
    }

    // ------------------------------------------------------------------ actions and tables

    /// Compiles action `a` once.
    pub(super) fn action(&mut self, a: usize) -> R<()> {
        if self.action_code.get(a).is_some_and(Option::is_some) {
            return Ok(());
        }
        let ir = self.cx.ir;
        let Some(act) = ir.actions.get(a) else { return unsupported(format!("action id {a}")) };
        // A placeholder first: actions cannot call themselves, but this keeps a bad IR finite.
        self.action_code[a] = Some(Arc::new(Vec::new()));
        let body = self.code_block(&act.block, &act.body).map_err(|e| e.in_context(format!("action {}", act.name)))?;
        self.action_code[a] = Some(Arc::new(body));
        Ok(())
    }

    /// The closures of every action translated, by IR action id.
    fn action_closures(&mut self) -> Vec<Option<Run>> {
        let ir = self.cx.ir;
        let code = std::mem::take(&mut self.action_code);
        code.into_iter()
            .enumerate()
            .map(|(a, code)| {
                let code = Arc::try_unwrap(code?).unwrap_or_else(|shared| (*shared).clone());
                Some(ending_return(&[&ir.actions.get(a)?.body], self.closures(code)))
            })
            .collect()
    }

    /// A direct call of action `a`: arguments copied in, the body, `out`/`inout` copied back.
    fn action_call(&mut self, b: &BlockRef, a: usize, call: &Call) -> R<Run> {
        let ir = self.cx.ir;
        let Some(act) = ir.actions.get(a) else { return unsupported(format!("action id {a}")) };
        let args: Vec<_> = act.params.iter().zip(call.args.iter().map(|arg| &arg.expr)).collect();
        self.call_with(b, a, &args)
    }

    /// Action `a` run with `args` for the parameters they pair with (the others already hold
    /// their values: a table entry's data): `in`/`inout`/directionless ones copied in, `out` ones
    /// zeroed, the body, `out`/`inout` ones copied back.
    fn call_with(&mut self, b: &BlockRef, a: usize, args: &[(&p4_ir::Param, &Expr)]) -> R<Run> {
        self.action(a)?;
        let ir = self.cx.ir;
        let Some(act) = ir.actions.get(a) else { return unsupported(format!("action id {a}")) };
        self.with_arguments(b, &act.block, args, "an action argument of an aggregate type", move |p, c| match super::FastProg::of(p).actions.get(a) {
            Some(Some(body)) => body(p, c),
            _ => Flow::Next,
        })
    }

    /// Compiles function `f` once: its body, a `return` storing its value in the function's
    /// return variable.
    fn function(&mut self, f: usize) -> R<()> {
        if self.functions.get(f).is_some_and(Option::is_some) {
            return Ok(());
        }
        let ir = self.cx.ir;
        let Some(func) = ir.functions.get(f) else { return unsupported(format!("function id {f}")) };
        // A placeholder first: P4 functions cannot recurse, but this keeps a bad IR finite.
        self.functions[f] = Some(Box::new(|_, _| Flow::Next));
        let ret = match func.ret_var {
            Some(v) => Some(self.cx.var_slot(&func.block, v)?),
            None => None,
        };
        let outer = std::mem::replace(&mut self.current_ret, ret);
        let body = self.block(&func.block, &func.body).map_err(|e| e.in_context(format!("function {}", func.name)));
        self.current_ret = outer;
        self.functions[f] = Some(ending_return(&[&func.body], body?));
        Ok(())
    }

    /// A call of function `f` (a P4 function, not an action): arguments copied in, the body,
    /// `out`/`inout` ones copied back; with the slot its value is left in, if it returns one.
    pub(super) fn function_call(&mut self, b: &BlockRef, f: usize, call: &Call) -> R<(Run, Option<usize>)> {
        self.function(f)?;
        let ir = self.cx.ir;
        let Some(func) = ir.functions.get(f) else { return unsupported(format!("function id {f}")) };
        let ret = match func.ret_var {
            Some(v) if self.cx.is_scalar(&func.ret) => Some(self.cx.var_slot(&func.block, v)?),
            Some(_) => return unsupported(format!("function {}: a return value of an aggregate type", func.name)),
            None => None,
        };
        let args: Vec<_> = func.params.iter().zip(call.args.iter().map(|arg| &arg.expr)).collect();
        let run = self.with_arguments(b, &func.block, &args, "a function argument of an aggregate type", move |p, c| match super::FastProg::of(p).functions.get(f) {
            Some(Some(body)) => body(p, c),
            _ => Flow::Next,
        })?;
        Ok((run, ret))
    }

    /// `body` (of an action or function whose variables are `callee`'s) run with `args` for the
    /// parameters they pair with (the others already hold their values: a table entry's data):
    /// `in`/`inout`/directionless ones copied in, `out` ones zeroed, the body, `out`/`inout` ones
    /// copied back (after any flow, `exit` included).
    fn with_arguments(&mut self, b: &BlockRef, callee: &BlockRef, args: &[(&p4_ir::Param, &Expr)], aggregate: &str, body: impl Fn(&Prog, &mut crate::fast::exec::Ctx) -> Flow + Send + Sync + 'static) -> R<Run> {
        let mut ins: Vec<(usize, Ev)> = Vec::new();
        let mut zeroed: Vec<usize> = Vec::new();
        let mut outs: Vec<(usize, Write)> = Vec::new();
        // Aggregates (a struct, a header) copied as assignments are: only where the callee's
        // variables are in the caller's block, as sema places an action's and a function's.
        let (mut aggregates_in, mut aggregates_out): (Vec<Run>, Vec<Run>) = (Vec::new(), Vec::new());
        for &(prm, arg) in args {
            let slot = self.cx.var_slot(callee, prm.var)?;
            let discard = matches!(arg.kind, ExprKind::DontCare);
            if !self.cx.is_scalar(&prm.ty) {
                if callee != b {
                    return unsupported(aggregate.to_string());
                }
                let param = Expr::new(prm.ty.clone(), ExprKind::Var(prm.var), arg.span);
                match prm.direction {
                    Direction::Out => aggregates_in.push(self.clear(b, &param)?),
                    _ if discard => {}
                    _ => aggregates_in.push(self.assign(b, &param, arg)?),
                }
                if matches!(prm.direction, Direction::Out | Direction::InOut) && !discard {
                    aggregates_out.push(self.assign(b, arg, &param)?);
                }
                continue;
            }
            match prm.direction {
                Direction::Out => zeroed.push(slot),
                _ if discard => {}
                _ => ins.push((slot, self.ev(b, arg)?)),
            }
            if matches!(prm.direction, Direction::Out | Direction::InOut) && !discard {
                outs.push((slot, self.writer(b, arg)?));
            }
        }
        Ok(Box::new(move |p, c| {
            for &s in &zeroed {
                c.set(s, 0);
            }
            for (s, v) in &ins {
                let x = v(p, c);
                c.set(*s, x);
            }
            for copy in &aggregates_in {
                copy(p, c);
            }
            let f = body(p, c);
            for (s, w) in &outs {
                let x = c.get(*s);
                w(p, c, x);
            }
            for copy in &aggregates_out {
                copy(p, c);
            }
            f
        }))
    }

    /// Compiles table `t` (its key and actions) once.
    pub(super) fn table(&mut self, t: usize) -> R<()> {
        if self.tables.get(t).is_some_and(Option::is_some) {
            return Ok(());
        }
        let ir = self.cx.ir;
        let Some(table) = ir.tables.get(t) else { return unsupported(format!("table id {t}")) };
        let b = BlockRef::Control(table.control);
        let layouts = self.cx.layouts.clone();
        let mut keys = Vec::new();
        for f in &layouts.key(p4_ir::TableId(t as u32)).fields {
            let Some(k) = table.keys.get(f.index) else { return unsupported(format!("table {}: key {}", table.name, f.index)) };
            let key = self.scalar(&b, &k.expr)?;
            keys.push(key.clone().closure(self.cx.tracing));
            self.key_code[t].push(key);
        }
        let algorithm = p4_arch::of(ir).and_then(|a| a.selector_algorithm(ir, table));
        let selector = match algorithm {
            Some(algorithm) => {
                let mut keys = Vec::new();
                for &i in &layouts.key(p4_ir::TableId(t as u32)).selector_keys {
                    let Some(k) = table.keys.get(i) else { return unsupported(format!("table {}: selector key {i}", table.name)) };
                    let (width, _) = self.cx.width(&k.expr.ty);
                    if width > 128 {
                        return unsupported(format!("table {}: a selector key wider than 128 bits", table.name));
                    }
                    keys.push((self.scalar(&b, &k.expr)?.closure(self.cx.tracing), width));
                }
                Some((algorithm, keys))
            }
            None => None,
        };
        let mut actions = Vec::new();
        for ta in table.effective_actions() {
            let a = ta.action.index();
            let Some(act) = ir.actions.get(a) else { return unsupported(format!("action id {a}")) };
            self.action(a)?;
            let mut data = Vec::new();
            for d in &layouts.actions[a].params {
                data.push(self.cx.var_slot(&act.block, act.params[d.index].var)?);
            }
            // The table's `actions` list binds the directional parameters, in order.
            let directional = act.params.iter().filter(|p| p.direction != Direction::None);
            let bound: Vec<_> = directional.zip(&ta.bound_args).collect();
            let bound = if bound.is_empty() {
                None
            } else {
                let context = |e: crate::DataplaneError| e.in_context(format!("table {}: action {}", table.name, act.name));
                Some(self.call_with(&b, a, &bound).map_err(context)?)
            };
            actions.push(TableAction { action: a, data, bound });
        }
        self.tables[t] = Some(FastTable { keys, selector, actions });
        Ok(())
    }

    // ------------------------------------------------------------------ blocks

    /// Control `i`'s declarations and body, translated once; `None` when it has none.
    fn control_code(&mut self, i: usize) -> R<Option<Vec<Code>>> {
        let ir = self.cx.ir;
        let Some(ctl) = ir.controls.get(i) else { return unsupported(format!("control id {i}")) };
        if ctl.init.is_empty() && ctl.body.is_empty() {
            return Ok(None);
        }
        let b = BlockRef::Control(p4_ir::ControlId(i as u32));
        let context = |e: crate::DataplaneError| e.in_context(format!("control {}", ctl.block.name));
        let mut code = self.code_block(&b, &ctl.init).map_err(context)?;
        code.extend(self.code_block(&b, &ctl.body).map_err(context)?);
        Ok(Some(code))
    }

    fn control_closures(&self, i: usize, code: Vec<Code>) -> Run {
        let ctl = &self.cx.ir.controls[i];
        ending_return(&[&ctl.init, &ctl.body], self.closures(code))
    }

    /// Parser `i`, translated once.
    fn parser_code(&mut self, i: usize) -> R<ParserCode> {
        let ir = self.cx.ir;
        let Some(parser) = ir.parsers.get(i) else { return unsupported(format!("parser id {i}")) };
        let b = BlockRef::Parser(p4_ir::ParserId(i as u32));
        let init = self.code_block(&b, &parser.init)?;
        let mut states = Vec::new();
        for st in &parser.states {
            let body = self.state_code(&b, &st.body).map_err(|e| e.in_context(format!("parser state {}", st.name)))?;
            let transition = match &st.transition {
                p4_ir::Transition::Goto(t) => TransitionCode::Goto(crate::fast::runtime::target(*t)),
                p4_ir::Transition::Select { keys, cases } => {
                    let mut ks = Vec::new();
                    for k in keys {
                        ks.push((self.scalar(&b, k)?, self.cx.width(&k.ty).1));
                    }
                    let mut cs = Vec::new();
                    for case in cases {
                        let mut ms = Vec::new();
                        for (set, k) in case.keysets.iter().zip(keys) {
                            ms.push(self.cx.keyset(set, &k.ty).map_err(|e| e.at(st.span))?);
                        }
                        cs.push((ms, crate::fast::runtime::target(case.target)));
                    }
                    TransitionCode::Select { keys: ks, cases: cs }
                }
            };
            // Each statement that reads ahead rejects after itself (`state_code`), and the
            // general select after its keys: nothing is left pending for the state as a whole.
            states.push(StateCode { body, transition, reads_ahead: self.reads_ahead });
        }
        Ok(ParserCode { init, states })
    }

    fn parser_closures(&self, i: usize, code: ParserCode) -> (Run, Vec<FastState>) {
        let parser = &self.cx.ir.parsers[i];
        let init = self.closures(code.init);
        let mut states = Vec::new();
        for (st, sc) in parser.states.iter().zip(code.states) {
            let body = self.closures(sc.body);
            let body = if self.cx.tracing { entering_state(&parser.block.name, &st.name, body) } else { body };
            let transition = match sc.transition {
                TransitionCode::Goto(t) => FastTransition::Goto(t),
                TransitionCode::Select { keys, cases } => {
                    let widths: Vec<u32> = keys.iter().map(|(k, _)| k.width).collect();
                    let vals: Vec<Val> = keys.into_iter().map(|(k, _)| k.closure(self.cx.tracing)).collect();
                    let masks: Option<Vec<(u128, u128, crate::fast::exec::Target)>> = cases
                        .iter()
                        .map(|(ms, t)| match ms.as_slice() {
                            [KeyMatch::Mask(x, m)] => Some((*x, *m, *t)),
                            [KeyMatch::Any] => Some((0, 0, *t)),
                            _ => None,
                        })
                        .collect();
                    match (masks, vals.as_slice()) {
                        // The general select rejects on a key read past the end (`lookahead`).
                        (Some(masks), [key]) if !sc.reads_ahead => FastTransition::Masks { key: key.clone(), cases: masks },
                        _ => FastTransition::Select { keys: vals.into_iter().map(Val::into_ev).collect(), widths, cases },
                    }
                }
            };
            states.push(FastState { body, transition });
        }
        (init, states)
    }
}

/// A value a checksum sums: bits of the wire buffer, or a computed value (`V`: how it is
/// computed) of a width.
#[derive(Clone)]
pub(super) enum Leaf<V = Ev> {
    Wire { bit: usize, width: usize },
    Value(V, u32),
}

impl<V> Leaf<V> {
    fn width(&self) -> usize {
        match self {
            Leaf::Wire { width, .. } => *width,
            Leaf::Value(_, w) => *w as usize,
        }
    }
}

/// The Internet checksum of `leaves` as pieces to sum with their shifts: runs of adjacent wire
/// bits merged, then cut into pieces of at most 64 bits.
pub(super) fn csum16_plan<V>(leaves: Vec<Leaf<V>>) -> Vec<(Leaf<V>, u32)> {
    let mut merged: Vec<Leaf<V>> = Vec::new();
    for leaf in leaves {
        if let (Some(Leaf::Wire { bit, width }), Leaf::Wire { bit: nb, width: nw }) = (merged.last_mut(), &leaf) {
            if *bit + *width == *nb {
                *width += nw;
                continue;
            }
        }
        merged.push(leaf);
    }
    let mut pieces: Vec<Leaf<V>> = Vec::new();
    for leaf in merged {
        match leaf {
            Leaf::Wire { mut bit, mut width } => {
                while width > 0 {
                    let w = width.min(64);
                    pieces.push(Leaf::Wire { bit, width: w });
                    bit += w;
                    width -= w;
                }
            }
            other => pieces.push(other),
        }
    }
    let widths: Vec<u32> = pieces.iter().map(|p| p.width() as u32).collect();
    pieces.into_iter().zip(csum16_shifts(&widths)).collect()
}

/// The one of `each` (one per stack element) that `index` chooses per packet; past the stack's end
/// `otherwise`, or nothing.
fn by_element(index: Val, each: Vec<Run>, otherwise: Option<Run>) -> Run {
    Box::new(move |p, c| {
        let i = index.read(p, c);
        match usize::try_from(i).ok().and_then(|i| each.get(i)).or(otherwise.as_ref()) {
            Some(run) => run(p, c),
            None => Flow::Next,
        }
    })
}

/// Whether `callee` is `core.p4`'s packet I/O (`packet_in`, `packet_out`), which the parser and
/// deparser code compiles itself.
fn is_packet_io(callee: &Callee) -> bool {
    matches!(callee, Callee::Method { extern_type, .. } if extern_type == "packet_in" || extern_type == "packet_out")
}

/// The severity (green 0, yellow 1, red 2) of colour value `v` as the program writes colours.
fn colour_of(colours: &[u128; 3], v: u128) -> u128 {
    colours.iter().position(|c| *c == v).map_or(crate::meter::GREEN, |i| i as u128)
}

/// Operations only the switch's traffic manager carries out: copies of the packet, a cut, and
/// `assert`, which stops the packet there.
pub(super) fn is_traffic_manager_op(op: ExternOp) -> bool {
    use ExternOp::*;
    matches!(op, Assert | Truncate | Clone(_) | Resubmit(_) | Recirculate(_))
}

/// Assignments run in order by one closure.
pub(super) fn assignments(mut ops: Vec<(Dest, Val)>) -> Run {
    if ops.len() == 1 {
        if let Some((d, v)) = ops.pop() {
            return Box::new(move |p, c| {
                let x = v.read(p, c);
                d.write(p, c, x);
                Flow::Next
            });
        }
    }
    Box::new(move |p, c| {
        for (d, v) in &ops {
            let x = v.read(p, c);
            d.write(p, c, x);
        }
        Flow::Next
    })
}

/// `setInvalid`: the validity bit cleared and the bytes zeroed (fields of an invalid header read 0).
/// Whether any of `items` reads the variable the place `e` is in.
fn reads_root_of(items: &[Expr], e: &Expr) -> bool {
    let mut root = e;
    while let ExprKind::Field(inner, _) | ExprKind::Index(inner, _) = &root.kind {
        root = inner;
    }
    let ExprKind::Var(var) = root.kind else { return true };
    items.iter().any(|item| item.any(&mut |x| matches!(x.kind, ExprKind::Var(v) if v == var)))
}

/// Whether `lhs` is a place in a stack element chosen by a run-time index and `rhs` makes a call,
/// which may change that index: P4 evaluates the place first, the code here last.
pub(super) fn index_after_call(lhs: &Expr, rhs: &Expr) -> bool {
    per_element(lhs).is_some() && rhs.any(&mut |x| matches!(x.kind, ExprKind::Call(_) | ExprKind::ApplyTable(..)))
}

/// Member `i` (of type `ty`) of the struct or tuple `e`.
fn member(e: &Expr, i: usize, ty: &Type) -> Expr {
    Expr::new(ty.clone(), ExprKind::Field(Box::new(e.clone()), i as u32), e.span)
}

/// `x == y` of two headers, as P4 compares them: both invalid, or both valid
/// with the same bytes (with a varbit field: the same fixed bytes, the same varbit length and
/// bits; the varbit's bytes past its length are zero).
fn equal_headers(x: Region, y: Region) -> R<impl Fn(&crate::fast::exec::Ctx) -> bool> {
    if x.varbit.map(|v| v.max_len) != y.varbit.map(|v| v.max_len) || (x.len, x.bits) != (y.len, y.bits) {
        return unsupported("comparison of headers of different sizes");
    }
    let lengths = x.varbit.zip(y.varbit).map(|(vx, vy)| (vx.length_slot, vy.length_slot));
    Ok(move |c: &crate::fast::exec::Ctx| {
        let (vx, vy) = (c.wire_valid.has(x.index), c.wire_valid.has(y.index));
        let same_lengths = lengths.is_none_or(|(lx, ly)| c.get(lx) == c.get(ly));
        vx == vy && (!vx || (same_lengths && c.wire[x.at..x.at + x.len] == c.wire[y.at..y.at + y.len]))
    })
}

/// `x.v == y.v` of the trailing varbit fields of headers `x` and `y`: the same length and bits
/// (the bytes past a varbit's length are zero, so all of its bytes compare).
fn equal_varbits(x: Region, y: Region) -> R<impl Fn(&crate::fast::exec::Ctx) -> bool> {
    let (Some(vx), Some(vy)) = (x.varbit, y.varbit) else {
        return unsupported("comparison of varbit values outside a header's last field");
    };
    if vx.max_len != vy.max_len {
        return unsupported("comparison of varbit fields of different maximum widths");
    }
    let (fx, fy) = (x.at + x.fixed_len(), y.at + y.fixed_len());
    Ok(move |c: &crate::fast::exec::Ctx| {
        c.get(vx.length_slot) == c.get(vy.length_slot) && c.wire[fx..fx + vx.max_len] == c.wire[fy..fy + vy.max_len]
    })
}

/// Whether `e` is `packet_in.lookahead<T>()`.
pub(super) fn lookahead_of(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call(call) if matches!(&call.callee, Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "lookahead"))
}

/// The items of a list or structure expression (also under a cast to the type it initialises),
/// or of a constant struct, header or tuple whose members have types `fields`.
fn list_items(e: &Expr, fields: &[Type]) -> Option<Vec<Expr>> {
    match &e.kind {
        ExprKind::Aggregate(items) => Some(items.clone()),
        ExprKind::Cast(inner) => match &inner.kind {
            ExprKind::Aggregate(items) => Some(items.clone()),
            _ => None,
        },
        ExprKind::Const(p4_ir::Value::Aggregate { fields: values, .. }) if values.len() == fields.len() => {
            Some(values.iter().zip(fields).map(|(v, ty)| Expr { ty: ty.clone(), kind: ExprKind::Const(v.clone()), span: e.span }).collect())
        }
        _ => None,
    }
}

/// `dst = src` of two header instances: bytes, validity and the length of a varbit.
fn copy_header(src: Region, dst: Region) -> R<Run> {
    if (src.len, src.bits) != (dst.len, dst.bits) {
        return unsupported("a header assigned from a header of another size");
    }
    match (src.varbit, dst.varbit) {
        (Some(s), Some(d)) if s.max_bits == d.max_bits => {}
        (None, None) => {}
        _ => return unsupported("a header assigned from a header with another varbit"),
    }
    Ok(Box::new(move |_, c| {
        copy_in(c, src, dst);
        Flow::Next
    }))
}

/// Header `dst` made a copy of header `src` (of the same layout): bytes, validity bit and the
/// length of a varbit.
fn copy_in(c: &mut crate::fast::exec::Ctx, src: Region, dst: Region) {
    c.wire.copy_within(src.at..src.at + src.len, dst.at);
    let valid = c.wire_valid.has(src.index);
    c.wire_valid.put(dst.index, valid);
    if let (Some(from), Some(to)) = (src.varbit, dst.varbit) {
        c.set(to.length_slot, c.get(from.length_slot));
    }
}

/// `extract` of header `r` (no varbit) where the cursor or the header is not on whole bytes.
#[cold]
fn extract_bits(c: &mut crate::fast::exec::Ctx, r: Region, short: u32) -> Flow {
    if c.cursor + r.bits > c.pkt.len() * 8 {
        return Flow::Reject(short);
    }
    take_bits(c, r, r.bits);
    c.wire_valid.set(r.index);
    c.cursor += r.bits;
    Flow::Next
}

/// The packet's next `bits` bits (there are that many) made the first bits of header `r`'s
/// bytes, the rest of them zero; the cursor does not move.
#[inline]
fn take_bits(c: &mut crate::fast::exec::Ctx, r: Region, bits: usize) {
    let (from, len) = (c.cursor / 8, bits / 8);
    match (c.pkt.get(from..from + len), c.wire.get_mut(r.at..r.at + r.len)) {
        (Some(bytes), Some(to)) if c.cursor.is_multiple_of(8) && bits.is_multiple_of(8) => {
            to[..len].copy_from_slice(bytes);
            to[len..].fill(0);
        }
        (_, Some(to)) => {
            to.fill(0);
            bits::copy_bits(&mut c.wire, r.at * 8, &c.pkt, c.cursor, bits);
        }
        _ => {}
    }
}


pub(super) fn invalidate(r: Region) -> Run {
    Box::new(move |_, c| {
        invalidate_in(c, r);
        Flow::Next
    })
}

/// Header `r` made invalid: its bit cleared, its bytes (and a varbit's length) zeroed.
fn invalidate_in(c: &mut crate::fast::exec::Ctx, r: Region) {
    c.wire_valid.clear(r.index);
    if let Some(bytes) = c.wire.get_mut(r.at..r.at + r.len) {
        bytes.fill(0);
    }
    if let Some(v) = r.varbit {
        c.set(v.length_slot, 0);
    }
}
