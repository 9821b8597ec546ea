//! PSA (the Portable Switch Architecture, `psa.p4` v1.1), written down as a sibling of
//! [`super::v1model`]: nothing outside this file names a PSA block, metadata field or extern.
//!
//! What PSA has and v1model has not is described with the same types: nested packages (each
//! [`BlockRole::at`] has two positions), headers and metadata shared within each pipeline rather
//! than across the whole switch ([`SharedParam`]s per pipeline), metadata a deparser hands the
//! next parser ([`SharedKind::Handoff`]), intrinsic metadata split over input and output structs
//! with one role in several of them ([`Architecture::intrinsic_structs`]), a drop flag instead of
//! a drop port ([`MetaRole::Drop`]), method-style externs (`Hash.get_hash`, `Checksum.update`),
//! and two pipelines around the traffic manager ([`TrafficManager::TwoPipelines`]).
//! `psa_clone_i2e`, `psa_normal` and the other packet-path predicates are P4 functions of
//! `psa.p4` over the output metadata, so back ends need nothing for them.
//!
//! Where `psa.p4` overloads a method (`Meter.execute(index)` and `execute(index, color)`,
//! `Hash.get_hash(data)` and `get_hash(base, data, max)`), the description lists every form; they
//! differ in their number of parameters ([`Architecture::method_with_arity`]).
//! PSA numbers packet paths with `PSA_PacketPath_t` members, not integers
//! ([`Architecture::instance_enum`]).

use super::*;
use crate::Direction::In;

const IN_META: &str = "psa_ingress_input_metadata_t";
const OUT_META: &str = "psa_ingress_output_metadata_t";
const E_IN_META: &str = "psa_egress_input_metadata_t";
const IN_PARSER_META: &str = "psa_ingress_parser_input_metadata_t";
const E_PARSER_META: &str = "psa_egress_parser_input_metadata_t";
const E_DEPARSER_META: &str = "psa_egress_deparser_input_metadata_t";
const E_OUT_META: &str = "psa_egress_output_metadata_t";

/// `PSA_Switch(IngressPipeline(ip, ig, id), PacketReplicationEngine pre, EgressPipeline(ep, eg,
/// ed), BufferingQueueingEngine bqe)`.
pub static PSA: Architecture = Architecture {
    name: "psa",
    package: "PSA_Switch",
    args: 4,
    blocks: &[
        BlockRole { role: Role::Parser, kind: BlockKind::Parser, at: &[0, 0] },
        BlockRole { role: Role::Ingress, kind: BlockKind::Control, at: &[0, 1] },
        BlockRole { role: Role::IngressDeparser, kind: BlockKind::Control, at: &[0, 2] },
        BlockRole { role: Role::EgressParser, kind: BlockKind::Parser, at: &[2, 0] },
        BlockRole { role: Role::Egress, kind: BlockKind::Control, at: &[2, 1] },
        BlockRole { role: Role::Deparser, kind: BlockKind::Control, at: &[2, 2] },
    ],
    // IngressParser(packet_in, out H, inout M, in psa_ingress_parser_input_metadata_t, in RESUBM, in RECIRCM);
    // Ingress(inout H, inout M, in psa_ingress_input_metadata_t, inout psa_ingress_output_metadata_t);
    // IngressDeparser(packet_out, out CI2EM, out RESUBM, out NM, inout H, in M, in psa_ingress_output_metadata_t);
    // EgressParser(packet_in, out H, inout M, in psa_egress_parser_input_metadata_t, in NM, in CI2EM, in CE2EM);
    // Egress(inout H, inout M, in psa_egress_input_metadata_t, inout psa_egress_output_metadata_t);
    // EgressDeparser(packet_out, out CE2EM, out RECIRCM, inout H, in M, in psa_egress_output_metadata_t,
    //                in psa_egress_deparser_input_metadata_t).
    // Headers and metadata live once per pipeline; between the pipelines the packet is deparsed
    // and parsed again. The output metadata passes from each control to its deparser.
    shared: &[
        SharedParam { name: "ingress headers", positions: &[Some(1), Some(0), Some(4), None, None, None], kind: SharedKind::Headers },
        SharedParam { name: "ingress metadata", positions: &[Some(2), Some(1), Some(5), None, None, None], kind: SharedKind::UserMetadata },
        SharedParam { name: "ingress output metadata", positions: &[None, Some(3), Some(6), None, None, None], kind: SharedKind::Intrinsic },
        SharedParam { name: "egress headers", positions: &[None, None, None, Some(1), Some(0), Some(3)], kind: SharedKind::Headers },
        SharedParam { name: "egress metadata", positions: &[None, None, None, Some(2), Some(1), Some(4)], kind: SharedKind::UserMetadata },
        SharedParam { name: "egress output metadata", positions: &[None, None, None, None, Some(3), Some(5)], kind: SharedKind::Intrinsic },
        SharedParam { name: "normal metadata", positions: &[None, None, Some(3), Some(4), None, None], kind: SharedKind::Handoff },
        SharedParam { name: "clone_i2e metadata", positions: &[None, None, Some(1), Some(5), None, None], kind: SharedKind::Handoff },
        SharedParam { name: "clone_e2e metadata", positions: &[None, None, None, Some(6), None, Some(1)], kind: SharedKind::Handoff },
        SharedParam { name: "resubmit metadata", positions: &[Some(4), None, Some(2), None, None, None], kind: SharedKind::Handoff },
        SharedParam { name: "recirculate metadata", positions: &[Some(5), None, None, None, None, Some(2)], kind: SharedKind::Handoff },
    ],
    intrinsic_type: IN_META,
    intrinsic: &[
        (MetaRole::IngressPort, "ingress_port"),
        (MetaRole::InstanceType, "packet_path"),
        (MetaRole::IngressTimestamp, "ingress_timestamp"),
        (MetaRole::ParserError, "parser_error"),
        (MetaRole::ClassOfService, "class_of_service"),
        (MetaRole::Clone, "clone"),
        (MetaRole::CloneSession, "clone_session_id"),
        (MetaRole::Drop, "drop"),
        (MetaRole::Resubmit, "resubmit"),
        (MetaRole::MulticastGroup, "multicast_group"),
        (MetaRole::EgressSpec, "egress_port"),
        (MetaRole::EgressPort, "egress_port"),
        (MetaRole::EgressRid, "instance"),
        (MetaRole::EgressTimestamp, "egress_timestamp"),
    ],
    // Each block sees its own struct; a role in several structs is one field name in each.
    intrinsic_structs: &[
        (MetaRole::IngressPort, IN_META),
        (MetaRole::IngressPort, IN_PARSER_META),
        (MetaRole::InstanceType, IN_META),
        (MetaRole::InstanceType, IN_PARSER_META),
        (MetaRole::InstanceType, E_PARSER_META),
        (MetaRole::InstanceType, E_IN_META),
        (MetaRole::ParserError, IN_META),
        (MetaRole::ParserError, E_IN_META),
        (MetaRole::ClassOfService, OUT_META),
        (MetaRole::ClassOfService, E_IN_META),
        (MetaRole::Clone, OUT_META),
        (MetaRole::Clone, E_OUT_META),
        (MetaRole::CloneSession, OUT_META),
        (MetaRole::CloneSession, E_OUT_META),
        (MetaRole::Drop, OUT_META),
        (MetaRole::Drop, E_OUT_META),
        (MetaRole::Resubmit, OUT_META),
        (MetaRole::MulticastGroup, OUT_META),
        (MetaRole::EgressSpec, OUT_META),
        (MetaRole::EgressPort, E_IN_META),
        (MetaRole::EgressPort, E_PARSER_META),
        (MetaRole::EgressPort, E_DEPARSER_META),
        (MetaRole::EgressRid, E_IN_META),
        (MetaRole::EgressTimestamp, E_IN_META),
    ],
    // `ostd.drop = true` drops (a `bool` is all ones when true).
    drop: DropMarker::AllOnes(MetaRole::Drop),
    externs: &[
        // Package-level externs: the traffic manager's parts, no per-instance state.
        ExternSig { type_name: "PacketReplicationEngine", state: StateKind::Stateless, object: None, size_arg: None, unit_arg: None, algorithm_arg: None, initial_arg: None, methods: &[] },
        ExternSig { type_name: "BufferingQueueingEngine", state: StateKind::Stateless, object: None, size_arg: None, unit_arg: None, algorithm_arg: None, initial_arg: None, methods: &[] },
        // Register<T, S>(bit<32> size): T read(in S index); write(in S index, in T value).
        ExternSig {
            type_name: "Register",
            state: StateKind::Register,
            object: Some(ObjectKind::Register),
            size_arg: Some(0),
            unit_arg: None,
            algorithm_arg: None,
            initial_arg: Some(1),
            methods: &[
                MethodSig { name: "read", params: &[("index", In, ParamType::TypeArg(1))], state: StateAccess::Read, op: ExternOp::RegisterRead },
                MethodSig { name: "write", params: &[("index", In, ParamType::TypeArg(1)), ("value", In, ParamType::TypeArg(0))], state: StateAccess::Write, op: ExternOp::RegisterWrite },
            ],
        },
        // Counter<W, S>(bit<32> n_counters, PSA_CounterType_t type): count(in S index).
        ExternSig {
            type_name: "Counter",
            state: StateKind::Counter,
            object: Some(ObjectKind::Counter),
            size_arg: Some(0),
            unit_arg: Some(1),
            algorithm_arg: None,
            initial_arg: None,
            methods: &[
                MethodSig { name: "count", params: &[("index", In, ParamType::TypeArg(1))], state: StateAccess::ReadWrite, op: ExternOp::CounterCount },
                MethodSig { name: "count", params: &[("index", In, ParamType::TypeArg(1)), ("pkt_len", In, ParamType::PacketLength)], state: StateAccess::ReadWrite, op: ExternOp::CounterCount },
            ],
        },
        ExternSig {
            type_name: "DirectCounter",
            state: StateKind::DirectCounter,
            object: Some(ObjectKind::DirectCounter),
            size_arg: None,
            unit_arg: Some(0),
            algorithm_arg: None,
            initial_arg: None,
            methods: &[
                MethodSig { name: "count", params: &[], state: StateAccess::ReadWrite, op: ExternOp::DirectCounterCount },
                MethodSig { name: "count", params: &[("pkt_len", In, ParamType::PacketLength)], state: StateAccess::ReadWrite, op: ExternOp::DirectCounterCount },
            ],
        },
        // Meter<S>(bit<32> n_meters, PSA_MeterType_t type): PSA_MeterColor_t execute(in S index).
        ExternSig {
            type_name: "Meter",
            state: StateKind::Meter,
            object: Some(ObjectKind::Meter),
            size_arg: Some(0),
            unit_arg: Some(1),
            algorithm_arg: None,
            initial_arg: None,
            methods: &[
                MethodSig { name: "execute", params: &[("index", In, ParamType::TypeArg(0))], state: StateAccess::ReadWrite, op: ExternOp::MeterExecute },
                MethodSig { name: "execute", params: &[("index", In, ParamType::TypeArg(0)), ("color", In, ParamType::Colour)], state: StateAccess::ReadWrite, op: ExternOp::MeterExecute },
                MethodSig { name: "execute", params: &[("index", In, ParamType::TypeArg(0)), ("color", In, ParamType::Colour), ("pkt_len", In, ParamType::PacketLength)], state: StateAccess::ReadWrite, op: ExternOp::MeterExecute },
                MethodSig { name: "dpdk_execute", params: &[("index", In, ParamType::TypeArg(0)), ("pkt_len", In, ParamType::PacketLength)], state: StateAccess::ReadWrite, op: ExternOp::MeterExecute },
                MethodSig { name: "dpdk_execute", params: &[("index", In, ParamType::TypeArg(0)), ("color", In, ParamType::Colour), ("pkt_len", In, ParamType::PacketLength)], state: StateAccess::ReadWrite, op: ExternOp::MeterExecute },
            ],
        },
        ExternSig {
            type_name: "DirectMeter",
            state: StateKind::DirectMeter,
            object: Some(ObjectKind::DirectMeter),
            size_arg: None,
            unit_arg: Some(0),
            algorithm_arg: None,
            initial_arg: None,
            methods: &[
                MethodSig { name: "execute", params: &[], state: StateAccess::ReadWrite, op: ExternOp::DirectMeterExecute },
                MethodSig { name: "execute", params: &[("color", In, ParamType::Colour)], state: StateAccess::ReadWrite, op: ExternOp::DirectMeterExecute },
                MethodSig { name: "dpdk_execute", params: &[("pkt_len", In, ParamType::PacketLength)], state: StateAccess::ReadWrite, op: ExternOp::DirectMeterExecute },
                MethodSig { name: "dpdk_execute", params: &[("color", In, ParamType::Colour), ("pkt_len", In, ParamType::PacketLength)], state: StateAccess::ReadWrite, op: ExternOp::DirectMeterExecute },
            ],
        },
        // Hash<O>(PSA_HashAlgorithm_t algo): O get_hash<D>(in D data).
        ExternSig {
            type_name: "Hash",
            state: StateKind::Stateless,
            object: None,
            size_arg: None,
            unit_arg: None,
            algorithm_arg: Some(0),
            initial_arg: None,
            methods: &[
                MethodSig { name: "get_hash", params: &[("data", In, ParamType::Any)], state: StateAccess::None, op: ExternOp::Hash },
                MethodSig { name: "get_hash", params: &[("base", In, ParamType::Any), ("data", In, ParamType::Any), ("max", In, ParamType::Any)], state: StateAccess::None, op: ExternOp::Hash },
            ],
        },
        // Checksum<W>(PSA_HashAlgorithm_t hash): clear(); update<T>(in T data); W get(). The
        // running sum is per-packet state: updates write it, `get` reads it.
        ExternSig {
            type_name: "Checksum",
            state: StateKind::Stateless,
            object: None,
            size_arg: None,
            unit_arg: None,
            algorithm_arg: Some(0),
            initial_arg: None,
            methods: &[
                MethodSig { name: "clear", params: &[], state: StateAccess::Write, op: ExternOp::ChecksumClear },
                MethodSig { name: "update", params: &[("data", In, ParamType::Any)], state: StateAccess::ReadWrite, op: ExternOp::ChecksumAdd },
                MethodSig { name: "get", params: &[], state: StateAccess::Read, op: ExternOp::ChecksumGet },
            ],
        },
        ExternSig {
            type_name: "InternetChecksum",
            state: StateKind::Stateless,
            object: None,
            size_arg: None,
            unit_arg: None,
            algorithm_arg: None,
            initial_arg: None,
            methods: &[
                MethodSig { name: "clear", params: &[], state: StateAccess::Write, op: ExternOp::ChecksumClear },
                MethodSig { name: "add", params: &[("data", In, ParamType::Any)], state: StateAccess::ReadWrite, op: ExternOp::ChecksumAdd },
                MethodSig { name: "subtract", params: &[("data", In, ParamType::Any)], state: StateAccess::ReadWrite, op: ExternOp::ChecksumSubtract },
                MethodSig { name: "get", params: &[], state: StateAccess::Read, op: ExternOp::ChecksumGet },
                MethodSig { name: "get_state", params: &[], state: StateAccess::Read, op: ExternOp::ChecksumGetState },
                MethodSig { name: "set_state", params: &[("checksum_state", In, ParamType::Bits(16))], state: StateAccess::Write, op: ExternOp::ChecksumSetState },
            ],
        },
        // Random<T>(T min, T max): T read().
        ExternSig {
            type_name: "Random",
            state: StateKind::Stateless,
            object: None,
            size_arg: None,
            unit_arg: None,
            algorithm_arg: None,
            initial_arg: None,
            methods: &[MethodSig { name: "read", params: &[], state: StateAccess::ReadWrite, op: ExternOp::Random }],
        },
        ExternSig { type_name: "ActionProfile", state: StateKind::Stateless, object: Some(ObjectKind::ActionProfile), size_arg: Some(0), unit_arg: None, algorithm_arg: None, initial_arg: None, methods: &[] },
        ExternSig { type_name: "ActionSelector", state: StateKind::Stateless, object: Some(ObjectKind::ActionProfile), size_arg: Some(1), unit_arg: None, algorithm_arg: Some(0), initial_arg: None, methods: &[] },
        // Digest<T>(): pack(in T data).
        ExternSig {
            type_name: "Digest",
            state: StateKind::Stateless,
            object: None,
            size_arg: None,
            unit_arg: None,
            algorithm_arg: None,
            initial_arg: None,
            methods: &[MethodSig { name: "pack", params: &[("data", In, ParamType::Any)], state: StateAccess::None, op: ExternOp::Digest }],
        },
    ],
    // `send_to_port`, `multicast`, `ingress_drop`, `egress_drop` (actions) and the packet-path
    // predicates (`psa_clone_i2e`, ...) are P4 code of psa.p4.
    functions: &[
        FunctionSig { name: "assert", writes: &[], op: ExternOp::Assert },
        FunctionSig { name: "assume", writes: &[], op: ExternOp::Assert },
    ],
    // `enum PSA_HashAlgorithm_t` (its TARGET_DEFAULT has no fixed algorithm).
    hash_algorithms: &[
        ("IDENTITY", HashAlgorithm::Identity),
        ("CRC32", HashAlgorithm::Crc32),
        ("CRC32_CUSTOM", HashAlgorithm::Crc32Custom),
        ("CRC16", HashAlgorithm::Crc16),
        ("CRC16_CUSTOM", HashAlgorithm::Crc16Custom),
        ("ONES_COMPLEMENT16", HashAlgorithm::Csum16),
    ],
    // `PSA_CounterType_t.BYTES`, `PSA_MeterType_t.BYTES`.
    unit_bytes: "BYTES",
    instance_types: &[],
    instance_enum: Some((
        "PSA_PacketPath_t",
        &[
            (PacketInstance::Normal, "NORMAL"),
            (PacketInstance::Unicast, "NORMAL_UNICAST"),
            (PacketInstance::Replica, "NORMAL_MULTICAST"),
            (PacketInstance::IngressClone, "CLONE_I2E"),
            (PacketInstance::EgressClone, "CLONE_E2E"),
            (PacketInstance::Resubmitted, "RESUBMIT"),
            (PacketInstance::Recirculated, "RECIRCULATE"),
        ],
    )),
    // `PSA_PORT_RECIRCULATE`.
    traffic_manager: TrafficManager::TwoPipelines { loop_port: 0xffff_fffa },
    meter_colours: Some(("PSA_MeterColor_t", ["GREEN", "YELLOW", "RED"])),
    table_properties: &[
        ("psa_direct_counter", TableProperty::DirectCounter),
        ("psa_direct_meter", TableProperty::DirectMeter),
        ("psa_implementation", TableProperty::Implementation),
        ("psa_idle_timeout", TableProperty::IdleTimeout { notify: Some("NOTIFY_CONTROL") }),
    ],
};
