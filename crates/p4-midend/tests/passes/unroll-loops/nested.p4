// unroll-loops: nested loops. An inner loop bounded by the outer variable becomes constant in each
// outer copy; a `break` of the inner loop ends only the inner loop; a constant inner loop inside a
// run-time outer loop is unrolled while the outer loop stays; a loop in a parser state (extracting
// into a stack, which unroll-parser-stacks then takes); `return` inside nested loops of a function.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> tri;       // sum over i in 0..2, j in 0..i of items[j].v
    bit<8> dups;      // items equal to an earlier item (inner break)
    bit<8> n;         // run-time bound
    bit<8> rep;       // n times the sum of the items
    bit<8> firstdup;  // first i with items[i] == an earlier item, else 0xFF (function)
}
header item_t { bit<8> v; }
struct headers_t {
    h_t       h;
    item_t[3] items;
}
struct meta_t { }

bit<8> first_dup(in item_t[3] items) {
    for (bit<8> i = 1; i < 3; i = i + 1) {
        for (bit<8> j = 0; j < i; j = j + 1) {
            if (items[i].v == items[j].v) {
                return i;
            }
        }
    }
    return 0xFF;
}

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        for (bit<8> k = 0; k < 3; k = k + 1) {
            pkt.extract(hdr.items.next);
        }
        transition accept;
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        bit<8> tri = 0;
        for (bit<8> i in 0 .. 2) {
            for (bit<8> j in 0 .. i) {
                tri = tri + hdr.items[j].v;
            }
        }
        hdr.h.tri = tri;
        bit<8> dups = 0;
        for (bit<8> i = 1; i < 3; i = i + 1) {
            for (bit<8> j = 0; j < i; j = j + 1) {
                if (hdr.items[i].v == hdr.items[j].v) {
                    dups = dups + 1;
                    break;
                }
            }
        }
        hdr.h.dups = dups;
        bit<8> rep = 0;
        for (bit<8> k = 0; k < hdr.h.n; k = k + 1) {
            for (item_t it in hdr.items) {
                rep = rep + it.v;
            }
        }
        hdr.h.rep = rep;
        hdr.h.firstdup = first_dup(hdr.items);
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
