// error: an extern call under a condition in an action is not supported
// p4c cannot predicate an extern call inside an `if` in an action (its issue513 test); neither
// does p4forge accept it. The same call in the apply block is fine.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action maybe_drop() {
        hdr.h.a = hdr.h.a + 1;
        if (hdr.h.a > 10) {
            mark_to_drop(sm);
        }
    }
    apply { maybe_drop(); }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
