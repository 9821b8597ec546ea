//! Loops bounded by run-time values on the wire-format executor: a 3-clause loop with `continue`
//! and `break`, a for-in loop over a run-time range, and a loop a packet can make endless (`k <=
//! n` with `n` 255), which drops that packet with the reason after its iteration limit and
//! leaves the next packet alone. Exact results for some packets; random packets give the same
//! outputs and drops as on the closure executor.

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
    assert_eq!(sw.executor(), "wire-format");
    // n 10, no stop: odd i below 10 sum to 25; 1 + ... + 10 = 55.
    assert_eq!(run(&mut sw, &[vec![10, 0xff, 0, 0, 0, 0]]), vec![(0, 1, vec![10, 0xff, 0, 25, 0, 55])]);
    // Stop at 6: 1 + 3 + 5 = 9.
    assert_eq!(run(&mut sw, &[vec![10, 6, 0, 0, 0, 0]]), vec![(0, 1, vec![10, 6, 0, 9, 0, 55])]);
    // n 0: no iteration of the first loop; the range 1 .. 0 is empty.
    assert_eq!(run(&mut sw, &[vec![0, 0xff, 0, 0, 0, 0]]), vec![(0, 1, vec![0, 0xff, 0, 0, 0, 0])]);
}

#[test]
fn a_loop_a_packet_makes_endless_drops_that_packet_on_both_executors() {
    let reason = b"a loop ran 1048576 times without ending".to_vec();
    // Loops need no traffic manager: one machine-code function per packet, calling the loops'
    // closures, which stop a packet for it.
    let sw = switch();
    assert!(!sw.hands_over());
    assert_eq!(sw.machine_code(), Some("parser, 2 of 2 controls, whole packet"));
    for (wire_format, machine_code) in [(true, true), (true, false), (false, false)] {
        let mut sw = switch();
        assert_eq!(sw.use_wire_format(wire_format), wire_format);
        assert_eq!(sw.use_machine_code(machine_code), machine_code);
        // Stop 0xee runs `k <= n`: 11 times for n 10, for ever for n 255.
        let frames = [vec![10, 0xee, 0, 0, 0, 0], vec![255, 0xee, 0, 0, 0, 0], vec![2, 0xff, 0, 0, 0, 0]];
        let got = run(&mut sw, &frames);
        // The reason is the drop's and a log line's.
        assert_eq!(
            got,
            vec![(0, 1, vec![10, 11, 0, 25, 0, 55]), (1, u32::MAX - 1, reason.clone()), (1, u32::MAX, reason.clone()), (2, 1, vec![2, 0xff, 0, 1, 0, 3])],
            "wire format: {wire_format}, machine code: {machine_code}"
        );
    }
}

/// The same in egress and in the deparser's control: the copy is dropped, nothing of it written.
#[test]
fn an_endless_loop_in_egress_or_the_deparser_drops_the_packet() {
    let reason = b"a loop ran 1048576 times without ending".to_vec();
    let endless = "bit<8> c = 0; for (bit<8> k = 0; k <= hdr.h.n; k = k + 1) { c = c + 1; }";
    for (egress, deparser) in [(endless, ""), ("", endless)] {
        let text = PROGRAM
            .replace("control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }", &format!("control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ {egress} }} }}"))
            .replace("control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }", &format!("control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.h); {deparser} }} }}"));
        for (wire_format, machine_code) in [(true, true), (true, false), (false, false)] {
            let mut sw = common::switch(&text);
            assert_eq!(sw.use_wire_format(wire_format), wire_format);
            assert_eq!(sw.use_machine_code(machine_code), machine_code);
            let got = run(&mut sw, &[vec![255, 0xff, 0, 0, 0, 0], vec![2, 0xff, 0, 0, 0, 0]]);
            assert_eq!(got[..2], [(0, u32::MAX - 1, reason.clone()), (0, u32::MAX, reason.clone())], "egress {egress:?}, wire format {wire_format}, machine code {machine_code}");
            assert_eq!(got.len(), 3);
            assert_eq!(got[2].0, 1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn both_executors_agree(packets in proptest::collection::vec((0u8..255, any::<u8>()), 1..32)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|&(n, stop)| vec![n, stop, 0, 0, 0, 0]).collect();
        let (mut wire, mut closures) = (switch(), switch());
        prop_assert!(!closures.use_wire_format(false));
        prop_assert_eq!(run(&mut wire, &frames), run(&mut closures, &frames));
    }
}

/// A loop in a function called as a statement (bridged: the closure executor's code) stops the
/// packet too; the fast path used to forward it.
#[test]
fn an_endless_loop_in_a_called_function_drops_the_packet() {
    let text = PROGRAM
        .replace("struct meta_t { }", "struct meta_t { }\nvoid spin(in bit<8> n, inout bit<16> c) { for (bit<8> k = 0; k <= n; k = k + 1) { c = c + 1; } }")
        .replace("hdr.h.odd_sum = s;", "hdr.h.odd_sum = s; spin(hdr.h.n, hdr.h.range_sum);");
    let reason = b"a loop ran 1048576 times without ending".to_vec();
    for machine_code in [true, false] {
        let mut sw = common::switch(&text);
        assert_eq!(sw.use_machine_code(machine_code), machine_code);
        let got = run(&mut sw, &[vec![255, 0xff, 0, 0, 0, 0]]);
        assert_eq!(got, vec![(0, u32::MAX - 1, reason.clone()), (0, u32::MAX, reason.clone())], "machine code: {machine_code}");
    }
}
