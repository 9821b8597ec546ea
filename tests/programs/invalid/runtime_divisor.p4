// error: `/` on a run-time value needs a constant power-of-two divisor
// The specification defines no division on bit<W>; the reference compiler computes it only at compile time or as a shift.
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
        hdr.h.a = hdr.h.a / hdr.h.b;
        hdr.h.b = hdr.h.b % 8w16;
        hdr.h.c = hdr.h.c / (16w1 << 3) + 16w100 / 7;
        meta.m = 7 % 3;
    }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
