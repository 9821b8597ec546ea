// inline-controls: a sub-control with a local, a table with const entries and an action reading the
// local, a `return`, an `in` argument that is an expression and an `out` parameter (copy mode: the
// `inout` header shares its variable with the `out` argument), a sub-sub-control bound by reference,
// and a sub-control applied twice (inlined at both applies, its parameter copied).
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> x;
    bit<8> y;
    bit<8> z;
    bit<8> w;
}
struct headers_t { h_t h; }
struct meta_t { }

control Leaf(inout bit<8> v) {
    apply {
        v = v + 1;
    }
}

control Mid(in bit<8> key, inout h_t hh, out bit<8> tag) {
    bit<8> local_cnt = 3;
    Leaf() leaf;
    action set_y(bit<8> val) {
        hh.y = val + local_cnt;
    }
    table t {
        key = { key : exact; }
        actions = { set_y; NoAction; }
        const entries = {
            1 : set_y(10);
            2 : set_y(20);
        }
        default_action = NoAction();
    }
    apply {
        tag = 7;
        if (t.apply().hit) {
            leaf.apply(hh.x);
        }
        if (key == 3) {
            return;
        }
        hh.z = key;
    }
}

control Twice(inout bit<8> v) {
    apply {
        v = v << 1;
    }
}

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Mid() mid;
    Twice() tw;
    apply {
        mid.apply(hdr.h.k + 0, hdr.h, hdr.h.w);
        tw.apply(hdr.h.x);
        tw.apply(hdr.h.x);
        sm.egress_spec = 1;
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
