#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { }

bit<8> add_sat(in bit<8> x, in bit<8> y) { return x |+| y; }
action bump(inout bit<8> v) { v = v + 1; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control Scale(inout bit<8> v)(bit<8> factor) {
    apply { v = v * factor; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Scale(8w3) triple;
    bit<8> tmp = 7;
    apply {
        triple.apply(hdr.h.a);
        hdr.h.b = add_sat(hdr.h.a, tmp);
        bump(hdr.h.b);
        for (bit<8> i in 0 .. 2) { hdr.h.a = hdr.h.a + i; }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Ck(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), V(), I(), E(), Ck(), D()) main;
