// A value set over a struct whose second field is a struct wrapping one field: each field still
// matches one select key (p4c accepts it).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { }
struct inner_t { bit<8> b; }
struct pair_t { bit<8> a; inner_t inner; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<pair_t>(4) known;
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a, hdr.h.b) { known: accept; default: reject; }
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
