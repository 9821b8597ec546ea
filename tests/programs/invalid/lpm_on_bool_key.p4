// error: match kind `lpm` needs a bit<W> or int<W> key, not `bool`
// A longest-prefix match is over the bits of a number; a bool has no prefixes.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { bit<8> x; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    table t { key = { hdr.h.isValid() : lpm; } actions = { NoAction; } }
    apply { t.apply(); }
}
V1Switch(P(), V(), I(), E(), C(), D()) main;
