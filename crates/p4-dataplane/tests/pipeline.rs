//! End-to-end: P4 programs compiled by p4-sema, run through `inject`, exact bytes and metadata.

mod common;

use common::{args, keys, program, switch, v};
use p4_dataplane::control::{ControlPlane, KeyValue, OutputPacket, PacketIo};

const ROUTER: &str = r#"
#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> etype; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<16> id; bit<3> flags; bit<13> frag;
    bit<8> ttl; bit<8> proto; bit<16> csum; bit<32> src; bit<32> dst;
}
struct headers_t { eth_t eth; ipv4_t ipv4; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.etype) { 0x0800: parse_ipv4; default: accept; }
    }
    state parse_ipv4 { pkt.extract(hdr.ipv4); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.len, hdr.ipv4.id, hdr.ipv4.flags,
              hdr.ipv4.frag, hdr.ipv4.ttl, hdr.ipv4.proto, hdr.ipv4.src, hdr.ipv4.dst },
            hdr.ipv4.csum, HashAlgorithm.csum16);
    }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    action route(bit<48> dmac, bit<9> port) {
        hdr.eth.src = hdr.eth.dst;
        hdr.eth.dst = dmac;
        sm.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    table lpm { key = { hdr.ipv4.dst: lpm; } actions = { route; drop; } default_action = drop(); }
    action fwd(bit<9> port) { sm.egress_spec = port; }
    table l2 { key = { hdr.eth.dst: exact; } actions = { fwd; drop; } default_action = drop(); }
    apply {
        if (sm.checksum_error == 1) { drop(); return; }
        if (hdr.ipv4.isValid()) { lpm.apply(); } else { l2.apply(); }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.len, hdr.ipv4.id, hdr.ipv4.flags,
              hdr.ipv4.frag, hdr.ipv4.ttl, hdr.ipv4.proto, hdr.ipv4.src, hdr.ipv4.dst },
            hdr.ipv4.csum, HashAlgorithm.csum16);
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.ipv4); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("test hex")).collect()
}

#[test]
fn routes_by_longest_prefix_decrements_ttl_and_fixes_the_checksum() {
    let mut sw = switch(ROUTER);
    sw.table_add("lpm", keys(vec![KeyValue::Prefix(0xc0a8_0000u32.into(), 16)]), "route", args(&[0xaabb_ccdd_eeff, 3]), None)
        .expect("add /16");
    sw.table_add("lpm", keys(vec![KeyValue::Prefix(0xc0a8_0000u32.into(), 24)]), "route", args(&[0x1111_1111_1111, 4]), None)
        .expect("add /24");
    sw.table_add("l2", keys(vec![v(0x0000_0000_0009)]), "fwd", args(&[6]), None).expect("add l2");
    // 192.168.0.1 -> 192.168.0.199, TTL 64, checksum 0xb861; payload dead.
    let pkt = hex("000000000001 000000000002 0800 4500 0073 0000 4000 4011 b861 c0a80001 c0a800c7 dead");
    let out = sw.inject(0, &pkt, 0);
    let want = hex("111111111111 000000000001 0800 4500 0073 0000 4000 3f11 b961 c0a80001 c0a800c7 dead");
    assert_eq!(out.outputs, vec![OutputPacket { port: 4, data: want }]);
    assert!(out.drops.is_empty());

    // A corrupted checksum sets checksum_error; ingress drops.
    let mut bad = pkt.clone();
    bad[24] = 0;
    let out = sw.inject(0, &bad, 1000);
    assert_eq!(out.outputs, vec![]);
    assert_eq!(out.drops, vec!["mark_to_drop in I".to_string()]);

    // Non-IPv4 is switched on the destination MAC.
    let arp = hex("000000000009 000000000002 0806 0102");
    assert_eq!(sw.inject(2, &arp, 2000).outputs, vec![OutputPacket { port: 6, data: arp.clone() }]);
}

#[test]
fn ternary_entries_win_by_smaller_priority_number() {
    let src = program(
        "bit<8> k; bit<8> r;",
        "",
        "",
        "action set(bit<8> x) { hdr.h.r = x; }
         table t { key = { hdr.h.k: ternary; } actions = { set; } default_action = set(0xee); }
         apply { t.apply(); sm.egress_spec = 1; }",
        "apply { }",
    );
    let mut sw = switch(&src);
    let m = |val: u32, mask: u32| KeyValue::Masked(val.into(), mask.into());
    assert_eq!(sw.table_add("t", keys(vec![m(0x04, 0xfc)]), "set", args(&[1]), Some(20)), Ok(0));
    assert_eq!(sw.table_add("t", keys(vec![m(0x00, 0x00)]), "set", args(&[2]), Some(30)), Ok(1));
    assert_eq!(sw.table_add("t", keys(vec![m(0x05, 0xff)]), "set", args(&[3]), Some(10)), Ok(2));
    let r = |sw: &mut p4_dataplane::Switch, k: u8| sw.inject(0, &[k, 0], 0).outputs[0].data[1];
    assert_eq!(r(&mut sw, 0x05), 3);
    assert_eq!(r(&mut sw, 0x06), 1);
    assert_eq!(r(&mut sw, 0x80), 2);
    sw.table_delete("t", 1).expect("delete");
    assert_eq!(r(&mut sw, 0x80), 0xee);
    sw.table_set_default("t", "set", args(&[0x42])).expect("set default");
    assert_eq!(r(&mut sw, 0x80), 0x42);
    assert!(sw.table_add("t", keys(vec![v(256)]), "set", args(&[1]), Some(1)).is_err(), "key wider than 8 bits");
}

#[test]
fn short_packet_reaches_ingress_with_parser_error() {
    let src = program(
        "bit<32> x;",
        "",
        "",
        "apply { if (sm.parser_error == error.PacketTooShort) { sm.egress_spec = 7; } else { sm.egress_spec = 1; } }",
        "apply { }",
    );
    let mut sw = switch(&src);
    // The header is invalid, so only the unparsed bytes go out.
    assert_eq!(sw.inject(0, &[0xab, 0xcd], 0).outputs, vec![OutputPacket { port: 7, data: vec![0xab, 0xcd] }]);
    assert_eq!(sw.inject(0, &[1, 2, 3, 4, 5], 0).outputs, vec![OutputPacket { port: 1, data: vec![1, 2, 3, 4, 5] }]);
}

const STAMP_EGRESS: &str = "apply { hdr.h.itype = (bit<8>)sm.instance_type; hdr.h.rid = (bit<8>)sm.egress_rid; hdr.h.port = (bit<8>)sm.egress_port; }";

#[test]
fn multicast_replicates_with_replication_ids() {
    let src = program("bit<8> a; bit<8> itype; bit<8> rid; bit<8> port;", "", "", "apply { sm.mcast_grp = 5; }", STAMP_EGRESS);
    let mut sw = switch(&src);
    sw.mc_mgrp_create(5).expect("group");
    let n0 = sw.mc_node_create(10, &[3, 2]).expect("node");
    let n1 = sw.mc_node_create(20, &[4]).expect("node");
    assert_eq!((n0, n1), (0, 1));
    sw.mc_node_associate(5, n0).expect("assoc");
    sw.mc_node_associate(5, n1).expect("assoc");
    let out = sw.inject(1, &[0xaa, 0, 0, 0], 0);
    assert_eq!(
        out.outputs,
        vec![
            OutputPacket { port: 2, data: vec![0xaa, 5, 10, 2] },
            OutputPacket { port: 3, data: vec![0xaa, 5, 10, 3] },
            OutputPacket { port: 4, data: vec![0xaa, 5, 20, 4] },
        ]
    );
}

#[test]
fn ingress_clone_goes_to_the_session_port_with_the_original_packet() {
    let src = program(
        "bit<8> a; bit<8> itype; bit<8> rid; bit<8> port;",
        "",
        "",
        "apply { hdr.h.a = 0x77; clone(CloneType.I2E, 32w100); sm.egress_spec = 1; }",
        STAMP_EGRESS,
    );
    let mut sw = switch(&src);
    sw.mirroring_add(100, 9).expect("session");
    let out = sw.inject(0, &[0xaa, 0, 0, 0], 0);
    assert_eq!(
        out.outputs,
        vec![OutputPacket { port: 1, data: vec![0x77, 0, 0, 1] }, OutputPacket { port: 9, data: vec![0xaa, 1, 0, 9] }]
    );
}

#[test]
fn resubmit_keeps_field_list_metadata() {
    let src = program(
        "bit<8> a; bit<8> itype;",
        "@field_list(1) bit<8> count; bit<8> other;",
        "",
        "apply {
            if (sm.instance_type == 0) {
                meta.count = 7; meta.other = 9;
                resubmit_preserving_field_list(1);
            } else {
                hdr.h.a = meta.count + meta.other;
                hdr.h.itype = (bit<8>)sm.instance_type;
                sm.egress_spec = 2;
            }
        }",
        "apply { }",
    );
    let mut sw = switch(&src);
    assert_eq!(sw.inject(0, &[0, 0], 0).outputs, vec![OutputPacket { port: 2, data: vec![7, 6] }]);
}

#[test]
fn registers_and_counters_are_visible_to_the_control_plane() {
    let src = program(
        "bit<8> a;",
        "",
        "",
        "register<bit<32>>(4) r;
         counter(4, CounterType.packets_and_bytes) c;
         apply {
            bit<32> x;
            r.read(x, 1);
            r.write(1, x + (bit<32>)hdr.h.a);
            c.count(2);
            sm.egress_spec = 1;
         }",
        "apply { }",
    );
    let mut sw = switch(&src);
    sw.inject(0, &[5, 0, 0], 0);
    sw.inject(0, &[7], 0);
    assert_eq!(sw.register_read("r", 1), Ok(12u32.into()));
    assert_eq!(sw.counter_read("c", 2), Ok((2, 4)));
    sw.register_write("r", 1, 100u32.into()).expect("write");
    sw.inject(0, &[1], 0);
    assert_eq!(sw.register_read("I.r", 1), Ok(101u32.into()));
    assert!(sw.register_read("r", 4).is_err());
}

#[test]
fn meters_colour_green_yellow_red() {
    let src = program(
        "bit<8> colour;",
        "",
        "",
        "meter(2, MeterType.packets) m;
         apply { m.execute_meter(0, hdr.h.colour); sm.egress_spec = 1; }",
        "apply { }",
    );
    let mut sw = switch(&src);
    assert_eq!(sw.inject(0, &[9], 0).outputs[0].data, vec![0], "unconfigured meters are green");
    sw.meter_set_rates("m", Some(0), &[(0.000_001, 1), (0.000_001, 2)]).expect("rates");
    let colours: Vec<u8> = (0..3).map(|_| sw.inject(0, &[9], 0).outputs[0].data[0]).collect();
    assert_eq!(colours, vec![0, 1, 2]);
}

#[test]
fn log_msg_and_assert() {
    let src = program(
        "bit<8> a; bit<8> b;",
        "",
        "",
        r#"apply { log_msg("a={} b={}", { hdr.h.a, hdr.h.b }); assert(hdr.h.a != 0); sm.egress_spec = 1; }"#,
        "apply { }",
    );
    let mut sw = switch(&src);
    let out = sw.inject(0, &[3, 4], 0);
    assert_eq!(out.log, vec!["a=3 b=4".to_string()]);
    assert_eq!(out.outputs.len(), 1);
    let out = sw.inject(0, &[0, 4], 0);
    assert_eq!(out.outputs, vec![]);
    assert_eq!(out.drops, vec!["assert failed in I".to_string()]);
    assert_eq!(out.log, vec!["a=0 b=4".to_string(), "assert failed in I".to_string()]);
}

#[test]
fn egress_spec_511_and_egress_mark_to_drop_drop() {
    let src = program("bit<8> a;", "", "", "apply { sm.egress_spec = (bit<9>)hdr.h.a; }", "apply { if (hdr.h.a == 2) { mark_to_drop(sm); } }");
    let mut sw = switch(&src);
    let out = sw.inject(0, &[0xff], 0);
    assert_eq!(out.outputs, vec![OutputPacket { port: 255, data: vec![0xff] }]);
    let src = program("bit<16> a;", "", "", "apply { sm.egress_spec = (bit<9>)hdr.h.a; }", "apply { if (hdr.h.a == 2) { mark_to_drop(sm); } }");
    let mut sw = switch(&src);
    assert_eq!(sw.inject(0, &[0x01, 0xff], 0).drops, vec!["egress_spec 511".to_string()]);
    assert_eq!(sw.inject(0, &[0x00, 0x02], 0).drops, vec!["mark_to_drop in E".to_string()]);
    assert_eq!(sw.inject(0, &[0x00, 0x03], 0).outputs, vec![OutputPacket { port: 3, data: vec![0, 3] }]);
}

#[test]
fn switch_can_move_between_threads() {
    fn assert_send<T: Send>() {}
    assert_send::<p4_dataplane::Switch>();
}

#[test]
fn unconfigured_clone_session_is_logged_and_the_original_still_goes_out() {
    let src = program("bit<8> a;", "", "", "apply { clone(CloneType.I2E, 32w7); sm.egress_spec = 2; }", "apply { }");
    let mut sw = switch(&src);
    let out = sw.inject(0, &[1], 0);
    assert_eq!(out.outputs, vec![OutputPacket { port: 2, data: vec![1] }]);
    assert_eq!(out.log, vec!["clone to session 7, which is not configured: no copy made".to_string()]);
}

#[test]
fn truncating_clone_sessions_cut_their_copies_alike_on_the_switch_and_the_reference_interpreter() {
    use p4_dataplane::control::{ControlPlane, PacketIo};
    let src = program(
        "bit<8> a;",
        "",
        "",
        "apply { clone(CloneType.I2E, 32w5); sm.egress_spec = 1; }",
        "apply { if (sm.instance_type == 0) { clone(CloneType.E2E, 32w6); } }",
    );
    let run = |dp: &mut dyn ControlPlaneAndIo| {
        dp.mirroring_add(5, 2).expect("session 5");
        dp.mirroring_add(6, 3).expect("session 6");
        dp.mirroring_truncate(5, Some(2)).expect("cut to 2");
        dp.mirroring_truncate(6, Some(1)).expect("cut to 1");
        let mut out: Vec<(u32, Vec<u8>)> = dp.inject(0, &[1, 2, 3, 4], 0).outputs.into_iter().map(|o| (o.port, o.data)).collect();
        out.sort();
        // Added again, a session no longer cuts.
        dp.mirroring_add(5, 2).expect("session 5 again");
        let whole = dp.inject(0, &[1, 2, 3, 4], 0).outputs.into_iter().find(|o| o.port == 2).map(|o| o.data);
        (out, whole)
    };
    trait ControlPlaneAndIo: ControlPlane + PacketIo {}
    impl<T: ControlPlane + PacketIo> ControlPlaneAndIo for T {}
    let expected = (vec![(1, vec![1, 2, 3, 4]), (2, vec![1, 2]), (3, vec![1])], Some(vec![1, 2, 3, 4]));
    assert_eq!(run(&mut switch(&src)), expected);
    assert_eq!(run(&mut common::reference(&src)), expected);
    assert!(switch(&src).mirroring_truncate(9, Some(1)).is_err(), "no session 9");
}

#[test]
fn value_sets_match_control_plane_members() {
    let src = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> t; bit<8> r; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) pvs;
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.t) { pvs: hit; default: accept; }
    }
    state hit { hdr.h.r = 0x11; transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;
    let mut sw = switch(src);
    assert_eq!(sw.inject(0, &[0x12, 0x34, 0], 0).outputs[0].data, vec![0x12, 0x34, 0]);
    sw.value_set_add("pvs", KeyValue::Masked(0x1200u32.into(), 0xff00u32.into())).expect("member");
    assert_eq!(sw.inject(0, &[0x12, 0x34, 0], 0).outputs[0].data, vec![0x12, 0x34, 0x11]);
    assert_eq!(sw.inject(0, &[0x13, 0x34, 0], 0).outputs[0].data, vec![0x13, 0x34, 0]);
}

#[test]
fn list_assignment_reading_its_own_target_swaps() {
    let src = program("bit<8> a; bit<8> b;", "", "", "apply { hdr.h = { hdr.h.b, hdr.h.a }; sm.egress_spec = 1; }", "apply { }");
    let mut sw = switch(&src);
    assert_eq!(sw.inject(0, &[1, 2, 3], 0).outputs[0].data, vec![2, 1, 3]);
}

#[test]
fn egress_clone_keeps_headers_and_only_field_list_metadata() {
    let src = program(
        "bit<8> a; bit<8> itype; bit<8> kept; bit<8> lost;",
        "@field_list(3) bit<8> kept; bit<8> lost;",
        "",
        "apply { sm.egress_spec = 1; }",
        "apply {
            if (sm.instance_type == 0) {
                hdr.h.a = 0x55;
                meta.kept = 0x11; meta.lost = 0x22;
                clone_preserving_field_list(CloneType.E2E, 32w4, 3);
            } else {
                hdr.h.itype = (bit<8>)sm.instance_type;
                hdr.h.kept = meta.kept;
                hdr.h.lost = meta.lost;
            }
        }",
    );
    let mut sw = switch(&src);
    sw.mirroring_add(4, 6).expect("session");
    let out = sw.inject(0, &[0, 0, 0, 0, 0xee], 0);
    assert_eq!(
        out.outputs,
        vec![
            OutputPacket { port: 1, data: vec![0x55, 0, 0, 0, 0xee] },
            OutputPacket { port: 6, data: vec![0x55, 2, 0x11, 0, 0xee] },
        ]
    );
}

#[test]
fn garbage_packets_of_every_length_are_handled_without_panics() {
    let mut sw = switch(ROUTER);
    let mut seed = 7u32;
    let mut outputs = 0;
    for len in 0..100usize {
        let pkt: Vec<u8> = (0..len)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (seed >> 16) as u8
            })
            .collect();
        let out = sw.inject(1, &pkt, 0);
        outputs += out.outputs.len();
        assert_eq!(out.drops.len() + out.outputs.len(), 1, "length {len}: exactly one fate");
    }
    // No table entries: every packet is dropped by a default action.
    assert_eq!(outputs, 0);
}

#[test]
fn assert_in_the_parser_drops_the_packet() {
    let src = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); assert(hdr.h.a != 0); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;
    let mut sw = switch(src);
    assert_eq!(sw.inject(0, &[1], 0).outputs, vec![OutputPacket { port: 1, data: vec![1] }]);
    let out = sw.inject(0, &[0], 0);
    assert_eq!(out.outputs, vec![]);
    assert_eq!(out.drops, vec!["assert failed in P".to_string()]);
}

#[test]
fn programs_for_other_architectures_are_refused_with_a_reason() {
    let src = "#include <core.p4>
parser Prs(packet_in p);
package Pkg(Prs p);
parser MyP(packet_in p) { state start { transition accept; } }
Pkg(MyP()) main;
";
    let compiled = p4_sema::compile_str("other.p4", src, &[common::include_dir()]);
    let program = compiled.program.expect("compiles");
    let err = p4_dataplane::Switch::new(std::sync::Arc::new(program)).err();
    assert_eq!(
        err.map(|e| e.to_string()),
        Some("unsupported by the software dataplane: package `Pkg`: only V1Switch (v1model), PSA_Switch (psa) and OP4T (op4t) programs run on this dataplane".to_string())
    );
}

#[test]
fn stacks_unions_and_varbits() {
    let src = r#"
#include <core.p4>
#include <v1model.p4>
header a_t { bit<8> v; }
header b_t { bit<16> v; }
header_union u_t { a_t a; b_t b; }
header opt_t { bit<8> len; varbit<64> data; }
struct headers_t { a_t[3] st; u_t u; opt_t o; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.st.next);
        pkt.extract(hdr.st.next);
        pkt.extract(hdr.o, (bit<32>)pkt.lookahead<bit<8>>() * 8);
        transition accept;
    }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.st.push_front(1);
        hdr.st[0].setValid();
        hdr.st[0].v = 0xaa;
        hdr.u.a.setValid();
        hdr.u.a.v = 1;
        hdr.u.b.setValid();
        hdr.u.b.v = 0x0202;
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.st); pkt.emit(hdr.u); pkt.emit(hdr.o); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;
    let mut sw = switch(src);
    let out = sw.inject(0, &[0x01, 0x02, 0x02, 0xc1, 0xc2, 0xff], 0);
    // push_front moved 01 02 down; setting u.b valid invalidated u.a; the varbit keeps its 2 bytes.
    assert_eq!(out.outputs, vec![OutputPacket { port: 1, data: vec![0xaa, 0x01, 0x02, 0x02, 0x02, 0x02, 0xc1, 0xc2, 0xff] }]);
    // A varbit longer than its maximum (9 bytes > 64 bits) rejects with HeaderTooShort; the packet
    // still reaches ingress and leaves with the headers parsed so far.
    let out = sw.inject(0, &[0x01, 0x02, 0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0);
    assert_eq!(out.outputs[0].data[..5], [0xaa, 0x01, 0x02, 0x02, 0x02]);
    assert_eq!(out.outputs[0].data.len(), 5 + 10);
}

#[test]
fn digest_logs_receiver_and_field_values() {
    let src = program(
        "bit<8> a; bit<16> b;",
        "",
        "",
        "apply { digest(32w1, { hdr.h.a, hdr.h.b }); sm.egress_spec = 1; }",
        "apply { }",
    );
    let mut sw = switch(&src);
    let out = sw.inject(0, &[0x12, 0xab, 0xcd], 0);
    assert_eq!(out.log, vec!["digest 1: 0x12, 0xabcd".to_string()]);
    assert_eq!(out.outputs, vec![OutputPacket { port: 1, data: vec![0x12, 0xab, 0xcd] }]);
}

#[test]
fn a_digest_of_a_struct_reaches_the_control_plane_alike_from_the_switch_and_the_reference_interpreter() {
    let src = program(
        "bit<8> a; bit<16> b;",
        "",
        "struct learn_t { bit<8> a; bit<16> b; bit<3> c; }",
        "apply { digest<learn_t>(32w7, { hdr.h.a, hdr.h.b, 3w5 }); sm.egress_spec = 1; }",
        "apply { }",
    );
    let ids = p4_ir::layout::Layouts::of(&common::compile(&src)).ids;
    let learn_t = ids.objects.iter().find(|o| o.name == "learn_t").expect("learn_t has a control-plane object");
    let id = learn_t.id;
    assert_eq!(id >> 24, 0x17, "a digest's id prefix");
    // a, b, then c = 101 padded with zero bits: 27 bits.
    let expected = p4_control::Digest { id, receiver: 7, data: vec![0x12, 0xab, 0xcd, 0xa0], bits: 27, varbit_lengths: vec![] };
    let mut sw = switch(&src);
    assert_eq!(sw.inject(0, &[0x12, 0xab, 0xcd], 0).digests, std::slice::from_ref(&expected));
    let mut reference = common::reference(&src);
    assert_eq!(reference.inject(0, &[0x12, 0xab, 0xcd], 0).digests, [expected]);
}

#[test]
fn an_action_selector_group_entry_runs_the_member_its_hash_picks_alike_on_the_switch_and_the_reference_interpreter() {
    use p4_dataplane::control::{ActionArgs, ControlPlane, KeyValue, Keys, PacketIo};
    use num_bigint::BigUint;
    let src = &program(
        "bit<8> dst; bit<16> flow;",
        "",
        "",
        "action set_port(bit<9> port) { sm.egress_spec = port; }
         action_selector(HashAlgorithm.crc16, 32w64, 32w14) sel;
         table ecmp {
             key = { hdr.h.dst: exact; hdr.h.flow: selector; }
             actions = { set_port; NoAction; }
             implementation = sel;
             default_action = NoAction();
         }
         apply { sm.egress_spec = 0; ecmp.apply(); }",
        "apply { }",
    );
    trait Target: ControlPlane + PacketIo {}
    impl<T: ControlPlane + PacketIo> Target for T {}
    let port = |p: u32| ("set_port".to_string(), ActionArgs::Positional(vec![BigUint::from(p)]));
    let run = |dp: &mut dyn Target| {
        let h = dp.table_add("ecmp", Keys::Positional(vec![KeyValue::Value(BigUint::from(7u8))]), "set_port", ActionArgs::Positional(vec![BigUint::from(1u8)]), None).expect("entry");
        dp.table_select("ecmp", h, vec![port(2), port(3), port(4)]).expect("three members");
        let ports: Vec<u32> = (0u16..8).map(|flow| {
            let [hi, lo] = flow.to_be_bytes();
            dp.inject(0, &[7, hi, lo], 0).outputs.first().map_or(u32::MAX, |o| o.port)
        }).collect();
        // A modify makes it a plain entry again.
        dp.table_modify("ecmp", h, "set_port", ActionArgs::Positional(vec![BigUint::from(9u8)])).expect("modify");
        let plain = dp.inject(0, &[7, 0, 5], 0).outputs.first().map(|o| o.port);
        (ports, plain)
    };
    // Member crc16(flow) mod 3 of ports 2, 3, 4 (crc16/ARC of the two flow bytes, worked out
    // independently of both dataplanes: 0x0000 0xc0c1 0xc181 0x0140 0xc301 0x03c0 0x0280 0xc241).
    let crc: [u16; 8] = [0x0000, 0xc0c1, 0xc181, 0x0140, 0xc301, 0x03c0, 0x0280, 0xc241];
    let expected_ports: Vec<u32> = crc.iter().map(|c| 2 + u32::from(*c) % 3).collect();
    let expected = (expected_ports, Some(9));
    let mut machine_code = common::switch(src);
    assert_eq!(machine_code.code_class(), p4_dataplane::CodeClass::SelfContained, "{:?}", machine_code.machine_code());
    assert_eq!(run(&mut machine_code), expected, "switch, machine code");
    let mut closures = common::switch(src);
    closures.use_machine_code(false);
    assert_eq!(run(&mut closures), expected, "switch, closures");
    assert_eq!(run(&mut common::reference(src)), expected, "reference interpreter");
    let mut sw = common::switch(src);
    let e = sw.table_select("ecmp", 0, vec![port(2)]).expect_err("no entry 0");
    assert_eq!(e.to_string(), "table I.ecmp: no entry with handle 0");
}

#[test]
fn a_table_with_support_timeout_records_which_entries_packets_hit_alike_on_the_switch_and_the_reference_interpreter() {
    use num_bigint::BigUint;
    use p4_dataplane::control::{ActionArgs, ControlPlane, KeyValue, Keys, PacketIo};
    let src = program(
        "bit<8> a;",
        "",
        "",
        "action fwd(bit<9> p) { sm.egress_spec = p; }
         table t { key = { hdr.h.a: exact; } actions = { fwd; NoAction; } support_timeout = true; default_action = NoAction(); }
         table u { key = { hdr.h.a: exact; } actions = { fwd; NoAction; } default_action = NoAction(); }
         apply { t.apply(); u.apply(); }",
        "apply { }",
    );
    trait Target: ControlPlane + PacketIo {}
    impl<T: ControlPlane + PacketIo> Target for T {}
    let run = |dp: &mut dyn Target| {
        for a in [10u8, 11, 12] {
            dp.table_add("t", Keys::Positional(vec![KeyValue::Value(BigUint::from(a))]), "fwd", ActionArgs::Positional(vec![BigUint::from(1u8)]), None).expect("entry");
        }
        let mut seen = Vec::new();
        for packets in [&[10u8, 12, 12, 99][..], &[][..], &[11]] {
            for a in packets {
                dp.inject(0, &[*a], 0);
            }
            seen.push(dp.take_hits("t").expect("hits"));
        }
        let untracked = dp.take_hits("u").map_err(|e| e.to_string());
        (seen, untracked)
    };
    let expected = (vec![vec![0, 2], vec![], vec![1]], Err("table I.u: hits are recorded only for a table with support_timeout = true".to_string()));
    let mut closures = switch(&src);
    closures.use_machine_code(false);
    assert_eq!(run(&mut switch(&src)), expected, "switch, machine code");
    assert_eq!(run(&mut closures), expected, "switch, closures");
    assert_eq!(run(&mut common::reference(&src)), expected, "reference interpreter");
}

#[test]
fn a_serializable_enum_shift_amount_shifts_by_its_value_on_the_switch_and_the_reference_interpreter() {
    use p4_dataplane::control::PacketIo;
    let src = program(
        "bit<8> a; bit<8> b;",
        "",
        "enum bit<8> Amount { ONE = 1, TWO = 2 }",
        "apply { hdr.h.a = hdr.h.a << Amount.TWO; hdr.h.b = hdr.h.b >> Amount.ONE; sm.egress_spec = 1; }",
        "apply { }",
    );
    let expected = vec![OutputPacket { port: 1, data: vec![0x0c, 0x40] }];
    assert_eq!(switch(&src).inject(0, &[0x03, 0x80], 0).outputs, expected);
    assert_eq!(common::reference(&src).inject(0, &[0x03, 0x80], 0).outputs, expected);
}

