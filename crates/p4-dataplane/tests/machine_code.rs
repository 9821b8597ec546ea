//! The wire-format executor's generated machine code against its own closures and against the
//! reference interpreter (`p4-reference`), on a program built to reach what the code generator
//! compiles itself: fields at odd bit offsets read and written, arithmetic, shifts, slices,
//! concatenation, casts, comparisons, `?:`, `&&`/`||` around a table application, `exit`, `return`
//! inside an inlined action, a select on two keys with masks, `verify`, `setValid`, the Internet
//! checksum verified and updated; and what it leaves to closures (signed comparisons and shifts,
//! 128-bit values).

use std::sync::Arc;

use p4_dataplane::batch::{BatchOut, PacketIn};
use p4_dataplane::control::{ActionArgs, ControlPlane, KeyValue, Keys, PacketIo};
use p4_dataplane::Switch;
use p4_reference::Interpreter;
use proptest::prelude::*;

mod common;


/// Cases per property test: `default`, or `P4F_PROPTEST_CASES` (fewer under valgrind,
/// `tests/valgrind/run.sh`).
fn cases(default: u32) -> u32 {
    std::env::var("P4F_PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}
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
        if (u.apply().miss) { hdr.eth.dst[15:8] = 0x99; } else { hdr.eth.dst[15:8] = 0x98; }
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

/// Program `source` as elaborated (`name` in diagnostics).
fn compile(name: &str, source: &str) -> Arc<p4_ir::Program> {
    let include = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    let compiled = p4_sema::compile_str(name, source, &[include]);
    let Some(program) = compiled.program else { panic!("{name}: {}", compiled.render_diagnostics()) };
    Arc::new(program)
}

/// A switch running program `source` (`name` in diagnostics).
fn build(name: &str, source: &str) -> Switch {
    Switch::new(compile(name, source)).expect("switch")
}

/// The entries of [`PROGRAM`]'s tables, on the switch or the reference.
fn entries(dp: &mut dyn ControlPlane) {
    for (k, port, m) in [(1u8, 4u16, 0u8), (2, 5, 9), (3, 6, 200)] {
        dp.table_add("t", Keys::Positional(vec![KeyValue::Value(k.into())]), "set", ActionArgs::Positional(vec![port.into(), m.into()]), None).expect("entry");
    }
    // An `exit` from the action of a table applied inside an expression (`u`): neither branch of
    // the `if` runs, nor anything after it.
    dp.table_add("u", Keys::Positional(vec![KeyValue::Value(4u8.into())]), "stop", ActionArgs::Positional(vec![]), None).expect("entry");
}

fn switch() -> Switch {
    let mut sw = build("machine_code.p4", PROGRAM);
    entries(&mut sw);
    sw
}

/// The reference interpreter on [`PROGRAM`] with the same entries.
fn reference() -> Interpreter {
    let mut r = Interpreter::new(compile("machine_code.p4", PROGRAM)).expect("the reference interpreter");
    entries(&mut r);
    r
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
    assert_eq!(sw.machine_code(), Some("parser, 4 of 4 controls, whole packet"));
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
    // f3 = 3 after the saturating add: u misses (no `exit`), so the `if`'s first branch and the
    // last statement ran.
    assert_eq!(bytes[4..6], [0x99, 0x77]);
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

/// f3 = 3 becomes 4: u's entry runs `stop`, whose `exit` ends the control inside the `if`'s
/// condition (`u.apply().miss`), with machine code, without, and on the reference interpreter:
/// neither branch runs, nor the statement after.
#[test]
fn an_exit_in_a_table_applied_inside_a_condition_ends_the_control_everywhere() {
    let (mut native, mut closures, mut reference) = (switch(), switch(), reference());
    assert!(!closures.use_machine_code(false));
    let mut h = [0u8; 21];
    h[0] = 3 << 5;
    h[2] = 9;
    for (name, dp) in [("machine code", &mut native as &mut dyn PacketIo), ("closures", &mut closures), ("the reference", &mut reference)] {
        let out = common::injected(dp, &[frame(true, 0, &h)]);
        assert_eq!(out.len(), 1);
        let (_, port, bytes) = &out[0];
        assert_eq!(*port, 1, "{name}");
        assert_eq!(bytes[..6], [0, 0, 0, 0, 0, 1], "{name}: the destination as it came");
        assert_eq!(bytes[14] >> 5, 4, "f3 incremented before the exit");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]
    #[test]
    fn machine_code_closures_and_the_reference_agree(packets in proptest::collection::vec((any::<bool>(), any::<u8>(), any::<[u8; 21]>(), 0usize..60, 0u8..8), 1..60)) {
        let (mut native, mut closures, mut reference) = (switch(), switch(), reference());
        prop_assert!(!closures.use_machine_code(false));
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
        prop_assert_eq!(common::injected(&mut native, &frames), common::injected(&mut reference, &frames));
    }
}

/// Tables the generated code applies by copying the winning record's data itself, next to the
/// ones it leaves to the full lookup in Rust: data that do not fit the record (four values, a
/// 72-bit value), a default with data set by the program and then by the control plane, a table
/// with a direct counter.
const TABLES: &str = r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t eth; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets) hits;
    action set(bit<9> port, bit<8> b) { sm.egress_spec = port; hdr.eth.src[7:0] = b; }
    action many(bit<8> a, bit<8> b, bit<8> c, bit<8> d) { hdr.eth.src[31:0] = a ++ b ++ c ++ d; sm.egress_spec = 2; }
    action wide(bit<72> v) { hdr.eth.src = v[71:24]; sm.egress_spec = 3; }
    action counted(bit<9> port, bit<8> b) { sm.egress_spec = port; hdr.eth.src[15:8] = b; }
    table a { key = { hdr.eth.dst[7:0]: exact; } actions = { set; many; wide; } default_action = set(7, 0x42); }
    table c { key = { hdr.eth.dst[15:8]: exact; } actions = { counted; } default_action = counted(1, 1); counters = hits; }
    apply { if (hdr.eth.ether_type == 1) { c.apply(); } else { a.apply(); } }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn tables_switch() -> Switch {
    let mut sw = build("tables.p4", TABLES);
    let key = |k: u8| Keys::Positional(vec![KeyValue::Value(k.into())]);
    let args = |v: &[u128]| ActionArgs::Positional(v.iter().map(|&x| num_bigint::BigUint::from(x)).collect());
    sw.table_add("a", key(1), "set", args(&[4, 0x11]), None).expect("entry");
    sw.table_add("a", key(2), "many", args(&[1, 2, 3, 4]), None).expect("entry");
    sw.table_add("a", key(3), "wide", args(&[0xff_0000_0000_0000_0001]), None).expect("entry");
    sw.table_add("a", key(4), "wide", args(&[0x12_3456_789a]), None).expect("entry");
    sw.table_add("c", key(5), "counted", args(&[6, 0x66]), None).expect("entry");
    sw
}

/// Frames with destination MAC ending `k2, k1` and EtherType `ether_type`.
fn keyed(k1: u8, k2: u8, ether_type: u16) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, k2, k1, 0, 0, 0, 0, 0, 0];
    f.extend_from_slice(&ether_type.to_be_bytes());
    f.resize(20, 0xee);
    f
}

#[test]
fn table_records_and_defaults_give_the_data_of_the_full_lookup() {
    let mut sw = tables_switch();
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet"));
    let frames: Vec<Vec<u8>> = (0..6).map(|k| keyed(k, 0, 0x0800)).chain([keyed(0, 5, 1), keyed(0, 9, 1)]).collect();
    let src = |out: &[(u32, u32, Vec<u8>)], i: usize| (out[i].1, out[i].2[6..12].to_vec());
    let check = |out: &[(u32, u32, Vec<u8>)], miss: (u32, Vec<u8>)| {
        assert_eq!(out.len(), 8);
        assert_eq!(src(out, 0), miss);
        assert_eq!(src(out, 1), (4, vec![0, 0, 0, 0, 0, 0x11]));
        // Four values: not in the record.
        assert_eq!(src(out, 2), (2, vec![0, 0, 1, 2, 3, 4]));
        // 72 bits: not in the record; (v >> 24) cut to 48 bits.
        assert_eq!(src(out, 3), (3, vec![0xff, 0, 0, 0, 0, 0]));
        assert_eq!(src(out, 4), (3, vec![0, 0, 0, 0, 0x12, 0x34]));
        assert_eq!(src(out, 5), miss);
        assert_eq!(src(out, 6), (6, vec![0, 0, 0, 0, 0x66, 0]));
        assert_eq!(src(out, 7), (1, vec![0, 0, 0, 0, 1, 0]));
    };
    let mut closures = tables_switch();
    assert!(!closures.use_machine_code(false));
    let got = run(&mut sw, &frames);
    check(&got, (7, vec![0, 0, 0, 0, 0, 0x42]));
    assert_eq!(got, run(&mut closures, &frames));
    // A default whose data the record cannot hold, then one it can.
    for sw in [&mut sw, &mut closures] {
        sw.table_set_default("a", "many", ActionArgs::Positional([9u8, 8, 7, 6].map(Into::into).to_vec())).expect("default");
    }
    let got = run(&mut sw, &frames);
    check(&got, (2, vec![0, 0, 9, 8, 7, 6]));
    assert_eq!(got, run(&mut closures, &frames));
    for sw in [&mut sw, &mut closures] {
        sw.table_set_default("a", "set", ActionArgs::Positional([5u8, 0x24].map(Into::into).to_vec())).expect("default");
    }
    let got = run(&mut sw, &frames);
    check(&got, (5, vec![0, 0, 0, 0, 0, 0x24]));
    assert_eq!(got, run(&mut closures, &frames));
    // The direct counter counted every hit of `c` (one per run).
    assert_eq!(sw.counter_read("I.hits", 0).expect("counter").0, 3);
}

/// A program whose machine code never calls back into closures (a self-contained whole-packet
/// function: it resets the state it uses and reads the packet where it lies): a select, a parser
/// error, direct action calls, a table with a drop, an `exit`, a header made valid.
const SELF_CONTAINED: &str = r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<40> src_hi; bit<8> src_lo; bit<16> ether_type; }
header ip_t { bit<8> ttl; bit<8> proto; bit<32> addr; }
header tag_t { bit<8> v; }
struct headers_t { ethernet_t eth; ip_t ip; tag_t tag; }
struct meta_t { bit<8> seen; bit<9> port; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition select(hdr.eth.ether_type) { 0x0800: ip; 0x0801: tagged; 0x0900 .. 0x09ff: ip; default: accept; } }
    state ip { pkt.extract(hdr.ip); transition accept; }
    state tagged { pkt.extract(hdr.tag); verify(hdr.tag.v != 0, error.ParserInvalidArgument); transition ip; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    action to(bit<9> port) { sm.egress_spec = port; meta.seen = meta.seen + 1; }
    action mark(bit<8> v) { hdr.tag.setValid(); hdr.tag.v = v; }
    table route { key = { hdr.ip.addr: exact; } actions = { to; drop; } default_action = drop(); }
    apply {
        // A field of a header not valid (unless the parser extracted it) reads 0.
        hdr.eth.src_lo = hdr.tag.v;
        if (sm.parser_error != error.NoError) { to(9); hdr.eth.ether_type = 0xbad0; exit; }
        if (!hdr.ip.isValid()) {
            // Arrival metadata, read (what the function sets only where something reads it).
            sm.egress_spec = sm.ingress_port + 1;
            hdr.eth.src_hi = (bit<40>)sm.packet_length;
            return;
        }
        if (hdr.ip.ttl <= 1) { drop(); exit; }
        hdr.ip.ttl = hdr.ip.ttl - 1;
        route.apply();
        if (meta.seen == 1 && hdr.ip.proto == 6) { mark(sm.egress_spec[7:0]); }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { if (sm.egress_port == 7) { mark_to_drop(sm); } }
}
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.tag); pkt.emit(hdr.ip); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

/// The routes of [`SELF_CONTAINED`], on the switch or the reference.
fn routes(dp: &mut dyn ControlPlane) {
    for (addr, port) in [(1u32, 4u16), (2, 5), (3, 7)] {
        dp.table_add("route", Keys::Positional(vec![KeyValue::Value(addr.into())]), "to", ActionArgs::Positional(vec![port.into()]), None).expect("entry");
    }
}

fn self_contained_switch() -> Switch {
    let mut sw = build("self_contained.p4", SELF_CONTAINED);
    routes(&mut sw);
    sw
}

/// The reference interpreter on [`SELF_CONTAINED`] with the same routes.
fn self_contained_reference() -> Interpreter {
    let mut r = Interpreter::new(compile("self_contained.p4", SELF_CONTAINED)).expect("the reference interpreter");
    routes(&mut r);
    r
}

/// An Ethernet frame of EtherType `ether_type`, then `rest`.
fn typed(ether_type: u16, rest: &[u8]) -> Vec<u8> {
    let mut f = vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2];
    f.extend_from_slice(&ether_type.to_be_bytes());
    f.extend_from_slice(rest);
    f
}

#[test]
fn a_self_contained_program_gives_the_values_it_computes() {
    let mut sw = self_contained_switch();
    assert_eq!(sw.machine_code(), Some("parser, 3 of 3 controls, whole packet, self-contained"));
    let frames = [
        // ttl 5, proto 6, addr 2: to(5), then tagged with 5; payload kept.
        typed(0x0800, &[5, 6, 0, 0, 0, 2, 0xaa, 0xbb]),
        // A tag of 0: the parser's verify fails; to(9), EtherType rewritten, nothing parsed after.
        typed(0x0801, &[0, 9, 9]),
        // No IP: to(1), the frame unchanged.
        typed(0x86dd, &[1, 2, 3]),
        // ttl 1: dropped in ingress.
        typed(0x0800, &[1, 6, 0, 0, 0, 2]),
        // Unknown address: the default drop.
        typed(0x0800, &[5, 6, 0, 0, 0, 8]),
        // Port 7: dropped in egress.
        typed(0x0800, &[5, 17, 0, 0, 0, 3]),
        // Too short for the IP header: to(9).
        typed(0x0800, &[5, 6]),
    ];
    let out = run(&mut sw, &frames);
    // The source MAC's low byte: the tag's value, 0 where no tag was extracted.
    let src0 = |mut f: Vec<u8>| {
        f[11] = 0;
        f
    };
    let expected: Vec<(u32, u32, Vec<u8>)> = vec![
        // Ethernet, the tag (5), the IP header (ttl 4), the payload.
        (0, 5, src0(typed(0x0800, &[5, 4, 6, 0, 0, 0, 2, 0xaa, 0xbb]))),
        (1, 9, src0(typed(0xbad0, &[0, 9, 9]))),
        // Port 0 + 1; the length (17) in the source MAC's high bytes.
        (2, 1, src0(typed(0x86dd, &[1, 2, 3])).into_iter().enumerate().map(|(i, b)| if i == 10 { 17 } else if i > 5 && i < 10 { 0 } else { b }).collect()),
        (6, 9, src0(typed(0xbad0, &[5, 6]))),
        (3, u32::MAX, b"mark_to_drop in I".to_vec()),
        (4, u32::MAX, b"mark_to_drop in I".to_vec()),
        (5, u32::MAX, b"mark_to_drop in E".to_vec()),
    ];
    assert_eq!(out, expected);
    assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut self_contained_reference(), &frames));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]
    /// Packets one after another through the self-contained function (each resetting only what
    /// the program writes), interleaved with packets through the closures on the same switch,
    /// give what the reference interpreter gives.
    #[test]
    fn a_self_contained_program_agrees_with_the_reference(packets in proptest::collection::vec((0u16..7, any::<[u8; 8]>(), 0u8..5, 0usize..24, any::<bool>()), 1..40)) {
        let (mut native, mut reference) = (self_contained_switch(), self_contained_reference());
        for &(kind, body, addr, len, closures) in &packets {
            let mut body = body;
            body[5] = addr;
            // The range's ends and the values just outside it too.
            let mut f = typed([0x0800, 0x0801, 0x1234, 0x0900, 0x09ff, 0x0a00, 0x08ff][kind as usize], &body);
            f.truncate(len);
            native.use_machine_code(!closures);
            let frames = [f];
            prop_assert_eq!(common::injected(&mut native, &frames), common::injected(&mut reference, &frames));
        }
    }
}

/// An L2 table on the whole destination MAC, probed by generated code in its flat map.
const MACS: &str = r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t eth; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table mac { key = { hdr.eth.dst: exact; } actions = { fwd; } default_action = fwd(500); }
    apply { mac.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

/// Entries added until the flat map grows several times, then every third deleted, every fifth
/// given another port, and the default changed: each packet leaves by the port the table as the
/// control plane left it says (deleted and unknown addresses by the default's), probe runs
/// across deleted slots included.
#[test]
fn the_flat_map_probed_by_generated_code_follows_the_control_plane() {
    let mut sw = build("macs.p4", MACS);
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet, self-contained"));
    // Scrambled (an arithmetic progression would spread evenly over the slots and never collide),
    // and as many as half the slots hold: probe runs of several slots.
    let mac = |i: u64| {
        let mut x = i.wrapping_add(0x2545_f491_4f6c_dd1d);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x & 0xffff_ffff_ffff
    };
    let key = |i: u64| Keys::Positional(vec![KeyValue::Value(mac(i).into())]);
    let port = |p: u64| ActionArgs::Positional(vec![p.into()]);
    let handles: Vec<_> = (0..1000u64).map(|i| sw.table_add("mac", key(i), "fwd", port(i % 400 + 1), None).expect("entry")).collect();
    for (i, h) in handles.iter().enumerate() {
        if i % 3 == 0 {
            sw.table_delete("mac", *h).expect("delete");
        } else if i % 5 == 0 {
            sw.table_modify("mac", *h, "fwd", port(450)).expect("modify");
        }
    }
    sw.table_set_default("mac", "fwd", port(499)).expect("default");
    let frames: Vec<Vec<u8>> = (0..1100u64)
        .map(|i| {
            let mut f = mac(i).to_be_bytes()[2..].to_vec();
            f.extend_from_slice(&[0, 0, 0, 0, 0, 1, 0x08, 0x00]);
            f.resize(60, 0);
            f
        })
        .collect();
    let want: Vec<u32> = (0..1100u64)
        .map(|i| match i {
            i if i >= 1000 || i % 3 == 0 => 499,
            i if i % 5 == 0 => 450,
            i => (i % 400 + 1) as u32,
        })
        .collect();
    let got: Vec<u32> = run(&mut sw, &frames).iter().map(|(_, port, _)| *port).collect();
    assert_eq!(got, want);
}

/// A router on one lpm field of `WIDTH` bits (a header of whole bytes: the field, then padding).
fn routes_program(width: u32) -> String {
    let pad = (8 - width % 8) % 8;
    let padding = if pad > 0 { format!(" bit<{pad}> pad;") } else { String::new() };
    format!(
        r#"
#include <core.p4>
#include <v1model.p4>
header h_t {{ bit<{width}> dst;{padding} }}
struct headers_t {{ h_t h; }}
struct meta_t {{ }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.h); transition accept; }}
}}
control V(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    action fwd(bit<9> port) {{ sm.egress_spec = port; }}
    table routes {{ key = {{ hdr.h.dst: lpm; }} actions = {{ fwd; }} default_action = fwd(500); }}
    apply {{ routes.apply(); }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control C(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.h); }} }}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#
    )
}

/// For keys of 32 bits (a trie of three levels: 16, 8, 8), 20 (16, 4) and 12 (one level): routes
/// of every length from 0 to the width, nested and overlapping, added, then some deleted, some
/// given another port, and the default changed, and at each step every key near a route's
/// boundaries leaves by the port of the longest prefix the control plane left covering it (a
/// model in the test), as the trie walked by generated code finds it.
#[test]
fn the_trie_walked_by_generated_code_follows_the_control_plane() {
    for width in [32u32, 20, 12] {
        let mut sw = build("routes.p4", &routes_program(width));
        assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet, self-contained"), "width {width}");
        let mask = |len: u32| if len == 0 { 0 } else { (u64::MAX << (64 - len)) >> (64 - width) };
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // (value, length, port) by handle; `None` once deleted.
        let mut routes: Vec<Option<(u64, u32, u16)>> = Vec::new();
        let mut handles = Vec::new();
        let base = next() & mask(width);
        for i in 0..300u32 {
            let len = i % (width + 1);
            // Half the routes inside one /8 (nested prefixes sharing trie nodes), half anywhere.
            let value = if i % 2 == 0 { (base & mask(8.min(width))) | (next() & !mask(8.min(width))) } else { next() } & mask(len);
            if routes.iter().flatten().any(|r| r.0 == value && r.1 == len) {
                continue;
            }
            let port = (i % 400 + 1) as u16;
            let key = Keys::Positional(vec![KeyValue::Prefix(value.into(), len)]);
            handles.push(sw.table_add("routes", key, "fwd", ActionArgs::Positional(vec![port.into()]), None).expect("route"));
            routes.push(Some((value, len, port)));
        }
        let check = |sw: &mut Switch, routes: &[Option<(u64, u32, u16)>], default: u32, step: &str| {
            let keys: Vec<u64> = routes
                .iter()
                .flatten()
                .flat_map(|&(v, len, _)| [v, v | (!mask(len) & mask(width)), v.wrapping_sub(1) & mask(width), (v | (!mask(len) & mask(width))).wrapping_add(1) & mask(width)])
                .collect();
            let bytes = width.div_ceil(8) as usize;
            let frames: Vec<Vec<u8>> = keys.iter().map(|k| (k << (bytes as u32 * 8 - width)).to_be_bytes()[8 - bytes..].to_vec()).collect();
            let want: Vec<u32> = keys
                .iter()
                .map(|&k| routes.iter().flatten().filter(|r| k & mask(r.1) == r.0).max_by_key(|r| r.1).map_or(default, |r| u32::from(r.2)))
                .collect();
            let got: Vec<u32> = run(sw, &frames).iter().map(|(_, port, _)| *port).collect();
            assert_eq!(got, want, "width {width}, {step}");
        };
        check(&mut sw, &routes, 500, "after the adds");
        for (i, h) in handles.iter().enumerate() {
            if i % 3 == 0 {
                sw.table_delete("routes", *h).expect("delete");
                routes[i] = None;
            } else if i % 5 == 0 {
                sw.table_modify("routes", *h, "fwd", ActionArgs::Positional(vec![450u16.into()])).expect("modify");
                routes[i] = routes[i].map(|(v, len, _)| (v, len, 450));
            }
        }
        sw.table_set_default("routes", "fwd", ActionArgs::Positional(vec![499u16.into()])).expect("default");
        check(&mut sw, &routes, 499, "after deletes, modifies and a new default");
    }
}

/// A table on three exact fields (`bit<8>`, `bit<16>`, `bit<4>`: 28 bits, which the table keeps
/// packed in one number and generated code probes itself) and one on two (`bit<48>`, `bit<32>`:
/// 80 bits, packed but looked up in Rust). `h.op` picks the table.
const MULTI_EXACT: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> op; bit<8> a; bit<16> b; bit<4> c; bit<4> pad; bit<48> x; bit<32> y; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table narrow { key = { hdr.h.a: exact; hdr.h.b: exact; hdr.h.c: exact; } actions = { fwd; } default_action = fwd(500); }
    table wide { key = { hdr.h.x: exact; hdr.h.y: exact; } actions = { fwd; } default_action = fwd(501); }
    apply { if (hdr.h.op == 0) { narrow.apply(); } else { wide.apply(); } }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

/// Keys that differ only in which field holds a bit (`a = 1, b = 0` against `a = 0, b = 256`, the
/// same for `b` and `c`, `x` and `y`) are different entries; each packet leaves by the port of the
/// entry with exactly its fields (a model in the test), through adds, deletes and modifies.
#[test]
fn tables_of_several_exact_fields_match_every_field_exactly() {
    let mut sw = build("multi_exact.p4", MULTI_EXACT);
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet, self-contained"));
    let narrow: Vec<(u64, u64, u64)> = vec![(1, 0, 0), (0, 256, 0), (0, 1, 0), (0, 0, 1), (0, 16, 0), (255, 65535, 15), (2, 3, 4), (4, 3, 2), (3, 2, 4)];
    let wide: Vec<(u64, u64)> = vec![(1, 0), (1 << 16, 5), (0, 1), (1 << 47, 0), (0, 1 << 31), (0xffff_ffff_ffff, 0xffff_ffff), (7, 9), (9, 7)];
    let mut model: std::collections::HashMap<(u8, u64, u64, u64), u16> = std::collections::HashMap::new();
    let mut handles = Vec::new();
    for (i, &(a, b, c)) in narrow.iter().enumerate() {
        let key = Keys::Positional(vec![KeyValue::Value(a.into()), KeyValue::Value(b.into()), KeyValue::Value(c.into())]);
        let port = i as u16 + 1;
        handles.push(("narrow", (0u8, a, b, c), sw.table_add("narrow", key, "fwd", ActionArgs::Positional(vec![port.into()]), None).expect("entry")));
        model.insert((0, a, b, c), port);
    }
    for (i, &(x, y)) in wide.iter().enumerate() {
        let key = Keys::Positional(vec![KeyValue::Value(x.into()), KeyValue::Value(y.into())]);
        let port = i as u16 + 100;
        handles.push(("wide", (1u8, x, y, 0), sw.table_add("wide", key, "fwd", ActionArgs::Positional(vec![port.into()]), None).expect("entry")));
        model.insert((1, x, y, 0), port);
    }
    let frame = |op: u8, a: u64, b: u64, c: u64, x: u64, y: u64| {
        let mut f = vec![op, a as u8];
        f.extend_from_slice(&(b as u16).to_be_bytes());
        f.push((c as u8) << 4);
        f.extend_from_slice(&x.to_be_bytes()[2..]);
        f.extend_from_slice(&(y as u32).to_be_bytes());
        f
    };
    let check = |sw: &mut Switch, model: &std::collections::HashMap<(u8, u64, u64, u64), u16>, step: &str| {
        let mut frames = Vec::new();
        let mut want = Vec::new();
        for &(a, b, c) in &narrow {
            frames.push(frame(0, a, b, c, 0, 0));
            want.push(model.get(&(0, a, b, c)).map_or(500, |p| u32::from(*p)));
        }
        for &(x, y) in &wide {
            frames.push(frame(1, 0, 0, 0, x, y));
            want.push(model.get(&(1, x, y, 0)).map_or(501, |p| u32::from(*p)));
        }
        let got: Vec<u32> = run(sw, &frames).iter().map(|(_, port, _)| *port).collect();
        assert_eq!(got, want, "{step}");
    };
    check(&mut sw, &model, "after the adds");
    for (i, (table, key, h)) in handles.iter().enumerate() {
        if i % 3 == 0 {
            sw.table_delete(table, *h).expect("delete");
            model.remove(key);
        } else if i % 4 == 1 {
            sw.table_modify(table, *h, "fwd", ActionArgs::Positional(vec![450u16.into()])).expect("modify");
            model.insert(*key, 450);
        }
    }
    check(&mut sw, &model, "after deletes and modifies");
    assert!(!sw.use_machine_code(false));
    check(&mut sw, &model, "the same tables on the closures");
}

/// An exact table, an lpm table and an exact table whose action data do not fit a record (a
/// 128-bit value: the full lookup through Rust), each with a direct counter.
const COUNTED: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<48> mac; bit<32> dst; bit<8> k; }
struct headers_t { h_t h; }
struct meta_t { bit<128> wide; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) mac_count;
    direct_counter(CounterType.packets_and_bytes) route_count;
    direct_counter(CounterType.packets_and_bytes) wide_count;
    action fwd(bit<9> port) { sm.egress_spec = port; }
    action big(bit<128> v) { meta.wide = v; sm.egress_spec = (bit<9>)v[8:0]; }
    table mac { key = { hdr.h.mac: exact; } actions = { fwd; } default_action = fwd(500); counters = mac_count; }
    table routes { key = { hdr.h.dst: lpm; } actions = { fwd; } default_action = fwd(501); counters = route_count; }
    table wide { key = { hdr.h.k: exact; } actions = { big; fwd; } default_action = fwd(502); counters = wide_count; }
    apply { mac.apply(); routes.apply(); wide.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

/// Direct counters of tables looked up by generated code count every hit once, with the packet's
/// length, and misses not at all (a model in the test), through deletes (a reused handle starts
/// from zero), modifies (the counts stay) and counter writes; the same on the closures, and for
/// a table whose data only the full lookup gives.
#[test]
fn direct_counters_of_tables_in_generated_code_count_every_hit_once() {
    let mut sw = build("counted.p4", COUNTED);
    // Not self-contained: the 128-bit data go through closures.
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet"));
    let one = |v: u128| Keys::Positional(vec![KeyValue::Value(v.into())]);
    let route = |v: u32, len: u32| Keys::Positional(vec![KeyValue::Prefix(v.into(), len)]);
    let port = |p: u16| ActionArgs::Positional(vec![p.into()]);
    // (counter, handle) -> (packets, bytes) in the model.
    let mut model: std::collections::HashMap<(&str, u64), (u64, u64)> = std::collections::HashMap::new();
    let mut entries: Vec<(&str, &str, u64)> = Vec::new();
    for m in 0..6u64 {
        let h = sw.table_add("mac", one(u128::from(0x0a00_0000_0000 + m)), "fwd", port(m as u16 + 1), None).expect("mac");
        entries.push(("mac", "mac_count", h));
    }
    for (i, (v, len)) in [(0x0a00_0000u32, 8u32), (0x0a01_0000, 16), (0x0a01_0200, 24), (0xc0a8_0001, 32)].into_iter().enumerate() {
        let h = sw.table_add("routes", route(v, len), "fwd", port(i as u16 + 10), None).expect("route");
        entries.push(("routes", "route_count", h));
    }
    for k in 0..3u8 {
        let h = sw.table_add("wide", one(u128::from(k)), "big", ActionArgs::Positional(vec![((1u128 << 100) | u128::from(k + 20)).into()]), None).expect("wide");
        entries.push(("wide", "wide_count", h));
    }
    for (_, counter, h) in &entries {
        model.insert((counter, *h), (0, 0));
    }
    let frame = |m: u64, dst: u32, k: u8, len: usize| {
        let mut f = (0x0a00_0000_0000 + m).to_be_bytes()[2..].to_vec();
        f.extend_from_slice(&dst.to_be_bytes());
        f.push(k);
        f.resize(len, 0x5a);
        f
    };
    // Which entry of each table a packet hits, as the model sees it (None: a miss).
    let mac_of = |m: u64, model: &std::collections::HashMap<(&str, u64), (u64, u64)>, entries: &[(&str, &str, u64)]| {
        (m < 6).then(|| entries[m as usize].2).filter(|h| model.contains_key(&("mac_count", *h)))
    };
    let route_of = |dst: u32, model: &std::collections::HashMap<(&str, u64), (u64, u64)>, entries: &[(&str, &str, u64)]| {
        let longest = [(0xc0a8_0001u32, 32u32, 3usize), (0x0a01_0200, 24, 2), (0x0a01_0000, 16, 1), (0x0a00_0000, 8, 0)]
            .into_iter()
            .filter(|(v, len, i)| dst >> (32 - len) == v >> (32 - len) && model.contains_key(&("route_count", entries[6 + i].2)));
        longest.map(|(_, _, i)| entries[6 + i].2).next()
    };
    let traffic = |round: u64| -> Vec<(u64, u32, u8, usize)> {
        (0..200u64)
            .map(|i| {
                let x = i.wrapping_mul(0x9e37_79b9).wrapping_add(round) >> 3;
                let dst = [0x0a00_0001u32, 0x0a01_0001, 0x0a01_0203, 0xc0a8_0001, 0xc0a8_0002, 0x0b00_0000][(x % 6) as usize];
                (x % 8, dst, (x % 5) as u8, 11 + (x % 90) as usize)
            })
            .collect()
    };
    let send = |sw: &mut Switch, model: &mut std::collections::HashMap<(&str, u64), (u64, u64)>, entries: &[(&str, &str, u64)], round: u64| {
        let packets = traffic(round);
        let frames: Vec<Vec<u8>> = packets.iter().map(|&(m, dst, k, len)| frame(m, dst, k, len)).collect();
        assert_eq!(run(sw, &frames).len(), frames.len());
        for &(m, dst, k, len) in &packets {
            let wide = (k < 3).then(|| entries[10 + k as usize].2).filter(|h| model.contains_key(&("wide_count", *h)));
            for (counter, hit) in [("mac_count", mac_of(m, model, entries)), ("route_count", route_of(dst, model, entries)), ("wide_count", wide)] {
                if let Some(h) = hit {
                    let c = model.get_mut(&(counter, h)).expect("modelled");
                    *c = (c.0 + 1, c.1 + len as u64);
                }
            }
        }
    };
    let check = |sw: &mut Switch, model: &std::collections::HashMap<(&str, u64), (u64, u64)>, step: &str| {
        let mut got: Vec<_> = model.keys().map(|&(counter, h)| ((counter, h), sw.counter_read(counter, h).expect("read"))).collect();
        let mut want: Vec<_> = model.iter().map(|(k, v)| (*k, *v)).collect();
        got.sort();
        want.sort();
        assert!(want.iter().all(|(_, (p, _))| *p > 0), "{step}: every entry hit");
        assert_eq!(got, want, "{step}");
    };
    send(&mut sw, &mut model, &entries, 0);
    check(&mut sw, &model, "first traffic");
    // Delete and re-add (the handle is reused and starts from zero), modify (the counts stay),
    // write a counter.
    sw.table_delete("mac", entries[2].2).expect("delete");
    model.remove(&("mac_count", entries[2].2));
    send(&mut sw, &mut model, &entries, 1);
    let h = sw.table_add("mac", one(0x0a00_0000_0002), "fwd", port(33), None).expect("re-add");
    assert_eq!((h, sw.counter_read("mac_count", h).expect("read")), (entries[2].2, (0, 0)), "a reused handle starts from zero");
    model.insert(("mac_count", h), (0, 0));
    sw.table_delete("routes", entries[8].2).expect("delete /24");
    model.remove(&("route_count", entries[8].2));
    sw.table_modify("routes", entries[7].2, "fwd", port(44)).expect("modify");
    sw.counter_write("route_count", entries[6].2, 1000, 5000).expect("write");
    model.insert(("route_count", entries[6].2), (1000, 5000));
    send(&mut sw, &mut model, &entries, 2);
    let h8 = sw.table_add("routes", route(0x0a01_0200, 24), "fwd", port(12), None).expect("re-add /24");
    model.insert(("route_count", h8), (0, 0));
    entries[8].2 = h8;
    send(&mut sw, &mut model, &entries, 3);
    check(&mut sw, &model, "after deletes, modifies and a write");
    assert!(!sw.use_machine_code(false));
    send(&mut sw, &mut model, &entries, 4);
    check(&mut sw, &model, "the same tables on the closures");
}

/// `switch` statements generated as machine code: one on a field's value with a fall-through
/// label and a default, one on the action a table ran (lowered by the mid-end into a switch on a
/// temporary), and one in the deparser choosing what to emit; and `setInvalid`.
const SWITCHES: &str = r#"
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
header tag_t { bit<8> v; }
struct headers_t { ethernet_t eth; tag_t tag; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.eth); pkt.extract(hdr.tag); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action a() { hdr.tag.v = hdr.tag.v + 1; }
    action b() { hdr.tag.v = 0xb0; }
    table t { key = { hdr.eth.dst[7:0]: exact; } actions = { a; b; NoAction; } default_action = NoAction(); }
    apply {
        switch (hdr.eth.ether_type[7:0]) {
            1: { sm.egress_spec = 1; }
            2:
            3: { sm.egress_spec = 2; }
            default: { sm.egress_spec = 3; }
        }
        switch (t.apply().action_run) {
            a: { hdr.eth.src[7:0] = 0xaa; }
            b: { hdr.eth.src[7:0] = 0xbb; }
            default: { hdr.eth.src[7:0] = 0xdd; }
        }
        if (hdr.eth.ether_type[7:0] == 9) { hdr.tag.setInvalid(); }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply {
        switch (hdr.tag.v) {
            0xb0: { pkt.emit(hdr.tag); pkt.emit(hdr.eth); }
            2: { }
            default: { pkt.emit(hdr.eth); pkt.emit(hdr.tag); }
        }
    }
}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

/// The entries of [`SWITCHES`]' table, on the switch or the reference.
fn switch_entries(dp: &mut dyn ControlPlane) {
    dp.table_add("t", Keys::Positional(vec![KeyValue::Value(1u8.into())]), "a", ActionArgs::Positional(vec![]), None).expect("entry");
    dp.table_add("t", Keys::Positional(vec![KeyValue::Value(2u8.into())]), "b", ActionArgs::Positional(vec![]), None).expect("entry");
}

#[test]
fn switch_statements_and_set_invalid_run_as_machine_code_of_their_own() {
    let program = common::compile_lowered(SWITCHES);
    let mut sw = Switch::new(program.clone()).expect("switch");
    switch_entries(&mut sw);
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet, self-contained"));
    // dst's low byte picks t's action, the EtherType's low byte the port, the tag what is emitted.
    let frame = |dst: u8, ether_type: u8, tag: u8| vec![0, 0, 0, 0, 0, dst, 0, 0, 0, 0, 0, 0x11, 0x88, ether_type, tag];
    let frames = [frame(1, 1, 7), frame(2, 2, 7), frame(3, 3, 1), frame(9, 9, 1)];
    let expected: Vec<(u32, u32, Vec<u8>)> = vec![
        // a: the tag 7 + 1, the source's low byte 0xaa; port 1; Ethernet then the tag.
        (0, 1, vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0xaa, 0x88, 1, 8]),
        // b: the tag 0xb0, which the deparser emits first; port 2.
        (1, 2, vec![0xb0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0xbb, 0x88, 2]),
        // No entry: NoAction, 0xdd; the tag 1 + 0 (no action), port 2 (label 3 of the pair).
        (2, 2, vec![0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0xdd, 0x88, 3, 1]),
        // The default port 3; the tag made invalid, so not emitted (and read as 0: the default).
        (3, 3, vec![0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0xdd, 0x88, 9]),
    ];
    assert_eq!(run(&mut sw, &frames), expected);
    assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference_with(program.clone(), switch_entries), &frames));
    // The same through the closures.
    sw.use_machine_code(false);
    assert_eq!(run(&mut sw, &frames), expected);
}

/// The reference interpreter on `program` with the entries `entries` adds.
fn reference_with(program: Arc<p4_ir::Program>, entries: fn(&mut dyn ControlPlane)) -> Interpreter {
    let mut r = Interpreter::new(program).expect("the reference interpreter");
    entries(&mut r);
    r
}

/// PSA programs (two pipelines, every packet path, the checksum units) give the same packets with
/// machine code as with the closures; valgrind runs this binary (`tests/valgrind/run.sh`), so the
/// generated code of the two-pipeline path runs under it too.
#[test]
fn psa_programs_give_the_same_packets_as_machine_code_and_as_closures() {
    let dir = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/stf-psa"));
    let names = ["psa_unicast", "psa_multicast", "psa_clone_i2e", "psa_clone_e2e", "psa_resubmit", "psa_recirculate", "psa_hashes_and_checksums", "psa_registers"];
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    // Small first bytes pick the programs' branches (op codes, groups, rounds); the rest is noise.
    let frames: Vec<Vec<u8>> = (0..48)
        .map(|i| {
            let len = 1 + (next() % 24) as usize;
            let mut f: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            f[0] = (i % 5) as u8;
            f
        })
        .collect();
    let mut machine_code = 0;
    for name in names {
        let path = dir.join(format!("{name}.p4"));
        let source = std::fs::read_to_string(&path).expect("read a PSA test program");
        let program = Arc::new(p4_midend::lower((*compile(name, &source)).clone()).expect("lowers"));
        let mut with_code = Switch::new(program.clone()).expect("switch");
        let mut closures = Switch::new(program).expect("switch");
        closures.use_machine_code(false);
        machine_code += usize::from(with_code.machine_code().is_some());
        for sw in [&mut with_code, &mut closures] {
            sw.mc_mgrp_create(1).expect("group");
            for (rid, port) in [(5, 2), (6, 3)] {
                let node = sw.mc_node_create(rid, &[port]).expect("node");
                sw.mc_node_associate(1, node).expect("associate");
            }
            sw.mirroring_add(8, 5).expect("session");
            sw.mirroring_add(3, 4).expect("session");
        }
        let seen = run(&mut with_code, &frames);
        assert!(seen.iter().any(|(_, port, _)| *port != u32::MAX), "{name}: some packets leave");
        assert_eq!(seen, run(&mut closures, &frames), "{name}");
    }
    assert_eq!(machine_code, names.len(), "every PSA program has machine code");
}
