//! Loops bounded by run-time values on the wire-format executor: a 3-clause loop with `continue`
//! and `break`, a for-in loop over a run-time range, and a loop a packet can make endless (`k <=
//! n` with `n` 255), which drops that packet with the reason after its iteration limit and
//! leaves the next packet alone, on the switch (with machine code and without) and on the reference
//! interpreter (`p4-reference`). Exact results for some packets; random packets give the same
//! outputs and drops on the switch as on the reference interpreter.

use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> n; bit<8> stop; bit<16> odd_sum; bit<16> range_sum; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        bit<16> s = 0;
        for (bit<8> i = 0; i < hdr.h.n; i = i + 1) {
            if (i == hdr.h.stop) { break; }
            if (i[0:0] == 0) { continue; }
            s = s + (bit<16>)i;
        }
        hdr.h.odd_sum = s;
        bit<16> r = 0;
        for (bit<8> j in 1 .. hdr.h.n) { r = r + (bit<16>)j; }
        hdr.h.range_sum = r;
        if (hdr.h.stop == 0xee) {
            bit<8> count = 0;
            for (bit<8> k = 0; k <= hdr.h.n; k = k + 1) { count = count + 1; }
            hdr.h.stop = count;
        }
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

fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::outcome(sw, frames, 0)
}

#[test]
fn run_time_loops_run_on_the_wire_format_executor() {
    let mut sw = switch();
    // n 10, no stop: odd i below 10 sum to 25; 1 + ... + 10 = 55.
    assert_eq!(run(&mut sw, &[vec![10, 0xff, 0, 0, 0, 0]]), vec![(0, 1, vec![10, 0xff, 0, 25, 0, 55])]);
    // Stop at 6: 1 + 3 + 5 = 9.
    assert_eq!(run(&mut sw, &[vec![10, 6, 0, 0, 0, 0]]), vec![(0, 1, vec![10, 6, 0, 9, 0, 55])]);
    // n 0: no iteration of the first loop; the range 1 .. 0 is empty.
    assert_eq!(run(&mut sw, &[vec![0, 0xff, 0, 0, 0, 0]]), vec![(0, 1, vec![0, 0xff, 0, 0, 0, 0])]);
}

#[test]
fn a_loop_a_packet_makes_endless_drops_that_packet_on_the_switch_and_the_reference() {
    let reason = b"a loop ran 1048576 times without ending".to_vec();
    // Loops need no traffic manager: one machine-code function per packet, calling the loops'
    // closures, which stop a packet for it.
    let sw = switch();
    assert!(!sw.hands_over());
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet"));
    // Stop 0xee runs `k <= n`: 11 times for n 10, for ever for n 255.
    let frames = [vec![10, 0xee, 0, 0, 0, 0], vec![255, 0xee, 0, 0, 0, 0], vec![2, 0xff, 0, 0, 0, 0]];
    // The reason is the drop's and a log line's.
    let want = vec![(0, 1, vec![10, 11, 0, 25, 0, 55]), (1, u32::MAX - 1, reason.clone()), (1, u32::MAX, reason.clone()), (2, 1, vec![2, 0xff, 0, 1, 0, 3])];
    for machine_code in [true, false] {
        let mut sw = switch();
        assert_eq!(sw.use_machine_code(machine_code), machine_code);
        assert_eq!(run(&mut sw, &frames), want, "machine code: {machine_code}");
    }
    assert_eq!(common::injected_sorted(&mut common::reference(PROGRAM), 0, &frames), want, "on the reference");
}

/// The same in egress and in the deparser's control: the copy is dropped, nothing of it written,
/// on the switch and on the reference interpreter.
#[test]
fn an_endless_loop_in_egress_or_the_deparser_drops_the_packet() {
    let reason = b"a loop ran 1048576 times without ending".to_vec();
    let endless = "bit<8> c = 0; for (bit<8> k = 0; k <= hdr.h.n; k = k + 1) { c = c + 1; }";
    for (egress, deparser) in [(endless, ""), ("", endless)] {
        let text = PROGRAM
            .replace("control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }", &format!("control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ {egress} }} }}"))
            .replace("control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }", &format!("control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.h); {deparser} }} }}"));
        let frames = [vec![255, 0xff, 0, 0, 0, 0], vec![2, 0xff, 0, 0, 0, 0]];
        let mut runs = Vec::new();
        for machine_code in [true, false] {
            let mut sw = common::switch(&text);
            assert_eq!(sw.use_machine_code(machine_code), machine_code);
            runs.push((format!("machine code {machine_code}"), run(&mut sw, &frames)));
        }
        runs.push(("the reference".to_string(), common::injected_sorted(&mut common::reference(&text), 0, &frames)));
        for (on, got) in runs {
            assert_eq!(got[..2], [(0, u32::MAX - 1, reason.clone()), (0, u32::MAX, reason.clone())], "egress {egress:?}, {on}");
            assert_eq!(got.len(), 3);
            assert_eq!(got[2].0, 1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_switch_and_the_reference_agree(packets in proptest::collection::vec((0u8..255, any::<u8>()), 1..32)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|&(n, stop)| vec![n, stop, 0, 0, 0, 0]).collect();
        let (mut sw, mut reference) = (switch(), common::reference(PROGRAM));
        prop_assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference, &frames));
    }
}

/// A loop in a function called as a statement stops the packet too (the fast path used to forward
/// it): on the program as the mid-end lowers it (the function inlined), on the switch and on the
/// reference interpreter, which also runs the program as elaborated.
#[test]
fn an_endless_loop_in_a_called_function_drops_the_packet() {
    let text = PROGRAM
        .replace("struct meta_t { }", "struct meta_t { }\nvoid spin(in bit<8> n, inout bit<16> c) { for (bit<8> k = 0; k <= n; k = k + 1) { c = c + 1; } }")
        .replace("hdr.h.odd_sum = s;", "hdr.h.odd_sum = s; spin(hdr.h.n, hdr.h.range_sum);");
    let reason = b"a loop ran 1048576 times without ending".to_vec();
    let want = vec![(0, u32::MAX - 1, reason.clone()), (0, u32::MAX, reason.clone())];
    let frames = [vec![255, 0xff, 0, 0, 0, 0]];
    let lowered = common::compile_lowered(&text);
    for machine_code in [true, false] {
        let mut sw = Switch::new(lowered.clone()).expect("switch");
        assert_eq!(sw.use_machine_code(machine_code), machine_code);
        assert_eq!(run(&mut sw, &frames), want, "machine code: {machine_code}");
    }
    for (on, program) in [("lowered", lowered), ("elaborated", common::compile(&text))] {
        assert_eq!(common::injected_sorted(&mut common::interpreter(program), 0, &frames), want, "the reference, {on}");
    }
}
