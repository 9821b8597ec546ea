// unroll-loops: for-in over a header stack (the element is a copy: `init it = hdr.items[32wK]`),
// over a list expression (constant elements are propagated, others stored), and over a constant
// range (the variable becomes a constant; `hdr.items[i]` becomes `hdr.items[8wK]`); an empty range
// leaves nothing; a range with a run-time bound is left as a loop.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> odd;     // odd items of the stack
    bit<8> total;   // sum of a list expression's elements
    bit<8> wsum;    // 1*items[1].v + 2*items[2].v with a range
    bit<8> n;       // run-time bound
    bit<8> upto;    // 0 + 1 + ... + n (run-time range, left alone)
    bit<8> empty;   // untouched by an empty range
}
header item_t { bit<8> v; }
struct headers_t {
    h_t       h;
    item_t[3] items;
}
struct meta_t { }

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.items.next);
        pkt.extract(hdr.items.next);
        pkt.extract(hdr.items.next);
        transition accept;
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        bit<8> odd = 0;
        for (item_t it in hdr.items) {
            if (it.v[0:0] == 1) {
                odd = odd + 1;
            }
        }
        hdr.h.odd = odd;
        bit<8> total = 0;
        for (bit<8> x in { hdr.items[0].v, 8w7, hdr.items[2].v, 8w100 }) {
            total = total + x;
        }
        hdr.h.total = total;
        bit<8> w = 0;
        for (bit<8> i in 1 .. 2) {
            w = w + i * hdr.items[i].v;
        }
        hdr.h.wsum = w;
        for (bit<8> i in 5 .. 4) {
            hdr.h.empty = i;
        }
        bit<8> u = 0;
        for (bit<8> i in 0 .. hdr.h.n) {
            u = u + i;
        }
        hdr.h.upto = u;
        sm.egress_spec = 1;
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
        pkt.emit(hdr.items);
    }
}

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
