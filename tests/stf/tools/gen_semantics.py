"""Feature tests of evaluation rules the spec pins down: short-circuit
operators, left-to-right evaluation, header assignment and validity, which
standard_metadata writes count where, signed concatenation."""
from feature import program, h, Stf

NO_META = 'struct meta_t { }\n'


def evaluation_order():
    decls = '''
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
''' + NO_META + '''
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
'''
    ingress = '''
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
'''
    program('evaluation_order', '&& and || short-circuit; arguments and operands evaluate left to right; '
            '?: evaluates one branch', decls, ingress)
    t = Stf('evaluation_order')
    for a in [0, 5]:
        c, tt = 1, 0x10
        n_and = 1 if a == 0 else 0
        n_or = 0 if a == 0 else 1
        args = ((c + 1) << 4 | (c + 2)) & 0xff
        diff = ((c + 3) - (c + 4)) & 0xff
        tern = tt + 1 if a == 0 else tt - 1
        t.comment('a=%d' % a)
        t.packet(0, h((a, 8), (0, 8), (0, 8), (c, 8), (0, 24), (tt, 8)))
        t.expect(1, h((a, 8), (n_and, 8), (n_or, 8), (c + 4, 8), (args, 8), (diff, 8), (tern, 8), (tern, 8)))
    t.write('evaluation_order')


def header_assignment():
    decls = '''
header h_t {
    bit<8> v;
}
struct headers_t {
    h_t a;
    h_t b;
    h_t c;
    h_t d;     // never parsed: invalid
}
''' + NO_META
    parser = '''
state start {
    pkt.extract(hdr.a);
    pkt.extract(hdr.b);
    transition accept;
}
'''
    ingress = '''
apply {
    hdr.c = hdr.a;      // c becomes valid, a copy of a
    hdr.c.v = hdr.c.v + 1;
    hdr.b = hdr.d;      // b becomes invalid
    sm.egress_spec = 1;
}
'''
    program('header_assignment', 'assigning a header copies its validity along with its fields', decls, ingress,
            parser=parser, deparser='pkt.emit(hdr.a);\npkt.emit(hdr.b);\npkt.emit(hdr.c);\npkt.emit(hdr.d);')
    t = Stf('header_assignment: out come a, then c (b was overwritten by the invalid d), then the payload')
    t.packet(0, bytes.fromhex('1122' 'EE'))
    t.expect(1, bytes.fromhex('1112' 'EE'))
    t.write('header_assignment')


def egress_port_fixed():
    decls = '''
header h_t {
    bit<8> eport;    // egress_port as egress sees it
    bit<8> op;       // 1: egress writes egress_spec = 5 (no effect); 2: egress clones and drops
}
struct headers_t { h_t h; }
''' + NO_META
    ingress = '''
apply {
    sm.egress_spec = 1;
}
'''
    egress = '''
apply {
    hdr.h.eport = (bit<8>)sm.egress_port;
    if (hdr.h.op == 1) {
        sm.egress_spec = 5;      // the port was chosen before egress; this does not move the packet
    } else if (hdr.h.op == 2 && sm.instance_type == 0) {
        clone(CloneType.E2E, 9);  // the clone survives the drop of the original
        mark_to_drop(sm);
    }
}
'''
    program('egress_port_fixed', 'egress cannot change the output port; a clone made in egress outlives the '
            'dropped original', decls, ingress, egress=egress)
    t = Stf('egress_port_fixed')
    t.raw('mirroring_add 9 6')
    t.packet(0, h((0, 8), (1, 8)))
    t.expect(1, h((1, 8), (1, 8)))
    t.comment('the E2E clone to session 9 (port 6) runs egress again and writes its own port')
    t.packet(0, h((0, 8), (2, 8)))
    t.expect(6, h((6, 8), (2, 8)))
    t.write('egress_port_fixed')


def signed_concat():
    decls = '''
header h_t {
    int<8>  s;
    bit<8>  u;
    int<16> cat;      // s ++ u: signed like its left operand
    int<16> cat_sar;  // (s ++ u) >> 4: arithmetic shift
    bit<4>  hi;       // s[7:4]: slices are unsigned
    bit<4>  lo;
}
struct headers_t { h_t h; }
''' + NO_META
    ingress = '''
apply {
    hdr.h.cat = hdr.h.s ++ hdr.h.u;
    hdr.h.cat_sar = (hdr.h.s ++ hdr.h.u) >> 4;
    hdr.h.hi = hdr.h.s[7:4];
    hdr.h.lo = hdr.h.s[3:0];
    sm.egress_spec = 1;
}
'''
    program('signed_concat', 'concatenation keeps the left operand\'s signedness; slices are unsigned',
            decls, ingress)
    t = Stf('signed_concat')
    for s, u in [(-2, 0x34), (0x12, 0xff)]:
        cat = ((s & 0xff) << 8) | u
        cat_signed = cat - 0x10000 if cat & 0x8000 else cat
        t.packet(0, h((s, 8), (u, 8), (0, 40)))
        t.expect(1, h((s, 8), (u, 8), (cat, 16), (cat_signed >> 4, 16), ((s & 0xff) >> 4, 4), (s & 0xf, 4)))
    t.write('signed_concat')


ALL = [evaluation_order, header_assignment, egress_port_fixed, signed_concat]
