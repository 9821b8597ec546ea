// A table key indexing a stack with a run-time index needs no @name: its control-plane name is
// its text, as for other simple keys (p4c accepts it).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
header tag_t { bit<12> vid; bit<4> pad; }
struct headers_t { h_t h; tag_t[2] tags; }
struct meta_t { bit<1> depth; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set(bit<8> v) { hdr.h.a = v; }
    table by_vid {
        key = { hdr.tags[meta.depth].vid : exact; }
        actions = { set; NoAction; }
        default_action = NoAction();
    }
    apply { by_vid.apply(); }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
