// Every legal kind of cast: widening, narrowing, sign change, bool <-> bit<1>, int literals,
// serializable enums to and from their underlying type, new types.
#include <core.p4>
#include <v1model.p4>

enum bit<4> Kind { A = 1, B = 2 }
type bit<16> Tag_t;

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> w;
}
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        int<8> s = (int<8>)hdr.h.a;
        int<16> sw = (int<16>)s;
        bit<4> low = (bit<4>)hdr.h.b;
        bool flag = (bool)hdr.h.a[0:0];
        bit<1> back = (bit<1>)flag;
        Kind k = (Kind)low;
        bit<4> raw = (bit<4>)k;
        Tag_t tag = (Tag_t)hdr.h.w;
        hdr.h.w = (bit<16>)sw + (bit<16>)tag + (bit<16>)raw + (bit<16>)back + (bit<16>)8w3;
        sm.egress_spec = (bit<9>)hdr.h.b;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
