//! The reference interpreter: a plain tree-walking interpreter of the **lowered** IR
//! (`p4_midend::lower` of a `p4_sema` program, what the CLI runs), written to be obviously right
//! rather than fast. It is the oracle the software dataplane, the mid-end and the hardware target
//! are checked against, so it shares no execution code with any of them: values of any width are
//! big integers ([`value::Value`]), statements and expressions are walked as the IR gives them,
//! hashes and checksums are computed bit by bit ([`hash`]).
//!
//! What it takes from elsewhere, on purpose: the architecture's facts from [`p4_arch`] (which
//! block plays which role, intrinsic metadata fields by role, the drop marker, extern operations,
//! hash algorithm names, instance-type numbers); the control-plane model from [`p4_control`]
//! ([`p4_control::ControlState`] holds entries, defaults, registers, counters, multicast groups,
//! clone sessions and value sets, and decides which entry wins).
//!
//! Coverage: the v1model pipeline (parser, checksum verification, ingress, traffic manager,
//! egress, checksum update, deparser), header stacks, unions, varbits, `for` loops, sub-parser and
//! sub-control applications, tables with every match kind, direct counters and meters, registers,
//! counters, meters, hashes, checksums, random numbers, clones (ingress and egress), resubmit,
//! recirculate, multicast, truncate, digests (the log line and the `p4_control::Digest`), `log_msg`, `assert`/`assume`. Not covered: PSA (no
//! back end runs it). Action profile members are plain entries; an action selector's group entry
//! (`table_select`) runs the member its selector keys' hash picks.
//!
//! Behaviour choices, the ones the software switch documents (crate `p4-dataplane`), so that
//! outputs compare:
//! - reading a field of an invalid header gives 0; writes to it are kept but never emitted;
//!   `setInvalid` clears the fields; out-of-range stack indexes read 0 and ignore writes;
//! - a parser error does not drop: the packet enters ingress with `parser_error` set; an explicit
//!   `transition reject` leaves error code 0; more than [`MAX_PARSER_STEPS`] states end in
//!   `ParserTimeout`; a varbit size that is not whole bytes rejects with
//!   `ParserInvalidArgument` before the `HeaderTooShort` check; a `lookahead` past the end of
//!   the packet rejects with `PacketTooShort` at once, as the specification's
//!   `ParserModel.verify` does (the software switch finishes the state first: where the two
//!   differ, this is the specification's behaviour);
//! - instance types, drop-line and log-line texts as [`p4_control::Injected`] documents them on
//!   the switch (`mark_to_drop in <control>`, `egress_spec 511`, ` (parser error <name>)`,
//!   `assert failed in <block>`, `multicast group <g> has no members`, `digest <r>: 0x..`);
//! - a packet may enter the pipeline again [`p4_arch::MAX_LOOPS`] times; one packet makes at most
//!   [`MAX_COPIES`] copies; a loop stops after [`MAX_LOOP_ITERATIONS`] iterations (the copy is
//!   dropped, as by a failed assert);
//! - `random` and `HashAlgorithm.random` draw from the same fixed-seed generator as the switch
//!   (splitmix64 from `0x5eed`), so runs are reproducible and comparable;
//! - const entries without a priority rank by position (the catalog gives them their priority).
#![forbid(unsafe_code)]

mod block;
mod expr;
mod externs;
pub mod hash;
mod meter;
mod parser;
mod place;
mod tables;
mod traffic;
pub mod value;

use std::collections::BTreeMap;
use std::sync::Arc;

use num_bigint::BigUint;
use p4_arch::{Architecture, Binding, MetaRole, SharedKind};
use p4_control::{
    ActionArgs, Catalog, ControlError, ControlPlane, ControlState, Handle, Injected, KeyValue, Keys, MeterRate,
    PacketIo,
};
use p4_ir::{BlockRef, Program, Type, TypeDef, VarId};

use value::Value;

/// Parser states one packet may pass through before the parser gives up (`ParserTimeout`).
pub const MAX_PARSER_STEPS: usize = 4096;
/// Iterations one run of a loop may take before the copy is dropped.
pub const MAX_LOOP_ITERATIONS: u64 = 1 << 20;
/// Copies one injected packet may make (clones, replicas, re-entries) before the rest are dropped.
pub const MAX_COPIES: usize = 4096;

/// A block's variable as a map key: (is a parser, block index, variable index).
pub(crate) type AliasKey = (bool, u32, u32);

pub(crate) fn alias_key(b: &BlockRef, var: VarId) -> AliasKey {
    match b {
        BlockRef::Parser(p) => (true, p.0, var.0),
        BlockRef::Control(c) => (false, c.0, var.0),
    }
}

/// Why the walk of a statement list stopped before its end.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Flow {
    Exit,
    Return,
    Break,
    Continue,
    /// The parser rejects with this error code.
    Reject(u32),
    /// The copy is dropped (a failed `assert`, a loop that did not end): the reason.
    Abort(String),
}

/// The result of running something: `Err` when control leaves it early.
pub(crate) type Run<T = ()> = Result<T, Flow>;

/// Which fields a clone, resubmit or recirculate carries to the new packet: paths into the
/// architecture's shared parameters (by position in [`Architecture::shared`]).
pub(crate) type Preserve = Vec<(usize, Vec<place::Step>)>;

/// What the program asked the traffic manager for while a packet ran.
#[derive(Clone, Debug, Default)]
pub(crate) struct Effects {
    pub clone: Option<(u32, Preserve)>,
    pub resubmit: Option<Preserve>,
    pub recirculate: Option<Preserve>,
    pub truncate: Option<u32>,
    /// The control whose drop call marked the packet last (for the drop line).
    pub marked_in: Option<usize>,
}

/// Everything one copy of a packet carries through the pipeline: every block's variables, the
/// architecture's shared parameters, the packet bytes and how far the parser read.
#[derive(Clone, Debug)]
pub(crate) struct PacketState {
    pub parser_frames: Vec<Vec<Value>>,
    pub control_frames: Vec<Vec<Value>>,
    /// By position in [`Architecture::shared`]: headers, user metadata, intrinsic metadata.
    pub shared: Vec<Value>,
    pub data: Vec<u8>,
    /// Bits the parser has consumed.
    pub cursor: usize,
}

/// The reference interpreter of one program with its control-plane state.
pub struct Interpreter {
    pub(crate) program: Arc<Program>,
    pub(crate) arch: &'static Architecture,
    pub(crate) binding: Binding,
    pub(crate) layouts: p4_ir::layout::Layouts,
    pub(crate) control: ControlState,
    /// Block parameters that are one of the architecture's shared parameters: the shared index.
    pub(crate) aliases: BTreeMap<AliasKey, usize>,
    /// Meter cells by (extern index, cell index or entry handle), and rates set for whole meters.
    pub(crate) meters: meter::Meters,
    /// The colour each direct meter computed when its table last ran, by extern index.
    pub(crate) direct_colours: BTreeMap<usize, u128>,
    pub(crate) rng: u64,
    pub(crate) now_us: u64,
    /// The packet's arrival time in nanoseconds (`now_us` is its microseconds).
    pub(crate) now_ns: u64,
    pub(crate) state: PacketState,
    pub(crate) fx: Effects,
    /// Bits the deparser emitted.
    pub(crate) emitted: Vec<bool>,
    pub(crate) log: Vec<String>,
    /// The digests the packet sent, in order.
    pub(crate) digests: Vec<p4_control::Digest>,
    /// The return-value slots of the functions running, innermost last.
    pub(crate) returns: Vec<Option<(BlockRef, VarId)>>,
}

impl Interpreter {
    /// An interpreter for `program` (lowered or not), with the program's own table entries and
    /// defaults installed. `Err` says why it cannot run it.
    pub fn new(program: Arc<Program>) -> Result<Interpreter, String> {
        let binding = p4_arch::bind(&program)?;
        let arch = binding.arch;
        let layouts = p4_ir::layout::Layouts::of(&program);
        let catalog = Catalog::of(&program, &layouts)?;
        let control = ControlState::new(catalog)?;
        let mut aliases = BTreeMap::new();
        for (bi, block) in binding.blocks.iter().enumerate() {
            let params = match block {
                BlockRef::Parser(p) => &program.parsers[p.index()].block.params,
                BlockRef::Control(c) => &program.controls[c.index()].block.params,
            };
            for (si, shared) in arch.shared.iter().enumerate() {
                if let Some(Some(pos)) = shared.positions.get(bi) {
                    if let Some(var) = params.get(*pos) {
                        aliases.insert(alias_key(block, *var), si);
                    }
                }
            }
        }
        let state = PacketState {
            parser_frames: Vec::new(),
            control_frames: Vec::new(),
            shared: Vec::new(),
            data: Vec::new(),
            cursor: 0,
        };
        let mut it = Interpreter {
            program,
            arch,
            binding,
            layouts,
            control,
            aliases,
            meters: Default::default(),
            direct_colours: BTreeMap::new(),
            rng: 0x5eed,
            now_us: 0,
            now_ns: 0,
            state,
            fx: Effects::default(),
            emitted: Vec::new(),
            log: Vec::new(),
            digests: Vec::new(),
            returns: Vec::new(),
        };
        it.state = it.fresh_state(&[]);
        Ok(it)
    }

    /// Lets tables take entries beyond their `size`.
    pub fn ignore_table_sizes(&mut self) {
        self.control.ignore_table_sizes();
    }

    /// The control-plane state (entries, groups, sessions, registers, counters).
    pub fn control_state(&self) -> &ControlState {
        &self.control
    }

    /// A packet state with every variable at its initial value and `data` as the packet.
    pub(crate) fn fresh_state(&self, data: &[u8]) -> PacketState {
        let p = &self.program;
        let frame = |vars: &[p4_ir::Var]| vars.iter().map(|v| value::default_of(p, &v.ty)).collect::<Vec<_>>();
        PacketState {
            parser_frames: p.parsers.iter().map(|x| frame(&x.block.vars)).collect(),
            control_frames: p.controls.iter().map(|x| frame(&x.block.vars)).collect(),
            shared: (0..self.arch.shared.len()).map(|si| self.shared_default(si)).collect(),
            data: data.to_vec(),
            cursor: 0,
        }
    }

    /// The type of shared parameter `si`, from the first block that has it.
    pub(crate) fn shared_type(&self, si: usize) -> Option<Type> {
        let ((is_parser, index, var), _) = self.aliases.iter().find(|(_, s)| **s == si)?;
        let b = match is_parser {
            true => BlockRef::Parser(p4_ir::ParserId(*index)),
            false => BlockRef::Control(p4_ir::ControlId(*index)),
        };
        Some(self.var_decl(&b, VarId(*var)).ty.clone())
    }

    pub(crate) fn shared_default(&self, si: usize) -> Value {
        self.shared_type(si).map_or(Value::Opaque, |t| value::default_of(&self.program, &t))
    }

    pub(crate) fn shared_index(&self, kind: SharedKind) -> Option<usize> {
        self.arch.shared.iter().position(|s| s.kind == kind)
    }

    pub(crate) fn var_decl(&self, b: &BlockRef, var: VarId) -> &p4_ir::Var {
        &self.block_of(b).vars[var.index()]
    }

    pub(crate) fn block_of(&self, b: &BlockRef) -> &p4_ir::Block {
        match b {
            BlockRef::Parser(p) => &self.program.parsers[p.index()].block,
            BlockRef::Control(c) => &self.program.controls[c.index()].block,
        }
    }

    /// The storage of variable `var` of block `b` (a shared parameter's is the shared value).
    pub(crate) fn var_mut(&mut self, b: &BlockRef, var: VarId) -> &mut Value {
        if let Some(si) = self.aliases.get(&alias_key(b, var)) {
            return &mut self.state.shared[*si];
        }
        match b {
            BlockRef::Parser(p) => &mut self.state.parser_frames[p.index()][var.index()],
            BlockRef::Control(c) => &mut self.state.control_frames[c.index()][var.index()],
        }
    }

    pub(crate) fn var_ref(&self, b: &BlockRef, var: VarId) -> &Value {
        if let Some(si) = self.aliases.get(&alias_key(b, var)) {
            return &self.state.shared[*si];
        }
        match b {
            BlockRef::Parser(p) => &self.state.parser_frames[p.index()][var.index()],
            BlockRef::Control(c) => &self.state.control_frames[c.index()][var.index()],
        }
    }

    // ------------------------------------------------------------ intrinsic metadata by role

    /// The position of the intrinsic field playing `role` in the intrinsic struct.
    fn intrinsic_field(&self, role: MetaRole) -> Option<(usize, usize, u32)> {
        let si = self.shared_index(SharedKind::Intrinsic)?;
        let name = self.arch.field(role)?;
        let ty = self.program.find_type(self.arch.struct_of(role))?;
        let TypeDef::Struct { fields, .. } = self.program.type_def(ty) else { return None };
        let fi = fields.iter().position(|f| f.name == name)?;
        let width = p4_ir::layout::scalar_width(&self.program, &fields[fi].ty);
        Some((si, fi, width))
    }

    /// The intrinsic field of `role` (`None`: the program lacks it).
    pub(crate) fn meta_get(&self, role: MetaRole) -> Option<u128> {
        let (si, fi, _) = self.intrinsic_field(role)?;
        match &self.state.shared[si] {
            Value::Struct(fields) => fields.get(fi).map(Value::to_u128),
            _ => None,
        }
    }

    /// Sets the intrinsic field of `role` (cut to its width); nothing when the program lacks it.
    pub(crate) fn meta_set(&mut self, role: MetaRole, v: u128) {
        let Some((si, fi, _)) = self.intrinsic_field(role) else { return };
        let p = self.program.clone();
        let ty = self.intrinsic_type_of(role);
        if let Value::Struct(fields) = &mut self.state.shared[si] {
            if let Some(f) = fields.get_mut(fi) {
                *f = value::convert(&p, Value::Int(v.into()), &ty);
            }
        }
    }

    fn intrinsic_type_of(&self, role: MetaRole) -> Type {
        let name = self.arch.field(role).unwrap_or_default();
        let t = self.program.find_type(self.arch.struct_of(role));
        t.and_then(|t| self.program.type_def(t).fields().iter().find(|f| f.name == name).map(|f| f.ty.clone()))
            .unwrap_or(Type::bit(32))
    }

    /// The direct meters (extern indexes) table `ti` keeps per entry.
    fn direct_meters(&self, ti: usize) -> Vec<usize> {
        let catalog = self.control.catalog();
        catalog.tables[ti]
            .per_entry
            .iter()
            .copied()
            .filter(|e| catalog.externs[*e].state == p4_arch::StateKind::DirectMeter)
            .collect()
    }

    /// The drop marker's value: all ones in the marker field's width.
    pub(crate) fn drop_value(&self) -> u128 {
        let p4_arch::DropMarker::AllOnes(role) = self.arch.drop;
        let w = self.intrinsic_field(role).map_or(0, |f| f.2).min(127);
        (1u128 << w) - 1
    }

    /// The next number of the fixed-seed generator (splitmix64, as the software switch draws).
    pub(crate) fn next_random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn error_code(&self, name: &str) -> u32 {
        self.program.error_code(name).unwrap_or(0)
    }
}

impl ControlPlane for Interpreter {
    fn table_add(
        &mut self,
        table: &str,
        keys: Keys,
        action: &str,
        args: ActionArgs,
        priority: Option<i64>,
    ) -> Result<Handle, ControlError> {
        self.control.table_add(table, keys, action, args, priority)
    }
    fn table_modify(
        &mut self,
        table: &str,
        handle: Handle,
        action: &str,
        args: ActionArgs,
    ) -> Result<(), ControlError> {
        self.control.table_modify(table, handle, action, args)
    }
    fn table_select(&mut self, table: &str, handle: Handle, members: Vec<(String, ActionArgs)>) -> Result<(), ControlError> {
        self.control.table_select(table, handle, members)
    }
    fn take_hits(&mut self, table: &str) -> Result<Vec<Handle>, ControlError> {
        self.control.take_hits(table)
    }
    fn table_delete(&mut self, table: &str, handle: Handle) -> Result<(), ControlError> {
        self.control.table_delete(table, handle)?;
        // A direct meter lives and dies with its entry (a later entry may get the handle again).
        let ti = self.control.catalog().table_index(table)?;
        for id in self.direct_meters(ti) {
            self.meters.forget(id, Some(handle));
        }
        Ok(())
    }
    fn table_clear(&mut self, table: &str) -> Result<(), ControlError> {
        self.control.table_clear(table)?;
        let ti = self.control.catalog().table_index(table)?;
        for id in self.direct_meters(ti) {
            self.meters.forget(id, None);
        }
        Ok(())
    }
    fn table_set_default(&mut self, table: &str, action: &str, args: ActionArgs) -> Result<(), ControlError> {
        self.control.table_set_default(table, action, args)
    }
    fn mc_mgrp_create(&mut self, group: u32) -> Result<(), ControlError> {
        self.control.mc_mgrp_create(group)
    }
    fn mc_mgrp_destroy(&mut self, group: u32) -> Result<(), ControlError> {
        self.control.mc_mgrp_destroy(group)
    }
    fn mc_node_create(&mut self, rid: u32, ports: &[u32]) -> Result<Handle, ControlError> {
        self.control.mc_node_create(rid, ports)
    }
    fn mc_node_update(&mut self, node: Handle, ports: &[u32]) -> Result<(), ControlError> {
        self.control.mc_node_update(node, ports)
    }
    fn mc_node_associate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        self.control.mc_node_associate(group, node)
    }
    fn mc_node_dissociate(&mut self, group: u32, node: Handle) -> Result<(), ControlError> {
        self.control.mc_node_dissociate(group, node)
    }
    fn mc_node_destroy(&mut self, node: Handle) -> Result<(), ControlError> {
        self.control.mc_node_destroy(node)
    }
    fn mirroring_add(&mut self, session: u32, port: u32) -> Result<(), ControlError> {
        self.control.mirroring_add(session, port)
    }
    fn mirroring_add_mc(&mut self, session: u32, group: u32) -> Result<(), ControlError> {
        self.control.mirroring_add_mc(session, group)
    }
    fn mirroring_delete(&mut self, session: u32) -> Result<(), ControlError> {
        self.control.mirroring_delete(session)
    }
    fn mirroring_truncate(&mut self, session: u32, bytes: Option<u32>) -> Result<(), ControlError> {
        self.control.mirroring_truncate(session, bytes)
    }
    fn register_read(&mut self, register: &str, index: u64) -> Result<BigUint, ControlError> {
        self.control.register_read(register, index)
    }
    fn register_write(&mut self, register: &str, index: u64, value: BigUint) -> Result<(), ControlError> {
        self.control.register_write(register, index, value)
    }
    fn register_reset(&mut self, register: &str) -> Result<(), ControlError> {
        self.control.register_reset(register)
    }
    fn counter_read(&mut self, counter: &str, index: u64) -> Result<(u64, u64), ControlError> {
        self.control.counter_read(counter, index)
    }
    fn counter_write(&mut self, counter: &str, index: u64, packets: u64, bytes: u64) -> Result<(), ControlError> {
        self.control.counter_write(counter, index, packets, bytes)
    }
    fn counter_reset(&mut self, counter: &str) -> Result<(), ControlError> {
        self.control.counter_reset(counter)
    }
    /// Checked by the control-plane model; the meter cells (which the model does not keep) are
    /// configured here.
    fn meter_set_rates(&mut self, meter: &str, index: Option<u64>, rates: &[MeterRate]) -> Result<(), ControlError> {
        self.control.meter_set_rates(meter, index, rates)?;
        let now = self.now_us as f64;
        match self.control.catalog().meter_cells(meter)? {
            p4_control::requests::Cells::Indexed(id) => self.meters.set_rates(id, index, rates[0], rates[1], now),
            // A table's direct meter: one cell per entry; without an index, every entry there is now.
            p4_control::requests::Cells::PerEntry(ti) => {
                let handles: Vec<u64> = match index {
                    Some(h) => vec![h],
                    None => self
                        .control
                        .table_snapshot(ti)
                        .map(|t| t.entries.iter().map(|e| e.handle).collect())
                        .unwrap_or_default(),
                };
                for id in self.direct_meters(ti) {
                    for h in &handles {
                        self.meters.set_rates(id, Some(*h), rates[0], rates[1], now);
                    }
                }
            }
        }
        Ok(())
    }
    fn value_set_add(&mut self, value_set: &str, value: KeyValue) -> Result<(), ControlError> {
        self.control.value_set_add(value_set, value)
    }
    fn value_set_clear(&mut self, value_set: &str) -> Result<(), ControlError> {
        self.control.value_set_clear(value_set)
    }
}

impl PacketIo for Interpreter {
    fn inject(&mut self, port: u32, data: &[u8], now_ns: u64) -> Injected {
        self.process(port, data, now_ns)
    }

    fn sends_digests(&self) -> bool {
        true
    }

    fn max_port(&self) -> u32 {
        self.control.max_port()
    }

    fn architecture(&self) -> &str {
        self.arch.name
    }
}

#[cfg(test)]
mod tests;
