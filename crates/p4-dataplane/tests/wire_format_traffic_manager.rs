//! A program whose ingress may ask the traffic manager for copies: the wire-format executor
//! hands over only the packets that ask (an ingress-to-egress clone, a multicast group, a
//! resubmission, a truncation, a failed assert) and runs the others through its own egress and
//! deparser. Exact outputs for a unicast packet and a multicast one; random packets of every kind
//! give the same outputs, drops and logs as on the closure executor.

use std::sync::Arc;

use p4_dataplane::batch::{BatchOut, PacketIn};
use p4_dataplane::control::ControlPlane;
use p4_dataplane::Switch;
use proptest::prelude::*;

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
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.instance = (bit<8>)sm.instance_type | (meta.kept << 4);
        hdr.h.rid = sm.egress_rid;
        hdr.h.port = (bit<8>)sm.egress_port;
    }
}
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn switch() -> Switch {
    let include = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    let compiled = p4_sema::compile_str("tm.p4", PROGRAM, &[include]);
    let Some(program) = compiled.program else { panic!("tm.p4: {}", compiled.render_diagnostics()) };
    let mut sw = Switch::new(Arc::new(program)).expect("switch");
    sw.mirroring_add(5, 9).expect("mirror session");
    sw.mc_mgrp_create(7).expect("group");
    let node = sw.mc_node_create(3, &[4, 6]).expect("node");
    sw.mc_node_associate(7, node).expect("associate");
    sw
}

/// Per input: its outputs (port, bytes), drops (reason text) and log lines, sorted.
fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    let batch: Vec<PacketIn> = frames.iter().map(|f| PacketIn { port: 1, data: f, now_ns: 0 }).collect();
    let mut out = BatchOut::default();
    sw.process_batch(&batch, &mut out);
    let mut seen: Vec<(u32, u32, Vec<u8>)> = out.packets.iter().map(|p| (p.input, p.port, out.data(p).to_vec())).collect();
    seen.extend(out.drops.iter().map(|d| (d.input, u32::MAX, sw.drop_text(&d.reason).into_bytes())));
    seen.extend(out.log.iter().map(|(input, line)| (*input, u32::MAX - 1, line.clone().into_bytes())));
    seen.sort();
    seen
}

#[test]
fn only_packets_that_ask_the_traffic_manager_are_handed_over() {
    let mut sw = switch();
    assert_eq!(sw.executor(), "wire-format");
    assert!(sw.hands_over_when_asked());
    // Unicast: egress here writes instance 0, rid 0, port 2.
    assert_eq!(run(&mut sw, &[vec![0, 0, 0, 0, 0, 0xaa]]), vec![(0, 2, vec![0, 0, 0, 0, 2, 0xaa])]);
    // Multicast group 7: two replicas (instance 5) to ports 4 and 6 with rid 3.
    assert_eq!(
        run(&mut sw, &[vec![2, 0, 0, 0, 0, 0xaa]]),
        vec![(0, 4, vec![2, 0x25, 0, 3, 4, 0xaa]), (0, 6, vec![2, 0x25, 0, 3, 6, 0xaa])]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn both_executors_agree(packets in proptest::collection::vec((0u8..8, 0usize..8), 1..32)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|&(op, len)| [op, 0, 0, 0, 0, 0xaa, 0xbb][..len.min(7)].to_vec()).collect();
        let (mut wire, mut closures) = (switch(), switch());
        prop_assert!(!closures.use_wire_format(false));
        prop_assert_eq!(run(&mut wire, &frames), run(&mut closures, &frames));
    }
}
