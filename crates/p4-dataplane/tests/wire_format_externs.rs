//! Externs the wire-format executor runs itself (`fast::runtime`: registers, counters, hashes),
//! reading and writing header fields in the wire buffer. The program below reads header fields into
//! a register index and value, writes an old register value and a hash back into header fields, and
//! counts; the switch and the reference interpreter (`p4-reference`) must give the same packets and
//! leave the same register and counter contents.

use p4_dataplane::control::{ControlPlane, PacketIo};
use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header h_t { bit<32> a; bit<32> b; bit<16> c; }
struct headers_t { ethernet_t eth; h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.ether_type) { 0x88b5: parse_h; default: accept; } }
    state parse_h { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<32>>(16) sums;
    counter(16, CounterType.packets) seen;
    apply {
        sm.egress_spec = 2;
        if (hdr.h.isValid()) {
            bit<32> old;
            sums.read(old, (bit<32>)hdr.h.c[3:0]);
            sums.write((bit<32>)hdr.h.c[3:0], old + hdr.h.a);
            hdr.h.b = old;
            seen.count((bit<32>)hdr.h.c[3:0]);
            hash(hdr.h.c, HashAlgorithm.crc16, (bit<16>)0, { hdr.h.a, hdr.eth.src }, (bit<32>)65536);
            sums.read(hdr.h.a, 0);
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn switch() -> Switch {
    common::switch(PROGRAM)
}

/// An Ethernet frame carrying `h` (`a`, `b`, `c`) when `with_h`.
fn frame(with_h: bool, a: u32, c: u16) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1];
    f.extend_from_slice(if with_h { &[0x88, 0xb5] } else { &[0x08, 0x00] });
    f.extend_from_slice(&a.to_be_bytes());
    f.extend_from_slice(&[0xee; 4]);
    f.extend_from_slice(&c.to_be_bytes());
    f.resize(64, 0x5a);
    f
}

/// Per packet, arriving on port 1: its outputs `(i, port, bytes)`, drops and log lines.
fn run(dp: &mut dyn PacketIo, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::injected_on(dp, 1, frames)
}

fn state(dp: &mut dyn ControlPlane) -> Vec<(String, u64, u64)> {
    (0..16)
        .map(|i| {
            let sum = dp.register_read("I.sums", i).expect("register").to_string();
            (sum, dp.counter_read("I.seen", i).expect("counter").0, i)
        })
        .collect()
}

#[test]
fn externs_read_and_write_headers_in_place() {
    let mut sw = switch();
    let mut reference = common::reference(PROGRAM);
    let frames = [frame(true, 5, 3), frame(true, 7, 3), frame(false, 9, 3)];
    let out = run(&mut sw, &frames);
    assert_eq!(out, run(&mut reference, &frames));
    // Second packet: index 3 held 5 (old value into h.b), now 12; h.a is register 0, still 0.
    let second = &out[1].2;
    assert_eq!(&second[14..18], &[0, 0, 0, 0], "h.a = sums[0]");
    assert_eq!(&second[18..22], &[0, 0, 0, 5], "h.b = the old sums[3]");
    assert_ne!(&second[22..24], &[0, 3], "h.c is the hash");
    for dp in [&mut sw as &mut dyn ControlPlane, &mut reference] {
        assert_eq!(dp.register_read("I.sums", 3).expect("register").to_string(), "12");
        assert_eq!(dp.counter_read("I.seen", 3).expect("counter").0, 2);
    }
    // A frame without h passes unchanged.
    assert_eq!(out[2].2, frame(false, 9, 3));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn the_switch_and_the_reference_agree_on_packets_registers_and_counters(packets in proptest::collection::vec((any::<bool>(), any::<u32>(), any::<u16>(), 0usize..80), 1..80)) {
        let (mut sw, mut reference) = (switch(), common::reference(PROGRAM));
        // Frames cut anywhere too: h cut short is a parser error, and ingress then sees it invalid.
        let frames: Vec<Vec<u8>> = packets
            .iter()
            .map(|&(h, a, c, len)| {
                let mut f = frame(h, a, c);
                f.truncate(len);
                f
            })
            .collect();
        prop_assert_eq!(run(&mut sw, &frames), run(&mut reference, &frames));
        prop_assert_eq!(state(&mut sw), state(&mut reference));
    }
}
