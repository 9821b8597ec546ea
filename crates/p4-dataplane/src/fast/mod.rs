//! The wire-format executor: headers kept as the bytes they are on the wire, at offsets fixed when
//! the program is built, for the programs whose every construct it knows (traced or not); the
//! reference interpreter (crate `p4-reference`) is the oracle the tests compare it with.
//!
//! Its parts: the run-time state ([`exec`]: the packet's context, the program as the run time
//! sees it, flows), what it compiles with ([`compile`]: the frame layout, the compile-time
//! context), the places of headers and values ([`places`]), the translation and the closures
//! ([`build`], [`code`], [`scalar`], [`wide`]), the machine code ([`jit`]), the per-packet
//! pipeline ([`pipeline`]) and the run-time functions ([`runtime`]).
//!
//! The program is translated once ([`code`], [`scalar`]) and run by two back ends of that
//! translation: closures, and machine code ([`jit`]) that calls the closure of a node it does not
//! generate. Extern calls and the requests to the traffic manager (registers, counters, meters,
//! hashes, checksums of any algorithm with or without the payload, random numbers, digests, log
//! messages, drops, asserts, truncation, clones, resubmission, recirculation) run here: their
//! arguments are read through [`Val`] and their results written through [`Dest`] by the code
//! [`build`] compiles, and what they do is [`runtime`], one function each. A header a run-time
//! stack index chooses is handled element by element. A value wider than 128 bits is a big
//! integer read and written whole ([`wide`]: the slow path, the one implementation). A call of a
//! P4 function the mid-end left (under `&&` or `?:`, in a select key, with an `exit`) runs its
//! body compiled once, as an action's is.
//!
//! How it runs a program: `extract` is one copy of the header's bytes and a
//! validity bit, `emit` one copy back, a field read one unaligned load and two shifts at a constant
//! place, a checksum over header fields a sum of 64-bit pieces of those bytes; statements are
//! compiled per construct with no copy-in/copy-out wrappers. Everything that is not a header (user
//! and intrinsic metadata, locals, action data) stays in frame slots, laid out by
//! [`crate::fast::compile::lay_out`], which tables, the control plane, counters and the architecture's
//! metadata roles address.
//!
//! Invariants:
//! - header instance `i` occupies `Ctx::wire[region.at .. region.at + region.len]`, valid when bit
//!   `i` of `Ctx::wire_valid` is set; an invalid header's bytes are zero (the buffer is cleared per
//!   packet and by `setInvalid`), so reading a field of an invalid header gives 0 as in the frame;
//!   a header that is not whole bytes fills its last byte from the top, the rest of it zero (the
//!   parser's cursor and the deparser's output may then stop off a byte: `Places::unaligned`);
//! - the buffer has [`SLACK`] bytes past the last header, so a field is read and written with one
//!   8- or 16-byte access wherever it sits;
//! - a program is built here only if nothing in it needs what this executor lacks (see
//!   [`build`]): no packet can reach a construct it cannot run.

mod build;
mod code;
pub(crate) mod compile;
pub(crate) mod exec;
mod jit;
mod pipeline;
mod places;
mod scalar;
pub(crate) mod runtime;
mod wide;

use std::sync::Arc;

use crate::fast::exec::{Ctx, Ev, Flow, KeyMatch, Prog, Run, Target};

pub(crate) use build::build;
pub use jit::JitFrame;
pub(crate) use jit::point_into as point_jit_frame;
pub(crate) use pipeline::{arrive_at, deparse, egress, enter_pipeline, ingress, ingress_deparse, process, replicate, whole_batch, Saved, Stopped};

/// Writes a scalar into a place the executor computes (a slice: read-modify-write).
pub(crate) type Write = Arc<dyn Fn(&Prog, &mut Ctx, u128) + Send + Sync>;

/// Bytes after the last header, so every field access may touch 16 bytes from its first byte.
pub(crate) const SLACK: usize = 16;

/// One parser state.
pub(crate) struct FastState {
    pub body: Run,
    pub transition: FastTransition,
}

pub(crate) enum FastTransition {
    Goto(Target),
    /// One key and cases of values, masks and defaults only: `(value, mask, target)` tried in
    /// order (a default has mask 0).
    Masks { key: Val, cases: Vec<(u128, u128, Target)> },
    Select { keys: Vec<Ev>, widths: Vec<u32>, cases: Vec<(Vec<KeyMatch>, Target)> },
}

/// A scalar read in place where it is a constant, a frame slot, a header field or a validity
/// bit (no call), else computed by a closure.
#[derive(Clone)]
pub(crate) enum Val {
    Const(u128),
    Slot(usize),
    Field { bit: usize, width: u32 },
    /// `isValid()`: the header's bit (a header union's: its members') in word `word` of
    /// `Ctx::wire_valid`.
    Valid { word: usize, mask: u64 },
    Eval(Ev),
}

impl Val {
    #[inline(always)]
    pub(crate) fn read(&self, p: &Prog, c: &mut Ctx) -> u128 {
        match self {
            Val::Const(k) => *k,
            Val::Slot(s) => c.get(*s),
            Val::Field { bit, width } => read_field(&c.wire, *bit, *width),
            Val::Valid { word, mask } => u128::from(c.wire_valid.0[*word] & mask != 0),
            Val::Eval(e) => e(p, c),
        }
    }

    pub(crate) fn into_ev(self) -> Ev {
        match self {
            Val::Eval(e) => e,
            other => Arc::new(move |p, c| other.read(p, c)),
        }
    }
}

/// Where an assignment writes.
#[derive(Clone)]
pub(crate) enum Dest {
    Slot(usize),
    Field { bit: usize, width: u32 },
    /// A slice: read-modify-write.
    Other(Write),
}

impl Dest {
    #[inline(always)]
    pub(crate) fn write(&self, p: &Prog, c: &mut Ctx, v: u128) {
        match self {
            Dest::Slot(s) => c.set(*s, v),
            Dest::Field { bit, width } => write_field(&mut c.wire, *bit, *width, v),
            Dest::Other(w) => w(p, c, v),
        }
    }
}

/// A table as this executor applies it: key and actions compiled here; lookup, entries and
/// per-entry externs are the run time's [`crate::fast::exec::TableProg`] of the same index.
pub(crate) struct FastTable {
    pub keys: Vec<Val>,
    /// An action selector's hash algorithm and its selector keys with their widths: what picks a
    /// group entry's member.
    pub selector: Option<(crate::hashing::Algorithm, Vec<(Val, u32)>)>,
    /// By position in the table's action list (`Table::effective_actions`), the index an entry names.
    pub actions: Vec<TableAction>,
}

/// An action as a table runs it: its entry's data go straight into the parameters' slots.
pub(crate) struct TableAction {
    /// IR action id (its body is `FastProg::actions[action]`).
    pub action: usize,
    /// The frame slots of its directionless parameters, in the order of the entry's data.
    pub data: Vec<usize>,
    /// For an action with directional parameters bound in the table's `actions` list: its body
    /// with those arguments copied in and out (else the body alone runs).
    pub bound: Option<Run>,
}

/// A program compiled for the wire-format executor.
pub(crate) struct FastProg {
    pub parser_init: Run,
    pub states: Vec<FastState>,
    /// The second pipeline's parser, as `parser_init` and `states` are the first's.
    pub egress_parser: Option<(Run, Vec<FastState>)>,
    /// By control index; `None` for a control with no statement.
    pub controls: Vec<Option<Run>>,
    /// By table index; `None` for a table no compiled control applies.
    pub tables: Vec<Option<FastTable>>,
    /// By IR action id; `None` for an action nothing compiled here calls.
    pub actions: Vec<Option<Run>>,
    /// By IR function id (functions the mid-end left as calls); `None` for a function nothing
    /// compiled here calls.
    pub functions: Vec<Option<Run>>,
    /// Length of `Ctx::wire`: every header, then [`SLACK`].
    pub wire_len: usize,
    /// What the pipeline does per packet, resolved when the program is built.
    pub plan: PacketPlan,
    /// The program may ask for what only the switch's traffic manager does (clones,
    /// resubmission, recirculation, truncation, multicast, asserts): packets go through parser
    /// and ingress in [`process`], then to the switch's traffic manager, which sends each copy
    /// through the blocks compiled here ([`run_parser`], [`ingress`], [`egress`], [`deparse`]).
    pub hands_over: bool,
    /// A program that hands over whose egress and deparser ask nothing of the traffic manager: a
    /// packet its ingress asked nothing of it (no clone, resubmission, recirculation, truncation,
    /// multicast group or failed assert) stays in [`process`] to the end, as in a program that
    /// does not hand over, and so do the replicas of one that asked for a multicast group alone
    /// ([`replicate`]); only the others are handed over.
    pub hands_over_when_asked: bool,
    /// Every placed header with its frame slots (what a traced switch copies into the frame to
    /// find the fields that changed).
    pub frame_headers: Vec<places::FrameHeader>,
    /// The parser and control bodies as machine code ([`jit`]), where they compiled; run when
    /// `Ctx::jit` is on.
    pub jit: Option<jit::JitProg>,
}

/// The per-packet work around the program's blocks, resolved once: which frame slots a packet
/// must find zeroed, which control bodies run in each stage, and where the intrinsic metadata
/// the pipeline reads lives.
pub(crate) struct PacketPlan {
    /// Frame slot ranges `[start, end)` zeroed on arrival: every slot but the header slots (this
    /// executor keeps headers in `Ctx::wire`, so their slots are never read).
    pub zero: Vec<(usize, usize)>,
    /// Control indexes with a body, in pipeline order, per stage.
    pub ingress: Vec<usize>,
    pub ingress_deparse: Vec<usize>,
    pub egress: Vec<usize>,
    pub deparse: Vec<usize>,
    /// The field the parser's error code goes to.
    pub error_field: Option<usize>,
    pub out_port_field: Option<usize>,
    /// The transmit-timestamp request's fields (insert flag, byte offset): Rust reads them after
    /// the packet's code ran ([`crate::fast::exec::Prog::tx_stamp_request`]), so machine code sets
    /// and resets them for every packet.
    pub tx_stamp_fields: [Option<usize>; 2],
    /// The drop-marker slot and the value that drops.
    pub drop_marker: Option<(usize, u128)>,
    /// The instance type of a packet arriving from a port.
    pub normal_instance: u128,
    /// The largest port number the port fields hold.
    pub max_port: u32,
    /// The multicast group field (a packet with a group needs the traffic manager).
    pub group_field: Option<usize>,
}

impl FastProg {
    fn of(p: &Prog) -> &FastProg {
        match &p.fast {
            Some(f) => f,
            // Code of this module runs only from a program that has it.
            None => unreachable!("wire-format code without a wire-format program"),
        }
    }
}

/// Runs the pipeline parser; `Err(code)`: the parser error it ended with. Never inlined: one call
/// per packet, which profiles count packets by.
#[inline(never)]
pub(crate) fn run_parser(p: &Prog, c: &mut Ctx) -> Result<(), u32> {
    let f = FastProg::of(p);
    if let (true, Some(code)) = (c.jit, f.jit.as_ref().and_then(|j| j.parser)) {
        return jit::run_parser(code, p, c);
    }
    parse_with(p, c, &f.parser_init, &f.states)
}

/// Runs the second pipeline's parser ([`FastProg::egress_parser`]; a program without one
/// accepts at once); `Err(code)` as [`run_parser`].
pub(crate) fn run_egress_parser(p: &Prog, c: &mut Ctx) -> Result<(), u32> {
    match &FastProg::of(p).egress_parser {
        Some((init, states)) => parse_with(p, c, init, states),
        None => Ok(()),
    }
}

/// A parser's closures: `init`, then `states` from the first.
#[inline(always)]
fn parse_with(p: &Prog, c: &mut Ctx, init: &Run, states: &[FastState]) -> Result<(), u32> {
    if let Flow::Reject(e) = init(p, c) {
        return Err(e);
    }
    let mut state = 0usize;
    for _ in 0..crate::fast::runtime::MAX_PARSER_STEPS {
        let Some(st) = states.get(state) else { return Ok(()) };
        match (st.body)(p, c) {
            Flow::Reject(e) => return Err(e),
            Flow::Abort => return Err(0),
            _ => {}
        }
        let next = match &st.transition {
            FastTransition::Goto(t) => *t,
            FastTransition::Masks { key, cases } => {
                let v = key.read(p, c);
                match cases.iter().find(|(x, m, _)| v & m == *x) {
                    Some((_, _, t)) => *t,
                    None => return Err(p.errors.no_match),
                }
            }
            FastTransition::Select { keys, widths, cases } => crate::fast::runtime::select_next(p, c, keys, widths, cases)?,
        };
        match next {
            Target::Accept => return Ok(()),
            Target::Reject => return Err(0),
            Target::State(s) => state = s,
        }
    }
    Err(p.errors.parser_timeout)
}

/// Applies table `t` with this executor's key and actions; `TRACED`: a traced build's, recording
/// the lookup and what the action changed.
#[inline(always)]
pub(crate) fn apply_table<const TRACED: bool>(p: &Prog, c: &mut Ctx, t: usize) -> crate::fast::exec::ApplyOutcome {
    if TRACED {
        apply_table_traced(p, c, t)
    } else {
        apply_table_untraced(p, c, t)
    }
}

/// [`apply_table`] recording the key, the entry
/// and the action with its data, then the fields the action changed.
fn apply_table_traced(p: &Prog, c: &mut Ctx, t: usize) -> crate::fast::exec::ApplyOutcome {
    let none = crate::fast::exec::ApplyOutcome { hit: false, action: 0, flow: Flow::Next };
    let f = FastProg::of(p);
    let (Some(ft), Some(tp)) = (f.tables.get(t).and_then(Option::as_ref), p.tables.get(t)) else { return none };
    let mut key = crate::fast::exec::SmallValues::new();
    for k in &ft.keys {
        key.push(k.read(p, c));
    }
    let mut args = crate::fast::exec::SmallValues::new();
    let pick = selector_hash(p, c, ft);
    let (found, hit, act) = tp.choose(p, c, t, key.as_slice(), &mut args, pick);
    let Some(ta) = ft.actions.get(act) else { return crate::fast::exec::ApplyOutcome { hit, ..none } };
    for (slot, v) in ta.data.iter().zip(args.as_slice()) {
        c.set(*slot, *v);
    }
    if let (Some(trace), Some(table)) = (c.trace.as_mut(), p.tables.get(t)) {
        trace.table_applied(&p.layouts, t, &table.name, key.as_slice(), found, ta.action, args.as_slice());
    }
    let flow = run_table_action(f, p, c, ta);
    note_changes(p, c, true);
    crate::fast::exec::ApplyOutcome { hit, action: ta.action, flow }
}

/// Runs the action of a table entry (its data already in its parameters' slots).
#[inline(always)]
fn run_table_action(f: &FastProg, p: &Prog, c: &mut Ctx, ta: &TableAction) -> Flow {
    match (&ta.bound, f.actions.get(ta.action)) {
        (Some(call), _) => call(p, c),
        (None, Some(Some(body))) => body(p, c),
        _ => Flow::Next,
    }
}

/// A traced switch's record of the fields that changed since the last step: every header is
/// copied into its frame slots first, so the frame shows the packet field by field (`headers`
/// false: header fields are left out, as after the parser, which shows them
/// by its extractions).
pub(crate) fn note_changes(p: &Prog, c: &mut Ctx, headers: bool) {
    let Some(names) = p.slot_names.as_ref() else { return };
    headers_to_frame(p, c);
    if let Some(trace) = c.trace.as_mut() {
        trace.diff(&c.f, names, headers);
    }
}

/// Copies every header into its frame slots (a traced switch, before taking the frame as the
/// point later changes are reported from).
pub(crate) fn headers_to_frame(p: &Prog, c: &mut Ctx) {
    if let Some(f) = p.fast.as_ref() {
        places::to_frame(&f.frame_headers, c);
    }
}

/// [`apply_table`] of an untraced build.
#[inline]
fn apply_table_untraced(p: &Prog, c: &mut Ctx, t: usize) -> crate::fast::exec::ApplyOutcome {
    let none = crate::fast::exec::ApplyOutcome { hit: false, action: 0, flow: Flow::Next };
    let Some((hit, act)) = choose_entry(p, c, t) else { return none };
    let f = FastProg::of(p);
    let Some(ta) = f.tables.get(t).and_then(Option::as_ref).and_then(|ft| ft.actions.get(act)) else {
        return crate::fast::exec::ApplyOutcome { hit, ..none };
    };
    let flow = run_table_action(f, p, c, ta);
    crate::fast::exec::ApplyOutcome { hit, action: ta.action, flow }
}

/// Looks table `t` up with this executor's key, puts the chosen entry's (or the default's) data
/// into its action's parameters, and returns whether it hit and the index of that action in the
/// table's action list; `None`: the table runs no action.
#[inline]
pub(crate) fn choose_entry(p: &Prog, c: &mut Ctx, t: usize) -> Option<(bool, usize)> {
    let f = FastProg::of(p);
    let ft = f.tables.get(t)?.as_ref()?;
    // A key of one field (most tables) stays in a register, not in a key buffer.
    match &ft.keys[..] {
        [k] => {
            let key = k.read(p, c);
            choose_with_key(p, c, t, ft, &[key])
        }
        keys => {
            let mut many = crate::fast::exec::SmallValues::new();
            for k in keys {
                many.push(k.read(p, c));
            }
            choose_with_key(p, c, t, ft, many.as_slice())
        }
    }
}

/// [`choose_entry`] for a table of one key field whose value the caller computed (the
/// generated code does).
#[inline]
pub(crate) fn choose_entry_by(p: &Prog, c: &mut Ctx, t: usize, key: u128) -> Option<(bool, usize)> {
    let ft = FastProg::of(p).tables.get(t)?.as_ref()?;
    choose_with_key(p, c, t, ft, &[key])
}

/// The hash table `ft`'s action selector computes over its selector keys' values, back to back at
/// their widths (`None`: the table has no selector).
fn selector_hash(p: &Prog, c: &mut Ctx, ft: &FastTable) -> Option<u128> {
    let (algorithm, keys) = ft.selector.as_ref()?;
    let mut w = std::mem::take(&mut c.scratch);
    w.clear();
    for (k, width) in keys {
        w.push(k.read(p, c), *width);
    }
    c.scratch = w;
    Some(runtime::hash_scratch(c, *algorithm))
}

#[inline(always)]
fn choose_with_key(p: &Prog, c: &mut Ctx, t: usize, ft: &FastTable, key: &[u128]) -> Option<(bool, usize)> {
    let tp = p.tables.get(t)?;
    if tp.per_entry.is_empty() && tp.entry_meter.is_none() && ft.selector.is_none() && !tp.records_hits {
        // No direct counter or meter reads the hit: the entry's data go straight from the table
        // to the action's parameters.
        let Ctx { tables, f: frame, .. } = c;
        let ts = tables.get_mut(t)?;
        let found = ts.lookup(key);
        let record = found.and_then(|h| ts.hit(h));
        if let Some((h, data)) = record.and_then(|h| Some((h, h.data()?))) {
            let act = h.action as usize;
            if let Some(ta) = ft.actions.get(act) {
                for (slot, v) in ta.data.iter().zip(data) {
                    if let Some(s) = frame.get_mut(*slot) {
                        *s = u128::from(*v);
                    }
                }
            }
            return Some((true, act));
        }
        let chosen = match record {
            // Data the hit record does not hold: from the entry.
            Some(_) => found.and_then(|f| ts.entries.get(f as usize)?.as_ref()).map(|e| (true, e.action, &e.args[..])),
            None => Some((false, ts.default_action().0, ts.default_action().1)),
        };
        let (hit, act, data) = chosen?;
        if let Some(ta) = ft.actions.get(act) {
            for (slot, v) in ta.data.iter().zip(data) {
                if let Some(s) = frame.get_mut(*slot) {
                    *s = *v;
                }
            }
        }
        Some((hit, act))
    } else {
        let mut args = crate::fast::exec::SmallValues::new();
        let pick = selector_hash(p, c, ft);
        let (_, hit, act) = tp.choose(p, c, t, key, &mut args, pick);
        if let Some(ta) = ft.actions.get(act) {
            for (slot, v) in ta.data.iter().zip(args.as_slice()) {
                c.set(*slot, *v);
            }
        }
        Some((hit, act))
    }
}

/// Reads the `width`-bit field starting `bit` bits into `wire` (`width` ≤ 128): one 8- or 16-byte
/// access, two when the field ends more than 128 bits after the byte it starts in.
#[inline(always)]
pub(crate) fn read_field(wire: &[u8], bit: usize, width: u32) -> u128 {
    let start = bit / 8;
    let shift = (bit % 8) as u32;
    if shift + width > 128 {
        // More than one 16-byte access reaches (a 128-bit field off a byte).
        return read_field(wire, bit, 64) << (width - 64) | read_field(wire, bit + 64, width - 64);
    }
    if shift + width <= 64 {
        match wire.get(start..start + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
            Some(w) => u128::from((u64::from_be_bytes(w) << shift) >> (64 - width)),
            None => 0,
        }
    } else {
        match wire.get(start..start + 16).and_then(|w| <[u8; 16]>::try_from(w).ok()) {
            Some(w) => (u128::from_be_bytes(w) << shift) >> (128 - width),
            None => 0,
        }
    }
}

/// Writes the low `width` bits of `v` into the field starting `bit` bits into `wire`.
#[inline(always)]
pub(crate) fn write_field(wire: &mut [u8], bit: usize, width: u32, v: u128) {
    let start = bit / 8;
    let shift = (bit % 8) as u32;
    let span = shift + width;
    if span > 128 {
        write_field(wire, bit, 64, v >> (width - 64));
        write_field(wire, bit + 64, width - 64, v & crate::bits::mask(width - 64));
        return;
    }
    if span <= 64 {
        if let Some(w) = wire.get_mut(start..start + 8).and_then(|w| <&mut [u8; 8]>::try_from(w).ok()) {
            let m = (u64::MAX >> (64 - width)) << (64 - span);
            let x = ((v as u64) << (64 - span)) & m;
            *w = ((u64::from_be_bytes(*w) & !m) | x).to_be_bytes();
        }
    } else if let Some(w) = wire.get_mut(start..start + 16).and_then(|w| <&mut [u8; 16]>::try_from(w).ok()) {
        let m = (u128::MAX >> (128 - width)) << (128 - span);
        let x = (v << (128 - span)) & m;
        *w = ((u128::from_be_bytes(*w) & !m) | x).to_be_bytes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A field written then read gives the value back, and the bits around it are untouched,
        /// wherever the field sits and whatever its width.
        #[test]
        fn field_write_then_read(bit in 0usize..64, width in 1u32..=128, v: u128, fill: u8) {
            // Past 128 bits from the byte it starts in, two accesses.
            let mut wire = vec![fill; 40];
            write_field(&mut wire, bit, width, v);
            prop_assert_eq!(read_field(&wire, bit, width), v & crate::bits::mask(width));
            let mut expect = vec![fill; 40];
            for i in 0..width as usize {
                let b = bit + i;
                let one = (v >> (width as usize - 1 - i)) & 1 == 1;
                let m = 0x80u8 >> (b % 8);
                if one { expect[b / 8] |= m } else { expect[b / 8] &= !m }
            }
            prop_assert_eq!(wire, expect);
        }

        /// Reads agree with the plain bit reader (`bits::read_bits`).
        #[test]
        fn field_read_matches_bit_reader(bytes in proptest::collection::vec(any::<u8>(), 40), bit in 0usize..64, width in 1u32..=128) {
            prop_assert_eq!(read_field(&bytes, bit, width), crate::bits::read_bits(&bytes, bit, width));
        }
    }
}
