// A control's directionless parameter may have type `int`: its argument is compile-time known
// (spec, "Calling convention"); the control is called directly with a constant.
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
control AddN(int n, inout bit<8> v) { apply { v = v + n; } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { AddN.apply(3, hdr.h.a); }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
