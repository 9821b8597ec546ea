// inline-functions: early returns (in an if chain and inside a for loop), a statement call with an
// inout argument, two calls in one expression (each needs its own result temporary), a nested call,
// and a call in the right operand of `||`, which must stay a call (it may not run).
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> r1;   // first_set(a)
    bit<8> r2;   // classify(a) + classify(b)
    bit<8> r3;   // twice(twice(b)) after bump(b)
    bit<8> r4;   // 1 if a == 0 || classify(b) == 2, else 2
}
struct headers_t { h_t h; }
struct meta_t { }

// Index of the lowest set bit, 255 if none: a return inside a loop.
bit<8> first_set(in bit<8> x) {
    bit<8> v = x;
    for (bit<8> i = 0; i < 8; i = i + 1) {
        if (v[0:0] == 1) {
            return i;
        }
        v = v >> 1;
    }
    return 255;
}

bit<8> classify(in bit<8> x) {
    if (x == 0) {
        return 0;
    }
    if (x < 16) {
        return 1;
    }
    return 2;
}

void bump(inout bit<8> x) {
    x = x + 1;
}

bit<8> twice(in bit<8> x) {
    return x + x;
}

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.r1 = first_set(hdr.h.a);
        hdr.h.r2 = classify(hdr.h.a) + classify(hdr.h.b);
        bump(hdr.h.b);
        hdr.h.r3 = twice(twice(hdr.h.b));
        if (hdr.h.a == 0 || classify(hdr.h.b) == 2) {
            hdr.h.r4 = 1;
        } else {
            hdr.h.r4 = 2;
        }
        sm.egress_spec = 1;
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
