// A header may hold a struct whose fields are all bit<W>, int<W>, bool or serializable enums
// (spec, "Type nesting rules", note 2); it is laid out in place, field by field.
#include <core.p4>
#include <v1model.p4>

enum bit<4> Kind { Small = 1, Large = 2 }
struct flags_t {
    bool   urgent;
    bit<3> level;
    Kind   kind;
}
struct nested_t {
    flags_t flags;
    int<8>  delta;
}
header h_t {
    bit<8>   a;
    nested_t n;
}
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.h.n.flags.urgent && hdr.h.n.flags.kind == Kind.Large) {
            hdr.h.a = hdr.h.a + (bit<8>)hdr.h.n.delta;
        }
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
