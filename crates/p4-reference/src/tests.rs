//! Small programs with outputs worked out by hand.

use std::sync::Arc;

use p4_control::{ControlPlane, Injected, OutputPacket, PacketIo};

use crate::Interpreter;

/// Compiles `text` with the project's include files, lowers it, and builds an interpreter.
fn interpreter(text: &str) -> Interpreter {
    let include = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    let compiled = p4_sema::compile_str("test.p4", text, &[include]);
    let Some(program) = compiled.program else { panic!("does not compile:\n{}", compiled.render_diagnostics()) };
    let lowered = p4_midend::lower(program).expect("lowers");
    Interpreter::new(Arc::new(lowered)).expect("the interpreter takes it")
}

/// A v1model program with `h_t { bit<8> a; bit<8> b; }`, the given parser body for state start,
/// ingress and egress bodies and deparser body.
fn program(ingress: &str, egress: &str, deparser: &str) -> String {
    format!(
        r#"
#include <core.p4>
#include <v1model.p4>
header h_t {{ bit<8> a; bit<8> b; }}
struct headers_t {{ h_t h; h_t g; }}
struct meta_t {{ @field_list(1) bit<8> kept; bit<8> lost; }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.h); transition accept; }}
}}
control V(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ {ingress} }} }}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ {egress} }} }}
control C(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ {deparser} }} }}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#
    )
}

fn out(port: u32, data: &[u8]) -> OutputPacket {
    OutputPacket { port, data: data.to_vec() }
}

#[test]
fn the_deparser_emits_under_switch_and_for() {
    // `a` chooses: 1 emits h twice (a loop), 2 emits g (made valid in ingress) then h, anything
    // else nothing (the header bytes are consumed, so only the payload goes out).
    let mut it = interpreter(&program(
        "sm.egress_spec = 1; hdr.g.setValid(); hdr.g.a = 0xee; hdr.g.b = hdr.h.b + 1;",
        "",
        "switch (hdr.h.a) {
            1: { for (bit<8> i = 0; i < 2; i = i + 1) { pkt.emit(hdr.h); } }
            2: { pkt.emit(hdr.g); pkt.emit(hdr.h); }
            default: { }
        }",
    ));
    let run = |it: &mut Interpreter, data: &[u8]| it.inject(0, data, 0).outputs;
    assert_eq!(run(&mut it, &[1, 0x10, 0xaa]), vec![out(1, &[1, 0x10, 1, 0x10, 0xaa])]);
    assert_eq!(run(&mut it, &[2, 0x10, 0xaa]), vec![out(1, &[0xee, 0x11, 2, 0x10, 0xaa])]);
    assert_eq!(run(&mut it, &[3, 0x10, 0xaa]), vec![out(1, &[0xaa])]);
}

#[test]
fn a_multicast_group_makes_one_copy_per_replica_in_order() {
    let mut it = interpreter(&program(
        "sm.mcast_grp = 7;",
        "hdr.h.a = (bit<8>)sm.egress_rid; hdr.h.b = (bit<8>)sm.egress_port;",
        "pkt.emit(hdr.h);",
    ));
    it.mc_mgrp_create(7).expect("group");
    let first = it.mc_node_create(3, &[4, 6]).expect("node");
    let second = it.mc_node_create(9, &[2]).expect("node");
    it.mc_node_associate(7, first).expect("associate");
    it.mc_node_associate(7, second).expect("associate");
    let got = it.inject(0, &[0, 0, 0x55], 0);
    assert_eq!(got.outputs, vec![out(4, &[3, 4, 0x55]), out(6, &[3, 6, 0x55]), out(2, &[9, 2, 0x55])]);
    assert!(got.drops.is_empty());
    // A group without members drops the packet, saying so.
    it.mc_mgrp_create(8).expect("group");
    let mut empty = interpreter(&program("sm.mcast_grp = 8;", "", "pkt.emit(hdr.h);"));
    empty.mc_mgrp_create(8).expect("group");
    assert_eq!(empty.inject(0, &[0, 0], 0).drops, vec!["multicast group 8 has no members".to_string()]);
}

#[test]
fn an_ingress_clone_is_the_packet_as_it_arrived_with_the_preserved_fields() {
    // Ingress changes the header and both metadata fields; the clone (instance type 1) is parsed
    // again from the arriving bytes and keeps only the field of field list 1.
    let mut it = interpreter(&program(
        "sm.egress_spec = 1; hdr.h.a = 0x77; meta.kept = 0x42; meta.lost = 0x43;
         clone_preserving_field_list(CloneType.I2E, 5, 1);",
        "hdr.h.b = ((bit<4>)sm.instance_type ++ meta.kept[3:0]) ^ meta.lost;",
        "pkt.emit(hdr.h);",
    ));
    it.mirroring_add(5, 9).expect("session");
    let Injected { outputs, drops, log, .. } = it.inject(0, &[0x01, 0x02, 0x03], 0);
    // The original: a = 0x77, b = instance 0 (4 bits) ++ 2 ^ 0x43 = 0x02 ^ 0x43 = 0x41.
    // The clone: a as it arrived (0x01), b = instance 1 ++ 2 ^ 0 (lost not kept) = 0x12.
    assert_eq!(outputs, vec![out(1, &[0x77, 0x41, 0x03]), out(9, &[0x01, 0x12, 0x03])]);
    assert!(drops.is_empty() && log.is_empty());
    // A session that is not configured makes no copy, and says so.
    it.mirroring_delete(5).expect("delete");
    let got = it.inject(0, &[0x01, 0x02, 0x03], 0);
    assert_eq!(got.outputs, vec![out(1, &[0x77, 0x41, 0x03])]);
    assert_eq!(got.log, vec!["clone to session 5, which is not configured: no copy made".to_string()]);
}

#[test]
fn a_parser_error_does_not_drop_and_invalid_headers_read_zero() {
    // One byte is too short for h: the parser fails with PacketTooShort, h stays invalid and
    // reads as 0, and the packet goes on through ingress with the error set.
    let mut it = interpreter(&program(
        "if (sm.parser_error == error.PacketTooShort) { sm.egress_spec = 2; }
         hdr.g.setValid(); hdr.g.a = hdr.h.a + 5; hdr.g.b = 8w1;",
        "",
        "pkt.emit(hdr.g); pkt.emit(hdr.h);",
    ));
    assert_eq!(it.inject(0, &[0x99], 0).outputs, vec![out(2, &[5, 1, 0x99])]);
    // mark_to_drop names its control, and the parser error.
    let mut dropper = interpreter(&program("mark_to_drop(sm);", "", "pkt.emit(hdr.h);"));
    assert_eq!(
        dropper.inject(0, &[0x99], 0).drops,
        vec!["mark_to_drop in I (parser error PacketTooShort)".to_string()]
    );
    assert_eq!(dropper.inject(0, &[1, 2], 0).drops, vec!["mark_to_drop in I".to_string()]);
}

#[test]
fn lpm_prefers_the_longest_prefix_and_checksums_are_computed() {
    let text = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> addr; bit<16> sum; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action to(bit<9> port) { sm.egress_spec = port; }
    table routes { key = { hdr.h.addr: lpm; } actions = { to; } default_action = to(0); }
    apply { routes.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) {
    apply { update_checksum(true, { hdr.h.addr }, hdr.h.sum, HashAlgorithm.csum16); }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;
    let mut it = interpreter(text);
    let prefix = |v: u64, len| p4_control::Keys::Positional(vec![p4_control::KeyValue::Prefix(v.into(), len)]);
    let port = |p: u64| p4_control::ActionArgs::Positional(vec![p.into()]);
    it.table_add("routes", prefix(0x1200, 8), "to", port(1), None).expect("/8");
    it.table_add("routes", prefix(0x1234, 16), "to", port(2), None).expect("/16");
    it.table_add("routes", prefix(0x1230, 12), "to", port(3), None).expect("/12");
    // The checksum of the one word 0x1234 is its complement, 0xedcb.
    assert_eq!(it.inject(0, &[0x12, 0x34, 0, 0], 0).outputs, vec![out(2, &[0x12, 0x34, 0xed, 0xcb])]);
    assert_eq!(it.inject(0, &[0x12, 0x35, 0, 0], 0).outputs, vec![out(3, &[0x12, 0x35, 0xed, 0xca])]);
    assert_eq!(it.inject(0, &[0x12, 0x45, 0, 0], 0).outputs, vec![out(1, &[0x12, 0x45, 0xed, 0xba])]);
    assert_eq!(it.inject(0, &[0x13, 0x45, 0, 0], 0).outputs, vec![out(0, &[0x13, 0x45, 0xec, 0xba])]);
}

#[test]
fn invalid_headers_read_zero_even_after_writes_and_set_invalid_clears_them() {
    // g is invalid: the write to it is kept but reads give 0. h is made invalid and valid again:
    // its fields were cleared.
    let mut it = interpreter(&program(
        "sm.egress_spec = 1; hdr.g.a = 7; meta.lost = hdr.g.a;
         hdr.h.setInvalid(); hdr.h.setValid(); hdr.h.a = hdr.h.b + meta.lost;",
        "",
        "pkt.emit(hdr.h);",
    ));
    assert_eq!(it.inject(0, &[0x11, 0x22, 0x33], 0).outputs, vec![out(1, &[0, 0, 0x33])]);
}

#[test]
fn an_egress_clone_keeps_the_headers_and_starts_with_fresh_metadata() {
    // The original leaves with instance type 0 and the metadata ingress set; its egress clone
    // (instance type 2) has the header as egress left it and the metadata reset.
    let mut it = interpreter(&program(
        "sm.egress_spec = 1; meta.lost = 0x43;",
        "if (sm.instance_type == 0) { hdr.h.a = 0x5a; clone(CloneType.E2E, 5); }
         hdr.h.b = meta.lost + (bit<8>)sm.instance_type;",
        "pkt.emit(hdr.h);",
    ));
    it.mirroring_add(5, 9).expect("session");
    let got = it.inject(0, &[0x11, 0x22], 0).outputs;
    assert_eq!(got, vec![out(1, &[0x5a, 0x43]), out(9, &[0x5a, 0x02])]);
}

#[test]
fn random_numbers_come_from_the_fixed_seed_generator() {
    // splitmix64 from 0x5eed: the first two draws are 0x09f1fd9d03f0a9b4 and 0x553274161bbf8475;
    // `random(x, lo, hi)` gives lo + draw % (hi - lo + 1).
    let mut it = interpreter(&program(
        "sm.egress_spec = 1; random(hdr.h.a, 8w0, 8w255); random(hdr.h.b, 8w0, 8w9);",
        "",
        "pkt.emit(hdr.h);",
    ));
    assert_eq!(it.inject(0, &[0, 0], 0).outputs, vec![out(1, &[0xb4, 5])]);
}

#[test]
fn stacks_and_slices_run_the_same_lowered_or_not() {
    // The mid-end unrolls `next` and turns slice writes into whole writes; the interpreter runs
    // both forms, and both give these bytes.
    let text = r#"
#include <core.p4>
#include <v1model.p4>
header s_t { bit<8> v; }
struct headers_t { s_t[3] s; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.s.next); transition select(hdr.s.last.v) { 0: accept; default: start; } }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.StackOutOfBounds) { sm.egress_spec = 2; }
        hdr.s[0].v[3:0] = 4w0xf;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.s); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;
    let include = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../p4include"));
    let compiled = p4_sema::compile_str("test.p4", text, &[include]);
    let program = compiled.program.expect("compiles");
    let lowered = p4_midend::lower(program.clone()).expect("lowers");
    for p in [program, lowered] {
        let mut it = Interpreter::new(Arc::new(p)).expect("runs");
        assert_eq!(it.inject(0, &[0x21, 0x32, 0x00, 0xaa], 0).outputs, vec![out(1, &[0x2f, 0x32, 0x00, 0xaa])]);
        // A fourth element does not fit: StackOutOfBounds, the three extracted stay valid.
        assert_eq!(it.inject(0, &[0x21, 0x32, 0x43, 0x54], 0).outputs, vec![out(2, &[0x2f, 0x32, 0x43, 0x54])]);
        assert_eq!(it.inject(0, &[0x00, 0x99], 0).outputs, vec![out(1, &[0x0f, 0x99])]);
    }
}

#[test]
fn a_lookahead_past_the_end_rejects_at_once() {
    // The specification's `lookahead` is `ParserModel.verify(..., error.PacketTooShort)`, which
    // goes to `reject` at once: the rest of the state does not run, so `meta.m` stays 0 and h is
    // not extracted (ingress makes it valid with zero fields; the whole packet is payload).
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
    let mut it = interpreter(text);
    assert_eq!(it.inject(0, &[1, 2], 0).outputs, vec![out(1, &[0, 0, 1, 2])]);
    assert_eq!(it.inject(0, &[1, 2, 3, 4], 0).outputs, vec![out(1, &[1, 0x55, 3, 4])]);
}

#[test]
fn push_front_and_pop_front_shift_the_stack() {
    // Two elements parsed into a stack of three. `a` = 1: push_front(1) makes room at the front
    // for a new element 0x99: 99 e0 e1. `a` = 2: pop_front(1) leaves e1 alone.
    let text = r#"
#include <core.p4>
#include <v1model.p4>
header s_t { bit<8> v; }
header h_t { bit<8> a; }
struct headers_t { h_t h; s_t[3] s; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); pkt.extract(hdr.s[0]); pkt.extract(hdr.s[1]); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.h.a == 1) { hdr.s.push_front(1); hdr.s[0].setValid(); hdr.s[0].v = 0x99; }
        if (hdr.h.a == 2) { hdr.s.pop_front(1); }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.s); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;
    let mut it = interpreter(text);
    assert_eq!(it.inject(0, &[1, 0xe0, 0xe1, 0x55], 0).outputs, vec![out(1, &[0x99, 0xe0, 0xe1, 0x55])]);
    assert_eq!(it.inject(0, &[2, 0xe0, 0xe1, 0x55], 0).outputs, vec![out(1, &[0xe1, 0x55])]);
    assert_eq!(it.inject(0, &[3, 0xe0, 0xe1, 0x55], 0).outputs, vec![out(1, &[0xe0, 0xe1, 0x55])]);
}
