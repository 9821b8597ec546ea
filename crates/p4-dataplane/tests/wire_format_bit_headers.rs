//! Headers that are not whole bytes on the wire-format executor: a 12-bit and a 4-bit header
//! around a byte-sized one, `advance` by 3 bits and by a run-time number of bits, a checksum over
//! the two odd headers, and packets too short at each step: headers are packed bit after bit, the
//! deparsed headers padded with zero bits to a byte, and the payload starts at the first whole byte
//! after where the parser stopped. Exact outputs on the switch and on the reference interpreter
//! (`p4-reference`); random packets give the same outputs on both.

use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header n_t { bit<3> a; bit<5> b; bit<4> c; }
header b_t { bit<8> x; bit<16> y; }
header t_t { bit<4> d; }
struct headers_t { n_t n; b_t b; t_t t; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.n); transition select(hdr.n.a) { 1: skip3; 2: skip_c; default: rest; } }
    state skip3 { pkt.advance(3); transition rest; }
    state skip_c { pkt.advance((bit<32>) hdr.n.c); transition rest; }
    state rest { pkt.extract(hdr.b); pkt.extract(hdr.t); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.PacketTooShort) { sm.egress_spec = 3; }
        hdr.n.b = hdr.n.b + 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) {
    apply { update_checksum(hdr.b.isValid(), { hdr.n, hdr.t }, hdr.b.y, HashAlgorithm.csum16); }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.n); pkt.emit(hdr.b); pkt.emit(hdr.t); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::outcome(sw, frames, 0)
}

/// Each case: the packet in, the port and bytes out.
fn cases() -> Vec<(Vec<u8>, u32, Vec<u8>)> {
    vec![
        // a = 0: n (12 bits), b from bit 12 (x 0xab, y 0xcdef), t from bit 36 (0), payload from
        // byte 5. n.b becomes 1; y = ~(n ++ t) = ~0x0100. Out: n, b, t packed, then the payload.
        (vec![0x00, 0x0a, 0xbc, 0xde, 0xf0, 0x55], 1, vec![0x01, 0x0a, 0xbf, 0xef, 0xf0, 0x55]),
        // a = 1: 3 bits skipped, b from bit 15 (x 0xff, y 0x807f), t from bit 39 (8); the payload
        // from byte 6. y = ~0x2108.
        (vec![0x20, 0x01, 0xff, 0x00, 0xff, 0x00, 0x77], 1, vec![0x21, 0x0f, 0xfd, 0xef, 0x78, 0x77]),
        // a = 2, c = 5: 5 bits skipped, b from bit 17 (x 0xff, y 0xffff), t from bit 41 (0xf).
        // y = ~0x415f.
        (vec![0x40, 0x50, 0xff, 0xff, 0xff, 0xff, 0x11], 1, vec![0x41, 0x5f, 0xfb, 0xea, 0x0f, 0x11]),
        // Too short for n: nothing extracted, the packet goes out as it came, to port 3.
        (vec![0x00], 3, vec![0x00]),
        // n but not b: n goes out padded to two bytes (its low 4 bits of the packet's second byte
        // were n's; the 4 after them are gone), then the payload from byte 2.
        (vec![0x00, 0x0a, 0xbc], 3, vec![0x01, 0x00, 0xbc]),
        // c = 15 skips past the end: advance fails.
        (vec![0x40, 0xf0], 3, vec![0x41, 0xf0]),
    ]
}

#[test]
fn headers_that_are_not_whole_bytes_run_on_the_wire_format_executor() {
    let mut sw = common::switch(PROGRAM);
    // The machine code moves whole bytes: the parser and deparser stay closures.
    assert_eq!(
        sw.machine_code(),
        Some(
            "2 of 3 controls (parser: header type `n_t` is not whole bytes, and machine code moves whole bytes; \
             control D: header type `n_t` is not whole bytes, and machine code moves whole bytes; \
             whole packet: the parser is not machine code)"
        )
    );
    let mut reference = common::reference(PROGRAM);
    for (i, (packet, port, out)) in cases().into_iter().enumerate() {
        let frames = [packet];
        let want = vec![(0, port, out)];
        assert_eq!(common::injected(&mut reference, &frames), want, "case {i} on the reference");
        assert_eq!(run(&mut sw, &frames), want, "case {i} on the wire-format executor");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_switch_and_the_reference_agree_at_every_cut(packets in proptest::collection::vec((any::<[u8; 9]>(), 0usize..10), 1..64)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|(bytes, len)| bytes[..*len].to_vec()).collect();
        let (mut sw, mut reference) = (common::switch(PROGRAM), common::reference(PROGRAM));
        prop_assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference, &frames));
    }
}

/// A varbit header after a 4-bit one: its bytes start off a byte boundary.
const VARBIT: &str = r#"
#include <core.p4>
#include <v1model.p4>
header n_t { bit<4> k; }
header v_t { bit<8> x; varbit<32> data; }
header t_t { bit<4> d; }
struct headers_t { n_t n; v_t v; t_t t; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.n); pkt.extract(hdr.v, (bit<32>) hdr.n.k * 8); pkt.extract(hdr.t); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error != error.NoError) { sm.egress_spec = 3; }
        hdr.v.x = hdr.v.x + 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.n); pkt.emit(hdr.v); pkt.emit(hdr.t); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

#[test]
fn a_varbit_off_a_byte_boundary() {
    let mut sw = common::switch(VARBIT);
    // k = 2: x 0x12, two bytes of data 0x3456, d 7; out the same but x + 1.
    let frames = [vec![0x21, 0x23, 0x45, 0x67, 0x89]];
    let want = vec![(0, 1, vec![0x21, 0x33, 0x45, 0x67, 0x89])];
    assert_eq!(common::injected(&mut common::reference(VARBIT), &frames), want);
    assert_eq!(run(&mut sw, &frames), want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_switch_and_the_reference_agree_on_the_varbit(packets in proptest::collection::vec((any::<[u8; 8]>(), 0usize..9), 1..64)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|(bytes, len)| bytes[..*len].to_vec()).collect();
        let (mut sw, mut reference) = (common::switch(VARBIT), common::reference(VARBIT));
        prop_assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference, &frames));
    }
}
