// An action called directly (from the apply block or from another action) takes run-time
// values for its directionless parameters: they behave like `in` parameters (spec, "Invoking actions").
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
    action set_a(bit<8> v) { hdr.h.a = v; }
    action twice(bit<8> v) { set_a(v); set_a(v + hdr.h.b); }
    apply {
        set_a(hdr.h.b);
        twice(meta.m + 1);
    }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
