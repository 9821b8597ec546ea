// The smallest legal forms: empty structs, a keyless table, empty apply blocks, a parser that
// extracts nothing, an action with no body.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action nothing() { }
    table keyless {
        actions = { nothing; }
        default_action = nothing();
    }
    apply {
        keyless.apply();
        { }
        ;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
