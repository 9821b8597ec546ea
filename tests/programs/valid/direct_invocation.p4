// Parsers and controls without constructor parameters applied directly by type name,
// without declaring an instance.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> w;
}
header tail_t { bit<8> t; }
struct headers_t {
    h_t    h;
    tail_t tail;
}
struct meta_t { }

parser TailParser(packet_in pkt, out tail_t tail) {
    state start {
        pkt.extract(tail);
        transition accept;
    }
}
control Bump(inout bit<8> v) {
    apply { v = v + 1; }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        TailParser.apply(pkt, hdr.tail);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        Bump.apply(hdr.h.a);
        Bump.apply(hdr.h.b);
        sm.egress_spec = 1;
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
