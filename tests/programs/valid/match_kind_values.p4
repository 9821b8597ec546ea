// A match_kind member used as a value: in a constant tuple passed to an extern constructor.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }
extern Lookup<K> { Lookup(K kinds, int size); }
const tuple<match_kind, match_kind> KINDS = { exact, ternary };
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Lookup<tuple<match_kind, match_kind>>(KINDS, 64) lookup;
    apply { }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
