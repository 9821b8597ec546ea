// hoist-effects: `t1.apply().hit && t2.apply().miss` (the second apply must stay conditional on the
// first), and a `lookahead` inside an expression in a parser state.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;   // d + the byte after the header (lookahead)
}
struct headers_t { h_t h; }
struct meta_t { }

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        hdr.h.d = hdr.h.d + pkt.lookahead<bit<8>>();
        transition accept;
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_a(bit<8> v) { hdr.h.a = v; }
    action set_b(bit<8> v) { hdr.h.b = v; }
    table t1 {
        key = { hdr.h.k : exact; }
        actions = { set_a; NoAction; }
        const entries = {
            1 : set_a(0x11);
            2 : set_a(0x22);
        }
        default_action = NoAction();
    }
    table t2 {
        key = { hdr.h.a : exact; }
        actions = { set_b; NoAction; }
        const entries = {
            0x11 : set_b(0xB1);
        }
        default_action = NoAction();
    }
    apply {
        if (t1.apply().hit && t2.apply().miss) {
            hdr.h.c = 1;
        } else {
            hdr.h.c = 2;
        }
        sm.egress_spec = 1;
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
