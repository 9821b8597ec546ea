//! The software switch: the package's blocks around the packet buffer, in the order the
//! architecture's block roles give ([`crate::fast::exec::Pipeline`]), with clones, re-parsing and multicast
//! handled in the order of BMv2's after-ingress / after-egress pseudocode. The traffic manager
//! ([`Switch::traffic_manager`], [`Switch::egress`]) is written once: each block it runs is the
//! wire-format executor's ([`crate::fast`]), traced or not.
//!
//! Invariants: `ctx.f.len() == prog.frame_len` always; one packet (and everything it causes) is
//! processed to completion inside `inject`; a unicast packet runs ingress and egress in the same frame
//! with no allocation besides its output bytes.

use std::collections::VecDeque;

mod two_pipelines;
use std::sync::Arc;

use crate::cells::Cells;
use crate::fast::compile::lay_out;
use crate::batch::{BatchOut, DropReason, PacketIn};
use crate::trace::Event;
use crate::control::{Injected, OutputPacket, PacketIo};
use crate::fast::exec::{Ctx, Effects, ExternState, Prog};
use crate::meter::Meter;
use p4_arch::{DropMarker, ExternOp, MetaRole, PacketInstance, SideEffect, StateKind};
use crate::table::TableState;
use crate::DataplaneError;

pub use p4_arch::MAX_LOOPS;
/// Upper bound on copies one injected packet may cause.
const MAX_JOBS: usize = 4096;

pub use p4_control::Mirror;

/// Work caused by a packet, processed in FIFO order.
enum Job {
    Ingress { data: Vec<u8>, port: u32, instance: u32, keep: Option<(usize, Vec<u128>)>, depth: u32 },
    /// `cut`: the bytes a truncating clone session cuts the copy to.
    CloneI2E { data: Vec<u8>, in_port: u32, out_port: u32, rid: u32, keep: (usize, Vec<u128>), depth: u32, cut: Option<u32> },
    Egress { state: CopyState, port: u32, instance: u32, rid: u32, depth: u32, cut: Option<u32> },
}

/// The state of a copy the traffic manager sends to egress later (a multicast replica or an
/// egress-to-egress clone): the frame, the packet and where the parser left it, and the headers
/// (the wire buffer).
struct CopyState {
    frame: Vec<u128>,
    pkt: Vec<u8>,
    cursor: usize,
    wire: Vec<u8>,
    wire_valid: crate::fast::exec::Validity,
}

/// The `(rid, port)` copies of a clone session: one for a port, a group's members for a group.
type MirrorTargets = std::iter::Chain<std::option::IntoIter<(u32, u32)>, std::vec::IntoIter<(u32, u32)>>;

/// Buffers of finished copies kept for the next ones: a packet the traffic manager copies
/// allocates only while the pool grows (at most [`SPARE_KEPT`] buffers of each kind are kept).
#[derive(Default)]
struct Spare {
    frames: Vec<Vec<u128>>,
    bytes: Vec<Vec<u8>>,
}

const SPARE_KEPT: usize = 64;

impl Spare {
    /// A frame buffer holding `from`.
    fn frame(&mut self, from: &[u128]) -> Vec<u128> {
        let mut v = self.frames.pop().unwrap_or_default();
        v.clear();
        v.extend_from_slice(from);
        v
    }

    /// A byte buffer holding the concatenation of `parts`.
    fn bytes(&mut self, parts: &[&[u8]]) -> Vec<u8> {
        let mut v = self.bytes.pop().unwrap_or_default();
        v.clear();
        for part in parts {
            v.extend_from_slice(part);
        }
        v
    }

    fn give_frame(&mut self, v: Vec<u128>) {
        if self.frames.len() < SPARE_KEPT {
            self.frames.push(v);
        }
    }

    fn give_bytes(&mut self, v: Vec<u8>) {
        if self.bytes.len() < SPARE_KEPT {
            self.bytes.push(v);
        }
    }
}

/// A running software switch.
pub struct Switch {
    pub(crate) ir: Arc<p4_ir::Program>,
    pub(crate) prog: Prog,
    pub(crate) ctx: Ctx,
    /// What the control plane knows of the program ([`p4_control::Catalog`]): what its calls are
    /// checked against.
    pub(crate) catalog: p4_control::Catalog,
    /// Multicast groups and clone sessions.
    pub(crate) replication: p4_control::replication::Replication,
    /// Tables take no more entries than their size (see [`Switch::ignore_table_sizes`]).
    pub(crate) sizes_enforced: bool,
    /// The reused buffers of [`PacketIo::inject`] (a batch of one).
    one: BatchOut,
    /// The work queue of the packet being processed (kept to reuse its buffer).
    jobs: VecDeque<Job>,
    /// The packet state a multicast keeps between its replicas on the wire-format executor.
    saved: crate::fast::Saved,
    /// Buffers of the traffic manager's finished copies.
    spare: Spare,
    /// The work queue of a packet of a package with two pipelines (kept to reuse its buffer).
    two_jobs: VecDeque<two_pipelines::Job>,
    /// The time a packet that asks for its transmit time gets ([`Switch::set_tx_clock`]).
    tx_clock: TxClock,
}

/// Where the transmit time written into a packet that asks for it comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TxClock {
    /// Its input packet's arrival time (no queueing is modelled): files in, files out, the same
    /// bytes on every run.
    #[default]
    Arrival,
    /// The caller's: it writes them ([`BatchOut::write_tx_stamps`]) as it hands the packets to
    /// their ports, from the clock its arrival times come from (live ports).
    Caller,
}

fn enum_member_name(ir: &p4_ir::Program, v: &p4_ir::Value) -> Option<String> {
    let p4_ir::Value::Enum(t, i) = v else { return None };
    match ir.types.get(t.index()) {
        Some(p4_ir::TypeDef::Enum { members, .. }) => members.get(*i as usize).map(|m| m.0.clone()),
        _ => None,
    }
}

fn ctor_u64(v: Option<&Option<p4_ir::Value>>) -> u64 {
    use num_traits::ToPrimitive;
    match v {
        Some(Some(p4_ir::Value::Bits { value, .. })) | Some(Some(p4_ir::Value::InfInt(value))) => value.to_u64().unwrap_or(0),
        _ => 0,
    }
}

/// How much of a packet's path a switch runs as machine code, from least to most (so, roughly,
/// from slowest to fastest): how the tests compare what the lowered and the elaborated program
/// get (`crates/p4forge/tests/golden/wire_format.txt`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CodeClass {
    /// Some blocks (a traced switch: all) run as closures.
    Closures,
    /// One machine-code function per packet, calling closures for some statements or values.
    WholePacket,
    /// One machine-code function per packet that calls no closure.
    SelfContained,
}

/// Why a copy an `assert`/`assume` or a loop that did not end stopped is dropped, taken from the
/// context's effects; the reason also goes to the log.
fn aborted(c: &mut Ctx) -> DropReason {
    let why = c.fx.aborted.take().unwrap_or_else(|| Arc::from("assert failed"));
    c.log.push(why.to_string());
    DropReason::Aborted(why)
}

impl Switch {
    /// Prepare a program of an architecture [`p4_arch`] describes for the wire-format executor
    /// ([`crate::fast`]); errors say what is unsupported (a program it refuses as elaborated may
    /// run as the mid-end lowers it).
    pub fn new(program: Arc<p4_ir::Program>) -> Result<Switch, DataplaneError> {
        Switch::on_wire_format(program, false)
    }

    /// The same switch, recording a trace of every packet ([`crate::trace`]): each batch output's
    /// [`BatchOut::trace`], each [`Injected::trace`].
    pub fn new_traced(program: Arc<p4_ir::Program>) -> Result<Switch, DataplaneError> {
        Switch::on_wire_format(program, true)
    }

    fn on_wire_format(program: Arc<p4_ir::Program>, tracing: bool) -> Result<Switch, DataplaneError> {
        let arch = p4_arch::of(&program);
        Switch::build(program, tracing).map_err(|e| e.in_architecture(arch))
    }

    fn build(program: Arc<p4_ir::Program>, tracing: bool) -> Result<Switch, DataplaneError> {
        let (mut prog, mut cx) = lay_out(&program, tracing)?;
        let fast = crate::fast::build(&mut cx, &prog)?;
        prog.fast = Some(Box::new(fast));
        // Its temporaries (extern results) may have taken more slots.
        prog.frame_len = prog.frame_len.max(cx.next_slot);
        // And field sets (each old-style `data` argument makes one).
        prog.field_sets.clone_from(&cx.field_sets);
        prog.draws_random = cx.draws_random.get();
        let wire_len = prog.fast.as_ref().map_or(0, |f| f.wire_len);
        let mut externs = Vec::new();
        for (i, e) in program.externs.iter().enumerate() {
            // What state an instance keeps, and which constructor arguments size it and choose
            // packets or bytes, come from the architecture's extern signature.
            let Some(sig) = prog.arch.extern_type(&e.type_name) else {
                externs.push(ExternState::Stateless);
                continue;
            };
            if sig.methods.iter().any(|m| m.op == ExternOp::ChecksumAdd) {
                externs.push(ExternState::Checksum { ones: 0, data: Default::default() });
                continue;
            }
            let size = sig.size_arg.map_or(0, |a| ctor_u64(e.ctor_args.get(a)));
            let is_bytes = sig.unit_arg.and_then(|a| e.ctor_args.get(a)).and_then(|v| v.as_ref()).and_then(|v| enum_member_name(&program, v)).as_deref()
                == Some(prog.arch.unit_bytes);
            externs.push(match sig.state {
                StateKind::Register => {
                    // Other element types are held in one full cell.
                    let width = prog.layouts.register_widths[i].unwrap_or(128);
                    let initial = sig.initial_arg.and_then(|a| e.ctor_args.get(a)?.as_ref());
                    let initial = match (initial, e.type_args.first()) {
                        (Some(v), Some(ty)) => p4_ir::layout::scalar_value(&program, v, ty).map_err(DataplaneError::unsupported)? & crate::bits::mask(width),
                        _ => 0,
                    };
                    ExternState::Register { width, cells: Cells::new(size, initial) }
                }
                StateKind::Counter => ExternState::Counter { cells: Cells::new(size, (0, 0)) },
                StateKind::Meter => ExternState::Meter { bytes: is_bytes, cells: Cells::new(size, Meter::default()) },
                StateKind::DirectMeter => ExternState::DirectMeter { bytes: is_bytes, colour: 0 },
                // Direct counters count in the table entries.
                StateKind::DirectCounter | StateKind::Stateless => ExternState::Stateless,
            });
        }
        let mut tables = Vec::new();
        for k in &prog.layouts.keys {
            tables.push(TableState::for_key(k));
        }
        let ctx = Ctx {
            f: vec![0; prog.frame_len],
            pkt: Vec::new(),
            cursor: 0,
            scratch: Default::default(),
            tables,
            externs,
            value_sets: vec![Vec::new(); program.value_sets.len()],
            now_us: 0,
            now_ns: 0,
            rng: 0x5eed,
            fx: Effects::default(),
            log: Vec::new(),
            digests: Vec::new(),
            pending_err: None,
            exit_pending: false,
            trace: tracing.then(Default::default),
            wire: vec![0; wire_len],
            wire_valid: Default::default(),
            wire_out: Vec::new(),
            wire_out_tail: 0,
            jit: true,
            jit_frame: Default::default(),
            frame_tidy: false,
        };
        let catalog = p4_control::Catalog::of(&program, &prog.layouts).map_err(DataplaneError::unsupported)?;
        let mut sw = Switch { ir: program.clone(), prog, ctx, catalog, replication: Default::default(), sizes_enforced: true, one: BatchOut::default(), jobs: VecDeque::new(), saved: Default::default(), spare: Spare::default(), two_jobs: VecDeque::new(), tx_clock: TxClock::Arrival };
        sw.install_program_entries()?;
        Ok(sw)
    }

    /// What makes one packet's fate depend on the packets before it: each register, meter or
    /// direct meter instance (by name) and `random generator` when the program draws random
    /// numbers. Empty: every packet is processed as if it were the first, so packets may be spread
    /// over several switches built from the same program and entries (counters aside: they count
    /// but decide nothing).
    pub fn cross_packet_state(&self) -> Vec<String> {
        let mut state: Vec<String> = self
            .ir
            .externs
            .iter()
            .zip(&self.ctx.externs)
            .filter(|(_, s)| matches!(s, ExternState::Register { .. } | ExternState::Meter { .. } | ExternState::DirectMeter { .. }))
            .map(|(e, _)| e.name.clone())
            .collect();
        if self.prog.draws_random {
            state.push("random generator".into());
        }
        state
    }

    /// Lets tables take entries beyond their `size` (benchmarks and soak tests load more routes
    /// than the programs they run declare).
    pub fn ignore_table_sizes(&mut self) {
        self.sizes_enforced = false;
    }

    /// The program's layouts and control-plane ids, as computed once by [`p4_ir::layout::Layouts::of`]
    /// (for a P4Runtime server or a layout listing next to this switch).
    pub fn layouts(&self) -> &p4_ir::layout::Layouts {
        &self.prog.layouts
    }

    /// Installs the default actions and `entries` the program gives (as the catalog took them).
    fn install_program_entries(&mut self) -> Result<(), DataplaneError> {
        for (t, ts) in self.catalog.tables.iter().zip(&mut self.ctx.tables) {
            ts.set_default(t.initial_default.0, t.initial_default.1.clone());
            for (pos, e) in t.initial_entries.iter().enumerate() {
                let entry = crate::table::Entry { matches: e.matches.clone(), priority: e.priority, action: e.action, args: e.args.clone(), meter: Meter::default() };
                ts.insert(entry).map_err(|m| DataplaneError::invalid(format!("table {}: entry {}: {m}", t.name, pos + 1)))?;
            }
        }
        Ok(())
    }

    /// The instance-type value of `kind`, as the architecture numbers them.
    fn instance(&self, kind: PacketInstance) -> u32 {
        self.prog.arch.instance_value(kind)
    }

    /// Why the current packet is dropped when the drop-marker field or a drop call says so.
    fn drop_reason(&self) -> DropReason {
        self.prog.drop_reason(&self.ctx)
    }

    /// The text of a drop reason, as [`Injected::drops`] holds it (v1model: `mark_to_drop in C`,
    /// `egress_spec 511`, each optionally followed by ` (parser error <name>)`).
    pub fn drop_text(&self, reason: &DropReason) -> String {
        let arch = self.prog.arch;
        let with_error = |mut line: String, e: u32| {
            if e != 0 {
                let name = self.prog.error_names.get(e as usize).cloned().unwrap_or_else(|| e.to_string());
                line.push_str(&format!(" (parser error {name})"));
            }
            line
        };
        match reason {
            DropReason::PortTooWide(port) => {
                self.check_port(*port).err().map_or_else(|| format!("port {port} does not fit the port fields"), |e| e.to_string())
            }
            DropReason::Marked { control, error } => {
                let f = arch.function_for(ExternOp::MarkToDrop).map_or("drop", |f| f.name);
                let ctl = self.prog.control_names.get(*control as usize).map_or("?", String::as_str);
                // One allocation of the right size when there is no parser error.
                let mut line = String::with_capacity(f.len() + 4 + ctl.len());
                line.push_str(f);
                line.push_str(" in ");
                line.push_str(ctl);
                with_error(line, *error)
            }
            DropReason::DropValue { error } => {
                let DropMarker::AllOnes(role) = arch.drop;
                with_error(format!("{} {}", arch.field(role).unwrap_or("drop marker"), self.prog.intrinsic.drop_value), *error)
            }
            DropReason::Aborted(why) | DropReason::Reported(why) => why.to_string(),
            DropReason::DropFlag { control, error } => {
                let ctl = self.prog.control_names.get(*control as usize).map_or("?", String::as_str);
                with_error(format!("{} set after {ctl}", arch.field(MetaRole::Drop).unwrap_or("drop")), *error)
            }
            DropReason::EmptyGroup(group) => format!("multicast group {group} has no members"),
            DropReason::TooManyLoops(effect) => format!("{}: more than {MAX_LOOPS} loops", self.effect_name(*effect)),
            DropReason::TooManyCopies(n) => format!("more than {n} copies of one packet; the rest were dropped"),
        }
    }

    /// Records a dropped copy (and, tracing, the reason as text).
    fn dropped<const T: bool>(&mut self, res: &mut BatchOut, reason: DropReason) {
        if T && self.ctx.trace.is_some() {
            let text = self.drop_text(&reason);
            self.trace::<T>(|| Event::Drop { reason: text });
        }
        res.push_drop(reason);
    }

    /// Adds the event `make` makes to the packet's trace (a traced switch only: the event, and any
    /// text in it, is not made otherwise).
    fn trace<const T: bool>(&mut self, make: impl FnOnce() -> Event) {
        if let (true, Some(trace)) = (T, self.ctx.trace.as_mut()) {
            trace.push(make());
        }
    }

    /// Takes the frame as it is now (on the wire-format executor, with the headers copied into
    /// it) as the point later changes are reported from.
    fn trace_snapshot<const T: bool>(&mut self) {
        if T {
            crate::fast::headers_to_frame(&self.prog, &mut self.ctx);
        }
        if let (true, Some(trace)) = (T, self.ctx.trace.as_mut()) {
            trace.snapshot_of(&self.ctx.f);
        }
    }

    /// The name of the architecture's function asking for `effect` (v1model: `resubmit`), for
    /// messages and traces.
    fn effect_name(&self, effect: SideEffect) -> &'static str {
        self.prog.arch.function_with_effect(effect).map_or("re-parse", |f| f.name)
    }

    /// The name of an instance-type value (`normal`, `resubmitted`, ...), for traces.
    fn instance_name(&self, value: u32) -> String {
        use PacketInstance::*;
        [Normal, IngressClone, EgressClone, Coalesced, Recirculated, Replica, Resubmitted]
            .into_iter()
            .find(|k| self.instance(*k) == value)
            .map_or_else(|| format!("instance {value}"), |k| format!("{k:?}").to_lowercase())
    }

    /// Drops the current copy because an `assert`/`assume` failed or a loop did not end (the
    /// reason also goes to the log).
    fn abort<const T: bool>(&mut self, res: &mut BatchOut) {
        let reason = aborted(&mut self.ctx);
        self.dropped::<T>(res, reason);
    }

    /// Whether the drop-marker field holds the drop value.
    fn marked_to_drop(&self) -> bool {
        let DropMarker::AllOnes(role) = self.prog.arch.drop;
        self.meta_get(role) == Some(self.prog.intrinsic.drop_value)
    }

    /// The intrinsic field of `role` (`None`: the program lacks it).
    fn meta_get(&self, role: MetaRole) -> Option<u128> {
        self.prog.intrinsic.slot(role).map(|s| self.ctx.get(s))
    }

    /// Restores preserved slot ranges from a snapshot frame.
    fn restore(&mut self, set: usize, snap: &[u128]) {
        if let Some(ranges) = self.prog.field_sets.get(set) {
            for &(s, len) in ranges {
                if let (Some(dst), Some(src)) = (self.ctx.f.get_mut(s..s + len), snap.get(s..s + len)) {
                    dst.copy_from_slice(src);
                }
            }
        }
    }

    /// The intrinsic metadata the traffic manager sets for a copy leaving for `port` (`instance`:
    /// a copy's own instance type, `None` to keep the packet's).
    fn depart(&mut self, port: u32, rid: u32, instance: Option<u32>) {
        self.prog.pipeline_meta.depart(&mut self.ctx, port, rid);
        if let (Some(i), Some(s)) = (instance, self.prog.pipeline_meta.instance_field()) {
            self.ctx.set(s, u128::from(i));
        }
    }

    /// Resets the frame for a packet entering the parser and runs the parser.
    fn parse<const T: bool>(&mut self, data: &[u8], port: u32, instance: u32) {
        crate::fast::arrive_at(&self.prog, &mut self.ctx, data, port, u128::from(instance));
        let error_slot = self.prog.intrinsic.slot(MetaRole::ParserError);
        self.run_parser::<T>(false, error_slot);
    }

    /// Runs the first parser (`second`: the second pipeline's) on the packet the context holds;
    /// its error code goes to `error_slot` and is returned (0: none).
    fn run_parser<const T: bool>(&mut self, second: bool, error_slot: Option<usize>) -> u32 {
        let (p, c) = (&self.prog, &mut self.ctx);
        if let (true, Some(trace)) = (T, c.trace.as_mut()) {
            trace.snapshot_of(&c.f);
        }
        let result = if second { crate::fast::run_egress_parser(p, c) } else { crate::fast::run_parser(p, c) };
        if let (Err(e), Some(s)) = (result, error_slot) {
            c.set(s, u128::from(e));
        }
        if let (true, Some(trace)) = (T, c.trace.as_mut()) {
            let result = match result {
                Ok(()) => "accept".to_string(),
                Err(e) => format!("error {}", p.error_names.get(e as usize).cloned().unwrap_or_else(|| e.to_string())),
            };
            trace.push(Event::ParserEnd { result });
            // Headers extracted are shown by their extract; metadata the parser set, here.
            crate::fast::note_changes(p, c, false);
        }
        c.pending_err = None;
        c.exit_pending = false;
        result.err().unwrap_or(0)
    }

    /// Every multicast group with its copies ((replication id, port), in replication order), by
    /// group id: what a hardware replication table has to hold.
    pub fn multicast_groups(&self) -> Vec<(u32, Vec<(u32, u32)>)> {
        self.replication.multicast_groups()
    }

    /// Every clone session and where it sends copies, by session id: what a hardware mirror
    /// table has to hold.
    pub fn mirror_sessions(&self) -> Vec<(u32, Mirror)> {
        self.replication.mirror_sessions()
    }

    /// The members of value set `index` (the program's value sets in order) as (value, mask),
    /// in the order they were added: what a hardware value set has to hold.
    pub fn value_set_members(&self, index: usize) -> Vec<(u128, u128)> {
        self.ctx.value_sets.get(index).cloned().unwrap_or_default()
    }

    /// Ports (with replication ids) a multicast group replicates to.
    fn group_members(&self, group: u32) -> Vec<(u32, u32)> {
        self.replication.members(group).collect()
    }

    /// The `(rid, port)` copies clone session `session` makes: one for a port (no allocation), a
    /// group's members, or none (logged) for a session not configured.
    fn mirror_targets(&mut self, session: u32) -> MirrorTargets {
        let (one, many) = match self.replication.sessions.get(&session) {
            Some(Mirror::Port(p)) => (Some((0, *p)), Vec::new()),
            Some(Mirror::Group(g)) => (None, self.group_members(*g)),
            None => {
                self.ctx.log.push(format!("clone to session {session}, which is not configured: no copy made"));
                (None, Vec::new())
            }
        };
        one.into_iter().chain(many)
    }

    #[allow(clippy::too_many_arguments)]
    fn ingress<const T: bool>(&mut self, data: &[u8], port: u32, instance: u32, keep: Option<(usize, &[u128])>, depth: u32, res: &mut BatchOut, jobs: &mut VecDeque<Job>) {
        if T && self.ctx.trace.is_some() {
            let instance = self.instance_name(instance);
            self.trace::<T>(|| Event::Ingress { port, length: data.len(), instance });
        }
        self.parse::<T>(data, port, instance);
        if let Some((set, snap)) = &keep {
            self.restore(*set, snap);
            self.trace_snapshot::<T>();
        }
        let aborted = crate::fast::ingress::<T>(&self.prog, &mut self.ctx);
        self.traffic_manager::<T>(data, port, aborted, depth, res, jobs);
    }

    /// What follows the ingress controls (`aborted`: an assert stopped the packet): clones,
    /// resubmission, multicast, drop or one copy to egress. Entered from [`Switch::ingress`], and
    /// from the wire-format executor for the programs it hands over here.
    fn traffic_manager<const T: bool>(&mut self, data: &[u8], port: u32, aborted: bool, depth: u32, res: &mut BatchOut, jobs: &mut VecDeque<Job>) {
        if aborted {
            self.abort::<T>(res);
            return;
        }
        if let Some((session, set)) = self.ctx.fx.clone {
            self.trace::<T>(|| Event::Decision { decision: format!("clone session {session}") });
            let cut = self.replication.truncation(session);
            for (rid, out_port) in self.mirror_targets(session) {
                let (data, frame) = (self.spare.bytes(&[data]), self.spare.frame(&self.ctx.f));
                jobs.push_back(Job::CloneI2E { data, in_port: port, out_port, rid, keep: (set, frame), depth, cut });
            }
        }
        if let Some(set) = self.ctx.fx.reparse_arrived {
            if depth >= MAX_LOOPS {
                self.dropped::<T>(res, DropReason::TooManyLoops(SideEffect::Resubmit));
                return;
            }
            let name = self.effect_name(SideEffect::Resubmit);
            self.trace::<T>(|| Event::Decision { decision: name.into() });
            let (data, frame) = (self.spare.bytes(&[data]), self.spare.frame(&self.ctx.f));
            jobs.push_back(Job::Ingress { data, port, instance: self.instance(PacketInstance::Resubmitted), keep: Some((set, frame)), depth: depth + 1 });
            return;
        }
        let grp = self.meta_get(MetaRole::MulticastGroup).unwrap_or(0) as u32;
        if grp != 0 {
            let members = self.group_members(grp);
            self.trace::<T>(|| Event::Decision { decision: format!("multicast group {grp}: {} copies", members.len()) });
            if members.is_empty() {
                self.dropped::<T>(res, DropReason::EmptyGroup(grp));
            }
            for (rid, out_port) in members {
                let frame = self.spare.frame(&self.ctx.f);
                let state = self.copy_state(frame);
                jobs.push_back(Job::Egress { state, port: out_port, instance: self.instance(PacketInstance::Replica), rid, depth, cut: None });
            }
            return;
        }
        if self.marked_to_drop() {
            self.trace::<T>(|| Event::Decision { decision: "drop".into() });
            let reason = self.drop_reason();
            self.dropped::<T>(res, reason);
            return;
        }
        let out_port = self.meta_get(MetaRole::EgressSpec).unwrap_or(0);
        self.trace::<T>(|| Event::Decision { decision: format!("unicast to port {out_port}") });
        self.egress::<T>(out_port as u32, None, 0, depth, None, res, jobs);
    }

    /// Egress of the packet in the context to `port`; `cut`: the bytes a truncating clone
    /// session cuts this copy to.
    #[allow(clippy::too_many_arguments)]
    fn egress<const T: bool>(&mut self, port: u32, instance: Option<u32>, rid: u32, depth: u32, cut: Option<u32>, res: &mut BatchOut, jobs: &mut VecDeque<Job>) {
        self.depart(port, rid, instance);
        let truncate = match (self.ctx.fx.truncate, cut) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.ctx.fx = Effects { truncate, ..Effects::default() };
        if T && self.ctx.trace.is_some() {
            let instance = self.meta_get(MetaRole::InstanceType).map_or_else(|| "normal".into(), |i| self.instance_name(i as u32));
            self.trace::<T>(|| Event::Egress { port, instance, rid });
            self.trace_snapshot::<T>();
        }
        let aborted = crate::fast::egress::<T>(&self.prog, &mut self.ctx);
        if aborted {
            self.abort::<T>(res);
            return;
        }
        if let Some((session, set)) = self.ctx.fx.clone {
            let cut = self.replication.truncation(session);
            for (crid, out_port) in self.mirror_targets(session) {
                let frame = self.e2e_frame(set);
                let state = self.copy_state(frame);
                jobs.push_back(Job::Egress { state, port: out_port, instance: self.instance(PacketInstance::EgressClone), rid: crid, depth, cut });
            }
        }
        if self.marked_to_drop() {
            let reason = self.drop_reason();
            self.dropped::<T>(res, reason);
            return;
        }
        let (p, c) = (&self.prog, &mut self.ctx);
        let aborted = crate::fast::deparse::<T>(p, c);
        if aborted {
            self.abort::<T>(res);
            return;
        }
        let start = c.cursor.div_ceil(8).min(c.pkt.len());
        let headers: &[u8] = &c.wire_out;
        let tail = c.pkt.get(start..).unwrap_or(&[]);
        if let Some(set) = c.fx.reparse_deparsed {
            if depth >= MAX_LOOPS {
                self.dropped::<T>(res, DropReason::TooManyLoops(SideEffect::Recirculate));
                return;
            }
            let mut bytes = self.spare.bytes(&[headers, tail]);
            if let Some(n) = c.fx.truncate {
                bytes.truncate(n as usize);
            }
            let in_port = self.meta_get(MetaRole::IngressPort).unwrap_or(0) as u32;
            let name = self.effect_name(SideEffect::Recirculate);
            self.trace::<T>(|| Event::Decision { decision: name.into() });
            let frame = self.spare.frame(&self.ctx.f);
            jobs.push_back(Job::Ingress { data: bytes, port: in_port, instance: self.instance(PacketInstance::Recirculated), keep: Some((set, frame)), depth: depth + 1 });
            return;
        }
        res.push_packet(port, [headers, tail], c.fx.truncate);
        if let Some(at) = p.tx_stamp_request(c) {
            res.ask_tx_stamp(at);
        }
        if let (true, Some(trace), Some(out)) = (T, c.trace.as_mut(), res.packets.last()) {
            trace.push(Event::Output { port, length: out.len });
        }
    }

    /// The frame an egress-to-egress clone starts from: headers as they are now, user and standard
    /// metadata reset except the preserved field set (and the port the packet came in on).
    fn e2e_frame(&mut self, set: usize) -> Vec<u128> {
        let mut frame = self.spare.frame(&self.ctx.f);
        for (base, len) in [self.prog.meta_range, self.prog.intrinsic_range] {
            if let Some(r) = frame.get_mut(base..base + len) {
                r.fill(0);
            }
        }
        let keep = self.prog.field_sets.get(set).map(Vec::as_slice).unwrap_or(&[]);
        let meta = &self.prog.intrinsic;
        let singles = [MetaRole::IngressPort, MetaRole::PacketLength].into_iter().filter_map(|r| meta.slot(r)).map(|s| (s, 1));
        for (s, len) in keep.iter().copied().chain(singles) {
            if let (Some(dst), Some(src)) = (frame.get_mut(s..s + len), self.ctx.f.get(s..s + len)) {
                dst.copy_from_slice(src);
            }
        }
        frame
    }

    /// The state of the packet being processed, with `frame` for its frame, for a copy sent to
    /// egress later.
    fn copy_state(&mut self, frame: Vec<u128>) -> CopyState {
        let wire = self.spare.bytes(&[&self.ctx.wire]);
        let c = &self.ctx;
        CopyState { frame, pkt: self.spare.bytes(&[&c.pkt]), cursor: c.cursor, wire, wire_valid: c.wire_valid }
    }

    /// Makes `state` the state of the packet being processed, with no effects asked for yet.
    fn resume(&mut self, state: CopyState) {
        let c = &mut self.ctx;
        if state.frame.len() == c.f.len() {
            c.f.copy_from_slice(&state.frame);
        }
        if state.wire.len() == c.wire.len() {
            c.wire.copy_from_slice(&state.wire);
            c.wire_valid = state.wire_valid;
        }
        let old = std::mem::replace(&mut c.pkt, state.pkt);
        c.cursor = state.cursor;
        c.fx = Effects::default();
        // The generated code reaches the packet through pointers set for its buffer.
        crate::fast::point_jit_frame(c);
        self.spare.give_bytes(old);
        self.spare.give_bytes(state.wire);
        self.spare.give_frame(state.frame);
    }

    fn run_job<const T: bool>(&mut self, job: Job, res: &mut BatchOut, jobs: &mut VecDeque<Job>) {
        match job {
            Job::Ingress { data, port, instance, keep, depth } => {
                self.ingress::<T>(&data, port, instance, keep.as_ref().map(|(set, frame)| (*set, &frame[..])), depth, res, jobs);
                self.spare.give_bytes(data);
                if let Some((_, frame)) = keep {
                    self.spare.give_frame(frame);
                }
            }
            Job::CloneI2E { data, in_port, out_port, rid, keep, depth, cut } => {
                self.parse::<T>(&data, in_port, self.instance(PacketInstance::IngressClone));
                self.restore(keep.0, &keep.1);
                self.spare.give_bytes(data);
                self.spare.give_frame(keep.1);
                self.egress::<T>(out_port, Some(self.instance(PacketInstance::IngressClone)), rid, depth, cut, res, jobs);
            }
            Job::Egress { state, port, instance, rid, depth, cut } => {
                self.resume(state);
                self.egress::<T>(port, Some(instance), rid, depth, cut, res, jobs);
            }
        }
    }
}

impl Switch {
    /// Processes `batch` in order, each packet (and everything it causes) to completion, and writes
    /// what came of it into `out` (cleared first; reuse it across batches: see [`crate::batch`]).
    pub fn process_batch(&mut self, batch: &[PacketIn<'_>], out: &mut BatchOut) {
        self.run_batch(batch, out);
        // Only an architecture with a transmit-timestamp request looks at the packets again.
        let asks = self.prog.intrinsic.slot(MetaRole::TxTimestamp).is_some();
        if asks && self.tx_clock == TxClock::Arrival && out.packets.iter().any(|p| p.tx_stamp_at.is_some()) {
            out.write_tx_stamps(|input| batch.get(input as usize).map_or(0, |p| p.now_ns));
        }
    }

    /// Where the transmit time written into a packet that asks for it comes from (the
    /// architecture's transmit-timestamp request; OP4T's `tx_ts`).
    pub fn set_tx_clock(&mut self, clock: TxClock) {
        self.tx_clock = clock;
    }

    /// [`Switch::process_batch`] but for the transmit timestamps.
    fn run_batch(&mut self, batch: &[PacketIn<'_>], out: &mut BatchOut) {
        out.clear();
        // Traced or not is decided once per batch: an untraced switch runs code with no test of the
        // trace in it.
        let traced = self.ctx.trace.is_some();
        if !traced {
            if crate::fast::whole_batch(&self.prog, &mut self.ctx, batch, out) {
                return;
            }
            for (index, packet) in batch.iter().enumerate() {
                out.input = index as u32;
                self.process_wire_format(packet, out);
            }
            return;
        }
        for (index, packet) in batch.iter().enumerate() {
            out.input = index as u32;
            if traced {
                self.process::<true>(packet, out);
            } else {
                self.process::<false>(packet, out);
            }
        }
    }

    /// Whether the wire-format executor hands this program's packets over to the switch's
    /// traffic manager after ingress (for clones, resubmission, recirculation, truncation,
    /// multicast or asserts), which sends each copy through the wire-format executor's blocks.
    pub fn hands_over(&self) -> bool {
        self.prog.fast.as_ref().is_some_and(|f| f.hands_over)
    }

    /// Whether a program that [hands over](Switch::hands_over) does so only with the packets
    /// whose ingress asks the traffic manager for something (a clone, a resubmission, a
    /// recirculation, a truncation or a failed assert): the others stay on the wire-format
    /// executor through egress and deparser, and so do the replicas of a multicast group.
    pub fn hands_over_when_asked(&self) -> bool {
        self.prog.fast.as_ref().is_some_and(|f| f.hands_over && f.hands_over_when_asked)
    }

    /// Whether this switch records a trace of every packet ([`Switch::new_traced`]).
    pub fn traced(&self) -> bool {
        self.ctx.trace.is_some()
    }

    /// Which blocks of the program the wire-format executor runs as generated machine code, and
    /// why any other did not become machine code (`None`: no machine code: the program is not
    /// run by the wire-format executor, or the switch is traced and records its steps from the
    /// executor's closures).
    pub fn machine_code(&self) -> Option<&str> {
        Some(self.prog.fast.as_ref()?.jit.as_ref()?.summary.as_str())
    }

    /// How much of a packet's path is machine code ([`CodeClass`]).
    pub fn code_class(&self) -> CodeClass {
        match self.prog.fast.as_ref().and_then(|f| f.jit.as_ref()).and_then(|j| j.packet) {
            Some(p) if p.self_contained => CodeClass::SelfContained,
            Some(_) => CodeClass::WholePacket,
            None => CodeClass::Closures,
        }
    }

    /// Runs the wire-format executor's generated machine code where the program has it (the
    /// default), or its closures (the reference, for comparisons); returns whether machine code
    /// now runs.
    pub fn use_machine_code(&mut self, on: bool) -> bool {
        self.ctx.jit = on;
        on && self.machine_code().is_some()
    }

    /// One packet of a batch through the wire-format executor: the pipeline of [`Switch::ingress`]
    /// and [`Switch::egress`] in [`crate::fast::process`] for a packet that makes one copy or
    /// none, else through the traffic manager ([`Switch::take_over`]).
    fn process_wire_format(&mut self, packet: &PacketIn<'_>, res: &mut BatchOut) {
        use crate::fast::Stopped;
        if self.prog.two_pipelines.is_some() {
            self.process::<false>(packet, res);
            return;
        }
        match crate::fast::process(&self.prog, &mut self.ctx, packet, res) {
            Ok(()) => {}
            Err(Stopped::PortTooWide) => res.push_drop(DropReason::PortTooWide(packet.port)),
            Err(Stopped::Marked) => {
                let reason = self.drop_reason();
                res.push_drop(reason);
            }
            Err(Stopped::Aborted) => self.abort::<false>(res),
            Err(Stopped::HandedOver { aborted }) => self.take_over(packet, aborted, res),
            Err(Stopped::Multicast(group)) => self.multicast(group, res),
        }
        self.hand_out_log(res);
    }

    /// The log lines and digests of extern calls, to `res`.
    fn hand_out_log(&mut self, res: &mut BatchOut) {
        let input = res.input;
        if !self.ctx.log.is_empty() {
            res.log.extend(self.ctx.log.drain(..).map(|line| (input, line)));
        }
        if !self.ctx.digests.is_empty() {
            res.digests.extend(self.ctx.digests.drain(..).map(|d| (input, d)));
        }
    }

    /// The replicas of multicast group `group` on the wire-format executor, as the traffic
    /// manager ([`Switch::traffic_manager`]) makes them, with no allocation: one per `(rid, port)` of the group's nodes in order,
    /// each from the packet as ingress left it, with the replica instance type; an empty group
    /// drops the packet, and past [`MAX_JOBS`] copies the rest are dropped.
    #[inline(never)]
    fn multicast(&mut self, group: u32, res: &mut BatchOut) {
        let instance = u128::from(self.instance(PacketInstance::Replica));
        let members = self.replication.members(group);
        if members.clone().next().is_none() {
            res.push_drop(DropReason::EmptyGroup(group));
            return;
        }
        let more = crate::fast::replicate(&self.prog, &mut self.ctx, members, instance, MAX_JOBS, &mut self.saved, res, |p, c, res, stopped| {
            res.push_drop(match stopped {
                crate::fast::Stopped::Aborted => aborted(c),
                _ => p.drop_reason(c),
            })
        });
        if more {
            res.push_drop(DropReason::TooManyCopies(MAX_JOBS));
        }
    }

    /// The traffic manager takes a packet the wire-format executor handed over after ingress,
    /// and sends its copies through the wire-format executor's egress and deparser (and its
    /// parser and ingress again, for a re-parse). Kept out of line, so the wire-format path it
    /// branches from stays small.
    #[inline(never)]
    #[cold]
    fn take_over(&mut self, packet: &PacketIn<'_>, aborted: bool, res: &mut BatchOut) {
        let mut jobs = std::mem::take(&mut self.jobs);
        self.traffic_manager::<false>(packet.data, packet.port, aborted, 0, res, &mut jobs);
        self.run_jobs::<false>(jobs, res);
    }

    /// One packet of a batch.
    fn process<const T: bool>(&mut self, packet: &PacketIn<'_>, res: &mut BatchOut) {
        // A port the ingress port field cannot hold would silently become another port.
        if self.check_port(packet.port).is_err() {
            self.dropped::<T>(res, DropReason::PortTooWide(packet.port));
            return;
        }
        self.ctx.now_us = packet.now_ns / 1000;
        self.ctx.now_ns = packet.now_ns;
        if self.prog.two_pipelines.is_some() {
            self.two_pipelines::<T>(packet, res);
        } else {
            let mut jobs = std::mem::take(&mut self.jobs);
            self.ingress::<T>(packet.data, packet.port, self.instance(PacketInstance::Normal), None, 0, res, &mut jobs);
            self.run_jobs::<T>(jobs, res);
        }
        let input = res.input;
        if let (true, Some(trace)) = (T, self.ctx.trace.as_mut()) {
            res.trace.extend(trace.take_packet().map(|event| (input, event)));
        }
    }

    /// Runs the copies `jobs` holds (and the ones they make) to completion, then hands the queue
    /// back for reuse and the log lines to `res`.
    fn run_jobs<const T: bool>(&mut self, mut jobs: VecDeque<Job>, res: &mut BatchOut) {
        let mut done = 0;
        while let Some(job) = jobs.pop_front() {
            done += 1;
            if done > MAX_JOBS {
                self.dropped::<T>(res, DropReason::TooManyCopies(MAX_JOBS));
                break;
            }
            self.run_job::<T>(job, res, &mut jobs);
        }
        jobs.clear();
        self.jobs = jobs;
        self.hand_out_log(res);
    }
}

impl PacketIo for Switch {
    fn sends_digests(&self) -> bool {
        true
    }

    fn inject(&mut self, port: u32, data: &[u8], now_ns: u64) -> Injected {
        let mut out = std::mem::take(&mut self.one);
        self.process_batch(&[PacketIn { port, data, now_ns }], &mut out);
        let res = Injected {
            outputs: out.packets.iter().map(|p| OutputPacket { port: p.port, data: out.data(p).to_vec() }).collect(),
            drops: out.drops.iter().map(|d| self.drop_text(&d.reason)).collect(),
            log: out.log.drain(..).map(|(_, line)| line).collect(),
            trace: out.trace.drain(..).map(|(_, event)| event).collect(),
            digests: out.digests.drain(..).map(|(_, digest)| digest).collect(),
        };
        self.one = out;
        res
    }

    fn architecture(&self) -> &str {
        self.prog.arch.name
    }

    fn max_port(&self) -> u32 {
        self.prog.intrinsic.max_port()
    }
}

