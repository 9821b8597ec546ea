//! A header with a varbit field on the wire-format executor's machine code: extracted with a size
//! read from its first byte (by the closures, called from the machine code), emitted by the
//! machine code at its current length (fixed bytes, then the varbit's), with a header after it.
//! Exact outputs at lengths 0, 2 and the maximum, and past it (HeaderTooShort), with machine code
//! and without, and on the reference interpreter (`p4-reference`); random packets give the same
//! outputs on the switch as on the reference interpreter.

use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header opt_t { bit<8> len; varbit<32> data; }
header tail_t { bit<8> t; }
struct headers_t { opt_t opt; tail_t tail; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.opt, (bit<32>)(pkt.lookahead<bit<8>>() * 8)); pkt.extract(hdr.tail); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.HeaderTooShort) { sm.egress_spec = 3; }
        hdr.tail.t = hdr.tail.t + 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.opt); pkt.emit(hdr.tail); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::outcome(sw, frames, 0)
}

#[test]
fn a_varbit_is_emitted_at_its_length_by_machine_code() {
    let mut sw = common::switch(PROGRAM);
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet"));
    let mut closures = common::switch(PROGRAM);
    assert!(!closures.use_machine_code(false));
    let cases: Vec<(Vec<u8>, u32, Vec<u8>)> = vec![
        // No varbit bytes: len, then tail + 1, then the payload.
        (vec![0, 7, 0xee], 1, vec![0, 8, 0xee]),
        // Two.
        (vec![2, 0xa, 0xb, 7, 0xee], 1, vec![2, 0xa, 0xb, 8, 0xee]),
        // The most it holds (32 bits).
        (vec![4, 1, 2, 3, 4, 7], 1, vec![4, 1, 2, 3, 4, 8]),
        // More than it holds: HeaderTooShort, nothing extracted, the packet as it came.
        (vec![5, 1, 2, 3, 4, 5, 7], 3, vec![5, 1, 2, 3, 4, 5, 7]),
    ];
    let mut reference = common::reference(PROGRAM);
    for (input, port, output) in cases {
        for sw in [&mut sw, &mut closures] {
            assert_eq!(run(sw, std::slice::from_ref(&input)), vec![(0, port, output.clone())], "in: {input:x?}");
        }
        assert_eq!(common::injected(&mut reference, std::slice::from_ref(&input)), vec![(0, port, output.clone())], "in: {input:x?} on the reference");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn machine_code_agrees_with_the_reference(packets in proptest::collection::vec((0u8..6, proptest::collection::vec(any::<u8>(), 0..8)), 1..32)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|(len, rest)| [vec![*len], rest.clone()].concat()).collect();
        let mut reference = common::reference(PROGRAM);
        let mut sw = common::switch(PROGRAM);
        prop_assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference, &frames));
    }
}
