// Inner declarations shadow outer ones: a local over a global constant, a parameter over a
// global, a nested block's local over the enclosing one.
#include <core.p4>
#include <v1model.p4>

const bit<8> x = 1;

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> w;
}
struct headers_t { h_t h; }
struct meta_t { }

bit<8> add_x(in bit<8> x) {
    return x + x;    // the parameter, not the constant
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.a = x;             // the global: 1
        bit<8> x = 5;
        hdr.h.b = x;             // the local: 5
        {
            bit<8> x = 7;
            hdr.h.a = add_x(x);  // 14
        }
        hdr.h.w = (bit<16>)x;    // the outer local again: 5
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
