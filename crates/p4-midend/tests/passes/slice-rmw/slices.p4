// slice-rmw: slices of bit<16> and int<8>, a slice of a slice, a one-bit slice, and a right-hand side
// with a call (evaluated into a temporary first).
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<16> w;
    int<8> s;
    bit<8> n;
}
struct headers_t { h_t h; }
struct meta_t { }

bit<4> high(in bit<8> x) {
    return x[7:4];
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
        hdr.h.w[11:4] = hdr.h.a;
        hdr.h.s[7:4] = 4w0xA;
        hdr.h.n[7:0][3:0] = hdr.h.a[3:0];
        hdr.h.a[0:0] = 1;
        hdr.h.n[7:4] = high(hdr.h.a);
        sm.egress_spec = 1;
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
