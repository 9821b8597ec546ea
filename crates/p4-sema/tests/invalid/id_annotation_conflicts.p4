// @id on control-plane objects: a table's id may carry the table prefix 0x02 or none; an action
// given a table's prefix, and two tables given the same id, cannot be honoured.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct headers { h_t h; }
struct meta { }
parser P(packet_in pk, out headers hdr, inout meta m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control V(inout headers hdr, inout meta m) { apply { } }
control I(inout headers hdr, inout meta m, inout standard_metadata_t sm) {
    @id(0x02000005) action a() { }
    @id(0x02000007) table t1 { key = { hdr.h.a: exact; } actions = { a; } }
    @id(7) table t2 { key = { hdr.h.a: exact; } actions = { a; } }
    apply { t1.apply(); t2.apply(); }
}
control E(inout headers hdr, inout meta m, inout standard_metadata_t sm) { apply { } }
control C(inout headers hdr, inout meta m) { apply { } }
control D(packet_out pk, in headers hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
