// error: field `inner` of header `h_t` cannot have type `s_t`: a struct inside a header may hold only
// A struct inside a header may hold only bit<W>, int<W>, bool, serializable enums and such structs
// (spec, type nesting rules, note 2); this one holds an array.
#include <core.p4>
#include <v1model.p4>
struct s_t { bit<8> f; bit<8>[4] arr; }
header h_t { bit<8> a; s_t inner; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
