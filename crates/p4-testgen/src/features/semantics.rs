//! Evaluation rules the spec pins down: short-circuit operators, left-to-right evaluation, header
//! assignment and validity, which standard_metadata writes count where, signed concatenation.

use super::{Program, Stf, Suite};
use crate::packet::{h, hx};

pub(super) const ALL: &[fn(&mut Suite)] = &[evaluation_order, header_assignment, egress_port_fixed, signed_concat];

fn evaluation_order(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> a;
    bit<8> n_and;    // bumped only when a == 0 (right side of &&)
    bit<8> n_or;     // bumped only when a != 0 (right side of ||)
    bit<8> c;        // counter bumped by each argument evaluation
    bit<8> args;     // pack(bump(c), bump(c)): arguments left to right
    bit<8> diff;     // bump(c) - bump(c): operands left to right
    bit<8> tern;     // a == 0 ? up(t) : down(t): only one branch runs
    bit<8> t;
}
struct headers_t { h_t h; }
struct meta_t { }

bool bump_true(inout bit<8> x) {
    x = x + 1;
    return true;
}
bit<8> bump(inout bit<8> x) {
    x = x + 1;
    return x;
}
bit<8> down(inout bit<8> x) {
    x = x - 1;
    return x;
}
bit<8> pack(in bit<8> hi, in bit<8> lo) {
    return (hi << 4) | (lo & 0x0F);
}
";
    let ingress = r"
apply {
    if (hdr.h.a == 0 && bump_true(hdr.h.n_and)) {
        hdr.h.a = hdr.h.a;
    }
    if (hdr.h.a == 0 || bump_true(hdr.h.n_or)) {
        hdr.h.a = hdr.h.a;
    }
    hdr.h.args = pack(bump(hdr.h.c), bump(hdr.h.c));
    hdr.h.diff = bump(hdr.h.c) - bump(hdr.h.c);
    hdr.h.tern = hdr.h.a == 0 ? bump(hdr.h.t) : down(hdr.h.t);
    sm.egress_spec = 1;
}
";
    s.program(Program::new("evaluation_order",
                           "&& and || short-circuit; arguments and operands evaluate left to right; ?: evaluates one \
                            branch",
                           decls, ingress));
    let mut t = Stf::new("evaluation_order");
    for a in [0u128, 5] {
        let (c, tt) = (1u128, 0x10u128);
        let n_and = u128::from(a == 0);
        let n_or = u128::from(a != 0);
        // The four bumps of c see c+1 .. c+4, in source order.
        let args = (((c + 1) << 4) | (c + 2)) & 0xff;
        let diff = (c + 3).wrapping_sub(c + 4) & 0xff;
        let tern = if a == 0 { tt + 1 } else { tt - 1 };
        t.comment(format!("a={a}"));
        t.packet(0, &h(&[(a, 8), (0, 8), (0, 8), (c, 8), (0, 24), (tt, 8)]));
        t.expect(1, &h(&[(a, 8), (n_and, 8), (n_or, 8), (c + 4, 8), (args, 8), (diff, 8), (tern, 8), (tern, 8)]));
    }
    s.stf("evaluation_order", t);
}

fn header_assignment(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> v;
}
struct headers_t {
    h_t a;
    h_t b;
    h_t c;
    h_t d;     // never parsed: invalid
}
struct meta_t { }
";
    let parser = r"
state start {
    pkt.extract(hdr.a);
    pkt.extract(hdr.b);
    transition accept;
}
";
    let ingress = r"
apply {
    hdr.c = hdr.a;      // c becomes valid, a copy of a
    hdr.c.v = hdr.c.v + 1;
    hdr.b = hdr.d;      // b becomes invalid
    sm.egress_spec = 1;
}
";
    s.program(Program::new("header_assignment", "assigning a header copies its validity along with its fields", decls,
                           ingress)
        .parser(parser)
        .deparser("pkt.emit(hdr.a);\npkt.emit(hdr.b);\npkt.emit(hdr.c);\npkt.emit(hdr.d);"));
    let mut t = Stf::new("header_assignment: out come a, then c (b was overwritten by the invalid d), then the payload");
    t.packet(0, &hx("1122 EE"));
    t.expect(1, &hx("1112 EE"));
    s.stf("header_assignment", t);
}

fn egress_port_fixed(s: &mut Suite) {
    let decls = r"
header h_t {
    bit<8> eport;    // egress_port as egress sees it
    bit<8> op;       // 1: egress writes egress_spec = 5 (no effect); 2: egress clones and drops
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
apply {
    sm.egress_spec = 1;
}
";
    let egress = r"
apply {
    hdr.h.eport = (bit<8>)sm.egress_port;
    if (hdr.h.op == 1) {
        sm.egress_spec = 5;      // the port was chosen before egress; this does not move the packet
    } else if (hdr.h.op == 2 && sm.instance_type == 0) {
        clone(CloneType.E2E, 9);  // the clone survives the drop of the original
        mark_to_drop(sm);
    }
}
";
    s.program(Program::new("egress_port_fixed",
                           "egress cannot change the output port; a clone made in egress outlives the dropped original",
                           decls, ingress)
        .egress(egress));
    let mut t = Stf::new("egress_port_fixed");
    t.raw("mirroring_add 9 6");
    t.packet(0, &h(&[(0, 8), (1, 8)]));
    t.expect(1, &h(&[(1, 8), (1, 8)]));
    t.comment("the E2E clone to session 9 (port 6) runs egress again and writes its own port");
    t.packet(0, &h(&[(0, 8), (2, 8)]));
    t.expect(6, &h(&[(6, 8), (2, 8)]));
    s.stf("egress_port_fixed", t);
}

fn signed_concat(s: &mut Suite) {
    let decls = r"
header h_t {
    int<8>  s;
    bit<8>  u;
    int<16> cat;      // s ++ u: signed like its left operand
    int<16> cat_sar;  // (s ++ u) >> 4: arithmetic shift
    bit<4>  hi;       // s[7:4]: slices are unsigned
    bit<4>  lo;
}
struct headers_t { h_t h; }
struct meta_t { }
";
    let ingress = r"
apply {
    hdr.h.cat = hdr.h.s ++ hdr.h.u;
    hdr.h.cat_sar = (hdr.h.s ++ hdr.h.u) >> 4;
    hdr.h.hi = hdr.h.s[7:4];
    hdr.h.lo = hdr.h.s[3:0];
    sm.egress_spec = 1;
}
";
    s.program(Program::new("signed_concat", "concatenation keeps the left operand's signedness; slices are unsigned",
                           decls, ingress));
    let mut t = Stf::new("signed_concat");
    for (sv, u) in [(-2i128, 0x34u128), (0x12, 0xff)] {
        let sb = (sv & 0xff) as u128;
        let cat = (sb << 8) | u;
        let cat_sar = (crate::packet::wrap_signed(cat as i128, 16) >> 4) as u128;
        t.packet(0, &h(&[(sb, 8), (u, 8), (0, 40)]));
        t.expect(1, &h(&[(sb, 8), (u, 8), (cat, 16), (cat_sar, 16), (sb >> 4, 4), (sb & 0xf, 4)]));
    }
    s.stf("signed_concat", t);
}
