//! Native code for the wire-format executor: the parser and the control bodies, from the
//! program's one translation ([`super::code`], [`super::scalar`]), compiled with Cranelift into
//! machine code when the program is built, so a packet runs straight-line code instead of a tree
//! of closures.
//!
//! What the generated code does itself: field reads and writes of at most 64 bits at constant
//! places in `Ctx::wire`, frame slots, arithmetic and comparisons on values of at most 64 bits,
//! `if`, `switch` on a value, `extract` of fixed-size headers, `emit` (a varbit at its current
//! length), validity bits, `verify`, `exit`/`return`, the Internet checksum of header fields, the
//! parser's state machine (selects of values, masks and ranges; a value set's membership is a call
//! into Rust, [`jit_value_set`]; after a `lookahead` the error it left pending, [`jit_pending`]),
//! and table applications: the lookup is a call into Rust ([`jit_table`]), the chosen action's
//! body is inlined. Any other node of the translation (wider values, other extern calls, a loop,
//! ...) is that node's closure, which the closures' back end builds from the same node, called
//! from the generated code ([`jit_run`], [`jit_eval`]): every program the wire-format executor
//! takes runs here, and nothing is compiled twice from the IR. An extern call or a request to the
//! traffic manager (a register, a counter, a hash, a clone, ...) is such a closure, which calls
//! its function in [`super::runtime`]: the generated code reaches each operation through the one
//! implementation the closures use, not an entry of its own.
//!
//! Contract between generated code and Rust: the code receives a [`JitFrame`] of raw pointers into
//! the packet's [`Ctx`]; every call back into Rust may touch the context and refreshes the frame,
//! and the generated code reloads a pointer from the frame at each use. A pointer into the context
//! itself is derived from the raw context pointer the code is given (`frame.c`), never from a
//! reference taken before it, which the aliasing rules would not let the code use after
//! ([`point_at_context`], per call or per batch). Values are `u64`s with the bits above their
//! width zero, as the closures keep them in `u128`s; a slot of at most 64 bits is written
//! as the low half of its `u128`, whose high half every writer keeps zero.

mod emit;

use crate::fast::exec::{Ctx, Ev, Flow, Prog, Run};

pub(crate) use emit::compile;


/// What generated code receives: where the packet's state is. One per context (`Ctx::jit_frame`),
/// pointed at the packet's buffers when a packet enters (`Ctx::enter`) and after every call back
/// into Rust; `p`, `c`, `tables`, `valid` and `cursor` set at each call or batch. `#[repr(C)]`:
/// the generated code reads the fields at their offsets.
#[repr(C)]
pub struct JitFrame {
    wire: *mut u8,
    slots: *mut u128,
    valid: *mut u64,
    pkt: *const u8,
    pkt_len: usize,
    cursor: *mut usize,
    p: *const Prog,
    c: *mut Ctx,
    /// `Ctx::tables`, where generated code finds a table's [`crate::table::FlatProbe`].
    tables: *const crate::table::TableState,
    /// The output `emit` appends to, `Ctx::wire_out`, as the generated code sees it while it
    /// runs: where its next byte goes (its length counting what the code has appended since the
    /// vector's own length was last set) and the end of its capacity. Invariant (enforced by the
    /// room check before each write, `Fun::room` in `emit.rs`, which calls [`jit_out_room`] to
    /// grow the vector): `out_at <= out_end`, both within the vector's buffer, and every byte
    /// before `out_at` is initialised. Set from the vector by [`point_out`] before the code runs
    /// and after every call back into Rust; given back to the vector by [`commit_out`] after the
    /// code returns and before every call back into Rust that may append to it.
    out_at: *mut u8,
    out_end: *mut u8,
    /// For the whole-packet function ([`JitProg::packet`]): the arrival port and time, set
    /// before the call, and the port the packet leaves by, set by it.
    pub(crate) in_port: u64,
    pub(crate) now_us: u64,
    /// The arrival time in p4forge's time format ([`p4_ir::time`]).
    pub(crate) now_stamp: u64,
    pub(crate) out_port: u64,
}

impl JitFrame {
    /// Sets the packet a self-contained [`PacketFn`] reads where it lies (not from `Ctx::pkt`;
    /// `data` must outlive the call) and its arrival port and time.
    #[inline]
    pub(crate) fn set_packet(&mut self, data: &[u8], in_port: u64, now_ns: u64) {
        self.pkt = data.as_ptr();
        self.pkt_len = data.len();
        self.in_port = in_port;
        self.now_us = now_ns / 1000;
        self.now_stamp = p4_ir::time::stamp(now_ns);
    }
}

impl Default for JitFrame {
    fn default() -> JitFrame {
        JitFrame {
            wire: std::ptr::null_mut(),
            slots: std::ptr::null_mut(),
            valid: std::ptr::null_mut(),
            pkt: std::ptr::null(),
            pkt_len: 0,
            cursor: std::ptr::null_mut(),
            p: std::ptr::null(),
            c: std::ptr::null_mut(),
            tables: std::ptr::null(),
            out_at: std::ptr::null_mut(),
            out_end: std::ptr::null_mut(),
            in_port: 0,
            now_us: 0,
            now_stamp: 0,
            out_port: 0,
        }
    }
}

impl std::fmt::Debug for JitFrame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JitFrame")
    }
}

// SAFETY: the pointers are re-pointed at the owning context's buffers before each use
// (`Ctx::enter`, then after every call into Rust) and are never followed from another thread.
unsafe impl Send for JitFrame {}
unsafe impl Sync for JitFrame {}

/// Points `c.jit_frame` at the buffers of `c` (they do not move while a packet runs; the pointers
/// into `c` itself are set at each call, [`point_at_context`]).
#[inline]
pub(crate) fn point_into(c: &mut Ctx) {
    // SAFETY: `c` is a valid, exclusive context.
    unsafe { point_into_raw(c) }
}

/// [`point_into`] with every pointer derived from `cp`, the pointer the generated code is
/// given as `frame.c` (after a call back into Rust, whose code may have moved the buffers).
///
/// # Safety
/// `cp` points at a valid context that nothing else is using meanwhile.
#[inline]
pub(crate) unsafe fn point_into_raw(cp: *mut Ctx) {
    // SAFETY: the caller's promise; the pointers come from the buffers' vectors.
    unsafe {
        let (wire, slots, pkt, pkt_len) =
            ((*cp).wire.as_mut_ptr(), (*cp).f.as_mut_ptr(), (*cp).pkt.as_ptr(), (*cp).pkt.len());
        let f = std::ptr::addr_of_mut!((*cp).jit_frame);
        (*f).wire = wire;
        (*f).slots = slots;
        (*f).pkt = pkt;
        (*f).pkt_len = pkt_len;
    }
}

/// Points the frame of `*cp` at program `p`, at `cp` itself, at its tables and at its validity
/// words and cursor, all derived from `cp`: a pointer into the context taken from a reference
/// before `cp` was is not one the aliasing rules let the generated code use after (taking `cp`
/// reborrows the whole context).
///
/// # Safety
/// As [`point_into_raw`].
#[inline]
unsafe fn point_at_context(p: &Prog, cp: *mut Ctx) {
    // SAFETY: the caller's promise; the pointers are places in `*cp` and its tables' vector.
    unsafe {
        let f = std::ptr::addr_of_mut!((*cp).jit_frame);
        (*f).p = p;
        (*f).c = cp;
        (*f).tables = (*cp).tables.as_ptr();
        (*f).valid = std::ptr::addr_of_mut!((*cp).wire_valid.0).cast();
        (*f).cursor = std::ptr::addr_of_mut!((*cp).cursor);
    }
}

/// Everything a batch of whole-packet calls ([`call_raw`] each) shares: the frame of `*cp`
/// pointed at its buffers and at [`point_at_context`], all derived from `cp`.
///
/// # Safety
/// As [`point_into_raw`]; until the batch ends, the context is reached only through `cp`.
#[inline]
pub(crate) unsafe fn start_batch(p: &Prog, cp: *mut Ctx) {
    // SAFETY: the caller's promise.
    unsafe {
        point_into_raw(cp);
        point_at_context(p, cp);
    }
}

/// Points the frame's view of the output ([`JitFrame::out_at`]) at `Ctx::wire_out` as it is now.
///
/// # Safety
/// As [`point_into_raw`].
#[inline]
unsafe fn point_out(cp: *mut Ctx) {
    // SAFETY: the caller's promise; the view is the vector's own buffer, length and capacity,
    // which satisfy the frame's invariant.
    unsafe {
        let out = &mut (*cp).wire_out;
        let (ptr, len, cap) = (out.as_mut_ptr(), out.len(), out.capacity());
        let f = std::ptr::addr_of_mut!((*cp).jit_frame);
        // In bounds (or one past the end): `len <= cap`.
        (*f).out_at = ptr.add(len);
        (*f).out_end = ptr.add(cap);
    }
}

/// Gives what the generated code appended back to `Ctx::wire_out`: its length becomes the
/// frame's `out_at` less its buffer.
///
/// # Safety
/// As [`point_into_raw`], and the frame's view of the output was set by [`point_out`] on this
/// same vector, which nothing but generated code has touched since.
#[inline]
unsafe fn commit_out(cp: *mut Ctx) {
    // SAFETY: the caller's promise; the frame's invariant (`out_at <= out_end`, the bytes
    // before `out_at` initialised) holds because the generated code checks for room before every
    // write (`Fun::room`) and grows the vector through `jit_out_room`, which re-points the view.
    // The assert makes a violation a panic rather than bytes of the heap on the wire.
    unsafe {
        let (at, end) = ((*cp).jit_frame.out_at as usize, (*cp).jit_frame.out_end as usize);
        let out = &mut (*cp).wire_out;
        let base = out.as_ptr() as usize;
        assert!(base <= at && at <= end && end == base + out.capacity(), "generated code wrote past its output");
        out.set_len(at - base);
    }
}

/// Runs generated function `f` on the frame of `*cp`, `emits` bytes (the most its emits write
/// when each runs once) reserved in `Ctx::wire_out` first so that it rarely has to grow it:
/// [`call`] for one packet of a batch begun with [`start_batch`] on `cp` (the packet and its
/// arrival metadata set in the frame).
///
/// # Safety
/// The frame's pointers were derived from `cp` (by [`start_batch`], or [`call`]) for the program
/// `f` was generated for, and the context was reached through nothing but `cp` since.
#[inline]
pub(crate) unsafe fn call_raw(f: JitFn, cp: *mut Ctx, emits: usize) -> u64 {
    // SAFETY: the caller's promise; `f` was generated by `emit::compile` for this program (kept
    // alive by the program's `JitCode`), reaches memory only through the frame (re-pointed after
    // every call back into Rust, which reaches the context through `frame.c`, this same `cp`),
    // and writes to the output only within the frame's view of it, set here and given back after.
    unsafe {
        (*cp).wire_out.reserve(emits);
        point_out(cp);
        let code = f(std::ptr::addr_of_mut!((*cp).jit_frame));
        commit_out(cp);
        code
    }
}

/// A generated function: `frame` in, a [`Flow`] encoded by [`flow_code`] out.
pub(crate) type JitFn = unsafe extern "C" fn(frame: *mut JitFrame) -> u64;

/// Runs generated function `f` on the packet in `c` (which entered through `Ctx::enter`);
/// `emits`: the most bytes it can emit (reserved in `Ctx::wire_out` first).
#[inline]
pub(crate) fn call(f: JitFn, p: &Prog, c: &mut Ctx, emits: usize) -> u64 {
    let cp: *mut Ctx = c;
    // SAFETY: `cp` comes from the exclusive `c`, not used again during the call; the buffers'
    // pointers were set by `point_into` (the buffers do not move while packets run), the others
    // are derived from `cp` here, for the program `f` was generated for.
    unsafe {
        point_at_context(p, cp);
        call_raw(f, cp, emits)
    }
}

/// A control body that runs `code` when the context asks for machine code, else `closures`.
pub(crate) fn control_body(code: JitFn, emits: usize, closures: Run) -> Run {
    Box::new(move |p, c| if c.jit { flow_of(call(code, p, c, emits)) } else { closures(p, c) })
}

/// Runs the generated parser: `Err(code)` for a parser error, as `fast::run_parser`.
#[inline]
pub(crate) fn run_parser(code: JitFn, p: &Prog, c: &mut Ctx) -> Result<(), u32> {
    match call(code, p, c, 0) {
        NEXT => Ok(()),
        r => Err(r as u32),
    }
}

pub(crate) const NEXT: u64 = 0;
/// What the whole-packet function returns for a packet the drop marker stops.
pub(crate) const DROPPED: u64 = 1;
/// What the whole-packet function returns for a packet a loop that did not end (or an assert in
/// code it called) stopped: `Ctx::fx.aborted` says why.
pub(crate) const ABORTED: u64 = 2;
pub(crate) const EXIT: u64 = 1;
pub(crate) const RETURN: u64 = 2;
const BREAK: u64 = 3;
const CONTINUE: u64 = 4;
pub(crate) const ABORT: u64 = 5;
/// `REJECT | code`: the parser rejects with error `code`.
pub(crate) const REJECT: u64 = 1 << 32;

pub(crate) fn flow_code(f: Flow) -> u64 {
    match f {
        Flow::Next => NEXT,
        Flow::Exit => EXIT,
        Flow::Return => RETURN,
        Flow::Break => BREAK,
        Flow::Continue => CONTINUE,
        Flow::Abort => ABORT,
        Flow::Reject(e) => REJECT | u64::from(e),
    }
}

pub(crate) fn flow_of(code: u64) -> Flow {
    match code {
        NEXT => Flow::Next,
        EXIT => Flow::Exit,
        RETURN => Flow::Return,
        BREAK => Flow::Break,
        CONTINUE => Flow::Continue,
        ABORT => Flow::Abort,
        c => Flow::Reject(c as u32),
    }
}

/// The machine code of one program and what it calls back into.
pub(crate) struct JitProg {
    /// The parser, when every transition is one the generated code takes.
    pub parser: Option<JitFn>,
    /// By control index: the generated body, for the controls it compiled, and the most bytes
    /// it can emit.
    pub controls: Vec<Option<(JitFn, usize)>>,
    /// The whole pipeline of one packet, when the program does not hand over and every block of
    /// it compiled.
    pub packet: Option<PacketFn>,
    /// Statements and values the generated code calls, by the index it passes.
    runs: Vec<Run>,
    evals: Vec<Ev>,
    /// Which blocks became machine code, and why the others did not.
    pub summary: String,
    _code: JitCode,
}

/// The whole pipeline of one packet as one function: arrival metadata, parser, every stage, the
/// drop checks, departure metadata and the payload after the deparsed headers. Returns [`NEXT`]
/// when the packet leaves by `JitFrame::out_port`, or [`DROPPED`].
#[derive(Clone, Copy)]
pub(crate) struct PacketFn {
    pub code: JitFn,
    /// The most bytes its headers can emit (the payload comes on top).
    pub emits: usize,
    /// No code of the program calls back into closures: the function resets the packet state
    /// it uses itself (the frame's other slots stay zero between its packets) and reads the
    /// packet where it lies, not from `Ctx::pkt`.
    pub self_contained: bool,
}

/// Owns the memory the generated functions live in.
struct JitCode(Option<cranelift_jit::JITModule>);

// SAFETY: the module is only kept to own the finalized code pages (executable, never written
// again) and is touched only when dropped.
unsafe impl Send for JitCode {}
// SAFETY: as for `Send`.
unsafe impl Sync for JitCode {}

impl Drop for JitCode {
    fn drop(&mut self) {
        if let Some(m) = self.0.take() {
            // SAFETY: the functions in it are reachable only through the `JitProg` being dropped.
            unsafe { m.free_memory() };
        }
    }
}

fn jit_of(p: &Prog) -> Option<&JitProg> {
    p.fast.as_ref()?.jit.as_ref()
}

/// Runs `then` on the context of `frame` as Rust code that may change any of it: the output the
/// generated code appended is given back to `Ctx::wire_out` first (a closure may append to it
/// and grow it), and the frame is pointed at the context's buffers again after.
///
/// # Safety
/// `frame` is the frame [`call_raw`] gave the generated code calling this.
#[inline]
unsafe fn in_rust<T>(frame: *mut JitFrame, then: impl FnOnce(&Prog, &mut Ctx) -> T) -> T {
    // SAFETY: generated code passes the frame `call_raw` gave it; its `p` and `c` are valid for
    // the call, and the context is reached only through `c` until it is pointed again.
    unsafe {
        let (p, cp) = (&*(*frame).p, (*frame).c);
        commit_out(cp);
        let v = then(p, &mut *cp);
        // `cp` is the frame's context, no longer borrowed; the pointers are derived from it, as
        // the generated code's other pointers are.
        point_into_raw(cp);
        point_out(cp);
        v
    }
}

/// Called by generated code: runs statement `idx`, returns its flow code.
extern "C" fn jit_run(frame: *mut JitFrame, idx: u64) -> u64 {
    // SAFETY: called by generated code with its frame.
    unsafe {
        in_rust(frame, |p, c| match jit_of(p).and_then(|j| j.runs.get(idx as usize)) {
            Some(run) => flow_code(run(p, c)),
            None => NEXT,
        })
    }
}

/// Called by generated code: evaluates value `idx` (of at most 64 bits).
extern "C" fn jit_eval(frame: *mut JitFrame, idx: u64) -> u64 {
    // SAFETY: called by generated code with its frame.
    unsafe {
        in_rust(frame, |p, c| match jit_of(p).and_then(|j| j.evals.get(idx as usize)) {
            Some(ev) => ev(p, c) as u64,
            None => 0,
        })
    }
}

/// Called by generated code when `need` more bytes would not fit in the output's capacity:
/// grows `Ctx::wire_out` so that they do.
extern "C" fn jit_out_room(frame: *mut JitFrame, _: u64, need: u64) -> u64 {
    // SAFETY: called by generated code with its frame.
    unsafe { in_rust(frame, |_, c| c.wire_out.reserve(need as usize)) };
    0
}

/// Called by generated code after a parser state's body or select keys that read ahead: the
/// rejection code ([`REJECT`] | error) of the error a `lookahead` past the packet's end left
/// pending, taking it; 0 when none is.
extern "C" fn jit_pending(frame: *mut JitFrame, _: u64) -> u64 {
    // SAFETY: as in `in_rust`; this helper neither appends to the output nor moves a buffer the
    // frame points into, so the frame stays right without being pointed again.
    let c = unsafe { &mut *(*frame).c };
    c.pending_err.take().map_or(NEXT, |e| REJECT | u64::from(e))
}

/// Called by generated code after a parser that calls closures: 1 when code it called stopped
/// the packet (`Ctx::fx.aborted`), else 0.
extern "C" fn jit_aborted(frame: *mut JitFrame, _: u64) -> u64 {
    // SAFETY: as in `in_rust`; this helper neither appends to the output nor moves a buffer the
    // frame points into, so the frame stays right without being pointed again.
    let c = unsafe { &*(*frame).c };
    u64::from(c.fx.aborted.is_some())
}

/// Called by generated code: whether `v` is in the parser value set `vs` (1) or not (0).
extern "C" fn jit_value_set(frame: *mut JitFrame, vs: u64, v: u64) -> u64 {
    // SAFETY: as in `in_rust`; this helper neither appends to the output nor moves a buffer the
    // frame points into, so the frame stays right without being pointed again.
    let c = unsafe { &*(*frame).c };
    u64::from(crate::fast::runtime::value_set_match(c, vs as usize, u128::from(v)))
}

/// What [`jit_table`] returns when the table runs no action.
pub(crate) const NO_ACTION: u64 = u64::MAX;

/// Called by generated code: looks table `t` up and puts the chosen entry's data into its action's
/// parameters; returns `hit << 32 | index into the table's action list`, or [`NO_ACTION`]. The
/// frame is not re-pointed: a lookup (with its direct counters and meters) moves no buffer.
extern "C" fn jit_table(frame: *mut JitFrame, t: u64) -> u64 {
    // SAFETY: as in `in_rust`; this helper neither appends to the output nor moves a buffer the
    // frame points into, so the frame stays right without being pointed again.
    let (p, c) = unsafe { (&*(*frame).p, &mut *(*frame).c) };
    table_code(super::choose_entry(p, c, t as usize))
}

/// [`jit_table`] for a table of one key field of at most 64 bits, whose value the generated
/// code computed: `key`.
extern "C" fn jit_table_by(frame: *mut JitFrame, t: u64, key: u64) -> u64 {
    // SAFETY: as in `in_rust`; this helper neither appends to the output nor moves a buffer the
    // frame points into, so the frame stays right without being pointed again.
    let (p, c) = unsafe { (&*(*frame).p, &mut *(*frame).c) };
    table_code(super::choose_entry_by(p, c, t as usize, u128::from(key)))
}

/// Called by generated code: the record (action and data, [`crate::table::Hit`]) a packet with
/// the one-field key `key` runs in table `t` (whose entries have no direct counter or meter), as
/// its address with bit 0 set for a hit; 0 when the record does not hold the data (the caller
/// takes [`jit_table_by`] then). The address stays valid while the packet runs: tables change only
/// between packets.
extern "C" fn jit_record(frame: *mut JitFrame, t: u64, key: u64) -> u64 {
    // SAFETY: as in `in_rust`; this helper neither appends to the output nor moves a buffer the
    // frame points into, so the frame stays right without being pointed again.
    let c = unsafe { &mut *(*frame).c };
    match c.tables.get_mut(t as usize).and_then(|ts| ts.record_for(u128::from(key))) {
        Some((hit, found)) => hit as *const crate::table::Hit as u64 | u64::from(found),
        None => 0,
    }
}

#[inline(always)]
fn table_code(chosen: Option<(bool, usize)>) -> u64 {
    match chosen {
        Some((hit, act)) => u64::from(hit) << 32 | act as u64,
        None => NO_ACTION,
    }
}
