// Casts between two serializable enums (through their underlying types), and between an
// enum and its underlying type in both directions.
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
enum bit<8> Color { RED = 1, BLUE = 2 }
enum bit<8> Paint { CRIMSON = 1, NAVY = 2 }
enum bit<16> Wide { ONE = 1 }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        Color c = (Color)hdr.h.a;
        Paint p = (Paint)c;
        hdr.h.b = (bit<8>)p;
        Wide w = (Wide)(Color.BLUE);
        hdr.h.c = (bit<16>)w;
        if ((Color)Paint.NAVY == Color.BLUE) { hdr.h.a = 1; }
    }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
