//! A program whose egress asks the traffic manager for copies (an egress-to-egress clone, a
//! recirculation, a truncation, a failed assert) and whose ingress asks for the others (an
//! ingress-to-egress clone, a multicast group, a resubmission): every packet goes to the switch's
//! traffic manager after ingress, which sends each copy through the wire-format executor's blocks.
//! Exact outputs for each kind of copy; random packets give the same outputs, drops and logs on
//! the switch as on the reference interpreter (`p4-reference`) with one clone session and multicast group
//! configured alike on both.

use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> op; bit<8> instance; bit<16> rid; bit<8> port; }
header t_t { bit<8> tag; }
struct headers_t { h_t h; t_t t; }
struct meta_t { @field_list(1) bit<8> kept; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.op) { 1: tagged; 2: tagged; 6: tagged; 9: tagged; default: accept; }
    }
    state tagged { pkt.extract(hdr.t); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 2;
        if (sm.instance_type == 0) { meta.kept = hdr.h.op; }
        if (hdr.h.op == 5) { clone_preserving_field_list(CloneType.I2E, 5, 1); }
        else if (hdr.h.op == 6) { sm.mcast_grp = 7; }
        else if (hdr.h.op == 7 && sm.instance_type == 0) { resubmit_preserving_field_list(1); }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.instance = (bit<8>)sm.instance_type | (meta.kept << 4);
        hdr.h.rid = sm.egress_rid;
        hdr.h.port = (bit<8>)sm.egress_port;
        if (hdr.t.isValid()) { hdr.t.tag = hdr.t.tag + 1; }
        if (sm.instance_type == 0) {
            if (hdr.h.op == 1) { clone_preserving_field_list(CloneType.E2E, 5, 1); }
            else if (hdr.h.op == 2) { recirculate_preserving_field_list(1); }
            else if (hdr.h.op == 3) { truncate(3); }
            else if (hdr.h.op == 4) { assert(false); }
        }
    }
}
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); pkt.emit(hdr.t); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn switch() -> Switch {
    let mut sw = common::switch(PROGRAM);
    common::mirror_and_group(&mut sw);
    sw
}

fn reference() -> p4_reference::Interpreter {
    let mut r = common::reference(PROGRAM);
    common::mirror_and_group(&mut r);
    r
}

fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::outcome(sw, frames, 1)
}

#[test]
fn every_kind_of_copy_on_the_wire_format_executor() {
    let mut sw = switch();
    assert!(sw.hands_over() && !sw.hands_over_when_asked());
    let out = |sw: &mut Switch, frame: &[u8]| run(sw, &[frame.to_vec()]);
    // Unicast: instance 0, the op kept in the high nibble, rid 0, port 2.
    assert_eq!(out(&mut sw, &[0, 0, 0, 0, 0, 0xaa]), vec![(0, 2, vec![0, 0, 0, 0, 2, 0xaa])]);
    // Egress-to-egress clone (instance 2) to port 9, from the headers as the original's egress
    // left them: the tag counted up once there and once in the clone's egress.
    assert_eq!(
        out(&mut sw, &[1, 0, 0, 0, 0, 0x40, 0xaa]),
        vec![(0, 2, vec![1, 0x10, 0, 0, 2, 0x41, 0xaa]), (0, 9, vec![1, 0x12, 0, 0, 9, 0x42, 0xaa])]
    );
    // Recirculated (instance 4) with the field list kept: the deparsed packet parsed again, its
    // tag counted up by both passes through egress.
    assert_eq!(out(&mut sw, &[2, 0, 0, 0, 0, 0x40, 0xaa]), vec![(0, 2, vec![2, 0x24, 0, 0, 2, 0x42, 0xaa])]);
    // Truncated to 3 bytes.
    assert_eq!(out(&mut sw, &[3, 0, 0, 0, 0, 0xaa]), vec![(0, 2, vec![3, 0x30, 0])]);
    // Ingress-to-egress clone (instance 1): the packet as it arrived, parsed again.
    assert_eq!(
        out(&mut sw, &[5, 0, 0, 0, 0, 0xaa]),
        vec![(0, 2, vec![5, 0x50, 0, 0, 2, 0xaa]), (0, 9, vec![5, 0x51, 0, 0, 9, 0xaa])]
    );
    // Replicas (instance 5) of group 7: rid 3 to ports 4 and 6, each from the headers as
    // ingress left them (the tag counted up once in each).
    assert_eq!(
        out(&mut sw, &[6, 0, 0, 0, 0, 0x40, 0xaa]),
        vec![(0, 4, vec![6, 0x65, 0, 3, 4, 0x41, 0xaa]), (0, 6, vec![6, 0x65, 0, 3, 6, 0x41, 0xaa])]
    );
    // Resubmitted (instance 6) with the field list kept.
    assert_eq!(out(&mut sw, &[7, 0, 0, 0, 0, 0xaa]), vec![(0, 2, vec![7, 0x76, 0, 0, 2, 0xaa])]);
}

#[test]
fn an_assert_failing_in_egress_drops_the_packet() {
    let mut sw = switch();
    let outcome = run(&mut sw, &[vec![4, 0, 0, 0, 0, 0xaa]]);
    // The reason is logged and given as the drop's.
    let why = b"assert failed in E".to_vec();
    assert_eq!(outcome, vec![(0, u32::MAX - 1, why.clone()), (0, u32::MAX, why)]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn the_switch_and_the_reference_agree(packets in proptest::collection::vec((0u8..10, 0u8..4, 0usize..9), 1..32)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|&(op, tag, len)| [op, 0, 0, 0, 0, tag, 0xaa, 0xbb][..len.min(8)].to_vec()).collect();
        let (mut sw, mut reference) = (switch(), reference());
        prop_assert_eq!(common::injected_on(&mut sw, 1, &frames), common::injected_on(&mut reference, 1, &frames));
    }
}

/// The old-style calls naming the preserved fields (`resubmit({..})`) keep them on the
/// wire-format executor too, as on the reference interpreter.
#[test]
fn fields_named_in_an_old_style_call_are_preserved() {
    let program = common::program(
        "bit<8> op; bit<8> seen;",
        "bit<8> kept;",
        "",
        "apply { sm.egress_spec = 2; if (sm.instance_type == 0) { meta.kept = hdr.h.op + 1; resubmit({ meta.kept }); } }",
        "apply { hdr.h.seen = meta.kept; }",
    );
    let mut sw = common::switch(&program);
    let expect = vec![(0, 2, vec![4, 5, 0xaa])];
    assert_eq!(run(&mut sw, &[vec![4, 0, 0xaa]]), expect);
    assert_eq!(common::injected_on(&mut common::reference(&program), 1, &[vec![4, 0, 0xaa]]), expect);
}
