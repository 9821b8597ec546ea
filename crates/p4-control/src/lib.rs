//! The control-plane model's vocabulary, shared by everything that drives a dataplane or mirrors
//! one: the control-plane API ([`ControlPlane`]) and the packet interface ([`PacketIo`]) that STF
//! files, BMv2 command files and the hardware target's driver speak, the trace of a packet
//! ([`trace`]), and a table's contents as a target that mirrors tables loads them ([`snapshot`]).
//! It also holds the control-plane model: what a program offers its controller ([`catalog`]), how
//! calls are checked and converted ([`requests`], [`convert`]), and the state they build
//! ([`state::ControlState`]: table entries, multicast and mirroring, register and counter cells,
//! value sets). It holds no dataplane: the STF runner and the hardware target link this crate, not
//! the software switch or its code generator.
//!
//! The control-plane API of a running dataplane. Front ends (STF files, BMv2 CLI command files,
//! later P4Runtime) translate their syntax into these calls; the dataplane interprets key values
//! according to each key's match kind and width, and rejects what does not fit with a reason.

#![forbid(unsafe_code)]

use num_bigint::BigUint;

pub mod catalog;
pub mod convert;
pub mod entries;
pub mod replication;
pub mod requests;
pub mod snapshot;
pub mod state;
pub mod trace;

pub use catalog::Catalog;
pub use snapshot::{EntrySnapshot, Match, Mirror, TableSnapshot, MAX_KEY_FIELD_BITS};
pub use state::ControlState;

/// One key component as written by a control-plane client, before the table's match kinds are known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyValue {
    /// A plain value: exact; full-length LPM; ternary with an all-ones mask; `optional` exact;
    /// range `v..v`.
    Value(BigUint),
    /// `value &&& mask` (ternary/optional; for LPM the mask must be a prefix mask).
    Masked(BigUint, BigUint),
    /// `value / prefix_len` (LPM; for ternary it becomes a prefix mask).
    Prefix(BigUint, u32),
    /// `lo -> hi` / `lo .. hi` (range, inclusive).
    Range(BigUint, BigUint),
    /// Don't care (ternary/optional/range/LPM with length 0).
    Wildcard,
}

/// Key components either by key name (STF: `hdr.ipv4.dstAddr:0x0a000001`; names match exactly or by
/// unique suffix; `$valid$`/`valid` name an `isValid()` key; missing keys are wildcards) or by position
/// (BMv2 CLI: all keys, in table order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Keys {
    Named(Vec<(String, KeyValue)>),
    Positional(Vec<KeyValue>),
}

/// Action arguments, by parameter name (STF) or by position (BMv2 CLI).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionArgs {
    Named(Vec<(String, BigUint)>),
    Positional(Vec<BigUint>),
}

/// Opaque handle of a table entry or multicast node, as the dataplane numbers them (0, 1, 2, ...).
pub type Handle = u64;

/// The members an action selector's group entry chooses among: each an action (its position in
/// the table's action list) and its data.
pub type Members = Vec<(usize, Vec<u128>)>;

/// Why a control-plane call was refused. The message says what was wrong in the user's terms.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    #[error("no {kind} named `{name}`{hint}")]
    NotFound { kind: &'static str, name: String, hint: String },
    #[error("`{name}` is ambiguous: it matches {candidates}")]
    Ambiguous { name: String, candidates: String },
    #[error("{0}")]
    Invalid(String),
    /// A table whose keys need a priority (ternary/range/optional; `kind` names the first such key's
    /// match kind) got an entry without one. Front ends say where their syntax puts the priority;
    /// this displays as `ternary table <table> needs a priority`.
    #[error("{kind} table {table} needs a priority")]
    MissingPriority { table: String, kind: String },
}

/// `Err` when `port` is above `max_port`, the largest number the port fields of architecture
/// `arch` hold (v1model: `standard_metadata.ingress_port`, `egress_spec`, `egress_port`): such a
/// port would be cut to its low bits and the packet would enter or leave on another port.
pub fn check_port_fits(port: u32, max_port: u32, arch: &str) -> Result<(), ControlError> {
    if port <= max_port {
        return Ok(());
    }
    let bits = u32::BITS - max_port.leading_zeros();
    Err(ControlError::Invalid(format!("port {port} does not fit {arch}'s {bits}-bit port fields (0..{max_port})")))
}

/// Meter rate pair: `(rate in units per microsecond, burst size in units)`.
pub type MeterRate = (f64, u32);

/// Every control-plane operation the STF and BMv2-CLI front ends need.
///
/// Names are control-plane names (`MyIngress.ipv4_lpm`); implementations accept a unique suffix
/// (`ipv4_lpm`) too. Priorities follow BMv2's convention: **a smaller number wins**. (STF's "larger
/// wins" is converted by the STF runner.)
pub trait ControlPlane {
    fn table_add(
        &mut self,
        table: &str,
        keys: Keys,
        action: &str,
        args: ActionArgs,
        priority: Option<i64>,
    ) -> Result<Handle, ControlError>;
    fn table_modify(&mut self, table: &str, handle: Handle, action: &str, args: ActionArgs)
        -> Result<(), ControlError>;
    fn table_delete(&mut self, table: &str, handle: Handle) -> Result<(), ControlError>;
    fn table_clear(&mut self, table: &str) -> Result<(), ControlError>;
    fn table_set_default(&mut self, table: &str, action: &str, args: ActionArgs) -> Result<(), ControlError>;
    /// The entries of `table` (one with `support_timeout = true`) that packets hit since the last
    /// call, which forgets them: hit bits, as a switch ASIC keeps them for idle timeouts. The
    /// default: this dataplane records no hits.
    fn take_hits(&mut self, table: &str) -> Result<Vec<Handle>, ControlError> {
        Err(ControlError::Invalid(format!("table {table}: this dataplane does not record which entries are hit")))
    }
    /// Makes entry `handle` of `table` (a table with an action selector) choose, per packet, among
    /// `members` (each an action and its arguments; at least one): member `h mod n` of `n`, `h`
    /// the selector's hash of the selector keys' values back to back. `table_modify` makes it a
    /// plain entry again. The default: this dataplane cannot.
    fn table_select(&mut self, table: &str, handle: Handle, members: Vec<(String, ActionArgs)>) -> Result<(), ControlError> {
        let _ = (handle, members);
        Err(ControlError::Invalid(format!("table {table}: this dataplane cannot select among an action selector's members")))
    }

    fn mc_mgrp_create(&mut self, group: u32) -> Result<(), ControlError>;
    fn mc_mgrp_destroy(&mut self, group: u32) -> Result<(), ControlError>;
    /// Returns the node handle (0, 1, 2... in creation order).
    fn mc_node_create(&mut self, rid: u32, ports: &[u32]) -> Result<Handle, ControlError>;
    fn mc_node_update(&mut self, node: Handle, ports: &[u32]) -> Result<(), ControlError>;
    fn mc_node_associate(&mut self, group: u32, node: Handle) -> Result<(), ControlError>;
    fn mc_node_dissociate(&mut self, group: u32, node: Handle) -> Result<(), ControlError>;
    fn mc_node_destroy(&mut self, node: Handle) -> Result<(), ControlError>;

    /// Clone session to a port.
    fn mirroring_add(&mut self, session: u32, port: u32) -> Result<(), ControlError>;
    /// Clone session to a multicast group.
    fn mirroring_add_mc(&mut self, session: u32, group: u32) -> Result<(), ControlError>;
    fn mirroring_delete(&mut self, session: u32) -> Result<(), ControlError>;
    /// Cut clone session `session`'s copies to `bytes` (`None`: whole), as P4Runtime's
    /// `packet_length_bytes` asks. The default: this dataplane cannot.
    fn mirroring_truncate(&mut self, session: u32, bytes: Option<u32>) -> Result<(), ControlError> {
        match bytes {
            None => Ok(()),
            Some(_) => Err(ControlError::Invalid(format!("clone session {session}: this dataplane cannot truncate copies"))),
        }
    }

    fn register_read(&mut self, register: &str, index: u64) -> Result<BigUint, ControlError>;
    fn register_write(&mut self, register: &str, index: u64, value: BigUint) -> Result<(), ControlError>;
    fn register_reset(&mut self, register: &str) -> Result<(), ControlError>;

    /// `(packets, bytes)`; for a direct counter, `index` is the entry handle.
    fn counter_read(&mut self, counter: &str, index: u64) -> Result<(u64, u64), ControlError>;
    fn counter_write(&mut self, counter: &str, index: u64, packets: u64, bytes: u64) -> Result<(), ControlError>;
    fn counter_reset(&mut self, counter: &str) -> Result<(), ControlError>;

    /// `index == None` sets every cell (`meter_array_set_rates`). Rates: `[committed, peak]`.
    fn meter_set_rates(&mut self, meter: &str, index: Option<u64>, rates: &[MeterRate]) -> Result<(), ControlError>;

    /// Add a member to a parser value set.
    fn value_set_add(&mut self, value_set: &str, value: KeyValue) -> Result<(), ControlError>;

    /// Remove every member of a parser value set. The default: this dataplane cannot.
    fn value_set_clear(&mut self, value_set: &str) -> Result<(), ControlError> {
        Err(ControlError::Invalid(format!("value set {value_set}: this dataplane cannot remove members")))
    }

    /// What the program offers its control plane (tables, keys, actions), for commands that list
    /// it (`show_tables`); `None`: this dataplane cannot say.
    fn control_catalog(&self) -> Option<&Catalog> {
        None
    }

    /// The contents of table `table` (by [`p4_ir::TableId`] index) in precedence order, for
    /// commands that read it back (`table_dump`); `None`: no such table, or this dataplane cannot
    /// say.
    fn table_contents(&self, table: usize) -> Option<TableSnapshot> {
        let _ = table;
        None
    }
}

/// A packet leaving the switch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputPacket {
    pub port: u32,
    pub data: Vec<u8>,
}

/// Everything that came of injecting one packet (including clones, resubmits, recirculations and
/// multicast copies it caused).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Injected {
    pub outputs: Vec<OutputPacket>,
    /// One line per dropped copy, saying why (e.g. `mark_to_drop in MyIngress`, `parser error
    /// PacketTooShort`, `egress_spec 511`).
    pub drops: Vec<String>,
    /// `log_msg` output and digests, in order, for the user to see.
    pub log: Vec<String>,
    /// What happened, step by step (a traced dataplane only).
    pub trace: Vec<crate::trace::Event>,
    /// The digests sent, in order, for a control plane to deliver (P4Runtime's `DigestList`).
    pub digests: Vec<Digest>,
}

/// A digest a packet sent (v1model's `digest<T>(receiver, data)`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Digest {
    /// The control-plane id of its data type `T` ([`p4_ir::layout::Target::Digest`]); 0 for data
    /// of a type without one (a tuple).
    pub id: u32,
    pub receiver: u128,
    /// The data's values back to back as `T` declares them (a header's fields without its
    /// validity), most significant bit first; the last byte is padded with zero bits.
    pub data: Vec<u8>,
    /// How many bits of `data` are values.
    pub bits: usize,
    /// The current length in bits of each varbit value in `data`, in order (a reader needs them to
    /// find the values after one).
    pub varbit_lengths: Vec<u32>,
}

/// Pushing packets through a running dataplane.
pub trait PacketIo {
    /// Process one packet arriving on `port` at time `now_ns` (nanoseconds since start; used for
    /// `ingress_global_timestamp` and meters) to completion.
    ///
    /// A `port` above [`PacketIo::max_port`] is not processed: the packet is dropped with the reason
    /// [`PacketIo::check_port`] gives (callers should check ports up front and report bad input).
    fn inject(&mut self, port: u32, data: &[u8], now_ns: u64) -> Injected;

    /// The largest port number the program's port fields hold (v1model: 511, the largest value of
    /// the 9-bit `standard_metadata.ingress_port` as the program declares it). The default, for
    /// dataplanes without port fields, accepts every port.
    fn max_port(&self) -> u32 {
        u32::MAX
    }

    /// Whether the dataplane hands the program's digests over ([`Injected::digests`]); the
    /// default: it does not.
    fn sends_digests(&self) -> bool {
        false
    }

    /// The name of the architecture the dataplane runs, for messages (the software switch: the
    /// program's architecture's, e.g. `v1model`).
    fn architecture(&self) -> &str {
        "the dataplane"
    }

    /// `Err` saying why `port` cannot be used (e.g. `port 600 does not fit v1model's 9-bit port
    /// fields (0..511)`).
    fn check_port(&self, port: u32) -> Result<(), ControlError> {
        check_port_fits(port, self.max_port(), self.architecture())
    }
}
