//! The executable form of a program and the per-switch runtime state it runs against.
//!
//! Invariants: every slot index baked into a closure is `< Ctx::f.len()` (the frame is sized once, at
//! build time, to `Prog::frame_len`); scalars in the frame are normalised to their width (see `bits`).
//! Closures receive the immutable [`Prog`] (to call actions, functions, tables and sub-blocks by index)
//! and the mutable [`Ctx`]; nothing is looked up by name and nothing is allocated per packet on the
//! common path (scratch buffers live in `Ctx` and are reused).

use crate::cells::Cells;
use std::sync::Arc;

use crate::bits::BitWriter;
use crate::meter::Meter;
use crate::table::TableState;
use p4_arch::MetaRole;

/// How a statement finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Next,
    /// `exit`: unwinds to the architecture.
    Exit,
    /// `return`: unwinds to the enclosing action, function or control.
    Return,
    Break,
    Continue,
    /// The parser rejects with this error code.
    Reject(u32),
    /// `assert`/`assume` failed: the packet is dropped.
    Abort,
}

/// Evaluates a scalar expression.
pub type Ev = Arc<dyn Fn(&Prog, &mut Ctx) -> u128 + Send + Sync>;
/// Runs a statement.
pub type Run = Box<dyn Fn(&Prog, &mut Ctx) -> Flow + Send + Sync>;

/// State of one extern instance.
#[derive(Clone, Debug, Default)]
pub enum ExternState {
    #[default]
    Stateless,
    /// Cells are allocated on first write ([`Cells`]): a 2^32-cell array costs nothing until used.
    Register { width: u32, cells: Cells<u128> },
    /// `(packets, bytes)` per cell.
    Counter { cells: Cells<(u64, u64)> },
    Meter { bytes: bool, cells: Cells<Meter> },
    /// The colour the last hit entry's meter produced.
    DirectMeter { bytes: bool, colour: u128 },
    /// An incremental checksum unit's running state for the packet (cleared when each pipeline
    /// pass starts): the ones'-complement sum (16 bits) of what was added and subtracted, and the
    /// data added, for the other algorithms.
    Checksum { ones: u32, data: crate::bits::BitWriter },
}

/// Side effects of externs that the architecture acts on when a pipeline finishes.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    /// `(session, field set)` of the last clone call ([`p4_arch::SideEffect::Clone`]).
    pub clone: Option<(u32, usize)>,
    /// [`p4_arch::SideEffect::Resubmit`]: after the ingress block, the packet as it arrived enters
    /// the parser again, keeping this field set.
    pub reparse_arrived: Option<usize>,
    /// [`p4_arch::SideEffect::Recirculate`]: after the deparser, the deparsed packet enters the
    /// parser again, keeping this field set.
    pub reparse_deparsed: Option<usize>,
    pub truncate: Option<u32>,
    /// Block that marked the packet to be dropped last ([`p4_arch::SideEffect::Drop`]): its
    /// control index + 1, 0 for none or the parser (a plain number, which generated machine code
    /// writes: [`Effects::mark`], [`Effects::marked_in`]).
    pub(crate) marked: u64,
    /// Description of a failed `assert`/`assume`.
    pub aborted: Option<Arc<str>>,
}

impl Effects {
    /// Records a drop call made in control `control` (`None`: outside a control).
    #[inline]
    pub(crate) fn mark(&mut self, control: Option<usize>) {
        self.marked = Self::mark_code(control);
    }

    /// What [`Effects::mark`] stores for `control`.
    pub(crate) fn mark_code(control: Option<usize>) -> u64 {
        control.map_or(0, |c| c as u64 + 1)
    }

    /// The control that marked the packet to be dropped last.
    pub fn marked_in(&self) -> Option<usize> {
        self.marked.checked_sub(1).map(|c| c as usize)
    }
}

/// The validity bits of the wire-format executor's header instances ([`crate::fast`]): bit `i % 64`
/// of word `i / 64` for instance `i`. Generated machine code reads and writes the words in place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Validity(pub [u64; VALIDITY_WORDS]);

/// Words of [`Validity`]: at most `64 * VALIDITY_WORDS` header instances.
pub const VALIDITY_WORDS: usize = 4;

impl Validity {
    /// Whether instance `i` is valid.
    #[inline]
    pub fn has(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 != 0
    }

    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    pub fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }

    #[inline]
    pub fn put(&mut self, i: usize, valid: bool) {
        if valid {
            self.set(i);
        } else {
            self.clear(i);
        }
    }
}

/// Mutable runtime state: the packet frame, the packet, tables and extern state.
pub struct Ctx {
    /// The frame: every variable of every block, laid out flat.
    pub f: Vec<u128>,
    /// The packet as it entered the parser.
    pub pkt: Vec<u8>,
    /// Parser position in bits.
    pub cursor: usize,
    /// Hash/checksum input.
    pub scratch: BitWriter,
    pub tables: Vec<TableState>,
    /// Indexed by `ExternId`.
    pub externs: Vec<ExternState>,
    /// Members of each parser value set: `(value, mask)`.
    pub value_sets: Vec<Vec<(u128, u128)>>,
    pub now_us: u64,
    /// The packet's arrival time in nanoseconds (`now_us` is its microseconds).
    pub now_ns: u64,
    pub rng: u64,
    pub fx: Effects,
    pub log: Vec<String>,
    /// Digests sent by the packet being processed, for the control plane.
    pub digests: Vec<p4_control::Digest>,
    /// A parser error raised inside an expression (`lookahead` past the end).
    pub pending_err: Option<u32>,
    /// The action of a table applied inside an expression exited: the statement around it ends
    /// with `exit` ([`crate::fast::compile::pending_exit`]).
    pub(crate) exit_pending: bool,
    /// The trace of the packet being processed (a traced switch only).
    pub trace: Option<Box<crate::trace::TraceBuf>>,
    /// The wire-format executor's headers ([`crate::fast`]): each instance's bytes at its offset.
    pub wire: Vec<u8>,
    /// Which header instances of `wire` are valid.
    pub wire_valid: Validity,
    /// Where the wire-format executor's deparser appends: the batch's output buffer, lent for the
    /// deparser's run (empty otherwise).
    pub wire_out: Vec<u8>,
    /// Bits of `wire_out`'s last byte the deparser has written when that is not all 8 (a header
    /// that is not whole bytes was emitted); 0: the output is whole bytes. The rest of the byte is
    /// zero, the padding the packet gets if nothing follows.
    pub(crate) wire_out_tail: u32,
    /// The wire-format executor runs its generated machine code where the program has it
    /// ([`crate::fast`]'s `jit`); off: its closures (the reference in comparisons).
    pub jit: bool,
    /// Where the generated machine code finds this packet's state.
    pub(crate) jit_frame: crate::fast::JitFrame,
    /// Every frame slot a self-contained whole-packet function does not reset itself is zero
    /// ([`crate::fast`]'s `jit::PacketFn`); cleared by [`Ctx::enter`], which every other way of
    /// running a packet takes.
    pub(crate) frame_tidy: bool,
}

impl Ctx {
    /// The packet state a packet enters the parser with, but for the frame (each executor zeroes
    /// the slots it reads): headers in wire format cleared, the packet copied in, the parser at its
    /// start, no effects.
    #[inline]
    pub(crate) fn enter(&mut self, data: &[u8]) {
        self.frame_tidy = false;
        self.wire.fill(0);
        self.wire_valid = Validity::default();
        self.pkt.clear();
        self.pkt.extend_from_slice(data);
        self.cursor = 0;
        self.wire_out_tail = 0;
        self.pending_err = None;
        self.exit_pending = false;
        self.fx = Effects::default();
        crate::fast::point_jit_frame(self);
    }

    /// Clears every checksum unit's running state (a new pass of the packet through a pipeline).
    pub(crate) fn clear_checksums(&mut self) {
        for e in &mut self.externs {
            if let ExternState::Checksum { ones, data } = e {
                *ones = 0;
                data.clear();
            }
        }
    }

    /// Next value of the switch's deterministic generator.
    pub fn random(&mut self) -> u64 {
        splitmix(&mut self.rng)
    }

    /// Reads a frame slot (0 for an out-of-range slot, which compiled code never produces).
    #[inline]
    pub fn get(&self, slot: usize) -> u128 {
        self.f.get(slot).copied().unwrap_or(0)
    }

    #[inline]
    pub fn set(&mut self, slot: usize, v: u128) {
        if let Some(s) = self.f.get_mut(slot) {
            *s = v;
        }
    }

}

/// The splitmix64 step: advances `state` and returns the next pseudo-random value.
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The arms of a `switch` statement: the body of the first label equal to the value, else the
/// default (or nothing).
pub struct SwitchArms<K> {
    pub arms: Vec<(K, Run)>,
    pub default: Option<Run>,
}

impl<K: PartialEq> SwitchArms<K> {
    /// Compiles `cases` with `arm`, which gives each case's label (`None`: `default`) and body.
    pub(crate) fn build<L, E>(cases: &[(Option<L>, Vec<p4_ir::Stmt>)], mut arm: impl FnMut(Option<&L>, &[p4_ir::Stmt]) -> Result<(Option<K>, Run), E>) -> Result<SwitchArms<K>, E> {
        let mut out = SwitchArms { arms: Vec::new(), default: None };
        for (label, body) in cases {
            match arm(label.as_ref(), body)? {
                (Some(k), run) => out.arms.push((k, run)),
                (None, run) => out.default = Some(run),
            }
        }
        Ok(out)
    }

    /// Runs the arm `key` selects.
    #[inline]
    pub fn run(&self, key: &K, p: &Prog, c: &mut Ctx) -> Flow {
        match self.arms.iter().find(|(k, _)| k == key) {
            Some((_, run)) => run(p, c),
            None => self.default.as_ref().map_or(Flow::Next, |d| d(p, c)),
        }
    }
}

/// Where a transition goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    State(usize),
    Accept,
    Reject,
}

/// One select keyset component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyMatch {
    Mask(u128, u128),
    Range(u128, u128),
    Any,
    /// Value set index; `concat` = the set matches all keys concatenated (struct-typed sets).
    ValueSet(usize),
}

/// A table as the run time looks it up (its key and actions are compiled by the executor).
pub struct TableProg {
    pub name: String,
    /// Extern instances kept per entry (the description's [`p4_arch::StateKind::DirectCounter`]
    /// and [`p4_arch::StateKind::DirectMeter`]): counts live in the table by entry handle
    /// (`table::Count`), meters in the entries.
    pub per_entry: Vec<usize>,
    /// The per-entry meter whose colour the table's hit computes, if any.
    pub entry_meter: Option<usize>,
    /// `support_timeout = true`: a hit sets the entry's hit bit (`TableState::take_hits`).
    pub records_hits: bool,
}

/// The outcome of a table application.
#[derive(Clone, Copy, Debug)]
pub struct ApplyOutcome {
    pub hit: bool,
    /// IR action id that ran.
    pub action: usize,
    pub flow: Flow,
}

impl TableProg {
    /// Looks `key` up in table `t` (this one), counts the hit where a direct counter or meter reads
    /// it, and chooses the action: `(entry hit, hit, index into `actions`)`, its data in `args`.
    /// `pick`: the action selector's hash, which picks a group entry's member.
    pub(crate) fn choose(&self, p: &Prog, c: &mut Ctx, t: usize, key: &[u128], args: &mut SmallValues, pick: Option<u128>) -> (Option<u64>, bool, usize) {
        let found = c.tables.get_mut(t).and_then(|ts| ts.lookup(key));
        match found {
            Some(h) => {
                let mut colour = None;
                let mut act = 0;
                let counted = !self.per_entry.is_empty() || self.entry_meter.is_some();
                let pkt_len = if counted { p.intrinsic.slot(MetaRole::PacketLength).map_or(0, |s| c.get(s)) as u64 } else { 0 };
                if let Some(ts) = c.tables.get_mut(t) {
                    // Counts are kept only where a direct counter can read them.
                    if !self.per_entry.is_empty() {
                        ts.add_count(h, pkt_len);
                    }
                    if self.records_hits {
                        ts.mark_hit(h);
                    }
                    // A group entry runs the member the selector's hash picks.
                    let mut picked = false;
                    if let (Some(members), Some(hash)) = (ts.members(h).filter(|m| !m.is_empty()), pick) {
                        // In bounds: the remainder is below the (non-zero) length.
                        let (action, data) = &members[(hash % members.len() as u128) as usize];
                        args.extend_from_slice(data);
                        act = *action;
                        picked = true;
                    }
                    if let Some(e) = ts.get_mut(h) {
                        if !picked {
                            args.extend_from_slice(&e.args);
                            act = e.action;
                        }
                        if let Some(m) = self.entry_meter {
                            let bytes = matches!(c.externs.get(m), Some(ExternState::DirectMeter { bytes: true, .. }));
                            colour = Some((m, e.meter.execute(if bytes { pkt_len as u32 } else { 1 }, c.now_us as f64)));
                        }
                    }
                }
                if let Some((m, col)) = colour {
                    if let Some(ExternState::DirectMeter { colour, .. }) = c.externs.get_mut(m) {
                        *colour = col;
                    }
                }
                (found, true, act)
            }
            None => {
                let mut act = 0;
                if let Some(ts) = c.tables.get(t) {
                    let (a, data) = ts.default_action();
                    act = a;
                    args.extend_from_slice(data);
                }
                if let Some(m) = self.entry_meter {
                    if let Some(ExternState::DirectMeter { colour, .. }) = c.externs.get_mut(m) {
                        *colour = crate::meter::GREEN;
                    }
                }
                (None, false, act)
            }
        }
    }
}

/// Up to [`SmallValues::INLINE`] values on the stack, more on the heap (a table key or an
/// entry's action data: almost always a few values, read once per packet).
pub(crate) struct SmallValues {
    len: usize,
    inline: [u128; SmallValues::INLINE],
    spilled: Vec<u128>,
}

impl SmallValues {
    const INLINE: usize = 8;

    #[inline]
    pub(crate) fn new() -> SmallValues {
        SmallValues { len: 0, inline: [0; SmallValues::INLINE], spilled: Vec::new() }
    }

    #[inline]
    pub(crate) fn push(&mut self, v: u128) {
        if self.len < Self::INLINE {
            self.inline[self.len] = v;
        } else {
            if self.spilled.is_empty() {
                self.spilled.extend_from_slice(&self.inline);
            }
            self.spilled.push(v);
        }
        self.len += 1;
    }

    #[inline]
    pub(crate) fn extend_from_slice(&mut self, values: &[u128]) {
        if self.len == 0 && values.len() <= Self::INLINE {
            self.inline[..values.len()].copy_from_slice(values);
            self.len = values.len();
        } else {
            for &v in values {
                self.push(v);
            }
        }
    }

    #[inline]
    pub(crate) fn as_slice(&self) -> &[u128] {
        if self.len <= Self::INLINE {
            &self.inline[..self.len]
        } else {
            &self.spilled
        }
    }
}

/// Frame slots of the intrinsic metadata fields, by the role the architecture gives each field
/// ([`p4_arch::Architecture::intrinsic`]); a role whose field the program lacks has none.
#[derive(Clone, Debug, Default)]
pub struct Intrinsic {
    slots: [Option<usize>; MetaRole::COUNT],
    /// Width of the ingress port as the program's intrinsic metadata declares it
    /// ([`p4_arch::Architecture::port_width`]; v1model: 9); 0 when the program has no such field.
    pub port_width: u32,
    /// The value of the drop-marker field that drops the packet ([`p4_arch::DropMarker`]; v1model:
    /// 511); `u128::MAX` (never read back) when the program lacks the field.
    pub drop_value: u128,
}

impl Intrinsic {
    /// The slot of the field playing `role`.
    #[inline]
    pub fn slot(&self, role: MetaRole) -> Option<usize> {
        self.slots[role as usize]
    }

    /// The largest port number the port fields hold (`u32::MAX` when the program has none).
    pub fn max_port(&self) -> u32 {
        match self.port_width {
            0 => u32::MAX,
            width => u32::try_from(crate::bits::mask(width)).unwrap_or(u32::MAX),
        }
    }

    pub fn set_slot(&mut self, role: MetaRole, slot: usize) {
        self.slots[role as usize] = Some(slot);
    }
}

/// The intrinsic metadata fields the pipeline itself writes when a packet arrives and when a copy
/// departs, resolved once from [`Intrinsic`] (`None`: the program lacks the field). Both executors'
/// pipelines and the generated machine code set them through this one description.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PipelineMeta {
    /// The fields of [`PipelineMeta::ARRIVAL`], in its order.
    arrival: [Option<usize>; 5],
    /// The fields of [`PipelineMeta::DEPARTURE`], in its order.
    departure: [Option<usize>; 6],
}

/// A value the pipeline writes into an intrinsic metadata field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MetaValue {
    /// The arrival port (on arrival) or the port a copy departs for.
    Port,
    /// The packet's length in bytes as it arrived.
    Length,
    /// The packet's instance type.
    Instance,
    /// The copy's replication id.
    Rid,
    /// The time in microseconds, cut to the low `bits`.
    Now { bits: u32 },
    /// The time in p4forge's 64-bit time format ([`p4_ir::time`]).
    Stamp,
    Zero,
}

/// What one packet or copy gives the [`MetaValue`]s.
#[derive(Clone, Copy)]
pub(crate) struct MetaValues {
    pub port: u32,
    pub length: usize,
    pub instance: u128,
    pub rid: u32,
    pub now_us: u64,
    pub now_ns: u64,
}

impl MetaValue {
    #[inline(always)]
    fn of(self, v: &MetaValues) -> u128 {
        match self {
            MetaValue::Port => u128::from(v.port),
            MetaValue::Length => v.length as u128,
            MetaValue::Instance => v.instance,
            MetaValue::Rid => u128::from(v.rid),
            MetaValue::Now { bits } => u128::from(v.now_us) & crate::bits::mask(bits),
            MetaValue::Stamp => u128::from(p4_ir::time::stamp(v.now_ns)),
            MetaValue::Zero => 0,
        }
    }
}

// `PipelineMeta::INSTANCE` names the instance type's place in the arrival list (checked when built).
const _: () = assert!(matches!(PipelineMeta::ARRIVAL[PipelineMeta::INSTANCE].0, MetaRole::InstanceType));

impl PipelineMeta {
    /// Set when a packet arrives, in order.
    const ARRIVAL: [(MetaRole, MetaValue); 5] = [
        (MetaRole::IngressPort, MetaValue::Port),
        (MetaRole::PacketLength, MetaValue::Length),
        (MetaRole::InstanceType, MetaValue::Instance),
        (MetaRole::IngressTimestamp, MetaValue::Now { bits: 48 }),
        (MetaRole::RxTimestamp, MetaValue::Stamp),
    ];
    /// Where [`MetaRole::InstanceType`] is in [`PipelineMeta::ARRIVAL`].
    const INSTANCE: usize = 2;
    /// Set when a copy departs, in order: the egress spec cleared, the times (no queueing delay
    /// is modelled).
    const DEPARTURE: [(MetaRole, MetaValue); 6] = [
        (MetaRole::EgressPort, MetaValue::Port),
        (MetaRole::EgressSpec, MetaValue::Zero),
        (MetaRole::EgressRid, MetaValue::Rid),
        (MetaRole::EgressTimestamp, MetaValue::Now { bits: 48 }),
        (MetaRole::EnqTimestamp, MetaValue::Now { bits: 32 }),
        (MetaRole::DeqTimedelta, MetaValue::Zero),
    ];

    pub(crate) fn of(meta: &Intrinsic) -> PipelineMeta {
        PipelineMeta { arrival: Self::ARRIVAL.map(|(r, _)| meta.slot(r)), departure: Self::DEPARTURE.map(|(r, _)| meta.slot(r)) }
    }

    /// The fields set when a packet arrives and what each gets.
    pub(crate) fn arrival_writes(&self) -> impl Iterator<Item = (usize, MetaValue)> + '_ {
        self.arrival.iter().zip(Self::ARRIVAL).filter_map(|(s, (_, v))| Some(((*s)?, v)))
    }

    /// The fields set when a copy departs and what each gets.
    pub(crate) fn departure_writes(&self) -> impl Iterator<Item = (usize, MetaValue)> + '_ {
        self.departure.iter().zip(Self::DEPARTURE).filter_map(|(s, (_, v))| Some(((*s)?, v)))
    }

    /// What the architecture sets for a packet of `len` bytes arriving on `port` (at `c.now_us`).
    #[inline]
    pub(crate) fn arrive(&self, c: &mut Ctx, port: u32, len: usize, instance: u128) {
        let values = MetaValues { port, length: len, instance, rid: 0, now_us: c.now_us, now_ns: c.now_ns };
        for (slot, v) in self.arrival_writes() {
            c.set(slot, v.of(&values));
        }
    }

    /// What the traffic manager sets for a copy leaving for `port` with replication id `rid`.
    #[inline]
    pub(crate) fn depart(&self, c: &mut Ctx, port: u32, rid: u32) {
        let values = MetaValues { port, length: 0, instance: 0, rid, now_us: c.now_us, now_ns: c.now_ns };
        for (slot, v) in self.departure_writes() {
            c.set(slot, v.of(&values));
        }
    }

    /// The field a copy's own instance type goes to.
    pub(crate) fn instance_field(&self) -> Option<usize> {
        self.arrival[Self::INSTANCE]
    }
}

impl Prog {
    /// The transmit-timestamp request of the packet in `c` (the architecture's insert flag and
    /// byte offset, [`p4_arch::Architecture::tx_stamp`]): the offset, when it asks.
    #[inline]
    pub(crate) fn tx_stamp_request(&self, c: &Ctx) -> Option<u16> {
        let insert = self.intrinsic.slot(MetaRole::TxTimestamp)?;
        let offset = self.intrinsic.slot(MetaRole::TxTimestampOffset)?;
        (c.get(insert) & 1 != 0).then(|| c.get(offset) as u16)
    }

    /// Why the packet in `c` is dropped when the drop-marker field or a drop call says so.
    pub(crate) fn drop_reason(&self, c: &Ctx) -> crate::batch::DropReason {
        let error = self.intrinsic.slot(MetaRole::ParserError).map_or(0, |s| c.get(s)) as u32;
        match c.fx.marked_in() {
            Some(control) => crate::batch::DropReason::Marked { control: control as u32, error },
            None => crate::batch::DropReason::DropValue { error },
        }
    }
}

/// Well-known error codes of `core.p4`.
#[derive(Clone, Copy, Debug)]
pub struct ErrorCodes {
    pub packet_too_short: u32,
    pub no_match: u32,
    pub stack_out_of_bounds: u32,
    pub header_too_short: u32,
    pub parser_timeout: u32,
    pub parser_invalid_argument: u32,
}

/// The order this executor runs the package's blocks in, taken from the architecture's block
/// roles ([`p4_arch::Architecture::blocks`], in package order): the parser first; then the controls
/// up to the one playing [`p4_arch::Role::Ingress`]; the traffic manager (clones, re-parsing, multicast,
/// unicast or drop); the controls up to the one playing [`p4_arch::Role::Egress`]; the after-egress
/// decisions (egress clones, drop); the remaining controls, the last of which deparses.
pub struct Pipeline {
    /// Parser index of the package's parser.
    pub parser: usize,
    /// Control indexes run before the traffic manager (v1model: verify, ingress).
    pub ingress: Vec<usize>,
    /// Control indexes writing the packet out before the traffic manager, with two pipelines
    /// (PSA's ingress deparser; v1model: none).
    pub ingress_deparse: Vec<usize>,
    /// The parser of the second pipeline, which parses each copy again (PSA's egress parser).
    pub egress_parser: Option<usize>,
    /// Control indexes run after the traffic manager up to the egress decisions (v1model: egress).
    pub egress: Vec<usize>,
    /// Control indexes run last, writing the packet out (v1model: compute checksum, deparser).
    pub deparse: Vec<usize>,
}

/// What the traffic manager of a package with two pipelines
/// ([`p4_arch::TrafficManager::TwoPipelines`]) works with, resolved against the program.
pub struct TwoPipelineMeta {
    /// A copy sent to this port goes back into the first pipeline.
    pub loop_port: u32,
    /// Slot ranges `(base, len)` of the metadata deparsers hand to later parsers
    /// ([`p4_arch::SharedKind::Handoff`]): kept across the re-parse, everything else starts over.
    pub handoff: Vec<(usize, usize)>,
    /// By block (the architecture's order), by role (`role as usize`): the slot of the intrinsic
    /// field playing it among the block's parameters.
    pub blocks: Vec<[Option<usize>; MetaRole::COUNT]>,
    /// The block indexes of the ingress parser, ingress, ingress deparser, egress parser, egress
    /// and egress deparser, in that order.
    pub at: [usize; 6],
    /// The value of each packet path.
    pub paths: Paths,
    /// By pipeline (first, second): the slot ranges `[start, end)` of its blocks' variables and of
    /// the handoff storage, which a pass through it zeroes (the other pipeline's are not read).
    pub zero: [Vec<(usize, usize)>; 2],
    /// Where the slots the compiler adds after the blocks' variables start (temporaries), which
    /// every pass zeroes too.
    pub temps_from: usize,
}

/// The value of the packet-path metadata for each kind of packet instance the traffic manager
/// makes.
#[derive(Clone, Debug)]
pub struct Paths(pub Vec<(p4_arch::PacketInstance, u128)>);

impl Paths {
    pub fn value(&self, kind: p4_arch::PacketInstance) -> u128 {
        self.0.iter().find(|(k, _)| *k == kind).map_or(0, |(_, v)| *v)
    }
}

/// The compiled program.
pub struct Prog {
    pub frame_len: usize,
    /// The controls' names by control index (what a trace calls them).
    pub control_names: Vec<String>,
    pub tables: Vec<TableProg>,
    /// Slot ranges `(base, len)` preserved by each field list / data argument.
    pub field_sets: Vec<Vec<(usize, usize)>>,
    /// Intrinsic metadata slots by role.
    pub intrinsic: Intrinsic,
    /// The intrinsic fields the pipeline sets on arrival and departure (from `intrinsic`).
    pub(crate) pipeline_meta: PipelineMeta,
    /// Slot ranges `(base, len)` of the user metadata and of the intrinsic metadata.
    pub meta_range: (usize, usize),
    pub intrinsic_range: (usize, usize),
    pub errors: ErrorCodes,
    pub error_names: Vec<String>,
    /// The pipeline, from the architecture's block roles ([`Pipeline`]).
    pub pipeline: Pipeline,
    /// The program's layouts and control-plane ids ([`p4_ir::layout`]), shared with the control plane.
    pub layouts: std::sync::Arc<p4_ir::layout::Layouts>,
    /// The program's architecture ([`p4_arch`]): extern state kinds, intrinsic metadata roles.
    pub arch: &'static p4_arch::Architecture,
    /// Whether some code draws from the random generator ([`Ctx::random`]).
    pub draws_random: bool,
    /// With two pipelines, what their traffic manager works with (`None`: one pipeline).
    pub two_pipelines: Option<TwoPipelineMeta>,
    /// A traced build ([`crate::trace`]): the name of every named frame slot.
    pub(crate) slot_names: Option<Arc<Vec<Option<crate::trace::SlotName>>>>,
    /// The program compiled for the wire-format executor, when it can run it ([`crate::fast`]).
    pub(crate) fast: Option<Box<crate::fast::FastProg>>,
}

/// `runs` one after the other, stopping at the first that does not go on.
pub(crate) fn seq(mut runs: Vec<Run>) -> Run {
    match runs.len() {
        0 => Box::new(|_, _| Flow::Next),
        1 => runs.pop().unwrap_or_else(|| Box::new(|_, _| Flow::Next)),
        _ => Box::new(move |p, c| {
            for r in &runs {
                let f = r(p, c);
                if f != Flow::Next {
                    return f;
                }
            }
            Flow::Next
        }),
    }
}

/// `body`, then a rejection with the error a `lookahead` in it left pending: a parser statement
/// that reads past the packet's end rejects right after it (the specification's `verify`).
pub(crate) fn reject_on_pending_error(body: Run) -> Run {
    Box::new(move |p, c| match body(p, c) {
        flow @ (Flow::Reject(_) | Flow::Abort) => flow,
        flow => c.pending_err.take().map_or(flow, Flow::Reject),
    })
}
