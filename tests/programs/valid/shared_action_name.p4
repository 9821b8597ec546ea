// Copies of one action given the same control-plane name by @name, as a compiler's output
// names every copy of NoAction `.NoAction`: accepted.
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
    @name(".NoAction") action NoAction_1() { }
    @name(".NoAction") action NoAction_2() { }
    @name("I.set") action set_1(bit<8> v) { hdr.h.a = v; }
    @name("I.set") action set_2(bit<8> v) { hdr.h.a = v; }
    table t1 { key = { hdr.h.a : exact; } actions = { set_1; NoAction_1; } default_action = NoAction_1(); }
    table t2 { key = { hdr.h.b : exact; } actions = { set_2; NoAction_2; } default_action = NoAction_2(); }
    apply { t1.apply(); t2.apply(); }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
