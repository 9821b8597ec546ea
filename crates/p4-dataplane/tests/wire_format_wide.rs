//! Header fields wider than 128 bits, and fields one 16-byte access cannot reach, on the
//! wire-format executor: arithmetic, shifts, comparisons and slices of them, a header copy, a
//! select key on a slice of one. Exact outputs on the switch and on the reference interpreter
//! (`p4-reference`), and random packets giving the same outputs on both.

use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header w_t { bit<4> t; bit<200> big; bit<124> odd; bit<8> u; }
header c_t { bit<8> n; }
struct headers_t { w_t a; w_t b; c_t c; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.c); pkt.extract(hdr.a); transition select(hdr.a.big[3:0]) { 0xf: low_f; default: accept; } }
    state low_f { hdr.c.n = 9; transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.c.n == 1) {
            hdr.b = hdr.a;
            hdr.b.big = hdr.a.big + 1;
            hdr.b.odd = hdr.a.odd ^ 124w0xf;
        }
        if (hdr.c.n == 2) {
            hdr.a.big = hdr.a.big << 100;
            if (hdr.a.odd[123:120] == 4w0xa) { hdr.a.u = 0x77; }
        }
        if (hdr.a.big == 0) { sm.egress_spec = 2; }
        hdr.c.n = hdr.c.n + 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.c); pkt.emit(hdr.a); pkt.emit(hdr.b); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::outcome(sw, frames, 0)
}

/// `c.n` then header a: t = 0, big = `big_low` in its low byte, odd = 0xa in its top 4 bits and
/// zeros, u = 0.
fn frame(n: u8, big_low: u8) -> Vec<u8> {
    // t bits 0..4, big 4..204, odd 204..328, u 328..336 (42 bytes): big's low byte is the low
    // half of byte 24 and the high half of byte 25, whose low half is odd's top 4 bits.
    let mut a = vec![0u8; 42];
    a[24] = big_low >> 4;
    a[25] = big_low << 4 | 0xa;
    let mut f = vec![n];
    f.extend(a);
    f
}

#[test]
fn wide_fields_run_on_the_wire_format_executor() {
    let mut sw = common::switch(PROGRAM);
    let mut reference = common::reference(PROGRAM);
    // n = 1: b = a with big + 1 and odd ^ 0xf (the low half of a's byte 40); big is not 0: port 1.
    let mut b = frame(0, 6)[1..].to_vec();
    b[40] ^= 0x0f;
    let want = [frame(2, 5), b].concat();
    assert_eq!(run(&mut sw, &[frame(1, 5)]), vec![(0, 1, want.clone())]);
    assert_eq!(common::injected(&mut reference, &[frame(1, 5)]), vec![(0, 1, want)]);
    // n = 2: big << 100 moves its low byte from header bits 196..204 to 96..104, a's byte 12;
    // odd starts 0xa: u = 0x77.
    let mut shifted = frame(3, 0);
    shifted[1 + 12] = 0x05;
    shifted[1 + 41] = 0x77;
    assert_eq!(run(&mut sw, &[frame(2, 5)]), vec![(0, 1, shifted.clone())]);
    assert_eq!(common::injected(&mut reference, &[frame(2, 5)]), vec![(0, 1, shifted)]);
    // big = 0: port 2.
    assert_eq!(run(&mut sw, &[frame(3, 0)]), vec![(0, 2, frame(4, 0))]);
    assert_eq!(common::injected(&mut reference, &[frame(3, 0)]), vec![(0, 2, frame(4, 0))]);
    // big's low 4 bits 0xf: the parser sets n = 9 (a select on a slice of big).
    assert_eq!(run(&mut sw, &[frame(0, 0x1f)]), vec![(0, 1, frame(10, 0x1f))]);
    assert_eq!(common::injected(&mut reference, &[frame(0, 0x1f)]), vec![(0, 1, frame(10, 0x1f))]);
}

/// A 128-bit field two bits into a byte, which one 16-byte access does not reach, is read and
/// written in place with two (never through a stale frame slot: a random program once caught
/// statements that wrote nothing); the reference interpreter gives the same bytes.
#[test]
fn a_128_bit_field_off_a_byte_runs_in_place() {
    let ingress = "apply { sm.egress_spec = 1; if (hdr.h.b == 128w0) { hdr.h.a = 1; } hdr.h.b = hdr.h.b + 1; }";
    let text = common::program("bit<18> a; bit<128> b; bit<62> c;", "", "", ingress, "apply { }");
    let mut sw = common::switch(&text);
    // All ones: b wraps to 0; a and c (bits 146..208) and the payload stay.
    let mut ones_out = vec![0xff, 0xff, 0xc0];
    ones_out.extend([0u8; 15]);
    ones_out.push(0x3f);
    ones_out.extend([0xff; 7]);
    ones_out.extend([0xff; 4]);
    // All zeros: b was 0, so a = 1 (bit 17) and b = 1 (bit 145).
    let mut zeros_out = vec![0u8; 30];
    zeros_out[2] = 0x40;
    zeros_out[18] = 0x40;
    let want = vec![(0, 1, ones_out), (1, 1, zeros_out)];
    assert_eq!(run(&mut sw, &[vec![0xff; 30], vec![0; 30]]), want);
    assert_eq!(common::injected(&mut common::reference(&text), &[vec![0xff; 30], vec![0; 30]]), want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_switch_and_the_reference_agree(packets in proptest::collection::vec((0u8..4, proptest::collection::vec(any::<u8>(), 44), 0usize..45), 1..16)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|(n, bytes, len)| {
            let mut f = bytes[..*len].to_vec();
            if let Some(first) = f.first_mut() {
                *first = *n;
            }
            f
        }).collect();
        let (mut sw, mut reference) = (common::switch(PROGRAM), common::reference(PROGRAM));
        prop_assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference, &frames));
    }
}
