//! Architecture descriptions: what a target architecture (v1model, later PSA and the seed NIC
//! architectures) fixes around a P4 program, written down as data.
//!
//! Where the description lives, and why: the def-use analysis of this crate ([`crate::cfg`]) must
//! know what an extern method does to its instance's state, and the analysis is built from a bare
//! [`Program`] by callers that know nothing of architectures. So the *types* and the one
//! description of each architecture live here, in the IR crate ([`v1model`] is the only place
//! v1model's block order, intrinsic metadata names and extern effects are written), and the
//! `p4-arch` crate is the architecture layer's front door for back ends: it re-exports these
//! types, finds a program's architecture ([`of_package`]) and binds it to the program (block
//! instances by role, port width). [`psa`] is the second description, a sibling of [`v1model`]
//! with another [`TrafficManager`]; [`op4t`] the seed's timestamping NIC.
//!
//! Invariants: every `&'static str` here is a name as the architecture's P4 include file spells it;
//! [`Architecture::blocks`] is in the order of the package's parameters (nested packages
//! depth-first); each [`SharedParam::positions`] has one entry per block.

pub mod op4t;
pub mod psa;
pub mod v1model;

use crate::layout::ObjectKind;
use crate::{Direction, Program, Type, TypeDef};

/// Every architecture p4forge knows, looked up by package type name.
pub static ALL: &[&Architecture] = &[&v1model::V1MODEL, &psa::PSA, &op4t::OP4T];

/// The architecture whose package type is `package` (e.g. `V1Switch`).
pub fn of_package(package: &str) -> Option<&'static Architecture> {
    ALL.iter().copied().find(|a| a.package == package)
}

/// The architecture of `program`, by its main package's type name.
pub fn of_program(program: &Program) -> Option<&'static Architecture> {
    of_package(&program.main.type_name)
}

/// How many times one packet may enter the pipeline again (resubmitted or recirculated) before
/// the traffic manager drops it: the same bound on every target, so that they drop the same
/// packets.
pub const MAX_LOOPS: u32 = 16;

/// One architecture, described once.
#[derive(Clone, Debug, PartialEq)]
pub struct Architecture {
    /// Short name, e.g. `v1model`.
    pub name: &'static str,
    /// The package type the program instantiates as `main`, e.g. `V1Switch`.
    pub package: &'static str,
    /// How many arguments the package takes (blocks, nested packages and package-level externs).
    pub args: usize,
    /// The package's blocks in parameter order: what each one is for, whether it is a parser or
    /// a control, and where it sits among the (nested) package arguments.
    pub blocks: &'static [BlockRole],
    /// Block parameters that are one storage across blocks (v1model: headers, user metadata and
    /// standard metadata are passed through every block and live once per packet).
    pub shared: &'static [SharedParam],
    /// The struct type of the intrinsic metadata (v1model: `standard_metadata_t`); with
    /// [`Architecture::intrinsic_structs`], the struct of each role's field.
    pub intrinsic_type: &'static str,
    /// Intrinsic metadata fields by role: the field name that plays each role (a field of
    /// `intrinsic_type` unless `intrinsic_structs` names another struct for the role).
    pub intrinsic: &'static [(MetaRole, &'static str)],
    /// Roles whose field is in other intrinsic structs than `intrinsic_type`: every struct listed
    /// for a role holds a field of that role's name, the first listed is its home
    /// ([`Architecture::struct_of`]). PSA splits its metadata over input and output structs per
    /// block, and several of them hold the same role (the packet path is in four); v1model: none.
    pub intrinsic_structs: &'static [(MetaRole, &'static str)],
    /// How a packet is marked to be dropped.
    pub drop: DropMarker,
    /// Extern object types: signatures, the state an instance keeps, and each method's effect on it.
    pub externs: &'static [ExternSig],
    /// Extern functions: their intrinsic-metadata writes and architecture side effects.
    pub functions: &'static [FunctionSig],
    /// Hash algorithms by the member name of the architecture's algorithm enum.
    pub hash_algorithms: &'static [(&'static str, HashAlgorithm)],
    /// The enum member that makes a counter or meter count bytes rather than packets (the
    /// constructor argument at [`ExternSig::unit_arg`]).
    pub unit_bytes: &'static str,
    /// The value the [`MetaRole::InstanceType`] field holds for each kind of packet instance.
    pub instance_types: &'static [(PacketInstance, u32)],
    /// Where instance types are members of an enum rather than numbers (PSA's
    /// `PSA_PacketPath_t`): the enum's type name and the member of each kind of instance; the
    /// value is the member's as the program declares the enum.
    pub instance_enum: Option<(&'static str, &'static [(PacketInstance, &'static str)])>,
    /// What happens between and around the blocks.
    pub traffic_manager: TrafficManager,
    /// Where meter colours are members of an enum rather than numbers (PSA's
    /// `PSA_MeterColor_t`): the enum's type name and its green, yellow and red members; `None`:
    /// 0 green, 1 yellow, 2 red (v1model).
    pub meter_colours: Option<(&'static str, [&'static str; 3])>,
    /// The table properties naming a table's direct counter, direct meter and implementation
    /// (action profile or selector), by the architecture's names for them.
    pub table_properties: &'static [(&'static str, TableProperty)],
}

/// What a table property of the architecture's means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableProperty {
    /// Names the table's direct counter.
    DirectCounter,
    /// Names the table's direct meter.
    DirectMeter,
    /// Names an action profile or action selector.
    Implementation,
    /// Asks the dataplane to record which entries packets hit, for idle timeouts: `true`
    /// (v1model's `support_timeout`), or the enum member `notify` (PSA's `psa_idle_timeout =
    /// PSA_IdleTimeout_t.NOTIFY_CONTROL`). The IR keeps it as `support_timeout`
    /// ([`crate::Table::supports_timeout`]).
    IdleTimeout { notify: Option<&'static str> },
}

/// What table property `name` means in any architecture p4forge knows (the front end reads
/// properties before it knows the program's architecture).
pub fn table_property(name: &str) -> Option<TableProperty> {
    ALL.iter().flat_map(|a| a.table_properties).find(|(n, _)| *n == name).map(|(_, p)| *p)
}

/// The shape of the pipeline around the blocks, and what the traffic manager decides from the
/// intrinsic metadata after each part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrafficManager {
    /// BMv2 simple_switch (v1model): one parser; the controls up to [`Role::Ingress`]; clones,
    /// resubmission, multicast, drop or one copy; the controls up to [`Role::Egress`]; clones,
    /// drop, recirculation; the remaining controls write the packet out. Headers and metadata are
    /// one storage throughout.
    SimpleSwitch,
    /// Two pipelines of parser, control and deparser (PSA): after ingress, a clone (of the
    /// deparsed packet) if asked, then drop (the default), resubmission (of the packet as it
    /// arrived), multicast or one copy to a port; each copy is parsed again by the egress parser;
    /// after egress, a clone if asked, then drop, recirculation (a copy sent to `loop_port` goes
    /// back into the first pipeline) or out of its port. What one pipeline hands the next passes
    /// through the [`SharedKind::Handoff`] parameters only.
    TwoPipelines { loop_port: u32 },
}

/// Why a packet instance exists (what the instance-type metadata tells the program).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketInstance {
    Normal,
    IngressClone,
    EgressClone,
    Coalesced,
    Recirculated,
    Replica,
    Resubmitted,
    /// The one copy ingress sent to one port, where the architecture tells it from a multicast
    /// replica (PSA's `NORMAL_UNICAST`; v1model: a normal packet).
    Unicast,
}

/// A hash or checksum algorithm as targets compute it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashAlgorithm {
    Crc32,
    Crc32Custom,
    Crc16,
    Crc16Custom,
    Random,
    Identity,
    Csum16,
    Xor16,
}

/// What a block of the package does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The parser a packet enters first (PSA: the ingress parser).
    Parser,
    VerifyChecksum,
    Ingress,
    /// A deparser before the traffic manager (PSA's ingress deparser).
    IngressDeparser,
    /// A parser after the traffic manager (PSA's egress parser).
    EgressParser,
    Egress,
    ComputeChecksum,
    /// The deparser that writes the packet out (PSA: the egress deparser).
    Deparser,
}

/// Whether the package expects a parser or a control in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Parser,
    Control,
}

/// One position of the package.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRole {
    pub role: Role,
    pub kind: BlockKind,
    /// Argument positions from the main package down to the block (v1model's ingress: `[2]`;
    /// PSA's ingress: `[0, 1]`, the second argument of the `IngressPipeline` first argument).
    pub at: &'static [usize],
}

/// A parameter that is one storage in every block that has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedParam {
    /// What it holds, for diagnostics (`headers`, `metadata`, `standard_metadata`).
    pub name: &'static str,
    /// For each block of [`Architecture::blocks`], the position of this parameter among the
    /// block's parameters (`None`: the block does not have it).
    pub positions: &'static [Option<usize>],
    /// What the parameter holds.
    pub kind: SharedKind,
}

/// What a shared parameter holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedKind {
    /// The program's headers.
    Headers,
    /// The program's own metadata struct.
    UserMetadata,
    /// The intrinsic metadata ([`Architecture::intrinsic_type`]).
    Intrinsic,
    /// What a deparser hands a later parser (PSA's normal, clone, resubmit and recirculate
    /// metadata): written by the deparser's `out` parameter, read by the parser's `in` one.
    Handoff,
}

/// A role an intrinsic metadata field plays; the architecture maps each to its field name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MetaRole {
    /// The port the packet arrived on; its width is the architecture's port width.
    IngressPort,
    /// The output port chosen by ingress (also the drop marker in v1model).
    EgressSpec,
    /// The port egress runs for.
    EgressPort,
    /// Normal, clone, resubmit, recirculate or replica.
    InstanceType,
    PacketLength,
    EnqTimestamp,
    EnqQdepth,
    DeqTimedelta,
    DeqQdepth,
    IngressTimestamp,
    EgressTimestamp,
    MulticastGroup,
    /// Replication id of a multicast copy.
    EgressRid,
    ChecksumError,
    ParserError,
    Priority,
    /// A flag asking for the packet to be dropped (PSA's `drop`).
    Drop,
    /// A flag asking for a clone, and the clone session (PSA's `clone`, `clone_session_id`).
    Clone,
    CloneSession,
    /// A flag asking for the packet to be resubmitted (PSA's `resubmit`).
    Resubmit,
    ClassOfService,
    /// A flag asking for the packet's transmit time to be written into it as it leaves its port
    /// (the seed's OP4T NIC architecture: `tx_ts`); with [`MetaRole::TxTimestampOffset`], see
    /// [`Architecture::tx_stamp`].
    TxTimestamp,
    /// The byte offset in the packet as it leaves where those 8 bytes go (OP4T: `ts_pos`).
    TxTimestampOffset,
    /// The time the packet's first byte arrived at its port, 64 bits in p4forge's time format
    /// ([`crate::time`]; OP4T's `t1`), as a port's timestamp unit takes it.
    RxTimestamp,
}

impl MetaRole {
    /// Every role, in declaration order (`role as usize` indexes it).
    pub const ALL: [MetaRole; 24] = [
        MetaRole::IngressPort,
        MetaRole::EgressSpec,
        MetaRole::EgressPort,
        MetaRole::InstanceType,
        MetaRole::PacketLength,
        MetaRole::EnqTimestamp,
        MetaRole::EnqQdepth,
        MetaRole::DeqTimedelta,
        MetaRole::DeqQdepth,
        MetaRole::IngressTimestamp,
        MetaRole::EgressTimestamp,
        MetaRole::MulticastGroup,
        MetaRole::EgressRid,
        MetaRole::ChecksumError,
        MetaRole::ParserError,
        MetaRole::Priority,
        MetaRole::Drop,
        MetaRole::Clone,
        MetaRole::CloneSession,
        MetaRole::Resubmit,
        MetaRole::ClassOfService,
        MetaRole::TxTimestamp,
        MetaRole::TxTimestampOffset,
        MetaRole::RxTimestamp,
    ];
    /// How many roles there are (a back end keeps one slot per role in an array of this length).
    pub const COUNT: usize = MetaRole::ALL.len();
}

/// How the architecture marks a packet for dropping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropMarker {
    /// The field of this role holds all ones (v1model: `egress_spec` = 511 for a 9-bit port).
    AllOnes(MetaRole),
}

/// What state an extern instance keeps, and how its constructor sizes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateKind {
    /// No per-instance state the data plane updates (checksum units, action profiles).
    Stateless,
    /// An array of values, one written at a time.
    Register,
    /// An array of packet/byte counts.
    Counter,
    /// An array of rate meters.
    Meter,
    /// A count per table entry.
    DirectCounter,
    /// A meter per table entry.
    DirectMeter,
}

/// How a method touches its instance's state. Indexed state (registers, counters, meters) is
/// updated one index at a time, so a write is a may-write of the whole instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateAccess {
    None,
    Read,
    Write,
    ReadWrite,
}

/// One extern object type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExternSig {
    pub type_name: &'static str,
    pub state: StateKind,
    /// The kind of control-plane object an instance is ([`crate::layout`] gives it an id of that
    /// kind); `None` for externs the control plane does not see (checksum units).
    pub object: Option<ObjectKind>,
    /// The constructor argument giving the number of cells, if any.
    pub size_arg: Option<usize>,
    /// The constructor argument choosing packets or bytes (an enum member name), if any.
    pub unit_arg: Option<usize>,
    /// The constructor argument naming the hash algorithm (a member of the algorithm enum): an
    /// action selector's, which picks a group's member from the selector keys, or a hash or
    /// checksum unit's.
    pub algorithm_arg: Option<usize>,
    /// The constructor argument every cell starts as (PSA's `Register(size, initial_value)`;
    /// absent: 0).
    pub initial_arg: Option<usize>,
    pub methods: &'static [MethodSig],
}

/// One method of an extern type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodSig {
    pub name: &'static str,
    /// Parameters in order, with direction (an `out` argument is written, `in` read) and type.
    pub params: &'static [(&'static str, Direction, ParamType)],
    /// Its effect on the instance's state.
    pub state: StateAccess,
    /// The operation a target implements for it.
    pub op: ExternOp,
}

/// The type an extern method's parameter takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// Any type (the method's own type parameter: `Checksum16.get<D>(in D data)`).
    Any,
    /// The instance's type argument at this position (`register<T>`: `read(out T result, ..)`).
    TypeArg(usize),
    /// `bit<W>`.
    Bits(u32),
    /// An index: the instance's type argument at this position where it has one (v1model from
    /// version 20200408: `counter<I>`, `register<T, I>`), else `bit<32>`.
    Index(usize),
    /// A meter colour as the architecture writes colours ([`Architecture::meter_colours`]): the
    /// colour a packet arrives with, for colour-aware metering.
    Colour,
    /// `bit<32>`: the packet length to count or meter by, given instead of taken from the packet
    /// (DPDK's PSA).
    PacketLength,
}

/// An extern operation as targets implement it, independent of what an architecture calls it
/// (v1model's `register.read` and PSA's `Register.read` are both [`ExternOp::RegisterRead`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExternOp {
    RegisterRead,
    RegisterWrite,
    /// Adds one packet and the packet's length to one cell.
    CounterCount,
    /// Counting happens when the table hits; the call itself does nothing.
    DirectCounterCount,
    /// Runs one meter cell on the packet and writes the colour.
    MeterExecute,
    /// Writes the colour computed when the table hit.
    DirectMeterRead,
    /// Ones'-complement 16-bit checksum of its data argument.
    OnesComplementSum16,
    /// An incremental checksum unit (PSA's `Checksum`, `InternetChecksum`): start over, add or
    /// subtract data, read the sum, read or set the running state.
    ChecksumClear,
    ChecksumAdd,
    ChecksumSubtract,
    ChecksumGet,
    ChecksumGetState,
    ChecksumSetState,
    /// Runs the table entry's meter on the packet now and returns the colour (PSA's
    /// `DirectMeter.execute`).
    DirectMeterExecute,
    /// Marks the packet for dropping ([`Architecture::drop`]).
    MarkToDrop,
    /// Compares a checksum and sets the checksum-error role on mismatch.
    VerifyChecksum { payload: bool },
    /// Writes a checksum into its argument.
    UpdateChecksum { payload: bool },
    Hash,
    Random,
    Digest,
    LogMsg,
    /// `assert`/`assume`: stops the packet when false.
    Assert,
    Truncate,
    Clone(Preserve),
    Resubmit(Preserve),
    Recirculate(Preserve),
}

/// Which metadata a clone, resubmit or recirculate carries to the new packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preserve {
    Nothing,
    /// The fields of the data argument at this position (absent argument: nothing).
    Data(usize),
    /// The `@field_list` whose constant index is the argument at this position.
    FieldList(usize),
}

/// An effect outside the program's storage that the architecture carries out after a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SideEffect {
    Drop,
    Clone,
    Resubmit,
    Recirculate,
    Truncate,
    Digest,
}

/// One extern function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionSig {
    pub name: &'static str,
    /// Intrinsic metadata it writes without taking it as an argument (or through its argument).
    pub writes: &'static [MetaRole],
    /// The operation a target implements for it.
    pub op: ExternOp,
}

impl FunctionSig {
    /// The architecture side effect the function asks for, if any.
    pub fn side_effect(&self) -> Option<SideEffect> {
        match self.op {
            ExternOp::MarkToDrop => Some(SideEffect::Drop),
            ExternOp::Clone(_) => Some(SideEffect::Clone),
            ExternOp::Resubmit(_) => Some(SideEffect::Resubmit),
            ExternOp::Recirculate(_) => Some(SideEffect::Recirculate),
            ExternOp::Truncate => Some(SideEffect::Truncate),
            ExternOp::Digest => Some(SideEffect::Digest),
            _ => None,
        }
    }
}

impl Architecture {
    /// The extern type named `type_name`.
    pub fn extern_type(&self, type_name: &str) -> Option<&'static ExternSig> {
        // `externs` is `'static`: copy the slice reference out of `self` to return `'static` items.
        let externs: &'static [ExternSig] = self.externs;
        externs.iter().find(|e| e.type_name == type_name)
    }
    /// The control-plane object kind of an instance of extern type `type_name` (`None`: not an
    /// architecture extern, or one the control plane does not see).
    pub fn object_kind(&self, type_name: &str) -> Option<ObjectKind> {
        self.extern_type(type_name)?.object
    }
    /// The method `type_name.method`.
    pub fn method(&self, type_name: &str, method: &str) -> Option<&'static MethodSig> {
        self.extern_type(type_name)?.methods.iter().find(|m| m.name == method)
    }
    /// The overload of `type_name.method` taking `arity` arguments (overloads differ in their
    /// number of parameters; [`Architecture::method`] gives the first listed).
    pub fn method_with_arity(&self, type_name: &str, method: &str, arity: usize) -> Option<&'static MethodSig> {
        self.extern_type(type_name)?.methods.iter().find(|m| m.name == method && m.params.len() == arity)
    }
    /// The extern function named `name`.
    pub fn function(&self, name: &str) -> Option<&'static FunctionSig> {
        let functions: &'static [FunctionSig] = self.functions;
        functions.iter().find(|f| f.name == name)
    }
    /// The instance-type value of `kind` (0 if the architecture gives none or numbers instances
    /// with enum members: [`Architecture::instance_value_in`]).
    pub fn instance_value(&self, kind: PacketInstance) -> u32 {
        self.instance_types.iter().find(|(k, _)| *k == kind).map_or(0, |(_, v)| *v)
    }
    /// The instance-type value of `kind` in `program`: a number of
    /// [`Architecture::instance_types`], or the value of the member of
    /// [`Architecture::instance_enum`] as the program declares that enum (`None`: the program
    /// lacks it).
    pub fn instance_value_in(&self, program: &Program, kind: PacketInstance) -> Option<u128> {
        let Some((enum_name, members)) = self.instance_enum else { return Some(u128::from(self.instance_value(kind))) };
        let member = members.iter().find(|(k, _)| *k == kind)?.1;
        let ty = program.find_type(enum_name)?;
        let TypeDef::Enum { members, .. } = program.type_def(ty) else { return None };
        let index = members.iter().position(|m| m.0 == member)?;
        crate::layout::scalar_value(program, &crate::Value::Enum(ty, index as u32), &Type::Named(ty)).ok()
    }
    /// The values of green, yellow and red in `program` ([`Architecture::meter_colours`]; `None`:
    /// the program lacks the enum or a member).
    pub fn colour_values_in(&self, program: &Program) -> Option<[u128; 3]> {
        let Some((enum_name, members)) = self.meter_colours else { return Some([0, 1, 2]) };
        let ty = program.find_type(enum_name)?;
        let TypeDef::Enum { members: declared, .. } = program.type_def(ty) else { return None };
        let mut values = [0; 3];
        for (v, member) in values.iter_mut().zip(members) {
            let index = declared.iter().position(|m| m.0 == member)?;
            *v = crate::layout::scalar_value(program, &crate::Value::Enum(ty, index as u32), &Type::Named(ty)).ok()?;
        }
        Some(values)
    }
    /// The hash algorithm of the algorithm enum's member `name`.
    pub fn hash_algorithm(&self, name: &str) -> Option<HashAlgorithm> {
        self.hash_algorithms.iter().find(|(n, _)| *n == name).map(|(_, a)| *a)
    }
    /// The hash algorithm table `table`'s action selector picks group members with; `None`: the
    /// table has no action selector (or its algorithm argument is not a member of the algorithm
    /// enum).
    pub fn selector_algorithm(&self, program: &crate::Program, table: &crate::Table) -> Option<HashAlgorithm> {
        self.instance_algorithm(program, program.externs.get(table.implementation?.index())?)
    }
    /// The hash algorithm extern instance `instance` was constructed with (`None`: its type takes
    /// none, or the argument is not a member of the algorithm enum).
    pub fn instance_algorithm(&self, program: &crate::Program, instance: &crate::ExternInstance) -> Option<HashAlgorithm> {
        let arg = self.extern_type(&instance.type_name)?.algorithm_arg?;
        let Some(Some(crate::Value::Enum(ty, member))) = instance.ctor_args.get(arg) else { return None };
        let Some(crate::TypeDef::Enum { members, .. }) = program.types.get(ty.index()) else { return None };
        self.hash_algorithm(&members.get(*member as usize)?.0)
    }
    /// The first extern function implemented by `op` (for messages naming it).
    pub fn function_for(&self, op: ExternOp) -> Option<&'static FunctionSig> {
        let functions: &'static [FunctionSig] = self.functions;
        functions.iter().find(|f| f.op == op)
    }
    /// The first extern function asking for architecture side effect `effect` (for messages
    /// naming it: v1model's [`SideEffect::Resubmit`] is `resubmit`).
    pub fn function_with_effect(&self, effect: SideEffect) -> Option<&'static FunctionSig> {
        let functions: &'static [FunctionSig] = self.functions;
        functions.iter().find(|f| f.side_effect() == Some(effect))
    }
    /// The struct type holding the intrinsic field of `role` (its home, where several do).
    pub fn struct_of(&self, role: MetaRole) -> &'static str {
        self.intrinsic_structs.iter().find(|(r, _)| *r == role).map_or(self.intrinsic_type, |(_, t)| *t)
    }
    /// Whether intrinsic struct `type_name` holds the field of `role`.
    pub fn holds(&self, type_name: &str, role: MetaRole) -> bool {
        let mut listed = self.intrinsic_structs.iter().filter(|(r, _)| *r == role).peekable();
        match listed.peek() {
            None => type_name == self.intrinsic_type,
            Some(_) => listed.any(|(_, t)| *t == type_name),
        }
    }
    /// Whether `type_name` is one of the architecture's intrinsic metadata structs.
    pub fn is_intrinsic_struct(&self, type_name: &str) -> bool {
        type_name == self.intrinsic_type || self.intrinsic_structs.iter().any(|(_, t)| *t == type_name)
    }
    /// The role of field `name` of intrinsic struct `type_name`.
    pub fn role_in(&self, type_name: &str, name: &str) -> Option<MetaRole> {
        self.intrinsic.iter().find(|(r, n)| *n == name && self.holds(type_name, *r)).map(|(r, _)| *r)
    }
    /// The field of intrinsic struct `type_name` playing `role`, if that struct holds it.
    pub fn field_in(&self, role: MetaRole, type_name: &str) -> Option<&'static str> {
        self.field(role).filter(|_| self.holds(type_name, role))
    }
    /// The fields (insert flag, byte offset) through which a packet asks for its transmit time to
    /// be written into it as it leaves ([`MetaRole::TxTimestamp`], [`MetaRole::TxTimestampOffset`]):
    /// `None` when the architecture has no such request (v1model), both or neither.
    pub fn tx_stamp(&self) -> Option<(&'static str, &'static str)> {
        Some((self.field(MetaRole::TxTimestamp)?, self.field(MetaRole::TxTimestampOffset)?))
    }
    /// The intrinsic field name of `role`.
    pub fn field(&self, role: MetaRole) -> Option<&'static str> {
        self.intrinsic.iter().find(|(r, _)| *r == role).map(|(_, n)| *n)
    }
    /// The role of intrinsic field `name`.
    pub fn role_of(&self, name: &str) -> Option<MetaRole> {
        self.intrinsic.iter().find(|(_, n)| *n == name).map(|(r, _)| *r)
    }
    /// The shared parameter of `kind`.
    pub fn shared(&self, kind: SharedKind) -> Option<&'static SharedParam> {
        let shared: &'static [SharedParam] = self.shared;
        shared.iter().find(|s| s.kind == kind)
    }
    /// Position of `role` among the package's blocks.
    pub fn block_index(&self, role: Role) -> Option<usize> {
        self.blocks.iter().position(|b| b.role == role)
    }
    /// Width of the ports as `program` declares them: the width of the [`MetaRole::IngressPort`]
    /// field of its intrinsic metadata struct (v1model's `standard_metadata_t` says 9). `None`
    /// when the program has no such field of `bit<W>` type.
    pub fn port_width(&self, program: &Program) -> Option<u32> {
        self.role_width(program, MetaRole::IngressPort)
    }
    /// Width of the field playing `role` as `program` declares it (`None`: no such field of
    /// `bit<W>` type).
    pub fn role_width(&self, program: &Program, role: MetaRole) -> Option<u32> {
        let name = self.field(role)?;
        let t = program.find_type(self.struct_of(role))?;
        match program.type_def(t) {
            TypeDef::Struct { fields, .. } => match fields.iter().find(|f| f.name == name)?.ty {
                Type::Bits { width, .. } => Some(width),
                _ => None,
            },
            _ => None,
        }
    }
}
