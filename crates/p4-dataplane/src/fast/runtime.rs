//! The wire-format executor's run-time interface: what an extern call or a request to the traffic
//! manager does to a packet, as plain functions over plain values and the packet's context
//! ([`Ctx`]). The executor's compiler ([`super::build`]) reads each argument through a
//! [`Val`] (a constant, a frame slot, a field of the wire buffer, or a computed value), calls the
//! function here, and writes a result through a [`super::Dest`]; nothing here knows the program's
//! expressions or where its values live.
//!
//! - stateful externs: [`register_read`], [`register_write`], [`counter_count`],
//!   [`meter_execute`], [`table_meter_colour`] (a direct counter's call does nothing: the table
//!   counts when it hits);
//! - data lists (hash, checksum, digest and log arguments) as [`Piece`]s: [`serialize`],
//!   [`hash`] (any algorithm, with or without the payload), [`hash_in_range`],
//!   [`checksum_mismatch`], [`digest`], [`log_message`]; [`random`];
//! - the traffic manager's requests, which it carries out after the block (and which make the
//!   program hand its packets over to it, `FastProg::hands_over`): [`mark_dropped`] (the drop
//!   function), [`assert`] (also `assume`), [`truncate`], [`clone`] (preserving a field set or
//!   not), [`reparse_arrived`] (resubmission), [`reparse_deparsed`] (recirculation). A write of the
//!   multicast group is an ordinary write of its frame slot; the compiler notes that the program
//!   makes one.
//!
//! Machine code ([`super::jit`]) reaches these functions through the wire-format closures that
//! call them: the generated code calls such a statement or value as it calls any it does not
//! compile itself (`jit_run`, `jit_eval`), so each operation has this one implementation.
//!
//! A parser's transitions ([`target`], [`select_next`], [`value_set_match`], at most
//! [`MAX_PARSER_STEPS`]) and a loop bounded by run-time values ([`run_loop`]) run with the
//! functions at the end of this module.

use std::sync::Arc;

use super::{read_field, Val};
use crate::bits::{mask, BitWriter};
use crate::fast::exec::{Ctx, ExternState, Flow, KeyMatch, Prog, Run, Target};
use crate::hashing::{Algorithm, Compute};

/// A run-time extern index as a cell index: one beyond every array when it does not fit 64 bits
/// (so it stays out of range instead of wrapping onto a real cell).
#[inline]
pub(crate) fn cell_index(index: u128) -> u64 {
    u64::try_from(index).unwrap_or(u64::MAX)
}

/// Cell `index` of register `id` (0 out of range, or for an extern that is no register).
#[inline]
pub(crate) fn register_read(c: &Ctx, id: usize, index: u128) -> u128 {
    match c.externs.get(id) {
        Some(ExternState::Register { cells, .. }) => cells.get(cell_index(index)).copied().unwrap_or(0),
        _ => 0,
    }
}

/// Writes `v` (cut to the register's width) into cell `index` of register `id`; out of range:
/// nothing.
#[inline]
pub(crate) fn register_write(c: &mut Ctx, id: usize, index: u128, v: u128) {
    if let Some(ExternState::Register { cells, width }) = c.externs.get_mut(id) {
        if let Some(cell) = cells.get_mut(cell_index(index)) {
            *cell = v & mask(*width);
        }
    }
}

/// Counts one packet of `bytes` bytes in cell `index` of counter `id`; out of range: nothing.
#[inline]
pub(crate) fn counter_count(c: &mut Ctx, id: usize, index: u128, bytes: u64) {
    if let Some(ExternState::Counter { cells }) = c.externs.get_mut(id) {
        if let Some(cell) = cells.get_mut(cell_index(index)) {
            cell.0 += 1;
            cell.1 += bytes;
        }
    }
}

/// Runs cell `index` of meter `id` on a packet of `bytes` bytes now (`Ctx::now_us`) and returns
/// the colour (green out of range).
#[inline]
pub(crate) fn meter_execute(c: &mut Ctx, id: usize, index: u128, bytes: u32) -> u128 {
    meter_execute_coloured(c, id, index, bytes, crate::meter::GREEN)
}

/// [`meter_execute`] of a packet that arrives coloured `pre` (RFC 2698's colour-aware mode).
pub(crate) fn meter_execute_coloured(c: &mut Ctx, id: usize, index: u128, bytes: u32, pre: u128) -> u128 {
    let now = c.now_us as f64;
    match c.externs.get_mut(id) {
        Some(ExternState::Meter { bytes: by_bytes, cells }) => {
            let units = if *by_bytes { bytes } else { 1 };
            cells.get_mut(cell_index(index)).map_or(crate::meter::GREEN, |m| m.execute_coloured(units, now, pre))
        }
        _ => crate::meter::GREEN,
    }
}

/// The colour direct meter `id` gave the packet when its table hit (green when none did).
#[inline]
pub(crate) fn table_meter_colour(c: &Ctx, id: usize) -> u128 {
    match c.externs.get(id) {
        Some(ExternState::DirectMeter { colour, .. }) => *colour,
        _ => crate::meter::GREEN,
    }
}

/// One piece of a data list (what a hash, a checksum, a digest or a log message reads), in order.
pub(crate) enum Piece {
    /// `width` bits of the wire buffer from bit `bit` (a header field, or a 128-bit piece of a
    /// wider one): at most 128 bits.
    Wire { bit: usize, width: u32 },
    /// A value of `width` bits.
    Value(Val, u32),
    /// A header's trailing varbit: its current length (frame slot `length_slot`, at most
    /// `max_bits`) of bits of the wire buffer from bit `bit`.
    Varbit { bit: usize, length_slot: usize, max_bits: usize },
}

/// What a piece holds: a scalar of a width, or a varbit (its bits pushed by [`push_bits`]).
enum Datum {
    Scalar(u128, u32),
    Varbit { bit: usize, len: usize },
}

#[inline]
fn datum(p: &Prog, c: &mut Ctx, piece: &Piece) -> Datum {
    match piece {
        Piece::Wire { bit, width } => Datum::Scalar(read_field(&c.wire, *bit, *width), *width),
        Piece::Value(v, width) => Datum::Scalar(v.read(p, c), *width),
        Piece::Varbit { bit, length_slot, max_bits } => Datum::Varbit { bit: *bit, len: (c.get(*length_slot) as usize).min(*max_bits) },
    }
}

/// Appends `len` bits of `wire` from bit `bit` to `w`.
fn push_bits(wire: &[u8], bit: usize, len: usize, w: &mut BitWriter) {
    let mut at = 0;
    while at < len {
        let take = (len - at).min(64);
        w.push(read_field(wire, bit + at, take as u32), take as u32);
        at += take;
    }
}

/// The pieces concatenated (and then the packet's unparsed bytes when `payload`) into
/// `Ctx::scratch`.
pub(crate) fn serialize(p: &Prog, c: &mut Ctx, pieces: &[Piece], payload: bool) {
    let mut w = std::mem::take(&mut c.scratch);
    w.clear();
    append(p, c, pieces, &mut w);
    if payload {
        push_payload(c, &mut w);
    }
    c.scratch = w;
}

/// The pieces appended to `w`.
fn append(p: &Prog, c: &mut Ctx, pieces: &[Piece], w: &mut BitWriter) {
    for piece in pieces {
        match datum(p, c, piece) {
            Datum::Scalar(v, width) => w.push(v, width),
            Datum::Varbit { bit, len } => push_bits(&c.wire, bit, len, w),
        }
    }
}

/// The ones'-complement sum of two 16-bit sums.
#[inline]
fn ones_add(a: u32, b: u32) -> u32 {
    let s = a + b;
    (s & 0xffff) + (s >> 16)
}

/// Checksum unit `id` adds (`subtract`: takes out) data whose Internet checksum is `csum`
/// (the complement of its 16-bit ones'-complement sum).
pub(crate) fn checksum_add_sum(c: &mut Ctx, id: usize, csum: u128, subtract: bool) {
    if let Some(ExternState::Checksum { ones, .. }) = c.externs.get_mut(id) {
        let sum = !(csum as u32) & 0xffff;
        *ones = ones_add(*ones, if subtract { !sum & 0xffff } else { sum });
    }
}

/// Checksum unit `id` adds the pieces to the data it computes its algorithm over.
pub(crate) fn checksum_add_data(p: &Prog, c: &mut Ctx, id: usize, pieces: &[Piece]) {
    let Some(ExternState::Checksum { data, .. }) = c.externs.get_mut(id) else { return };
    let mut w = std::mem::take(data);
    append(p, c, pieces, &mut w);
    if let Some(ExternState::Checksum { data, .. }) = c.externs.get_mut(id) {
        *data = w;
    }
}

/// Checksum unit `id`'s checksum now: the complement of its ones'-complement sum for the
/// Internet checksum, else `algo` over the data added, cut to `width` bits.
pub(crate) fn checksum_get(c: &mut Ctx, id: usize, algo: Algorithm, width: u32) -> u128 {
    let mut data = match c.externs.get(id) {
        Some(ExternState::Checksum { ones, .. }) if algo == Algorithm::Csum16 => return u128::from(!*ones & 0xffff) & mask(width),
        Some(ExternState::Checksum { data, .. }) => data.clone(),
        _ => return 0,
    };
    let mut rng = c.rng;
    let v = algo.compute(data.finish(), &mut || crate::fast::exec::splitmix(&mut rng));
    c.rng = rng;
    v & mask(width)
}

/// Checksum unit `id`'s running ones'-complement sum (`get_state`), or sets it (`set_state`).
pub(crate) fn checksum_state(c: &mut Ctx, id: usize, set: Option<u128>) -> u128 {
    let Some(ExternState::Checksum { ones, .. }) = c.externs.get_mut(id) else { return 0 };
    if let Some(v) = set {
        *ones = (v & 0xffff) as u32;
    }
    u128::from(*ones)
}

/// Checksum unit `id` starts over.
pub(crate) fn checksum_clear(c: &mut Ctx, id: usize) {
    if let Some(ExternState::Checksum { ones, data }) = c.externs.get_mut(id) {
        *ones = 0;
        data.clear();
    }
}

/// Appends the packet's bytes after the parser's cursor (the payload) to `w`.
pub(crate) fn push_payload(c: &Ctx, w: &mut BitWriter) {
    let start = c.cursor.div_ceil(8).min(c.pkt.len());
    w.push_bytes(c.pkt.get(start..).unwrap_or(&[]));
}

/// `algo` over the bytes in `Ctx::scratch` (a random hash draws from the switch's generator).
pub(crate) fn hash_scratch(c: &mut Ctx, algo: Algorithm) -> u128 {
    let mut data = std::mem::take(&mut c.scratch);
    let mut rng = c.rng;
    let v = algo.compute(data.finish(), &mut || crate::fast::exec::splitmix(&mut rng));
    c.rng = rng;
    c.scratch = data;
    v
}

/// `algo` over the concatenated pieces, and the payload when `payload`.
pub(crate) fn hash(p: &Prog, c: &mut Ctx, pieces: &[Piece], payload: bool, algo: Algorithm) -> u128 {
    serialize(p, c, pieces, payload);
    hash_scratch(c, algo)
}

/// `hash`'s result: `base + h % max` (`base` when `max` is 0), cut to `width` bits.
#[inline]
pub(crate) fn hash_in_range(h: u128, base: u128, max: u128, width: u32) -> u128 {
    let r = if max >= 1 { base.wrapping_add(h % max) } else { base };
    r & mask(width)
}

/// Whether a computed checksum `sum` (of a `width`-bit field) differs from the `expected` one.
#[inline]
pub(crate) fn checksum_mismatch(sum: u128, expected: u128, width: u32) -> bool {
    sum & mask(width) != expected
}

/// A random number in `[lo, hi]` (`lo` when the range is empty), cut to `width` bits.
#[inline]
pub(crate) fn random(c: &mut Ctx, lo: u128, hi: u128, width: u32) -> u128 {
    let r = u128::from(c.random());
    let v = match (hi > lo, hi.wrapping_sub(lo).checked_add(1)) {
        (false, _) => lo,
        (true, Some(span)) => lo + r % span,
        (true, None) => r,
    };
    v & mask(width)
}

/// A digest to `receiver` of the pieces, whose data type has control-plane id `id` (0: none): the
/// log line `digest <receiver>: 0x.., 0x..` (a varbit as its bytes in hex), and the digest for the
/// control plane.
pub(crate) fn digest(p: &Prog, c: &mut Ctx, receiver: u128, id: u32, pieces: &[Piece]) {
    let mut parts = Vec::with_capacity(pieces.len());
    let mut varbit_lengths = Vec::new();
    for piece in pieces {
        parts.push(match datum(p, c, piece) {
            Datum::Scalar(v, _) => scalar_hex(v),
            Datum::Varbit { bit, len } => {
                varbit_lengths.push(len as u32);
                let mut w = BitWriter::default();
                push_bits(&c.wire, bit, len, &mut w);
                varbit_hex(w.finish())
            }
        });
    }
    c.log.push(digest_line(receiver, &parts));
    serialize(p, c, pieces, false);
    let bits = c.scratch.bit_len();
    let data = c.scratch.finish().to_vec();
    c.digests.push(p4_control::Digest { id, receiver, data, bits, varbit_lengths });
}

/// How a digest shows a scalar.
pub(crate) fn scalar_hex(v: u128) -> String {
    format!("0x{v:x}")
}

/// How a digest shows a varbit's bytes.
pub(crate) fn varbit_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The log line of a digest to `receiver` of values shown as `parts`.
pub(crate) fn digest_line(receiver: u128, parts: &[String]) -> String {
    format!("digest {receiver}: {}", parts.join(", "))
}

/// `log_msg(msg, {pieces})`: the log line of `msg` with each `{}` replaced by the next piece in
/// decimal (`<varbit>` for a varbit; `{}` stays once the pieces run out).
pub(crate) fn log_message(p: &Prog, c: &mut Ctx, msg: &str, pieces: &[Piece]) {
    let mut values = pieces.iter();
    let line = log_line(msg, || {
        values.next().map(|piece| match datum(p, c, piece) {
            Datum::Scalar(v, _) => Some(v),
            Datum::Varbit { .. } => None,
        })
    });
    c.log.push(line);
}

/// `msg` with each `{}` replaced by what `next` gives: a value in decimal, `<varbit>` for
/// `Some(None)`; `{}` stays where it gives `None`.
pub(crate) fn log_line(msg: &str, mut next: impl FnMut() -> Option<Option<u128>>) -> String {
    let mut line = String::new();
    let mut parts = msg.split("{}");
    line.push_str(parts.next().unwrap_or(""));
    for part in parts {
        match next() {
            Some(Some(v)) => line.push_str(&v.to_string()),
            Some(None) => line.push_str("<varbit>"),
            None => line.push_str("{}"),
        }
        line.push_str(part);
    }
    line
}

/// The drop function: `writes` (the drop marker and the fields the architecture's drop writes,
/// `Compiler::drop_call_writes`) into their frame slots, and the packet marked as dropped in
/// control `here` (`None`: the parser).
#[inline]
pub(crate) fn mark_dropped(c: &mut Ctx, writes: &[(usize, u128)], here: Option<usize>) {
    for &(s, v) in writes {
        c.set(s, v);
    }
    c.fx.mark(here);
}

/// `assert(cond)`/`assume(cond)`: a false one stops the packet (`Flow::Abort`), `what` saying why.
#[inline]
pub(crate) fn assert(c: &mut Ctx, cond: bool, what: &Arc<str>) -> Flow {
    if cond {
        return Flow::Next;
    }
    c.fx.aborted = Some(what.clone());
    Flow::Abort
}

/// `truncate(len)`: the packet leaves with at most `len` bytes.
#[inline]
pub(crate) fn truncate(c: &mut Ctx, len: u128) {
    c.fx.truncate = Some(len as u32);
}

/// A clone to `session`, the copy keeping the fields of field set `preserved` (0: none).
#[inline]
pub(crate) fn clone(c: &mut Ctx, session: u128, preserved: usize) {
    c.fx.clone = Some((session as u32, preserved));
}

/// A resubmission of the packet as it arrived, keeping the fields of field set `preserved`.
#[inline]
pub(crate) fn reparse_arrived(c: &mut Ctx, preserved: usize) {
    c.fx.reparse_arrived = Some(preserved);
}

/// A recirculation of the packet as deparsed, keeping the fields of field set `preserved`.
#[inline]
pub(crate) fn reparse_deparsed(c: &mut Ctx, preserved: usize) {
    c.fx.reparse_deparsed = Some(preserved);
}

// ---------------------------------------------------------------------- parser and loops (both executors)

/// Where a parser transition goes, as both executors number states.
pub(crate) fn target(t: p4_ir::StateTarget) -> Target {
    match t {
        p4_ir::StateTarget::State(s) => Target::State(s.index()),
        p4_ir::StateTarget::Accept => Target::Accept,
        p4_ir::StateTarget::Reject => Target::Reject,
    }
}

/// Maximum parser state transitions per packet (guards against loops that consume nothing).
pub(crate) const MAX_PARSER_STEPS: usize = 4096;

/// Most iterations one run of a loop may take: a loop bounded by packet data may never end
/// (`for (bit<8> i = 0; i <= hdr.n; i = i + 1)` with `n` 255), and a packet must not stop the
/// switch. Past it the packet is dropped, as a failed `assert` drops it, with the reason.
pub(crate) const MAX_LOOP_ITERATIONS: u64 = 1 << 20;

/// A `for` loop of either executor: `init`, then while `cond` holds `body` and `update` (sema puts
/// the `break` of a for-in loop in its update), at most [`MAX_LOOP_ITERATIONS`] times.
pub(crate) fn run_loop(p: &Prog, c: &mut Ctx, init: &Run, cond: impl Fn(&Prog, &mut Ctx) -> bool, body: &Run, update: &Run) -> Flow {
    let f = init(p, c);
    if f != Flow::Next {
        return f;
    }
    for _ in 0..MAX_LOOP_ITERATIONS {
        if !cond(p, c) {
            return Flow::Next;
        }
        for part in [body, update] {
            match part(p, c) {
                Flow::Next | Flow::Continue => {}
                Flow::Break => return Flow::Next,
                other => return other,
            }
        }
    }
    c.fx.aborted = Some(Arc::from(format!("a loop ran {MAX_LOOP_ITERATIONS} times without ending")));
    Flow::Abort
}

/// Evaluates a select's keys (on the stack for up to eight) and gives the target of the first case
/// they match; `Err`: the parser error (a key read past the packet's end, or no case matching).
pub(crate) fn select_next(p: &Prog, c: &mut Ctx, keys: &[crate::fast::exec::Ev], widths: &[u32], cases: &[(Vec<KeyMatch>, Target)]) -> Result<Target, u32> {
    let mut values = [0u128; 8];
    let mut many = Vec::new();
    let vals: &[u128] = if keys.len() <= values.len() {
        for (slot, k) in values.iter_mut().zip(keys) {
            *slot = k(p, c);
        }
        &values[..keys.len()]
    } else {
        many.extend(keys.iter().map(|k| k(p, c)));
        &many
    };
    if let Some(e) = c.pending_err.take() {
        return Err(e);
    }
    select_case(c, vals, widths, cases).ok_or(p.errors.no_match)
}

/// The target of the first select case whose keysets match `vals` (the keys' values, of `widths`
/// bits); `None`: no case matches.
pub(crate) fn select_case(c: &Ctx, vals: &[u128], widths: &[u32], cases: &[(Vec<KeyMatch>, Target)]) -> Option<Target> {
    let found = cases.iter().find(|(ms, _)| {
        // One value set for several keys matches their concatenation.
        if ms.len() == 1 && vals.len() > 1 {
            if let KeyMatch::ValueSet(vs) = ms[0] {
                let mut all = 0u128;
                for (v, w) in vals.iter().zip(widths) {
                    all = (all << w) | v;
                }
                return value_set_match(c, vs, all);
            }
        }
        ms.iter().zip(vals.iter()).all(|(m, v)| match *m {
            KeyMatch::Any => true,
            KeyMatch::Mask(x, mk) => v & mk == x,
            KeyMatch::Range(lo, hi) => lo <= *v && *v <= hi,
            KeyMatch::ValueSet(vs) => value_set_match(c, vs, *v),
        })
    });
    found.map(|(_, t)| *t)
}

/// Whether `v` is in parser value set `vs` (one of its `(value, mask)` members matches).
pub(crate) fn value_set_match(c: &Ctx, vs: usize, v: u128) -> bool {
    c.value_sets.get(vs).is_some_and(|set| set.iter().any(|(x, m)| v & m == *x))
}

