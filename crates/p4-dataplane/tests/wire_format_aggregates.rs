//! Varbit fields and whole structs on the wire-format executor: a header ending in a varbit
//! extracted with a run-time size (whole bytes, at most the maximum, within the packet: else
//! ParserInvalidArgument, HeaderTooShort, PacketTooShort), copied, invalidated and emitted at its
//! length; a local struct of headers and scalars initialised empty, assigned member by member from
//! places and from a list that reads what it replaces. A second program hands its packets over
//! after ingress and hashes the varbit at its length where it lies in the wire buffer (the
//! executor's `hash`). One packet each has its exact output; random packets give the same outputs
//! and drops on the switch as on the reference interpreter (`p4-reference`).

use p4_dataplane::Switch;
use proptest::prelude::*;

mod common;

/// The program with `extra` at the end of ingress.
fn program(extra: &str) -> String {
    format!(
        r#"
#include <core.p4>
#include <v1model.p4>
header n_t {{ bit<8> bits; bit<8> op; }}
header v_t {{ bit<8> kind; varbit<32> data; }}
header e_t {{ bit<8> a; bit<8> b; }}
struct pair_t {{ bit<8> x; bit<8> y; }}
struct group_t {{ v_t v; e_t e; pair_t p; }}
struct headers_t {{ n_t n; v_t v; e_t e; v_t copy; }}
struct meta_t {{ }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ pkt.extract(hdr.n); pkt.extract(hdr.v, (bit<32>)hdr.n.bits); pkt.extract(hdr.e); transition accept; }}
}}
control V(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    apply {{
        sm.egress_spec = 1;
        if (sm.parser_error == error.ParserInvalidArgument) {{ sm.egress_spec = 6; }}
        if (sm.parser_error == error.HeaderTooShort) {{ sm.egress_spec = 4; }}
        if (sm.parser_error == error.PacketTooShort) {{ sm.egress_spec = 3; }}
        group_t g;
        g.v = hdr.v;
        g.e = hdr.e;
        g.p = {{hdr.e.a, hdr.e.b}};
        if (hdr.n.op == 1) {{ g.p = {{g.p.y, g.p.x}}; }}
        if (hdr.n.op == 2) {{ hdr.copy = g.v; }}
        if (hdr.n.op == 3) {{ hdr.v.setInvalid(); }}
        if (hdr.n.op == 4) {{ g.e.setInvalid(); }}
        group_t h = g;
        hdr.e.a = h.p.x;
        hdr.e.b = h.e.isValid() ? h.p.y : 8w0xee;
        {extra}
    }}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control C(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.n); pkt.emit(hdr.v); pkt.emit(hdr.e); pkt.emit(hdr.copy); }} }}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#
    )
}

/// Hands over after ingress (`truncate`) and hashes the varbit into `n.op`.
const HANDING_OVER: &str = "hash(hdr.n.op, HashAlgorithm.crc16, 8w0, { hdr.v.data }, 16w256); truncate(1000);";

fn switch(extra: &str) -> Switch {
    common::switch(&program(extra))
}

fn run(sw: &mut Switch, frames: &[Vec<u8>]) -> Vec<(u32, u32, Vec<u8>)> {
    common::outcome(sw, frames, 0)
}

#[test]
fn varbits_and_structs_run_on_the_wire_format_executor() {
    let mut sw = switch("");
    assert!(!sw.hands_over());
    // 16 varbit bits (0xd1 0xd2) after the kind byte 0x0c; e = (1, 2); op 0 keeps the pair.
    let packet = |op: u8| vec![16, op, 0x0c, 0xd1, 0xd2, 1, 2, 0x99];
    assert_eq!(run(&mut sw, &[packet(0)]), vec![(0, 1, vec![16, 0, 0x0c, 0xd1, 0xd2, 1, 2, 0x99])]);
    // op 1 swaps the pair through a list that reads what it replaces.
    assert_eq!(run(&mut sw, &[packet(1)]), vec![(0, 1, vec![16, 1, 0x0c, 0xd1, 0xd2, 2, 1, 0x99])]);
    // op 2 copies the varbit header (through the struct) into `copy`, emitted at its length.
    assert_eq!(run(&mut sw, &[packet(2)]), vec![(0, 1, vec![16, 2, 0x0c, 0xd1, 0xd2, 1, 2, 0x0c, 0xd1, 0xd2, 0x99])]);
    // op 3 invalidates v; op 4 invalidates the struct's copy of e, which the struct copy carries.
    assert_eq!(run(&mut sw, &[packet(3)]), vec![(0, 1, vec![16, 3, 1, 2, 0x99])]);
    assert_eq!(run(&mut sw, &[packet(4)]), vec![(0, 1, vec![16, 4, 0x0c, 0xd1, 0xd2, 1, 0xee, 0x99])]);
    // No varbit bits: the header is its kind byte alone.
    assert_eq!(run(&mut sw, &[vec![0, 0, 0x0c, 1, 2]]), vec![(0, 1, vec![0, 0, 0x0c, 1, 2])]);
    // 12 bits are not whole bytes, 40 more than the maximum, 24 more than the packet has: the
    // parser stops before v, whose bytes stay payload (and e, invalid, is not emitted).
    assert_eq!(run(&mut sw, &[vec![12, 0, 0x0c, 0xd1, 0xd2]]), vec![(0, 6, vec![12, 0, 0x0c, 0xd1, 0xd2])]);
    assert_eq!(run(&mut sw, &[vec![40, 0, 0x0c, 0xd1, 0xd2]]), vec![(0, 4, vec![40, 0, 0x0c, 0xd1, 0xd2])]);
    assert_eq!(run(&mut sw, &[vec![24, 0, 0x0c, 0xd1, 0xd2]]), vec![(0, 3, vec![24, 0, 0x0c, 0xd1, 0xd2])]);
}

#[test]
fn a_varbit_is_hashed_in_place_and_handed_over() {
    let mut sw = switch(HANDING_OVER);
    assert!(sw.hands_over());
    let mut reference = common::reference(&program(HANDING_OVER));
    let frames = vec![vec![16, 2, 0x0c, 0xd1, 0xd2, 1, 2, 0x99], vec![32, 2, 0x0c, 1, 2, 3, 4, 5, 6], vec![8, 2, 0x0c, 0x77, 5, 6]];
    let got = common::injected(&mut sw, &frames);
    assert_eq!(got, common::injected(&mut reference, &frames));
    // The copy of v made before the hash still carries its varbit; the hash (of the varbit's
    // bits) replaced op.
    assert_eq!(got[0].2[2..], [0x0c, 0xd1, 0xd2, 1, 2, 0x0c, 0xd1, 0xd2, 0x99]);
}

/// A frame of `bits` varbit bits and op `op` with `body` after the two first bytes, cut to `len`.
fn frame(bits: u8, op: u8, body: [u8; 8], len: usize) -> Vec<u8> {
    let mut f = vec![bits, op];
    f.extend_from_slice(&body);
    f.truncate(len);
    f
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_switch_and_the_reference_agree_on_every_size_op_and_cut(
        packets in proptest::collection::vec((prop_oneof![Just(0u8), Just(8), Just(16), Just(24), Just(32), 0u8..48], 0u8..6, any::<[u8; 8]>(), 0usize..11), 1..48),
        handing_over in any::<bool>(),
    ) {
        let extra = if handing_over { HANDING_OVER } else { "" };
        let frames: Vec<Vec<u8>> = packets.iter().map(|&(bits, op, body, len)| frame(bits, op, body, len)).collect();
        let (mut sw, mut reference) = (switch(extra), common::reference(&program(extra)));
        prop_assert_eq!(common::injected(&mut sw, &frames), common::injected(&mut reference, &frames));
    }
}

/// A struct or tuple assigned a constant of its type (which the front end folds to one value)
/// is assigned member by member.
#[test]
fn constant_structs_and_tuples_are_assigned_member_by_member() {
    let program = common::program(
        "bit<8> a; bit<8> b;",
        "bit<8> m;",
        "struct pair_t { bit<8> x; bit<8> y; }\nconst pair_t PAIR = { 8w3, 8w4 };",
        "apply { sm.egress_spec = 1; pair_t p = PAIR; tuple<bit<8>, int> t = { 8w7, 5 }; hdr.h.a = p.x + p.y; hdr.h.b = t[0]; }",
        "apply { }",
    );
    let mut sw = common::switch(&program);
    assert_eq!(common::outcome(&mut sw, &[vec![0, 0, 0xaa]], 0), vec![(0, 1, vec![7, 7, 0xaa])]);
}
