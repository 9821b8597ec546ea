// `int` elements in a tuple (of constants) and `match_kind` as a tuple element type.
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
const tuple<int, bit<8>> PAIR = { 5, 8w1 };
extern Registry { Registry(tuple<match_kind, int> spec); }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        tuple<int, int> local = { 2, 3 };
        hdr.h.a = PAIR[1];
    }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
