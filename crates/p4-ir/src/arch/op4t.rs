//! OP4T, the seed's in-band timestamping SmartNIC (`op4t.p4`), written down as a sibling of
//! [`super::v1model`]: nothing outside this file names an OP4T block or metadata field.
//!
//! A static shell (network ports with RX and TX queues, the host port, an input arbiter, the
//! output lookup) around one packet processor: a parser, a control and a deparser. The shell
//! writes the processor's input metadata as a packet arrives (its port, length and `t1`, the time
//! its first byte arrived, [`MetaRole::RxTimestamp`]) and reads its output metadata afterwards:
//! `dst_port` (all ones drops it) and the transmit-timestamp request (`tx_ts`, `ts_pos`:
//! [`Architecture::tx_stamp`]), which the port's TX side fulfils by writing the time the packet
//! leaves, 8 bytes big-endian, at that offset. Both halves are one struct, `op4t_metadata_t`, as
//! in the seed's NetFPGA shell. There is no egress control and no replication: the traffic
//! manager is [`TrafficManager::SimpleSwitch`] with nothing between the processor and the
//! deparser but the drop-or-unicast decision.

use super::*;

/// The host port's number (`OP4T_HOST_PORT` of `op4t.p4`): the port after the four network
/// ports, behind the host's DMA. Tools that stand in for the host (the experiments' forwarder)
/// send and receive on it.
pub const HOST_PORT: u32 = 4;
/// The network ports' numbers.
pub const NETWORK_PORTS: std::ops::Range<u32> = 0..4;

/// `OP4T(parser, processor, deparser)`.
pub static OP4T: Architecture = Architecture {
    name: "op4t",
    package: "OP4T",
    args: 3,
    blocks: &[
        BlockRole { role: Role::Parser, kind: BlockKind::Parser, at: &[0] },
        BlockRole { role: Role::Ingress, kind: BlockKind::Control, at: &[1] },
        BlockRole { role: Role::Deparser, kind: BlockKind::Control, at: &[2] },
    ],
    // Op4tParser(packet_in, out H, inout M, inout op4t_metadata_t);
    // Op4tProcessor(inout H, inout M, inout op4t_metadata_t); Op4tDeparser(packet_out, in H).
    shared: &[
        SharedParam { name: "headers", positions: &[Some(1), Some(0), Some(1)], kind: SharedKind::Headers },
        SharedParam { name: "metadata", positions: &[Some(2), Some(1), None], kind: SharedKind::UserMetadata },
        SharedParam { name: "op4t_metadata", positions: &[Some(3), Some(2), None], kind: SharedKind::Intrinsic },
    ],
    intrinsic_type: "op4t_metadata_t",
    intrinsic: &[
        (MetaRole::IngressPort, "src_port"),
        (MetaRole::PacketLength, "pkt_len"),
        (MetaRole::RxTimestamp, "t1"),
        (MetaRole::ParserError, "parser_error"),
        (MetaRole::EgressSpec, "dst_port"),
        (MetaRole::TxTimestamp, "tx_ts"),
        (MetaRole::TxTimestampOffset, "ts_pos"),
    ],
    intrinsic_structs: &[],
    drop: DropMarker::AllOnes(MetaRole::EgressSpec),
    externs: &[],
    functions: &[],
    hash_algorithms: &[],
    unit_bytes: "bytes",
    instance_types: &[(PacketInstance::Normal, 0)],
    instance_enum: None,
    traffic_manager: TrafficManager::SimpleSwitch,
    meter_colours: None,
    table_properties: &[],
};

#[cfg(test)]
mod tests {
    /// The include file and this description name the same ports.
    #[test]
    fn the_include_file_has_the_host_port_and_network_ports_given_here() {
        let text = include_str!("../../../../p4include/op4t.p4");
        assert!(text.contains(&format!("const PortId_t OP4T_HOST_PORT = {};", super::HOST_PORT)), "op4t.p4 and HOST_PORT differ");
        assert_eq!(super::NETWORK_PORTS.end, super::HOST_PORT);
    }
}
