// unroll-loops: 3-clause loops with constant bounds, `break` and `continue` under conditions (flags
// guard the rest of the copy and the later copies), a `break` that folding decides (the copies stop
// there), a loop without a condition, a control variable declared outside the loop (stored at the
// start of each copy and after the last), a loop in an action; left alone: a body that assigns the
// loop variable, and a loop of more than 256 iterations.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  firstbig;  // index of the first item > 0x7F (break), 0xFF if none
    bit<8>  odd;       // how many items are odd (continue)
    bit<8>  mix;       // sum of the items before the first zero one, skipping those > 0x7F
    bit<8>  found;     // index of the first item == 0x42, else 3 (variable declared outside)
    bit<8>  tri;       // 0 + 1 + 2 + 3 + 4 (no condition; `if (i == 5) break;`), in an action
    bit<8>  skip;      // a body that assigns its variable: 4 iterations of 8
    bit<16> big;       // 300 iterations
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
    action triangle() {
        bit<8> t = 0;
        for (bit<8> i = 0; ; i = i + 1) {
            if (i == 5) {
                break;
            }
            t = t + i;
        }
        hdr.h.tri = t;
    }
    apply {
        hdr.h.firstbig = 0xFF;
        for (bit<8> i = 0; i < 3; i = i + 1) {
            if (hdr.items[i].v > 0x7F) {
                hdr.h.firstbig = i;
                break;
            }
        }
        bit<8> odd = 0;
        for (bit<8> i = 0; i < 3; i = i + 1) {
            if (hdr.items[i].v[0:0] == 0) {
                continue;
            }
            odd = odd + 1;
        }
        hdr.h.odd = odd;
        bit<8> mix = 0;
        for (bit<8> i = 0; i < 3; i = i + 1) {
            if (hdr.items[i].v == 0) {
                break;
            } else if (hdr.items[i].v > 0x7F) {
                continue;
            }
            mix = mix + hdr.items[i].v;
        }
        hdr.h.mix = mix;
        bit<8> j;
        for (j = 0; j < 3; j = j + 1) {
            if (hdr.items[j].v == 0x42) {
                break;
            }
        }
        hdr.h.found = j;
        triangle();
        bit<8> s = 0;
        for (bit<8> i = 0; i < 8; i = i + 1) {
            s = s + 1;
            i = i + 1;
        }
        hdr.h.skip = s;
        bit<16> b = 0;
        for (bit<16> k = 0; k < 300; k = k + 1) {
            b = b + 1;
        }
        hdr.h.big = b;
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
