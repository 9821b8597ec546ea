//! Whole structs, tuples and headers compared with `==`/`!=` on the wire-format executor: member
//! by member, headers equal when both are invalid or both valid with the same bytes. Exact results
//! for some packets; random packets give the same outputs on the switch as on the reference
//! interpreter (`p4-reference`).

use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> x; bit<8> y; }
header r_t { bit<8> flags; }
struct pair_t { bit<8> x; bit<8> y; }
struct both_t { h_t h; pair_t p; }
struct headers_t { r_t r; h_t a; h_t b; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.r); pkt.extract(hdr.a); transition select(hdr.a.x) { 0: accept; default: second; } }
    state second { pkt.extract(hdr.b); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        pair_t p = { hdr.a.x, hdr.a.y };
        pair_t q = { hdr.b.x, hdr.b.y };
        tuple<bit<8>, bit<8>> t = { hdr.a.y, hdr.b.y };
        both_t u = { hdr.a, p };
        both_t v = { hdr.b, q };
        bit<8> f = 0;
        if (p == q) { f = f | 1; }
        if (hdr.a == hdr.b) { f = f | 2; }
        if (u != v) { f = f | 4; }
        if (t[0] == t[1]) { f = f | 8; }
        hdr.r.flags = f;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.r); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn switch() -> Switch {
    common::switch(PROGRAM)
}

fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::outcome(sw, frames, 0)
}

#[test]
fn aggregates_compare_on_the_wire_format_executor() {
    let mut sw = switch();
    // a = b = (1, 2): pairs equal, headers equal, the structs equal, t = (2, 2).
    assert_eq!(run(&mut sw, &[vec![0, 1, 2, 1, 2]]), vec![(0, 1, vec![1 | 2 | 8])]);
    // b = (1, 3): nothing equal but the structs differ.
    assert_eq!(run(&mut sw, &[vec![0, 1, 2, 1, 3]]), vec![(0, 1, vec![4])]);
    // a = (0, 0), so b is not extracted: the pairs are equal ((0, 0) both), the headers are
    // not (a valid, b invalid), the structs differ, t = (0, 0).
    assert_eq!(run(&mut sw, &[vec![0, 0, 0, 9, 9]]), vec![(0, 1, vec![1 | 4 | 8, 9, 9])]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_switch_and_the_reference_agree(packets in proptest::collection::vec((0u8..3, 0u8..3, 0u8..3, 0u8..3, 0usize..6), 1..48)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|&(ax, ay, bx, by, len)| [0, ax, ay, bx, by][..len].to_vec()).collect();
        let (mut sw, mut reference) = (switch(), common::reference(PROGRAM));
        prop_assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference, &frames));
    }
}
