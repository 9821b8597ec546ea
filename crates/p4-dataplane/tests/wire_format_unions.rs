//! Header unions on the wire-format executor: a member extracted, a member made valid (the
//! other one becomes invalid), a header assigned into a member (valid: the other one invalid;
//! invalid: that member alone invalid), a whole union copied and emptied, a union's validity.
//! Exact outputs for some packets; random packets give the same outputs on the switch as on the
//! reference interpreter (`p4-reference`).

use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

const PROGRAM: &str = r#"
#include <core.p4>
#include <v1model.p4>
header sel_t { bit<8> sel; bit<8> op; bit<8> valid; }
header a_t { bit<8> a; }
header b_t { bit<16> b; }
header_union u_t { a_t a; b_t b; }
struct headers_t { sel_t s; u_t u; u_t v; a_t spare; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.s); transition select(hdr.s.sel) { 1: ua; 2: ub; 3: spare; default: accept; } }
    state ua { pkt.extract(hdr.u.a); transition accept; }
    state ub { pkt.extract(hdr.u.b); transition accept; }
    state spare { pkt.extract(hdr.spare); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.s.op == 1) { hdr.u.b.setValid(); hdr.u.b.b = 0x1234; }
        else if (hdr.s.op == 2) { hdr.u.a = hdr.spare; }
        else if (hdr.s.op == 3) { hdr.v = hdr.u; hdr.u = {#}; }
        else if (hdr.s.op == 4) { hdr.u.a.setInvalid(); }
        hdr.s.valid = (hdr.u.isValid() ? 8w1 : 8w0) | (hdr.v.isValid() ? 8w2 : 8w0) | (hdr.u.a.isValid() ? 8w4 : 8w0);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.s); pkt.emit(hdr.u); pkt.emit(hdr.v); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#;

fn switch() -> Switch {
    common::switch(PROGRAM)
}

fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::outcome(sw, frames, 0)
}

#[test]
fn unions_run_on_the_wire_format_executor() {
    let mut sw = switch();
    // a extracted, nothing done: u (and u.a) valid.
    assert_eq!(run(&mut sw, &[vec![1, 0, 0, 0x77, 0x99]]), vec![(0, 1, vec![1, 0, 5, 0x77, 0x99])]);
    // op 1: b made valid invalidates a.
    assert_eq!(run(&mut sw, &[vec![1, 1, 0, 0x77, 0x99]]), vec![(0, 1, vec![1, 1, 1, 0x12, 0x34, 0x99])]);
    // op 2 with b extracted and the spare header invalid: u.a stays invalid, b stays valid.
    assert_eq!(run(&mut sw, &[vec![2, 2, 0, 0xbb, 0xcc]]), vec![(0, 1, vec![2, 2, 1, 0xbb, 0xcc])]);
    // op 2 with the spare header valid: u.a takes it and b becomes invalid.
    assert_eq!(run(&mut sw, &[vec![3, 2, 0, 0x55, 0x99]]), vec![(0, 1, vec![3, 2, 5, 0x55, 0x99])]);
    // op 3: u copied into v, then emptied.
    assert_eq!(run(&mut sw, &[vec![2, 3, 0, 0xbb, 0xcc]]), vec![(0, 1, vec![2, 3, 2, 0xbb, 0xcc])]);
    // op 4: a made invalid: the union is invalid.
    assert_eq!(run(&mut sw, &[vec![1, 4, 0, 0x77, 0x99]]), vec![(0, 1, vec![1, 4, 0, 0x99])]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_switch_and_the_reference_agree(packets in proptest::collection::vec((0u8..5, 0u8..6, any::<[u8; 4]>(), 0usize..8), 1..48)) {
        let frames: Vec<Vec<u8>> = packets
            .iter()
            .map(|&(sel, op, body, len)| {
                let mut f = vec![sel, op, 0];
                f.extend_from_slice(&body);
                f.truncate(len);
                f
            })
            .collect();
        let (mut sw, mut reference) = (switch(), common::reference(PROGRAM));
        prop_assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference, &frames));
    }
}

/// A stack of header unions (`tests/programs/valid/unions_and_varbits.p4`): an element's member
/// extracted, its validity read, one element assigned another, the stack emitted with the rest.
const UNION_STACK: &str = include_str!("../../../tests/programs/valid/unions_and_varbits.p4");

#[test]
fn a_stack_of_header_unions_runs_on_the_wire_format_executor() {
    let mut sw = common::switch(UNION_STACK);
    // kind 4, no options: ips[0].v4 extracted and copied into ips[1]; w = 4 + 32.
    assert_eq!(
        common::outcome(&mut sw, &[vec![4, 0, 0, 0, 10, 0, 0, 1, 0xee]], 0),
        vec![(0, 1, vec![4, 0, 0, 36, 10, 0, 0, 1, 10, 0, 0, 1, 0xee])]
    );
    // kind 6: the v6 members of both elements are emitted (the stack's emit takes every member
    // of every element, not only the first).
    let v6: Vec<u8> = (1..=16).collect();
    assert_eq!(
        common::outcome(&mut sw, &[[vec![6, 0, 0, 0], v6.clone()].concat()], 0),
        vec![(0, 1, [vec![6, 0, 0, 36], v6.clone(), v6].concat())]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn a_stack_of_header_unions_agrees_with_the_reference(packets in proptest::collection::vec((prop_oneof![Just(4u8), Just(6u8), Just(9u8)], 0u8..48, proptest::collection::vec(any::<u8>(), 0..64)), 1..16)) {
        let frames: Vec<Vec<u8>> = packets.iter().map(|(kind, len, rest)| [vec![*kind, *len, 0, 0], rest.clone()].concat()).collect();
        let (mut sw, mut reference) = (common::switch(UNION_STACK), common::reference(UNION_STACK));
        prop_assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference, &frames));
    }
}

