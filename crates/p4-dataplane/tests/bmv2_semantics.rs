//! Behaviours matched to BMv2 simple_switch as the reference compiler's STF tests observe them.

mod common;

use p4_dataplane::control::{OutputPacket, PacketIo};

/// A program with the given header declarations, parser states, ingress body and deparser body.
fn prog(decls: &str, parser: &str, ingress: &str, deparser: &str) -> String {
    format!(
        r#"
#include <core.p4>
#include <v1model.p4>
{decls}
struct meta_t {{ }}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    {parser}
}}
control V(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    {ingress}
}}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control C(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}
control D(packet_out pkt, in headers_t hdr) {{ apply {{ {deparser} }} }}
V1Switch(P(), V(), I(), E(), C(), D()) main;
"#
    )
}

/// The outputs of `pkt` on a switch running `src` as elaborated.
fn run(src: &str, pkt: &[u8]) -> Vec<OutputPacket> {
    let program = common::compile(src);
    let mut sw = p4_dataplane::Switch::new(program).expect("switch");
    sw.inject(0, pkt, 0).outputs
}

#[test]
fn const_entry_priorities_smaller_number_wins_and_unnumbered_rank_by_position() {
    let src = prog(
        "header h_t { bit<16> k; bit<8> r; } struct headers_t { h_t h; }",
        "state start { pkt.extract(hdr.h); transition accept; }",
        "action set(bit<8> x) { hdr.h.r = x; }
         table t {
             key = { hdr.h.k: ternary; }
             actions = { set; }
             default_action = set(0xee);
             const entries = {
                 0x0001 &&& 0x000f : set(1) @priority(3);
                 0x0181 : set(2);
                 0x0181 &&& 0xff0f : set(3) @priority(1);
             }
         }
         apply { t.apply(); sm.egress_spec = 1; }",
        "pkt.emit(hdr.h);",
    );
    let r = |k: [u8; 2]| run(&src, &[k[0], k[1], 0])[0].data[2];
    assert_eq!(r([0x00, 0x11]), 1);
    assert_eq!(r([0x01, 0x01]), 3);
    assert_eq!(r([0x01, 0x81]), 3);
    assert_eq!(r([0x00, 0x02]), 0xee);
}

#[test]
fn field_of_lookahead_result_sizes_a_varbit() {
    let src = prog(
        "header len_t { bit<4> n; bit<4> pad; } header v_t { bit<8> first; varbit<64> rest; }
         struct headers_t { v_t v; }",
        "state start { pkt.extract(hdr.v, (bit<32>)(8 * (bit<9>) pkt.lookahead<len_t>().n - 8)); transition accept; }",
        "apply { sm.egress_spec = 2; }",
        "pkt.emit(hdr.v);",
    );
    // n = 3: the header is 3 bytes; the payload follows unchanged.
    let out = run(&src, &[0x30, 0xaa, 0xbb, 0xcc]);
    assert_eq!(out, vec![OutputPacket { port: 2, data: vec![0x30, 0xaa, 0xbb, 0xcc] }]);
}

#[test]
fn stack_equality_ignores_next_index_and_stale_invalid_headers() {
    let src = prog(
        "header h_t { bit<8> a; } header r_t { bit<8> x; } struct headers_t { h_t[2] s; r_t r; }",
        "state start { pkt.extract(hdr.s.next); pkt.extract(hdr.s.next); transition accept; }",
        "apply {
             h_t[2] tmp;
             tmp[0] = hdr.s[0];
             tmp[1] = hdr.s[1];
             h_t dead1 = { 1 }; h_t dead2 = { 2 };
             dead1.setInvalid(); dead2.setInvalid();
             hdr.r.setValid();
             hdr.r.x = 0;
             if (tmp == hdr.s) { hdr.r.x = hdr.r.x | 1; }
             if (dead1 == dead2) { hdr.r.x = hdr.r.x | 2; }
             if (dead1 == hdr.s[0]) { hdr.r.x = hdr.r.x | 4; }
             sm.egress_spec = 1;
         }",
        "pkt.emit(hdr.s); pkt.emit(hdr.r);",
    );
    assert_eq!(run(&src, &[5, 6])[0].data, vec![5, 6, 3]);
}

#[test]
fn extract_into_dont_care_skips_the_header() {
    let src = prog(
        "header h_t { bit<16> a; } struct headers_t { h_t h; }",
        "state start { pkt.extract<h_t>(_); pkt.extract(hdr.h); transition accept; }",
        "apply { sm.egress_spec = 1; }",
        "pkt.emit(hdr.h);",
    );
    assert_eq!(run(&src, &[1, 2, 3, 4, 5])[0].data, vec![3, 4, 5]);
}

#[test]
fn varbit_size_that_is_not_whole_bytes_is_an_invalid_argument() {
    let src = prog(
        "header n_t { bit<8> n; } header v_t { varbit<16> v; } header e_t { bit<8> code; }
         struct headers_t { n_t n; v_t v; e_t e; }",
        "state start { pkt.extract(hdr.n); pkt.extract(hdr.v, (bit<32>) hdr.n.n); transition accept; }",
        "apply {
             hdr.e.setValid();
             hdr.e.code = 0;
             if (sm.parser_error == error.ParserInvalidArgument) { hdr.e.code = 6; }
             if (sm.parser_error == error.HeaderTooShort) { hdr.e.code = 4; }
             sm.egress_spec = 1;
         }",
        "pkt.emit(hdr.e); pkt.emit(hdr.n); pkt.emit(hdr.v);",
    );
    assert_eq!(run(&src, &[7, 0xaa])[0].data, vec![6, 7, 0xaa]);
    assert_eq!(run(&src, &[24, 0xaa, 0xbb, 0xcc])[0].data, vec![4, 24, 0xaa, 0xbb, 0xcc]);
    assert_eq!(run(&src, &[8, 0xaa, 0xbb])[0].data, vec![0, 8, 0xaa, 0xbb]);
}

/// `mark_to_drop(s)` writes the struct it is given: a function's or an action's `inout`
/// parameter, whose copy-out then drops the packet, or a local copy, which leaves the packet be.
/// (Every executor used to write the block's own metadata, which the copy-out then overwrote.)
#[test]
fn mark_to_drop_writes_the_metadata_it_is_given() {
    let decls = "header h_t { bit<8> a; } struct headers_t { h_t h; }
                 void fdrop(inout standard_metadata_t s) { mark_to_drop(s); }";
    let ingress = |body: &str| {
        format!(
            "action adrop(inout standard_metadata_t s) {{ mark_to_drop(s); }}
             table t {{ key = {{ hdr.h.a: exact; }} actions = {{ adrop(sm); }} default_action = adrop(sm); }}
             apply {{ sm.egress_spec = 1; {body} }}"
        )
    };
    let parser = "state start { pkt.extract(hdr.h); transition accept; }";
    for body in ["fdrop(sm);", "adrop(sm);", "t.apply();"] {
        assert_eq!(run(&prog(decls, parser, &ingress(body), "pkt.emit(hdr.h);"), &[7]), vec![], "{body}");
    }
    let local = ingress("standard_metadata_t copy = sm; mark_to_drop(copy);");
    assert_eq!(run(&prog(decls, parser, &local, "pkt.emit(hdr.h);"), &[7]), vec![OutputPacket { port: 1, data: vec![7] }]);
}

#[test]
fn dynamic_index_is_resolved_before_the_assigned_value() {
    let src = prog(
        "header h_t { bit<8> a; } header i_t { bit<8> id; } struct headers_t { h_t[2] s; i_t i; }
         bit<8> reset(inout bit<8> id) { id = 0; return 9; }",
        "state start { pkt.extract(hdr.s.next); pkt.extract(hdr.s.next); pkt.extract(hdr.i); transition accept; }",
        "apply { hdr.s[hdr.i.id].a = reset(hdr.i.id); sm.egress_spec = 1; }",
        "pkt.emit(hdr.s); pkt.emit(hdr.i);",
    );
    assert_eq!(run(&src, &[0, 0, 1])[0].data, vec![0, 9, 0]);
}

#[test]
fn union_stack_next_member_extraction_advances_next_index() {
    let src = prog(
        "header a_t { bit<8> a; } header b_t { bit<16> b; } header_union u_t { a_t a; b_t b; }
         struct headers_t { u_t[2] u; }",
        "state start { pkt.extract(hdr.u.next.a); pkt.extract(hdr.u.next.b); transition accept; }",
        "apply { sm.egress_spec = 1; }",
        "pkt.emit(hdr.u[1]); pkt.emit(hdr.u[0]);",
    );
    assert_eq!(run(&src, &[1, 2, 3, 4])[0].data, vec![2, 3, 1, 4]);
}

#[test]
fn fields_wider_than_128_bits_are_extracted_copied_and_emitted() {
    let src = prog(
        "header w_t { bit<4> t; bit<200> big; bit<4> u; } struct headers_t { w_t a; w_t b; }",
        "state start { pkt.extract(hdr.a); transition accept; }",
        "apply { hdr.b.setValid(); hdr.b.big = hdr.a.big; sm.egress_spec = 1; }",
        "pkt.emit(hdr.b); pkt.emit(hdr.a);",
    );
    let mut pkt = vec![0u8; 26];
    for (i, b) in pkt.iter_mut().enumerate() {
        *b = 0x11u8.wrapping_mul(i as u8 + 1);
    }
    let out = run(&src, &pkt);
    // `b` keeps t = u = 0 and carries `big`: the 200 bits after the first nibble.
    let mut want = pkt.clone();
    want[0] &= 0x0f;
    want[25] &= 0xf0;
    want.extend_from_slice(&pkt);
    assert_eq!(out[0].data, want);
}

#[test]
fn discarded_lookahead_still_rejects_a_short_packet() {
    let src = prog(
        "struct eight_t { bit<64> bits; } header h_t { bit<8> a; } struct headers_t { h_t h; }",
        "state start { pkt.lookahead<eight_t>(); transition accept; }",
        "apply { if (sm.parser_error == error.PacketTooShort) { sm.egress_spec = 3; } else { sm.egress_spec = 1; } }",
        "",
    );
    assert_eq!(run(&src, &[1, 2]), vec![OutputPacket { port: 3, data: vec![1, 2] }]);
    assert_eq!(run(&src, &[0; 8]), vec![OutputPacket { port: 1, data: vec![0; 8] }]);
}
