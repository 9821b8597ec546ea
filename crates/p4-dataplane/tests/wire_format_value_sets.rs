//! Parser value sets on machine code: a select case of a value set over one key (members with a
//! mask too), and one value set over two keys, which matches their concatenation. Exact outputs
//! before and after members are added, on machine code and on the closures.

use p4_dataplane::control::{ControlPlane, KeyValue};
use p4_dataplane::Switch;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<8> out; }
struct headers_t { h_t h; }
struct meta_t { }
struct pair_t { bit<8> a; bit<8> b; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<bit<8>>(4) ones;
    value_set<pair_t>(4) pairs;
    state start { pkt.extract(hdr.h); transition select(hdr.h.a) { ones: one; default: two; } }
    state one { hdr.h.out = 1; transition accept; }
    state two { transition select(hdr.h.a, hdr.h.b) { pairs: pair; default: accept; } }
    state pair { hdr.h.out = 2; transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

/// The `out` byte each packet `(a, b)` leaves with.
fn outs(sw: &mut Switch, packets: &[(u8, u8)]) -> Vec<u8> {
    let frames: Vec<Vec<u8>> = packets.iter().map(|&(a, b)| vec![a, b, 0]).collect();
    common::outcome(sw, &frames, 0).into_iter().map(|(_, _, data)| data[2]).collect()
}

#[test]
fn value_sets_run_as_machine_code() {
    let mut sw = common::switch(PROGRAM);
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet, self-contained"));
    let mut closures = common::switch(PROGRAM);
    assert!(!closures.use_machine_code(false));
    let packets = [(5, 0), (0x15, 9), (7, 0x80), (7, 0x81), (8, 0x80)];
    for sw in [&mut sw, &mut closures] {
        // Empty sets match nothing.
        assert_eq!(outs(sw, &packets), vec![0, 0, 0, 0, 0]);
        sw.value_set_add("P.ones", KeyValue::Masked(5u32.into(), 0x0fu32.into())).expect("member");
        // (a, b) = (7, 0x80) is 0x0780 over both keys.
        sw.value_set_add("P.pairs", KeyValue::Value(0x0780u32.into())).expect("member");
        assert_eq!(outs(sw, &packets), vec![1, 1, 2, 0, 0]);
    }
}
