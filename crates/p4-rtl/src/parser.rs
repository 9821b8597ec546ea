//! The parser: P4's state machine evaluated over the first bytes of the packet.
//!
//! The states of a loop-free parser form a DAG, so visiting them once in topological order, each
//! guarded by `if (st == <state>)`, walks exactly the path the packet takes: that is the whole
//! parser, one combinational pass per packet, registered once (one packet per cycle). Extracts
//! read a part-select of the window at the state's bit offset; where every path reaches a state
//! at the same offset (the common case) the offset is a constant and the part-select is wiring.
//! A state reached at offsets that differ is an anchor ([`StateOffset`]): the window is moved once
//! there and the states below it read constant slices of the moved window. The window is the
//! first `WIN` bytes of the packet (the most any path reads), collected by `p4f_pkt_split` as the
//! beats arrive.

use std::collections::BTreeMap;
use std::fmt::Write;

use num_traits::ToPrimitive;
use p4_arch::MetaRole;
use p4_ir::{Call, ExprKind, Keyset, Parser, Span, StateTarget, Stmt, Transition, Type, Value};

use crate::block::BlockGen;
use crate::error::{unsupported, Result, RtlError};
use crate::names::ident;
use crate::types::{shift_amount, NEXT_INDEX, VARBIT_LEN};

/// What the parser generator found out about the parser.
pub struct ParserPlan {
    /// States in topological order (indices into `Parser::states`).
    pub order: Vec<usize>,
    /// Per state: where it starts, as a constant distance from an anchor.
    pub entry: Vec<StateOffset>,
    /// Per anchor state (a state reached at offsets known only at run time): the bits read from
    /// its start at most, the width of the window moved to start there.
    pub anchor_reach: BTreeMap<usize, u32>,
    /// Bytes of the packet the parser can read at most.
    pub window_bytes: u32,
    /// Low bits that are zero in every offset (3: the parser only moves by whole bytes).
    pub align: u32,
}

/// A state's starting offset: `bits` past the packet's start (`anchor` is `None`) or past the
/// start of the anchor state `anchor`. Reads at such an offset are wiring out of the packet's
/// window or out of the anchor's moved window, so one shifter per anchor serves every header
/// below it (mdp: one per message after the first, not one per header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateOffset {
    pub anchor: Option<usize>,
    pub bits: u32,
}

/// Topological order, offsets and anchors; refuses loops (the mid-end unrolls bounded ones).
pub fn plan(g: &BlockGen, parser: &Parser) -> Result<ParserPlan> {
    let n = parser.states.len();
    let mut order = Vec::new();
    let mut mark = vec![0u8; n]; // 0 new, 1 on the stack, 2 done
    fn visit(p: &Parser, s: usize, mark: &mut [u8], order: &mut Vec<usize>) -> Result<()> {
        match mark[s] {
            2 => return Ok(()),
            1 => {
                return unsupported(
                    p.states[s].span,
                    format!("parser state `{}` is reached again from itself (a loop); the mid-end unrolls bounded header-stack loops", p.states[s].name),
                )
            }
            _ => {}
        }
        mark[s] = 1;
        for t in successors(&p.states[s].transition) {
            visit(p, t, mark, order)?;
        }
        mark[s] = 2;
        order.push(s);
        Ok(())
    }
    if n > 0 {
        visit(parser, 0, &mut mark, &mut order)?;
    }
    order.reverse();
    // Offsets: what reaches each state (`None`: nothing yet; `Some(None)`: offsets that differ or
    // are known only at run time), and the most it can be.
    let mut incoming: Vec<Option<Option<StateOffset>>> = vec![None; n];
    let mut entry: Vec<StateOffset> = (0..n).map(|s| StateOffset { anchor: Some(s), bits: 0 }).collect();
    let mut anchor_reach = BTreeMap::new();
    let mut max_in = vec![0u32; n];
    if n > 0 {
        incoming[0] = Some(Some(StateOffset { anchor: None, bits: 0 }));
    }
    let mut window_bits = 0;
    let mut align = 32;
    for &s in &order {
        let st = &parser.states[s];
        if let Some(Some(at)) = incoming[s] {
            entry[s] = at;
        }
        let (delta, max_delta) = body_reads(g, &st.body)?;
        align = align.min(body_align(g, &st.body)?);
        let reach = max_delta.max(lookahead_reach(g, &st.body)?).max(max_delta + select_reach(g, &st.transition)?);
        if let Some(a) = entry[s].anchor {
            let r = anchor_reach.entry(a).or_insert(0);
            *r = (*r).max(entry[s].bits + reach);
        }
        let out = delta.map(|d| StateOffset { bits: entry[s].bits + d, ..entry[s] });
        let max_out = max_in[s] + max_delta;
        window_bits = window_bits.max(max_in[s] + reach);
        for t in successors(&st.transition) {
            max_in[t] = max_in[t].max(max_out);
            incoming[t] = Some(match incoming[t] {
                None => out,
                Some(prev) if prev == out => out,
                Some(_) => None,
            });
        }
    }
    Ok(ParserPlan { order, entry, anchor_reach, window_bytes: window_bits.div_ceil(8).max(1), align })
}

/// Low bits that are zero in every amount a state's body consumes.
fn body_align(g: &BlockGen, body: &[Stmt]) -> Result<u32> {
    let mut align = 32;
    for st in body {
        align = align.min(match st {
            Stmt::Call(c) => match consumed(g, c)? {
                Some((Some(bits), _)) => bits.trailing_zeros(),
                Some((None, _)) => match (&c.args[..], c.args.first()) {
                    ([_, _], Some(h)) => match g.tm.varbit_layout(&h.expr.ty).map_err(|e| RtlError::new(c.span, e.message))? {
                        Some(l) => (l.pre + l.post).trailing_zeros().min(l.align),
                        None => 0,
                    },
                    _ => 0,
                },
                None => 32,
            },
            Stmt::If { then, otherwise, .. } => body_align(g, then)?.min(body_align(g, otherwise)?),
            Stmt::Block(b) => body_align(g, b)?,
            _ => 32,
        });
    }
    Ok(align)
}

fn successors(t: &Transition) -> Vec<usize> {
    let targets: Vec<&StateTarget> = match t {
        Transition::Goto(t) => vec![t],
        Transition::Select { cases, .. } => cases.iter().map(|c| &c.target).collect(),
    };
    targets.into_iter().filter_map(|t| if let StateTarget::State(s) = t { Some(s.index()) } else { None }).collect()
}

/// Bits a state's body consumes: `Some(d)` when every packet consumes exactly `d`, and the most it
/// can consume.
fn body_reads(g: &BlockGen, body: &[Stmt]) -> Result<(Option<u32>, u32)> {
    let mut exact = Some(0u32);
    let mut max = 0u32;
    for st in body {
        match st {
            Stmt::Call(c) => {
                if let Some((bits, most)) = consumed(g, c)? {
                    exact = exact.zip(bits).map(|(e, b)| e + b);
                    max += most;
                }
            }
            Stmt::If { then, otherwise, .. } => {
                let (a, ma) = body_reads(g, then)?;
                let (b, mb) = body_reads(g, otherwise)?;
                exact = match (exact, a, b) {
                    (Some(e), Some(a), Some(b)) if a == b => Some(e + a),
                    _ => None,
                };
                max += ma.max(mb);
            }
            Stmt::Block(b) => {
                let (a, ma) = body_reads(g, b)?;
                exact = exact.zip(a).map(|(e, a)| e + a);
                max += ma;
            }
            _ => {}
        }
    }
    Ok((exact, max))
}

/// Bits a packet_in call consumes: `(Some(d), d)` for a fixed amount, `(None, max)` for a varbit
/// extract (`None`: not a consuming call).
fn consumed(g: &BlockGen, c: &Call) -> Result<Option<(Option<u32>, u32)>> {
    let p4_ir::Callee::Method { extern_type, method, .. } = &c.callee else { return Ok(None) };
    if extern_type != "packet_in" {
        return Ok(None);
    }
    match method.as_str() {
        "extract" => match &c.args[..] {
            [arg] => {
                let bits = g.width(&arg.expr.ty, c.span)? - 1;
                Ok(Some((Some(bits), bits)))
            }
            [arg, _] => match g.tm.varbit_layout(&arg.expr.ty).map_err(|e| RtlError::new(c.span, e.message))? {
                Some(l) => Ok(Some((None, l.pre + l.max + l.post))),
                None => unsupported(c.span, "two-argument extract of a header without a varbit field"),
            },
            _ => unsupported(c.span, "extract arguments"),
        },
        "advance" => match &c.args.first().map(|a| &a.expr.kind) {
            Some(ExprKind::Const(Value::Bits { value, .. } | Value::InfInt(value))) => {
                let bits = value.to_u32().unwrap_or(u32::MAX);
                Ok(Some((Some(bits), bits)))
            }
            _ => unsupported(c.span, "advance by an amount known only at run time"),
        },
        _ => Ok(None),
    }
}

/// How far past the current offset lookaheads read.
fn lookahead_reach(g: &BlockGen, body: &[Stmt]) -> Result<u32> {
    let mut reach = 0;
    let mut consumed_so_far = 0;
    for st in body {
        let rhs = match st {
            Stmt::Assign { rhs, .. } => Some(rhs),
            Stmt::VarInit { init: Some(rhs), .. } => Some(rhs),
            Stmt::Call(c) => {
                consumed_so_far += consumed(g, c)?.map_or(0, |(_, most)| most);
                None
            }
            _ => None,
        };
        if let Some(ExprKind::Call(c)) = rhs.map(|r| &r.kind) {
            if matches!(&c.callee, p4_ir::Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "lookahead")
            {
                let w = g.width(&rhs.map(|r| r.ty.clone()).unwrap_or(Type::Bool), c.span)?;
                reach = reach.max(consumed_so_far + w);
            }
        }
    }
    Ok(reach)
}

/// `packet.lookahead<T>()` as a select key: the call.
fn lookahead_key(e: &p4_ir::Expr) -> Option<&Call> {
    match &e.kind {
        ExprKind::Call(c) if matches!(&c.callee, p4_ir::Callee::Method { extern_type, method, .. } if extern_type == "packet_in" && method == "lookahead") => {
            Some(c.as_ref())
        }
        _ => None,
    }
}

/// How far past the end of a state's body the lookaheads of its select read.
fn select_reach(g: &BlockGen, t: &Transition) -> Result<u32> {
    let Transition::Select { keys, .. } = t else { return Ok(0) };
    let mut reach = 0;
    for k in keys {
        if let Some(c) = lookahead_key(k) {
            reach = reach.max(g.width(&k.ty, c.span)?);
        }
    }
    Ok(reach)
}

/// Error code of a core error by name.
pub fn error_code(g: &BlockGen, name: &str) -> u32 {
    g.p.errors.iter().position(|e| e == name).unwrap_or(0) as u32
}

/// The parser's `always_comb` body: every state in order, cut by stage registers around each
/// anchor's window move (see [`ParserBody`]).
pub fn body(g: &mut BlockGen, parser: &Parser, plan: &ParserPlan, st_var: &str) -> Result<ParserBody> {
    g.stmts(&parser.init)?;
    let err_w = g.width(&Type::Error, Span::DUMMY)?;
    let mut windows: BTreeMap<usize, (String, u32, crate::block::AnchorBase)> = BTreeMap::new();
    let mut cuts = 0;
    // The cost (see `state_cost`) of the longest path into each state within the current stage
    // (a state's checks and select wait for its predecessor's): with anchors, a stage holds at
    // most STAGE_COST of it.
    let anchored = plan.anchor_reach.values().any(|&r| r > 0);
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); parser.states.len()];
    for (i, st) in parser.states.iter().enumerate() {
        for t in successors(&st.transition) {
            preds[t].push(i);
        }
    }
    let mut stage_of: Vec<Option<u32>> = vec![None; parser.states.len()];
    let mut path: Vec<usize> = vec![0; parser.states.len()];
    for &s in &plan.order {
        let state = &parser.states[s];
        let at = plan.entry[s];
        let moves = matches!((at.anchor, plan.anchor_reach.get(&s)), (Some(a), Some(&r)) if a == s && r > 0);
        let cost = state_cost(state);
        let depth = |cuts: u32, path: &[usize]| cost + preds[s].iter().filter(|&&p| stage_of[p] == Some(cuts)).map(|&p| path[p]).max().unwrap_or(0);
        if anchored && !moves && depth(cuts, &path) > STAGE_COST {
            cuts += 1;
            cut(g, cuts, &state.name, &format!("a path through it would cost over {STAGE_COST}"));
        }
        if let (Some(a), Some(&reach)) = (at.anchor, plan.anchor_reach.get(&s)) {
            if a == s && reach > 0 {
                // Reached at offsets known only at run time: the window moved once to start here,
                // so this state and the ones below it read constant slices of it. The offset is
                // registered before the move and the moved window after it, so that neither the
                // offset's arithmetic nor the states below share a cycle with the shifter.
                let ctx = g.parser.clone().ok_or_else(|| RtlError::global("parser context"))?;
                let name = g.local(&format!("win_{}", ident(&state.name)), format!("logic [{}:0]", reach - 1));
                let amount = shift_amount(&ctx.offset, ctx.window_bits, plan.align);
                cuts += 1;
                cut(g, cuts, &state.name, "before the window moves");
                g.line(format!("{name} = {reach}'(({} << {amount}) >> {});  // the window moved to state {}", ctx.window, ctx.window_bits - reach, state.name));
                let base = crate::block::AnchorBase {
                    at: g.local(&format!("at_{}", ident(&state.name)), "logic [31:0]".into()),
                    room: g.local(&format!("room_{}", ident(&state.name)), format!("logic [{}:0]", crate::block::ROOM_BITS - 1)),
                };
                g.line(format!("{} = {}; {} = {}'({} - {});", base.at, ctx.offset, base.room, crate::block::ROOM_BITS, ctx.valid_bits, ctx.offset));
                cuts += 1;
                cut(g, cuts, &state.name, "the moved window");
                windows.insert(s, (name, reach, base));
            }
        }
        if let Some(ctx) = g.parser.as_mut() {
            (ctx.static_window, ctx.static_bits, ctx.static_offset, ctx.base) = match at.anchor {
                None => (ctx.window.clone(), ctx.window_bits, Some(at.bits), None),
                Some(a) => match windows.get(&a) {
                    Some((w, bits, base)) => (w.clone(), *bits, Some(at.bits), Some(base.clone())),
                    None => (ctx.window.clone(), ctx.window_bits, None, None),
                },
            };
        }
        if let Some(call) = leading_varbit(&state.body) {
            if varbit_ahead(g, call)? {
                cuts += 1;
                cut(g, cuts, &state.name, "its varbit length and bound room");
            }
        }
        path[s] = depth(cuts, &path);
        stage_of[s] = Some(cuts);
        g.open(format!("if ({st_var} == ST_{}) begin  // state {}", ident(&state.name).to_uppercase(), state.name));
        g.stmts(&state.body)?;
        let done = g.done.clone();
        g.open(format!("if ({done}) begin"));
        g.line(format!("{st_var} = ST_REJECT;"));
        g.reopen("end else begin");
        transition(g, &state.transition, st_var, err_w)?;
        g.close("end");
        g.close("end");
    }
    Ok(ParserBody { text: g.take_out(), stages: cuts + 1 })
}

/// The parser's `always_comb` body and its stages: one (the body is the whole parser, registered
/// once) unless the parser has anchors. Stage register `k` (`1..stages`) holds what the body has
/// computed up to a cut: `s_d<k>` etc. take `s`, `st`, `off`, `wbits` and `wbe` there, and the body
/// goes on from `s_q<k>` etc., the same values one enabled cycle earlier (one packet per cycle).
pub struct ParserBody {
    pub text: String,
    pub stages: u32,
}

/// In a parser with anchors, the most [`state_cost`] on one path through a stage.
pub const STAGE_COST: usize = 4;

/// A state's share of a stage's logic depth, in units of about three cells: 1 for its checks,
/// select and state update (a few LUT levels), and 2 more for each addition or subtraction it
/// computes, whose carry chain (4 cells for 16 bits) and the LUTs around it the select that
/// follows waits for. So a stage holds one state that adds (mdp's unrolled entry loop decrements
/// its count in every state: two such states in a stage are 13 cells deep) or four that do not.
fn state_cost(state: &p4_ir::ParserState) -> usize {
    use p4_ir::BinOp;
    let mut cost = 1;
    let mut count = |e: &p4_ir::Expr| {
        if let ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::AddSat | BinOp::SubSat, ..) = e.kind {
            cost += 2;
        }
    };
    p4_ir::visit::for_each_expr_in(&state.body, &mut count);
    if let Transition::Select { keys, .. } = &state.transition {
        keys.iter().for_each(|k| p4_ir::visit::for_each_expr(k, &mut count));
    }
    cost
}

/// Names of stage register `k`'s values: (combinational input, register) per body variable.
pub const STAGE_VARS: [&str; 5] = ["s", "st", "off", "wbits", "wbe"];

/// Stage register `k`, before state `state`.
fn cut(g: &mut BlockGen, k: u32, state: &str, what: &str) {
    g.line(format!("// Stage register {k} (state {state}: {what})."));
    let d: Vec<String> = STAGE_VARS.iter().map(|v| format!("{v}_d{k} = {v};")).collect();
    g.line(d.join(" "));
    let q: Vec<String> = STAGE_VARS.iter().map(|v| format!("{v} = {v}_q{k};")).collect();
    g.line(q.join(" "));
}

fn target(t: &StateTarget, parser_states: &[p4_ir::ParserState]) -> String {
    match t {
        StateTarget::Accept => "ST_ACCEPT".into(),
        StateTarget::Reject => "ST_REJECT".into(),
        StateTarget::State(s) => format!("ST_{}", ident(&parser_states[s.index()].name).to_uppercase()),
    }
}

fn transition(g: &mut BlockGen, t: &Transition, st_var: &str, err_w: u32) -> Result<()> {
    let parser = current_parser(g)?;
    match t {
        Transition::Goto(t) => {
            let tgt = target(t, &parser.states);
            g.line(format!("{st_var} = {tgt};"));
        }
        Transition::Select { keys, cases } => {
            // Lookahead keys read the window at the current offset; a packet too short for them is
            // a PacketTooShort parser error, as for a lookahead statement.
            let mut ks = Vec::new();
            let mut reach = 0;
            for k in keys {
                match lookahead_key(k) {
                    Some(c) => {
                        let (slice, bits) = lookahead_slice(g, &k.ty, c)?;
                        reach = reach.max(bits);
                        ks.push((slice, k.clone()));
                    }
                    None => ks.push((g.expr(k)?, k.clone())),
                }
            }
            let checked = reach > 0;
            if checked {
                let ctx = g.parser.clone().ok_or_else(|| RtlError::global("a select outside the parser"))?;
                let set_err =
                    ctx.error_field.as_ref().map(|e| format!(" {e} = {err_w}'d{};", ctx.too_short)).unwrap_or_default();
                g.open(format!("if {} begin", ctx.short(reach)));
                g.line(format!("{st_var} = ST_REJECT;{set_err}"));
                g.reopen("end else begin");
            }
            let mut first = true;
            for c in cases {
                let mut conds = Vec::new();
                if let ([Keyset::ValueSet(id)], true) = (&c.keysets[..], ks.len() > 1) {
                    // One value set for several keys matches their concatenation (first most
                    // significant), as in the software target.
                    let mut w = 0;
                    for (_, ke) in &ks {
                        w += g.width(&ke.ty, ke.span)?;
                    }
                    let all: Vec<&str> = ks.iter().map(|(k, _)| k.as_str()).collect();
                    conds.push(value_set_cond(g, *id, &format!("{{{}}}", all.join(", ")), w, ks[0].1.span)?);
                } else {
                    for (ksets, (kx, ke)) in c.keysets.iter().zip(&ks) {
                        if let Some(cond) = keyset_cond(g, ksets, kx, ke)? {
                            conds.push(cond);
                        }
                    }
                }
                let cond = if conds.is_empty() { "1'b1".to_string() } else { conds.join(" && ") };
                let tgt = target(&c.target, &parser.states);
                g.line(format!("{}if ({cond}) {st_var} = {tgt};", if first { "" } else { "else " }));
                first = false;
            }
            let no_match = error_code(g, "NoMatch");
            let err = g.meta(MetaRole::ParserError);
            let set_err = err.map(|e| format!(" {e} = {err_w}'d{no_match};")).unwrap_or_default();
            g.line(format!("{}begin {st_var} = ST_REJECT;{set_err} end", if first { "" } else { "else " }));
            if checked {
                g.close("end");
            }
        }
    }
    Ok(())
}

/// The condition that key `kx` (the value of `ke`) is in `kset` (`None`: any key is).
fn keyset_cond(g: &mut BlockGen, kset: &Keyset, kx: &str, ke: &p4_ir::Expr) -> Result<Option<String>> {
    Ok(Some(match kset {
        Keyset::Any => return Ok(None),
        Keyset::Value(v) => format!("({kx} == {})", g.expr(v)?),
        Keyset::Mask(v, m) => {
            let (v, m) = (g.expr(v)?, g.expr(m)?);
            format!("(({kx} & {m}) == ({v} & {m}))")
        }
        Keyset::Range(lo, hi) => format!("({kx} >= {} && {kx} <= {})", g.expr(lo)?, g.expr(hi)?),
        Keyset::Lpm(v, len) => {
            let w = g.width(&ke.ty, ke.span)?;
            let shift = w.saturating_sub(*len);
            format!("(({kx} >> {shift}) == ({} >> {shift}))", g.expr(v)?)
        }
        Keyset::ValueSet(id) => {
            let w = g.width(&ke.ty, ke.span)?;
            value_set_cond(g, *id, kx, w, ke.span)?
        }
    }))
}

/// Most members a value set is built with: each is a value and a mask in control words, all
/// compared at once.
const MAX_VALUE_SET: u32 = 64;

/// `key` (`w` bits) is in value set `id`: some valid member has `key & mask == value` (the control
/// plane writes values already masked). The members come in on the parser's `vs_<name>` port,
/// from control words: per member `value` and `mask` (each `ceil(w / 32)` words) and a word whose
/// bit 0 is the member's validity.
pub fn value_set_cond(g: &mut BlockGen, id: p4_ir::ValueSetId, key: &str, w: u32, span: Span) -> Result<String> {
    let vs = &g.p.value_sets[id.index()];
    if vs.size == 0 || vs.size > MAX_VALUE_SET {
        return unsupported(span, format!("value set `{}` of {} members (1..{MAX_VALUE_SET} are built)", vs.name, vs.size));
    }
    if w > 128 {
        return unsupported(span, format!("value set `{}` of {w}-bit members (at most 128)", vs.name));
    }
    let port = format!("vs_{}", ident(&vs.name));
    g.value_sets.insert(id.index(), (port.clone(), vs.size, w));
    let vw = w.div_ceil(32);
    let stride = (2 * vw + 1) * 32;
    let terms: Vec<String> = (0..vs.size)
        .map(|i| {
            let base = i * stride;
            format!(
                "({port}[{}] && ((({w}'({key})) & {port}[{} +: {w}]) == {port}[{base} +: {w}]))",
                base + 2 * vw * 32,
                base + vw * 32
            )
        })
        .collect();
    Ok(format!("({})", terms.join(" || ")))
}

fn current_parser<'a>(g: &BlockGen<'a>) -> Result<&'a Parser> {
    g.p.parsers
        .iter()
        .find(|p| std::ptr::eq(&p.block, g.block))
        .ok_or_else(|| RtlError::global("transition outside a parser"))
}

/// `packet_in` / `packet_out` calls inside statements.
pub fn packet_call(g: &mut BlockGen, extern_type: &str, method: &str, call: &Call) -> Result<()> {
    if extern_type == "packet_out" {
        return crate::deparser::emit_call(g, method, call);
    }
    let Some(ctx) = g.parser.clone() else {
        return unsupported(call.span, format!("packet_in.{method} outside the parser"));
    };
    let done = g.done.clone();
    let err_w = g.width(&Type::Error, call.span)?;
    let set_err = |code: u32| ctx.error_field.as_ref().map(|e| format!("{e} = {err_w}'d{code}; ")).unwrap_or_default();
    let off = ctx.offset.clone();
    if let (Some(k), "extract", Some(arg)) = (&ctx.keep, method, call.args.first()) {
        if crate::unchanged::tail_key(g, &arg.expr, &k.tail)? {
            // The deparser's unchanged tail starts here: the packet's bytes from this offset on.
            g.line(format!("if (!{}) begin {} = {off}; {} = 1'b1; end", k.kept, k.keep, k.kept));
        }
    }
    match method {
        "extract" if call.args.len() == 2 => varbit_extract(g, call, &ctx)?,
        "extract" => {
            let [arg] = &call.args[..] else { return unsupported(call.span, "extract arguments") };
            let bits = g.width(&arg.expr.ty, call.span)? - 1;
            let slice = ctx.read(bits);
            let short = ctx.short(bits);
            let next = ctx.advanced(bits);
            if let ExprKind::StackNext(stack) = &arg.expr.kind {
                let base = g.lval(stack)?;
                let Type::Stack(_, n) = &stack.ty else {
                    return unsupported(call.span, "next of something that is not a stack");
                };
                g.line(format!("if ({base}{NEXT_INDEX} >= {n}) begin {}{done} = 1'b1; end", set_err(ctx.stack_oob)));
                g.line(format!("else if {short} begin {}{done} = 1'b1; end", set_err(ctx.too_short)));
                g.line(format!(
                    "else begin {base}[{base}{NEXT_INDEX}] = {{{slice}, 1'b1}}; {base}{NEXT_INDEX} = {base}{NEXT_INDEX} + 1'b1; {off} = {next}; end"
                ));
            } else {
                let path = g.lval(&arg.expr)?;
                g.line(format!("if {short} begin {}{done} = 1'b1; end", set_err(ctx.too_short)));
                g.line(format!("else begin {path} = {{{slice}, 1'b1}}; {off} = {next}; end"));
                g.invalidate_union_siblings(&arg.expr, Some(&format!("{path}.valid_")))?;
            }
            if let Some(c) = g.parser.as_mut().and_then(|p| p.static_offset.as_mut()) {
                *c += bits;
            }
        }
        "advance" => {
            let bits = consumed(g, call)?.map_or(0, |(_, most)| most);
            g.line(format!(
                "if {} begin {}{done} = 1'b1; end else {off} = {};",
                ctx.short(bits),
                set_err(ctx.too_short),
                ctx.advanced(bits)
            ));
            if let Some(c) = g.parser.as_mut().and_then(|p| p.static_offset.as_mut()) {
                *c += bits;
            }
        }
        _ => return unsupported(call.span, format!("packet_in.{method} as a statement")),
    }
    Ok(())
}

/// `pkt.extract(h, len)` of a header with a varbit field (spec 12.8.2): a length above the
/// field's maximum is `HeaderTooShort`, a packet shorter than the header `PacketTooShort`. The
/// varbit bits are read as a maximum-width slice with the bits past `len` cleared; the offset is
/// a run-time value from here on.
fn varbit_extract(g: &mut BlockGen, call: &Call, ctx: &crate::block::ParserCtx) -> Result<()> {
    let [arg, len] = &call.args[..] else { return unsupported(call.span, "extract arguments") };
    let Some(l) = g.tm.varbit_layout(&arg.expr.ty).map_err(|e| RtlError::new(call.span, e.message))? else {
        return unsupported(call.span, "two-argument extract of a header without a varbit field");
    };
    if matches!(arg.expr.kind, ExprKind::StackNext(_)) {
        return unsupported(call.span, "a varbit extract into a header stack");
    }
    let done = g.done.clone();
    let err_w = g.width(&Type::Error, call.span)?;
    let set_err = |code: u32| ctx.error_field.as_ref().map(|e| format!("{e} = {err_w}'d{code}; ")).unwrap_or_default();
    let (off, win, window) = (&ctx.offset, ctx.window_bits, &ctx.window);
    let len_w = crate::types::next_index_width(l.max);
    let ahead = g.varbit_ahead.iter().position(|(at, _)| *at == crate::block::call_address(call));
    let ahead = ahead.map(|i| g.varbit_ahead.remove(i).1);
    let n = match &ahead {
        Some(a) => a.len.clone(),
        None => {
            let n = g.local("varbit_len", "logic [31:0]".into());
            let lenx = g.expr(&len.expr)?;
            g.line(format!("{n} = 32'({lenx});"));
            n
        }
    };
    let path = g.lval(&arg.expr)?;
    let too_long = error_code(g, "HeaderTooShort");
    let slice = |at: String, bits: u32| format!("{window}[{} - ({at}) -: {bits}]", win - 1);
    let (pre_bits, data_bits) = (ctx.read(l.pre), ctx.read_at(l.pre, l.max));
    let long = ahead.as_ref().map_or_else(|| format!("{n} > 32'd{}", l.max), |a| a.long.clone());
    g.line(format!("if ({long}) begin {}{done} = 1'b1; end", set_err(too_long)));
    // Below a moved window at a known distance from its anchor: the bound and the new offset from
    // the anchor's registers (`n` is at most the field's maximum here).
    let rb = crate::block::ROOM_BITS;
    let (short, next) = match ctx.known() {
        Some((at, room, c)) if c + l.pre + l.post + l.max < 1 << rb => {
            // `n > room - k`, with `room - k` ready as soon as the registers are.
            let k = c + l.pre + l.post;
            let next = match at {
                Some(at) => format!("{at} + 32'd{k} + {n}"),
                None => format!("32'd{k} + {n}"),
            };
            let short = match &ahead {
                Some(a) => format!("{} || {rb}'({n}) > {}", a.past, a.room),
                None => format!("{rb}'d{k} > {room} || {rb}'({n}) > {room} - {rb}'d{k}"),
            };
            (short, next)
        }
        _ => (format!("{off} + 32'd{} + {n} > {}", l.pre + l.post, ctx.valid_bits), format!("{off} + 32'd{} + {n}", l.pre + l.post)),
    };
    g.line(format!("else if ({short}) begin {}{done} = 1'b1; end", set_err(ctx.too_short)));
    g.open("else begin");
    let (vb, vb_max) = (format!("{path}.{}", l.field), l.max);
    if l.pre > 0 {
        g.line(format!("{path}[$bits({path}) - 1 -: {}] = {pre_bits};", l.pre));
    }
    g.line(format!("{vb} = {data_bits} & ~({{{vb_max}{{1'b1}}}} >> {});", shift_amount(&n, l.max, l.align)));
    if l.post > 0 {
        g.line(format!(
            "{path}[$bits({path}) - 1 - {} -: {}] = {};",
            l.pre + l.max,
            l.post,
            slice(format!("{off} + 32'd{} + {n}", l.pre), l.post)
        ));
    }
    g.line(format!("{vb}{VARBIT_LEN} = {len_w}'({n});"));
    g.line(format!("{path}.valid_ = 1'b1;"));
    g.line(format!("{off} = {next};"));
    g.close("end");
    g.invalidate_union_siblings(&arg.expr, Some(&format!("{path}.valid_")))?;
    if let Some(p) = g.parser.as_mut() {
        p.static_offset = None;
    }
    Ok(())
}

/// A varbit extract's length and bound, computed in the stage before its state's (see
/// [`varbit_ahead`]): the length, whether it is over the field's maximum, the valid bits left past
/// the header's fixed part, and whether that fixed part is already past them.
#[derive(Clone, Debug)]
pub struct VarbitAhead {
    len: String,
    long: String,
    room: String,
    past: String,
}

/// The two-argument extract a state starts with, after nothing but `verify` calls (which write
/// only the parser error): its length reads nothing the state writes before it.
fn leading_varbit(body: &[Stmt]) -> Option<&Call> {
    for st in body {
        let Stmt::Call(c) = st else { return None };
        match &c.callee {
            p4_ir::Callee::ExternFunction { name, .. } if name == "verify" => continue,
            p4_ir::Callee::Method { extern_type, method, .. }
                if extern_type == "packet_in" && method == "extract" && c.args.len() == 2 =>
            {
                return Some(c)
            }
            _ => return None,
        }
    }
    None
}

/// Computes varbit extract `call`'s run-time length and the room it is checked against into
/// registers ahead of its state, so that its state's cycle holds one comparison (the length is
/// typically a header field minus a constant, and the room the valid bits minus the fixed part:
/// two carry chains that would otherwise run one after the other into the comparison and the
/// state logic). Only where the state's offset is a constant distance from registers (see
/// [`crate::block::ParserCtx::known`]) and the length is not a constant; returns whether it did.
fn varbit_ahead(g: &mut BlockGen, call: &Call) -> Result<bool> {
    let Some(ctx) = g.parser.clone() else { return Ok(false) };
    let [arg, len] = &call.args[..] else { return Ok(false) };
    if matches!(len.expr.kind, ExprKind::Const(_)) {
        return Ok(false);
    }
    let Some(l) = g.tm.varbit_layout(&arg.expr.ty).map_err(|e| RtlError::new(call.span, e.message))? else {
        return Ok(false);
    };
    let rb = crate::block::ROOM_BITS;
    let Some((_, room, c)) = ctx.known() else { return Ok(false) };
    let k = c + l.pre + l.post;
    if k + l.max >= 1 << rb {
        return Ok(false);
    }
    let n = g.local("varbit_len", "logic [31:0]".into());
    let lenx = g.expr(&len.expr)?;
    let room_k = g.local("varbit_room", format!("logic [{}:0]", rb - 1));
    let past = g.local("varbit_past", "logic".into());
    let long = g.local("varbit_long", "logic".into());
    g.line("// Ahead of the varbit extract in the next stage: its length and room.");
    g.line(format!("{n} = 32'({lenx}); {long} = {n} > 32'd{};", l.max));
    g.line(format!("{room_k} = {room} - {rb}'d{k}; {past} = {rb}'d{k} > {room};"));
    g.varbit_ahead.push((crate::block::call_address(call), VarbitAhead { len: n, long, room: room_k, past }));
    Ok(true)
}

/// `target = packet.lookahead<T>()`.
pub fn lookahead(g: &mut BlockGen, target: &str, ty: &Type, call: &Call) -> Result<()> {
    let Some(ctx) = g.parser.clone() else { return unsupported(call.span, "lookahead outside the parser") };
    let header = g.tm.is_header(ty);
    let (slice, bits) = lookahead_slice(g, ty, call)?;
    let done = g.done.clone();
    let err_w = g.width(&Type::Error, call.span)?;
    let set_err = ctx.error_field.as_ref().map(|e| format!("{e} = {err_w}'d{}; ", ctx.too_short)).unwrap_or_default();
    g.line(format!("if {} begin {set_err}{done} = 1'b1; end", ctx.short(bits)));
    g.line(format!("else {target} = {};", if header { format!("{{{slice}, 1'b1}}") } else { slice }));
    Ok(())
}

/// The window bits a `lookahead<T>()` at the current offset reads, and how many (a header's
/// validity bit is not read).
fn lookahead_slice(g: &BlockGen, ty: &Type, call: &Call) -> Result<(String, u32)> {
    let Some(ctx) = g.parser.clone() else { return unsupported(call.span, "lookahead outside the parser") };
    let w = g.width(ty, call.span)?;
    let bits = if g.tm.is_header(ty) { w - 1 } else { w };
    Ok((ctx.read(bits), bits))
}

/// `verify(cond, error)`.
pub fn verify(g: &mut BlockGen, call: &Call) -> Result<()> {
    let [cond, err] = &call.args[..] else { return unsupported(call.span, "verify arguments") };
    let c = g.expr(&cond.expr)?;
    let e = g.expr(&err.expr)?;
    let done = g.done.clone();
    let field = g.parser.as_ref().and_then(|p| p.error_field.clone());
    let set = field.map(|f| format!("{f} = {e}; ")).unwrap_or_default();
    g.line(format!("if (!{c}) begin {set}{done} = 1'b1; end"));
    Ok(())
}

/// State encoding: ACCEPT, REJECT, then every state.
pub fn state_params(parser: &Parser, out: &mut String) -> u32 {
    let n = parser.states.len() as u32 + 2;
    let w = (32 - (n - 1).leading_zeros()).max(1);
    let _ = writeln!(out, "    localparam logic [{}:0] ST_ACCEPT = {w}'d0;", w - 1);
    let _ = writeln!(out, "    localparam logic [{}:0] ST_REJECT = {w}'d1;", w - 1);
    for (i, s) in parser.states.iter().enumerate() {
        let _ =
            writeln!(out, "    localparam logic [{}:0] ST_{} = {w}'d{};", w - 1, ident(&s.name).to_uppercase(), i + 2);
    }
    w
}
