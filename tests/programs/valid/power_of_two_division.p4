// `/` and `%` on `bit<W>` run-time values by a constant power of two (a shift and a mask), and on
// compile-time constants.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<16> c; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.a = hdr.h.a / 4;
        hdr.h.b = hdr.h.b % 8w16;
        hdr.h.c = hdr.h.c / (16w1 << 3) + 16w100 / 7;
        meta.m = 7 % 3;
    }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
