// Words that are keywords in some places but legal names elsewhere
// (the grammar's nonTypeName): key, apply, state, type, entries, actions, priority.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> key;
    bit<8> state;
    bit<8> type;
    bit<8> priority;
}
struct headers_t { h_t h; }
struct meta_t { bit<8> entries; bit<8> actions; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action apply_it(bit<8> apply) {
        hdr.h.state = apply;
    }
    table t {
        key = { hdr.h.key: exact; }
        actions = { apply_it; NoAction; }
        default_action = NoAction();
    }
    apply {
        t.apply();
        meta.entries = hdr.h.type + hdr.h.priority;
        meta.actions = meta.entries;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
