//! A program whose ingress may ask the traffic manager for copies: the wire-format executor
//! hands over only the packets that ask (an ingress-to-egress clone, a multicast group, a
//! resubmission, a truncation, a failed assert) and runs the others through its own egress and
//! deparser. Exact outputs for a unicast packet and a multicast one; random packets of every kind
//! give the same outputs, drops and logs on the switch as on the reference interpreter
//! (`p4-reference`) with the same sessions and groups.

use p4_dataplane::control::ControlPlane;
use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> op; bit<8> instance; bit<16> rid; bit<8> port; }
struct headers_t { h_t h; }
struct meta_t { @field_list(1) bit<8> kept; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        meta.kept = hdr.h.op;
        if (hdr.h.op == 1) { clone_preserving_field_list(CloneType.I2E, 5, 1); }
        else if (hdr.h.op == 2) { sm.mcast_grp = 7; }
        else if (hdr.h.op == 3 && sm.instance_type == 0) { resubmit_preserving_field_list(1); }
        else if (hdr.h.op == 4) { truncate(3); }
        else if (hdr.h.op == 5) { assert(false); }
        else if (hdr.h.op == 6) { mark_to_drop(sm); }
        else if (hdr.h.op == 7) { sm.mcast_grp = 8; }
        else if (hdr.h.op == 8) { sm.mcast_grp = 9; }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.instance = (bit<8>)sm.instance_type | (meta.kept << 4);
        hdr.h.rid = sm.egress_rid;
        hdr.h.port = (bit<8>)sm.egress_port;
        if (sm.egress_rid == 3 && sm.egress_port == 6 && meta.kept == 2) { mark_to_drop(sm); }
    }
}
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

/// The clone session and groups the tests use, on the switch or the reference.
fn configure(dp: &mut dyn ControlPlane) {
    common::mirror_and_group(dp);
    // Group 8 has no node; group 9 more members than the traffic manager makes copies.
    dp.mc_mgrp_create(8).expect("group");
    dp.mc_mgrp_create(9).expect("group");
    let ports: Vec<u32> = (0..512).collect();
    for rid in 1..=9 {
        let node = dp.mc_node_create(rid, &ports).expect("node");
        dp.mc_node_associate(9, node).expect("associate");
    }
}

fn switch() -> Switch {
    let mut sw = common::switch(PROGRAM);
    configure(&mut sw);
    sw
}

fn reference() -> p4_reference::Interpreter {
    let mut r = common::reference(PROGRAM);
    configure(&mut r);
    r
}

fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::outcome(sw, frames, 1)
}

#[test]
fn only_packets_that_ask_the_traffic_manager_are_handed_over() {
    let mut sw = switch();
    assert!(sw.hands_over_when_asked());
    // Unicast: egress here writes instance 0, rid 0, port 2.
    assert_eq!(run(&mut sw, &[vec![0, 0, 0, 0, 0, 0xaa]]), vec![(0, 2, vec![0, 0, 0, 0, 2, 0xaa])]);
    // Multicast group 7: replicas (instance 5) to ports 4 and 6 with rid 3; egress drops the one
    // to port 6.
    assert_eq!(
        run(&mut sw, &[vec![2, 0, 0, 0, 0, 0xaa]]),
        vec![(0, 4, vec![2, 0x25, 0, 3, 4, 0xaa]), (0, u32::MAX, b"mark_to_drop in E".to_vec())]
    );
    // An empty group drops the packet.
    assert_eq!(run(&mut sw, &[vec![7, 0, 0, 0, 0]]), vec![(0, u32::MAX, b"multicast group 8 has no members".to_vec())]);
    // 9 x 512 members: 4,096 copies (the last rid 8 to port 511), then the packet is dropped for
    // the rest.
    let copies = run(&mut sw, &[vec![8, 0, 0, 0, 0]]);
    assert_eq!(copies.len(), 4097);
    assert!(copies.contains(&(0, 511, vec![8, 0x85, 0, 8, 0xff])));
    assert!(!copies.iter().any(|c| c.2.get(3) == Some(&9)), "no copy of the ninth node");
    assert_eq!(copies.last(), Some(&(0, u32::MAX, b"more than 4096 copies of one packet; the rest were dropped".to_vec())));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn the_switch_and_the_reference_agree(packets in proptest::collection::vec((0u8..9, 0usize..8), 1..32)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|&(op, len)| [op, 0, 0, 0, 0, 0xaa, 0xbb][..len.min(7)].to_vec()).collect();
        let (mut sw, mut reference) = (switch(), reference());
        prop_assert_eq!(common::injected_on(&mut sw, 1, &frames), common::injected_on(&mut reference, 1, &frames));
    }
}
