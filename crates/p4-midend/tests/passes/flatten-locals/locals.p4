// flatten-locals: a local header and a local struct (with a nested header) become scalars; copies
// between parameters (`hdr.b = hdr.a`, including an invalid source), into and out of locals, a
// struct literal, a swap through a list (read before written), setValid/setInvalid/isValid on a
// local header, a local field as a table key; a local emitted whole stays as it is.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> x;
    bit<8> y;
}
header o_t {
    bit<8> v;
}
struct pair_t {
    bit<8> p;
    bit<8> q;
    h_t h;
}
struct headers_t { o_t o; h_t a; h_t b; h_t c; }
struct meta_t { pair_t s; }

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.o);
        transition select(hdr.o.v) {
            0: accept;
            default: parse_a;
        }
    }
    state parse_a {
        pkt.extract(hdr.a);
        transition accept;
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    pair_t s;
    h_t tmp;
    h_t kept;

    action set_q(bit<8> q) { s.q = q; }
    table t {
        key = { s.p: exact; }
        actions = { set_q; NoAction; }
        const entries = { 2: set_q(0x11); }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        // A copy between parameters, with the source possibly invalid.
        hdr.b = hdr.a;
        tmp = hdr.a;
        s = { 1, 2, tmp };
        s = { s.q, s.p, s.h };
        t.apply();
        if (tmp.isValid()) {
            tmp.x = tmp.x + s.q;
        } else {
            tmp.setValid();
            tmp.x = 0xEE;
        }
        hdr.c = tmp;
        meta.s = s;
        tmp.setInvalid();
        if (!tmp.isValid()) {
            hdr.o.v = meta.s.p;
        }
        kept = hdr.a;
        hdr.a.setInvalid();
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) {
    h_t kept;
    apply {
        kept = hdr.b;
        pkt.emit(hdr.o);
        pkt.emit(hdr.a);
        pkt.emit(kept);
        pkt.emit(hdr.c);
    }
}

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
