//! The wire-format executor's generated machine code against its own closures and against the
//! closure executor, on a program built to reach what the code generator compiles itself: fields at
//! odd bit offsets read and written, arithmetic, shifts, slices, concatenation, casts, comparisons,
//! `?:`, `&&`/`||` around a table application, `exit`, `return` inside an inlined action, a select
//! on two keys with masks, `verify`, `setValid`, the Internet checksum verified and updated; and
//! what it leaves to closures (signed comparisons and shifts, 128-bit values).

use std::sync::Arc;

use p4_dataplane::batch::{BatchOut, PacketIn};
use p4_dataplane::control::{ActionArgs, ControlPlane, KeyValue, Keys};
use p4_dataplane::Switch;
use proptest::prelude::*;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header h_t { bit<3> f3; bit<13> f13; bit<8> k; bit<32> a; bit<32> b; int<16> s; bit<64> w; }
header tag_t { bit<8> v; }
struct headers_t { ethernet_t eth; h_t h; tag_t tag; }
struct meta_t { bit<8> m; bit<128> wide; }
error { Bad3 }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.ether_type, hdr.eth.src[7:0]) {
            (0x88b5, 0x00 &&& 0x80): parse_h;
            (0x88b5, _): parse_h_checked;
            default: accept;
        }
    }
    state parse_h_checked {
        pkt.extract(hdr.h);
        verify(hdr.h.f3 != 7, error.Bad3);
        transition accept;
    }
    state parse_h { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) {
    apply { verify_checksum(hdr.h.isValid(), { hdr.h.f3, hdr.h.f13, hdr.h.k, hdr.h.a }, hdr.h.b[15:0], HashAlgorithm.csum16); }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set(bit<9> port, bit<8> m) {
        sm.egress_spec = port;
        meta.m = m;
        if (m == 0) { return; }
        hdr.h.f13 = hdr.h.f13 + (bit<13>)m;
    }
    action stop() { exit; }
    table t {
        key = { hdr.h.k: exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
    }
    table u {
        key = { hdr.h.f3: exact; }
        actions = { stop; NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        if (sm.checksum_error == 1) { hdr.eth.src[15:8] = 0x55; }
        if (sm.parser_error != error.NoError) { sm.egress_spec = 3; hdr.eth.ether_type = 0xdead; exit; }
        if (!hdr.h.isValid()) { return; }
        hdr.h.f3 = hdr.h.f3 |+| 1;
        hdr.h.a = (hdr.h.a << 3) ^ (hdr.h.b >> 5) + hdr.h.a * 3;
        hdr.h.b = hdr.h.a[15:0] ++ hdr.h.b[31:16];
        hdr.h.s = hdr.h.s < 0 ? hdr.h.s >> 2 : hdr.h.s - 7;
        meta.wide = (bit<128>)hdr.h.w << 60;
        hdr.h.w = meta.wide[127:64] + (hdr.h.w > 1000 ? 64w5 : 64w9);
        if (hdr.h.k > 200 || t.apply().hit && meta.m != 0) {
            hdr.tag.setValid();
            hdr.tag.v = meta.m + 1;
        }
        if (hdr.h.f13 < 100 && hdr.h.k != 5) { hdr.h.k = -hdr.h.k; }
        u.apply();
        hdr.eth.dst[7:0] = 0x77;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) {
    apply { update_checksum(hdr.h.isValid(), { hdr.h.f3, hdr.h.f13, hdr.h.k, hdr.h.a, meta.m, hdr.eth.src }, hdr.eth.ether_type, HashAlgorithm.csum16); }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.h); pkt.emit(hdr.tag); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn switch() -> Switch {
    let include = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    let compiled = p4_sema::compile_str("machine_code.p4", PROGRAM, &[include]);
    let Some(program) = compiled.program else { panic!("machine_code.p4: {}", compiled.render_diagnostics()) };
    let mut sw = Switch::new(Arc::new(program)).expect("switch");
    for (k, port, m) in [(1u8, 4u16, 0u8), (2, 5, 9), (3, 6, 200)] {
        sw.table_add("t", Keys::Positional(vec![KeyValue::Value(k.into())]), "set", ActionArgs::Positional(vec![port.into(), m.into()]), None).expect("entry");
    }
    // An `exit` from an action of a table applied as a statement (`u`; the closure executors lose
    // an `exit` from a table applied inside an expression, which the machine code honours).
    sw.table_add("u", Keys::Positional(vec![KeyValue::Value(4u8.into())]), "stop", ActionArgs::Positional(vec![]), None).expect("entry");
    sw
}

/// An Ethernet frame with the test header (`with_h`: its EtherType), the low byte of the source
/// MAC `src`, and the header's bytes `h`.
fn frame(with_h: bool, src: u8, h: &[u8; 21]) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, src];
    f.extend_from_slice(if with_h { &[0x88, 0xb5] } else { &[0x08, 0x00] });
    f.extend_from_slice(h);
    f.extend_from_slice(&[0xee; 6]);
    f
}

/// Each output as (input index, port, bytes), then each drop as (input index, MAX, reason).
fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    let batch: Vec<PacketIn> = frames.iter().map(|f| PacketIn { port: 0, data: f, now_ns: 0 }).collect();
    let mut out = BatchOut::default();
    sw.process_batch(&batch, &mut out);
    let mut seen: Vec<(u32, u32, Vec<u8>)> = out.packets.iter().map(|p| (p.input, p.port, out.data(p).to_vec())).collect();
    seen.extend(out.drops.iter().map(|d| (d.input, u32::MAX, sw.drop_text(&d.reason).into_bytes())));
    seen
}

#[test]
fn the_program_runs_as_machine_code() {
    let sw = switch();
    assert_eq!(sw.executor(), "wire-format");
    assert_eq!(sw.machine_code(), Some("parser, 4 of 4 controls"));
}

#[test]
fn a_routed_packet_gets_the_values_the_program_computes() {
    let mut sw = switch();
    // k = 2: entry set(5, 9); f3 = 2, f13 = 10, a = 1, b = 0x0001_0000, s = -8, w = 2000.
    let mut h = [0u8; 21];
    h[0] = 2 << 5;
    h[1] = 10;
    h[2] = 2;
    h[3..7].copy_from_slice(&1u32.to_be_bytes());
    h[7..11].copy_from_slice(&0x0001_0000u32.to_be_bytes());
    h[11..13].copy_from_slice(&(-8i16).to_be_bytes());
    h[13..21].copy_from_slice(&2000u64.to_be_bytes());
    let out = run(&mut sw, &[frame(true, 0, &h)]);
    assert_eq!(out.len(), 1);
    let (_, port, bytes) = &out[0];
    assert_eq!(*port, 5);
    // f3 = 3 after the saturating add: no `exit` from u, so the last statement ran.
    assert_eq!(bytes[5], 0x77);
    let h = &bytes[14..35];
    // f3 2 -> 3 (saturating add); f13 10 + 9 = 19.
    assert_eq!(h[0] >> 5, 3);
    assert_eq!(u16::from_be_bytes([h[0] & 0x1f, h[1]]), 19);
    // a = (1 << 3) ^ ((0x10000 >> 5) + 3) = 8 ^ 0x803 = 0x80b.
    assert_eq!(u32::from_be_bytes([h[3], h[4], h[5], h[6]]), 0x80b);
    // b = a[15:0] ++ b[31:16] = 0x080b_0001.
    assert_eq!(u32::from_be_bytes([h[7], h[8], h[9], h[10]]), 0x080b_0001);
    // s = -8 >> 2 = -2 (signed: left to closures).
    assert_eq!(i16::from_be_bytes([h[11], h[12]]), -2);
    // w = (2000 << 60)[127:64] + 5 = (2000 >> 4) + 5 = 130 (a 128-bit value: left to closures).
    assert_eq!(u64::from_be_bytes(h[13..21].try_into().unwrap()), 130);
    // k stays 2 (f13 = 19 < 100 and k != 5: k = -k = 254).
    assert_eq!(h[2], 254);
    // The tag: hit and m = 9: tag.v = 9 + 1.
    assert_eq!(bytes[35], 10);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn machine_code_closures_and_closure_executor_agree(packets in proptest::collection::vec((any::<bool>(), any::<u8>(), any::<[u8; 21]>(), 0usize..60, 0u8..8), 1..60)) {
        let (mut native, mut closures, mut reference) = (switch(), switch(), switch());
        prop_assert!(!closures.use_machine_code(false));
        prop_assert!(!reference.use_wire_format(false));
        let frames: Vec<Vec<u8>> = packets
            .iter()
            .map(|&(with_h, src, h, len, k)| {
                let mut h = h;
                // Keys 0..8 hit the entries often.
                h[2] = if k < 6 { k } else { h[2] };
                let mut f = frame(with_h, src, &h);
                f.truncate(len);
                f
            })
            .collect();
        let got = run(&mut native, &frames);
        prop_assert_eq!(&got, &run(&mut closures, &frames));
        prop_assert_eq!(&got, &run(&mut reference, &frames));
    }
}
