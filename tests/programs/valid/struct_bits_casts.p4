// A struct of fixed-width fields and bit<W> of its total width convert both ways (p4c accepts
// it; p4forge checks it but cannot elaborate it yet).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }
struct split_t { bit<28> low; bit<4> high; }
struct outer_t { split_t s; bit<4> version; }
control Casts() {
    apply {
        outer_t o;
        bit<36> all = (bit<36>)o;
        o = (outer_t)all;
        bit<32> part = (bit<32>)o.s;
        o.s = (split_t)part;
    }
}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
