// A control's local declarations (an action, a table, a variable) may reuse the name of one of
// the control's parameters: they shadow it with a warning, as in p4c.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control Count(inout bit<8> x, in bit<8> step) {
    bit<8> step = 2;
    action bump() { x = x + step; }
    table x_table { actions = { bump; } default_action = bump(); }
    apply { x_table.apply(); }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Count() c;
    action meta_action() { }
    apply { c.apply(hdr.h.a, 1); meta_action(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
