//! Header stacks on the wire-format executor: elements at constant indices (what the mid-end's
//! `unroll-parser-stacks` leaves of `.next`/`.last`) and at run-time indices, `push_front`/
//! `pop_front` moving elements' bytes and validity, a whole stack emitted. The program runs on the
//! wire-format executor; one packet has its exact output, and random packets (every op, cut
//! anywhere) give the same outputs and drops on the switch as on the reference interpreter
//! (`p4-reference`).

use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header op_t { bit<8> op; bit<8> first; bit<8> count; }
header tag_t { bit<7> v; bit<1> more; }
struct headers_t { op_t op; tag_t[3] tags; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.op); transition select(hdr.op.count) { 0: accept; default: t0; } }
    state t0 { pkt.extract(hdr.tags[0]); transition select(hdr.tags[0].more) { 1: t1; default: accept; } }
    state t1 { pkt.extract(hdr.tags[1]); transition select(hdr.tags[1].more) { 1: t2; default: accept; } }
    state t2 { pkt.extract(hdr.tags[2]); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.op.op == 1) {
            hdr.tags.push_front(1);
            hdr.tags[0].setValid();
            hdr.tags[0].v = 0x55;
            hdr.tags[0].more = 1;
        } else if (hdr.op.op == 2) {
            hdr.tags.pop_front(1);
        } else if (hdr.op.op == 3) {
            hdr.tags.push_front(2);
        } else if (hdr.op.op == 4) {
            hdr.tags.pop_front(2);
        } else if (hdr.op.op == 5) {
            hdr.tags[2] = hdr.tags[0];
            hdr.tags[1].setInvalid();
        } else if (hdr.op.op == 6) {
            hdr.tags.push_front(3);
        } else if (hdr.op.op == 7) {
            // Elements chosen by run-time indices: a read past the end gives 0.
            hdr.tags[hdr.op.count].v = hdr.tags[(bit<2>)hdr.op.op].v + 1;
        } else if (hdr.op.op == 8) {
            // A write past the end does nothing.
            hdr.tags[hdr.op.first].v = 1;
            hdr.tags[0].v = hdr.tags[hdr.op.count - 1].v;
        }
        hdr.op.first = hdr.tags[0].isValid() ? (bit<8>)hdr.tags[0].v : 8w0xFF;
        hdr.op.count = hdr.tags[2].isValid() ? 8w3 : 8w0;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.op); pkt.emit(hdr.tags); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn switch() -> Switch {
    common::switch(PROGRAM)
}

fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::outcome(sw, frames, 0)
}

#[test]
fn a_stack_at_constant_indices_runs_on_the_wire_format_executor() {
    let mut sw = switch();
    // op 1 with two tags (0x81: v 0x40 and more; 0x02: v 1, last): push_front(1) moves them to
    // [1] and [2], and [0] becomes v 0x55 with more set (0xab). Then first = 0x55, count = 3.
    assert_eq!(run(&mut sw, &[vec![1, 0, 1, 0x81, 0x02, 0xee]]), vec![(0, 1, vec![1, 0x55, 3, 0xab, 0x81, 0x02, 0xee])]);
    // op 2 with three tags: pop_front(1) leaves [1] and [2] in front and [2] invalid.
    assert_eq!(run(&mut sw, &[vec![2, 0, 1, 0x81, 0x83, 0x06]]), vec![(0, 1, vec![2, 0x41, 0, 0x83, 0x06])]);
    // op 6: push_front(3) empties the stack.
    assert_eq!(run(&mut sw, &[vec![6, 0, 1, 0x81, 0x83, 0x06]]), vec![(0, 1, vec![6, 0xff, 0])]);
    // op 7, count 1: tags[1].v = tags[3].v (past the end: 0) + 1, its `more` bit kept (0x03).
    assert_eq!(run(&mut sw, &[frame(7, 1, [0x81, 0x83, 0x06], 8)]), vec![(0, 1, vec![7, 0x40, 3, 0x81, 0x03, 0x06, 0xee, 0xdd])]);
    // op 8, count 2: tags[0x77] is past the end (nothing written); tags[0].v = tags[1].v (0x41).
    assert_eq!(run(&mut sw, &[frame(8, 2, [0x81, 0x83, 0x06], 8)]), vec![(0, 1, vec![8, 0x41, 3, 0x83, 0x83, 0x06, 0xee, 0xdd])]);
}

/// A frame of op `op`, count `count` and `tags`, cut to `len` bytes when shorter.
fn frame(op: u8, count: u8, tags: [u8; 3], len: usize) -> Vec<u8> {
    let mut f = vec![op, 0x77, count, tags[0], tags[1], tags[2], 0xee, 0xdd];
    f.truncate(len);
    f
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_switch_and_the_reference_agree_on_every_op_and_cut(packets in proptest::collection::vec((0u8..9, 0u8..4, any::<[u8; 3]>(), 0usize..9), 1..64)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|&(op, count, tags, len)| frame(op, count, tags, len)).collect();
        let (mut sw, mut reference) = (switch(), common::reference(PROGRAM));
        prop_assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference, &frames));
    }
}

/// A stack of 70 headers and one after it: 71 instances, validity bits past the first 64-bit word.
const DEEP: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
header t_t { bit<8> x; }
struct headers_t { h_t[70] s; t_t t; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.s[0]); transition select(hdr.s[0].a) { 1: deep; default: accept; } }
    state deep { pkt.extract(hdr.s[65]); pkt.extract(hdr.t); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.s[65].isValid()) { hdr.s[66].setValid(); hdr.s[66].a = hdr.s[65].a + 1; }
        if (hdr.t.isValid()) { hdr.t.x = hdr.t.x + 1; hdr.s[1].setValid(); }
        if (hdr.s[69].isValid()) { sm.egress_spec = 2; } else { sm.egress_spec = 1; }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.s); pkt.emit(hdr.t); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

#[test]
fn more_than_64_header_instances_run_as_machine_code() {
    let mut sw = common::switch(DEEP);
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet, self-contained"));
    // s[0] = 1: s[65] = 7 and t = 9 extracted; s[66] = 8 and s[1] (0) made valid, t + 1. Then
    // s[0] = 2, nothing else: no header the first packet made valid is left valid.
    let frames = vec![vec![1, 7, 9, 0xaa], vec![2, 5]];
    let want = vec![(0, 1, vec![1, 0, 7, 8, 10, 0xaa]), (1, 1, vec![2, 5])];
    assert_eq!(common::injected(&mut common::reference(DEEP), &frames), want);
    assert_eq!(run(&mut sw, &frames), want);
    assert!(!sw.use_machine_code(false));
    assert_eq!(run(&mut sw, &frames), want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn more_than_64_header_instances_agree_with_the_reference(packets in proptest::collection::vec((0u8..3, any::<[u8; 4]>(), 0usize..5), 1..32)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|&(first, mut bytes, len)| {
            bytes[0] = first;
            bytes[..len].to_vec()
        }).collect();
        let (mut sw, mut reference) = (common::switch(DEEP), common::reference(DEEP));
        prop_assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference, &frames));
    }
}

/// A stack parsed as written, with `extract(hs.next)` in a loop and `hs.last` in the select and
/// in a statement: the wire-format executor runs them itself, as machine code calling its closures.
/// Past the stack's end the parser stops with `StackOutOfBounds` and the elements it took so far
/// stay. The reference interpreter gives the same bytes.
const NEXT_LAST: &str = r#"
#include <core.p4>
#include <v1model.p4>
header t_t { bit<8> more; bit<8> v; }
struct headers_t { t_t[3] s; }
struct meta_t { bit<8> lastv; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.s.next); meta.lastv = hdr.s.last.v; transition select(hdr.s.last.more) { 1: start; default: accept; } }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.StackOutOfBounds) { sm.egress_spec = 3; }
        if (hdr.s[0].isValid()) { hdr.s[0].v = meta.lastv + 1; }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.s); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

#[test]
fn next_and_last_in_the_parser_run_on_the_wire_format_executor() {
    let mut sw = common::switch(NEXT_LAST);
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet"));
    let cases: Vec<(Vec<u8>, u32, Vec<u8>)> = vec![
        // Three elements; the last has v 0x0c: s[0].v = 0x0d.
        (vec![1, 0x0a, 1, 0x0b, 0, 0x0c, 0xff], 1, vec![1, 0x0d, 1, 0x0b, 0, 0x0c, 0xff]),
        (vec![0, 5, 0x77], 1, vec![0, 6, 0x77]),
        // A fourth element asked for: StackOutOfBounds; the three taken are emitted, the rest
        // of the packet follows from where the parser stopped.
        (vec![1, 1, 1, 2, 1, 3, 0, 4], 3, vec![1, 4, 1, 2, 1, 3, 0, 4]),
        // Too short for one: nothing valid, the packet as it came.
        (vec![1], 1, vec![1]),
    ];
    let mut closures = common::switch(NEXT_LAST);
    assert!(!closures.use_machine_code(false));
    let mut reference = common::reference(NEXT_LAST);
    for (input, port, output) in cases {
        for sw in [&mut sw, &mut closures] {
            assert_eq!(run(sw, std::slice::from_ref(&input)), vec![(0, port, output.clone())], "in: {input:x?}");
        }
        assert_eq!(common::injected(&mut reference, std::slice::from_ref(&input)), vec![(0, port, output)], "in: {input:x?} on the reference");
    }
}
