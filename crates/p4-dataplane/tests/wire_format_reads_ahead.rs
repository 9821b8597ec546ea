//! `lookahead` and `advance` on the wire-format executor: a value read ahead in a state's body and
//! in its select, a state skipping bits, and packets too short for each (PacketTooShort: a read
//! past the end rejects right after its statement). Exact outputs on the switch (with machine code
//! and without) and on the reference interpreter (`p4-reference`); random packets cut anywhere give
//! the same outputs on the switch as on the reference interpreter.

use p4_dataplane::control::PacketIo;
use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> v; bit<16> peek; }
struct headers_t { h_t h; }
struct meta_t { bit<24> first; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { transition select(pkt.lookahead<bit<8>>()) { 0xAA: skip; 0xBB: peek; 0x00: accept; default: parse_h; } }
    state skip { pkt.advance(24); transition parse_h; }
    state peek { pkt.advance(8); meta.first = pkt.lookahead<bit<24>>(); transition accept; }
    state parse_h { meta.first = pkt.lookahead<bit<24>>(); pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.PacketTooShort) { sm.egress_spec = 3; }
        hdr.h.peek = meta.first[15:0];
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn switch() -> Switch {
    common::switch(PROGRAM)
}

fn run(dp: &mut dyn PacketIo, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::injected(dp, frames)
}

#[test]
fn reading_ahead_and_skipping_run_on_the_wire_format_executor() {
    let mut sw = switch();
    // The parser is machine code too: it calls the closures' lookahead, then rejects with the
    // error that left pending.
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet"));
    let mut closures = switch();
    assert!(!closures.use_machine_code(false));
    let mut reference = common::reference(PROGRAM);
    for sw in [&mut sw as &mut dyn PacketIo, &mut closures, &mut reference] {
        // A marker: three bytes skipped, h read after them, peek the 16 low bits of the 24 after the marker.
        assert_eq!(run(sw, &[vec![0xaa, 0x12, 0x34, 1, 2, 3, 4, 9]]), vec![(0, 1, vec![1, 2, 2, 3, 9])]);
        // No marker: h read at the start.
        assert_eq!(run(sw, &[vec![0x01, 0x02, 0x03, 4, 9]]), vec![(0, 1, vec![1, 2, 2, 3, 9])]);
        // Nothing to read ahead: the select's lookahead fails (before its value 0 could pick
        // `accept`), ingress sends the packet to port 3. A 0 there accepts: h stays invalid.
        assert_eq!(run(sw, &[vec![]]), vec![(0, 3, vec![])]);
        assert_eq!(run(sw, &[vec![0, 7]]), vec![(0, 1, vec![0, 7])]);
        // 0xbb: one byte skipped, then 24 bits read ahead in the body of a state that accepts:
        // with two bytes left that read fails and the state rejects (what was skipped is gone:
        // the payload starts where the parser stopped); with three it accepts.
        assert_eq!(run(sw, &[vec![0xbb, 1, 2]]), vec![(0, 3, vec![1, 2])]);
        assert_eq!(run(sw, &[vec![0xbb, 1, 2, 3]]), vec![(0, 1, vec![1, 2, 3])]);
        // A marker with too little after it: advance succeeds, the extract does not.
        assert_eq!(run(sw, &[vec![0xaa, 0x12, 0x34, 1]]), vec![(0, 3, vec![1])]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_switch_and_the_reference_agree_at_every_cut(packets in proptest::collection::vec((0u8..3, any::<[u8; 8]>(), 0usize..9), 1..64)) {
        let frames: Vec<Vec<u8>> = packets
            .iter()
            .map(|&(marker, mut bytes, len)| {
                bytes[0] = [0xaa, 0xbb, bytes[0]][marker as usize];
                bytes[..len].to_vec()
            })
            .collect();
        let (mut sw, mut reference) = (switch(), common::reference(PROGRAM));
        prop_assert_eq!(run(&mut sw, &frames), run(&mut reference, &frames));
    }
}

/// A `lookahead` past the packet's end rejects at once (the specification's
/// `verify(..., error.PacketTooShort)`): the rest of the state does not run, so `meta.m` stays 0
/// and `h` is not extracted, with machine code and without; the reference interpreter gives the same
/// bytes.
#[test]
fn a_lookahead_past_the_end_rejects_before_the_rest_of_the_state() {
    let text = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { bit<32> x = pkt.lookahead<bit<32>>(); meta.m = 0x55; pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; hdr.h.setValid(); hdr.h.b = meta.m; }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;
    let program = std::sync::Arc::new(p4_sema::compile_str("t.p4", text, &[common::include_dir()]).program.expect("compiles"));
    let mut machine = Switch::new(program.clone()).expect("switch");
    let mut closures = Switch::new(program.clone()).expect("switch");
    assert!(!closures.use_machine_code(false));
    let mut interpreter = p4_reference::Interpreter::new(program).expect("interpreter");
    for sw in [&mut machine as &mut dyn PacketIo, &mut closures, &mut interpreter] {
        assert_eq!(sw.inject(0, &[1, 2], 0).outputs[0].data, [0, 0, 1, 2], "short: rejected before the assignment");
        assert_eq!(sw.inject(0, &[1, 2, 3, 4], 0).outputs[0].data, [1, 0x55, 3, 4], "long enough: the whole state ran");
    }
}
