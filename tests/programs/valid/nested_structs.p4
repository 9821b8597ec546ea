// Headers nested two structs deep, emitted by emitting the outer struct; struct copies and
// struct-valued parameters.
#include <core.p4>
#include <v1model.p4>

header a_t { bit<8> x; }
header b_t { bit<16> y; }
struct inner_t {
    a_t a;
    b_t b;
}
struct outer_t {
    inner_t first;
    inner_t second;
}
struct meta_t {
    inner_t saved;
}

parser P(packet_in pkt, out outer_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.first.a);
        pkt.extract(hdr.first.b);
        transition accept;
    }
}
control VC(inout outer_t hdr, inout meta_t meta) { apply { } }

control Swap(inout inner_t one, inout inner_t two) {
    apply {
        inner_t t = one;
        one = two;
        two = t;
    }
}

control I(inout outer_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Swap() swap;
    apply {
        meta.saved = hdr.first;
        swap.apply(hdr.first, hdr.second);
        sm.egress_spec = 1;
    }
}
control E(inout outer_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout outer_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in outer_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
