//! v1model (`v1model.p4`, BMv2's simple_switch), written down once. Every v1model block order,
//! `standard_metadata_t` field name and extern effect p4forge relies on is here; the dataplane and
//! the def-use analysis read them from [`V1MODEL`].

use super::*;
use crate::Direction::{In, Out};

/// The v1model architecture: `V1Switch(parser, verify, ingress, egress, compute, deparser)`.
pub static V1MODEL: Architecture = Architecture {
    name: "v1model",
    package: "V1Switch",
    args: 6,
    blocks: &[
        BlockRole { role: Role::Parser, kind: BlockKind::Parser, at: &[0] },
        BlockRole { role: Role::VerifyChecksum, kind: BlockKind::Control, at: &[1] },
        BlockRole { role: Role::Ingress, kind: BlockKind::Control, at: &[2] },
        BlockRole { role: Role::Egress, kind: BlockKind::Control, at: &[3] },
        BlockRole { role: Role::ComputeChecksum, kind: BlockKind::Control, at: &[4] },
        BlockRole { role: Role::Deparser, kind: BlockKind::Control, at: &[5] },
    ],
    // Parser(packet_in, out H, inout M, inout standard_metadata_t); VerifyChecksum(inout H, inout M);
    // Ingress/Egress(inout H, inout M, inout standard_metadata_t); ComputeChecksum(inout H, inout M);
    // Deparser(packet_out, in H).
    shared: &[
        SharedParam { name: "headers", positions: &[Some(1), Some(0), Some(0), Some(0), Some(0), Some(1)], kind: SharedKind::Headers },
        SharedParam { name: "metadata", positions: &[Some(2), Some(1), Some(1), Some(1), Some(1), None], kind: SharedKind::UserMetadata },
        SharedParam { name: "standard_metadata", positions: &[Some(3), None, Some(2), Some(2), None, None], kind: SharedKind::Intrinsic },
    ],
    intrinsic_type: "standard_metadata_t",
    intrinsic: &[
        (MetaRole::IngressPort, "ingress_port"),
        (MetaRole::EgressSpec, "egress_spec"),
        (MetaRole::EgressPort, "egress_port"),
        (MetaRole::InstanceType, "instance_type"),
        (MetaRole::PacketLength, "packet_length"),
        (MetaRole::EnqTimestamp, "enq_timestamp"),
        (MetaRole::EnqQdepth, "enq_qdepth"),
        (MetaRole::DeqTimedelta, "deq_timedelta"),
        (MetaRole::DeqQdepth, "deq_qdepth"),
        (MetaRole::IngressTimestamp, "ingress_global_timestamp"),
        (MetaRole::EgressTimestamp, "egress_global_timestamp"),
        (MetaRole::MulticastGroup, "mcast_grp"),
        (MetaRole::EgressRid, "egress_rid"),
        (MetaRole::ChecksumError, "checksum_error"),
        (MetaRole::ParserError, "parser_error"),
        (MetaRole::Priority, "priority"),
    ],
    intrinsic_structs: &[],
    drop: DropMarker::AllOnes(MetaRole::EgressSpec),
    externs: &[
        ExternSig {
            type_name: "register",
            state: StateKind::Register,
            object: Some(ObjectKind::Register),
            size_arg: Some(0),
            unit_arg: None,
            selector_arg: None,
            methods: &[
                MethodSig { name: "read", params: &[("result", Out, ParamType::TypeArg(0)), ("index", In, ParamType::Bits(32))], state: StateAccess::Read, op: ExternOp::RegisterRead },
                MethodSig { name: "write", params: &[("index", In, ParamType::Bits(32)), ("value", In, ParamType::TypeArg(0))], state: StateAccess::Write, op: ExternOp::RegisterWrite },
            ],
        },
        ExternSig {
            type_name: "counter",
            state: StateKind::Counter,
            object: Some(ObjectKind::Counter),
            size_arg: Some(0),
            unit_arg: Some(1),
            selector_arg: None,
            methods: &[MethodSig { name: "count", params: &[("index", In, ParamType::Bits(32))], state: StateAccess::ReadWrite, op: ExternOp::CounterCount }],
        },
        ExternSig {
            type_name: "direct_counter",
            state: StateKind::DirectCounter,
            object: Some(ObjectKind::DirectCounter),
            size_arg: None,
            unit_arg: Some(0),
            selector_arg: None,
            methods: &[MethodSig { name: "count", params: &[], state: StateAccess::ReadWrite, op: ExternOp::DirectCounterCount }],
        },
        ExternSig {
            type_name: "meter",
            state: StateKind::Meter,
            object: Some(ObjectKind::Meter),
            size_arg: Some(0),
            unit_arg: Some(1),
            selector_arg: None,
            methods: &[MethodSig { name: "execute_meter", params: &[("index", In, ParamType::Bits(32)), ("result", Out, ParamType::Any)], state: StateAccess::ReadWrite, op: ExternOp::MeterExecute }],
        },
        ExternSig {
            type_name: "direct_meter",
            state: StateKind::DirectMeter,
            object: Some(ObjectKind::DirectMeter),
            size_arg: None,
            unit_arg: Some(0),
            selector_arg: None,
            // The colour was computed when the table hit; `read` only reads it.
            methods: &[MethodSig { name: "read", params: &[("result", Out, ParamType::TypeArg(0))], state: StateAccess::Read, op: ExternOp::DirectMeterRead }],
        },
        ExternSig {
            type_name: "Checksum16",
            state: StateKind::Stateless,
            object: None,
            size_arg: None,
            unit_arg: None,
            selector_arg: None,
            methods: &[MethodSig { name: "get", params: &[("data", In, ParamType::Any)], state: StateAccess::None, op: ExternOp::OnesComplementSum16 }],
        },
        ExternSig { type_name: "action_profile", state: StateKind::Stateless, object: Some(ObjectKind::ActionProfile), size_arg: Some(0), unit_arg: None, selector_arg: None, methods: &[] },
        ExternSig { type_name: "action_selector", state: StateKind::Stateless, object: Some(ObjectKind::ActionProfile), size_arg: Some(1), unit_arg: None, selector_arg: Some(0), methods: &[] },
    ],
    functions: &[
        // BMv2: egress_spec := drop port, mcast_grp := 0.
        FunctionSig { name: "mark_to_drop", writes: &[MetaRole::EgressSpec, MetaRole::MulticastGroup], op: ExternOp::MarkToDrop },
        FunctionSig { name: "clone", writes: &[], op: ExternOp::Clone(Preserve::Nothing) },
        FunctionSig { name: "clone3", writes: &[], op: ExternOp::Clone(Preserve::Data(2)) },
        FunctionSig { name: "clone_preserving_field_list", writes: &[], op: ExternOp::Clone(Preserve::FieldList(2)) },
        FunctionSig { name: "resubmit", writes: &[], op: ExternOp::Resubmit(Preserve::Data(0)) },
        FunctionSig { name: "resubmit_preserving_field_list", writes: &[], op: ExternOp::Resubmit(Preserve::FieldList(0)) },
        FunctionSig { name: "recirculate", writes: &[], op: ExternOp::Recirculate(Preserve::Data(0)) },
        FunctionSig { name: "recirculate_preserving_field_list", writes: &[], op: ExternOp::Recirculate(Preserve::FieldList(0)) },
        FunctionSig { name: "truncate", writes: &[], op: ExternOp::Truncate },
        FunctionSig { name: "digest", writes: &[], op: ExternOp::Digest },
        // Set `checksum_error` without taking standard_metadata as an argument.
        FunctionSig { name: "verify_checksum", writes: &[MetaRole::ChecksumError], op: ExternOp::VerifyChecksum { payload: false } },
        FunctionSig { name: "verify_checksum_with_payload", writes: &[MetaRole::ChecksumError], op: ExternOp::VerifyChecksum { payload: true } },
        FunctionSig { name: "update_checksum", writes: &[], op: ExternOp::UpdateChecksum { payload: false } },
        FunctionSig { name: "update_checksum_with_payload", writes: &[], op: ExternOp::UpdateChecksum { payload: true } },
        FunctionSig { name: "hash", writes: &[], op: ExternOp::Hash },
        FunctionSig { name: "random", writes: &[], op: ExternOp::Random },
        FunctionSig { name: "log_msg", writes: &[], op: ExternOp::LogMsg },
        FunctionSig { name: "assert", writes: &[], op: ExternOp::Assert },
        FunctionSig { name: "assume", writes: &[], op: ExternOp::Assert },
    ],    // `enum HashAlgorithm` of v1model.p4.
    hash_algorithms: &[
        ("crc32", HashAlgorithm::Crc32),
        ("crc32_custom", HashAlgorithm::Crc32Custom),
        ("crc16", HashAlgorithm::Crc16),
        ("crc16_custom", HashAlgorithm::Crc16Custom),
        ("random", HashAlgorithm::Random),
        ("identity", HashAlgorithm::Identity),
        ("csum16", HashAlgorithm::Csum16),
        ("xor16", HashAlgorithm::Xor16),
    ],
    // `CounterType.bytes`, `MeterType.bytes`.
    unit_bytes: "bytes",
    // BMv2's `PktInstanceType`.
    instance_types: &[
        (PacketInstance::Normal, 0),
        (PacketInstance::IngressClone, 1),
        (PacketInstance::EgressClone, 2),
        (PacketInstance::Coalesced, 3),
        (PacketInstance::Recirculated, 4),
        (PacketInstance::Replica, 5),
        (PacketInstance::Resubmitted, 6),
    ],
    instance_enum: None,
    traffic_manager: TrafficManager::SimpleSwitch,
    table_properties: &[
        ("counters", TableProperty::DirectCounter),
        ("meters", TableProperty::DirectMeter),
        ("implementation", TableProperty::Implementation),
    ],
};
