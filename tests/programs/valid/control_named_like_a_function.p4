// A control may take the name of v1model's extern function `verify_checksum`: the name means the
// control from its declaration on (a warning says so), as in the reference compiler.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control verify_checksum(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), verify_checksum(), I(), E(), C(), D()) main;
