// error: `@p4runtime_translation` takes a URI string and the controller's width
// The annotation needs both the URI and the width the controller uses.
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
@p4runtime_translation("p4.org/example/port") type bit<9> port_t;
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { port_t p = (port_t) sm.ingress_port; sm.egress_spec = (bit<9>) p; }
}
V1Switch(P(), V(), I(), E(), C(), D()) main;
