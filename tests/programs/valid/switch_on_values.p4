// switch statements on bit<8> values and on serializable enums, with grouped labels.
#include <core.p4>
#include <v1model.p4>

typedef bit<8> op_t;
enum op_t Op {
    Nop = 0,
    Inc = 1,
    Dec = 2,
    Twice = 1 + 2
}

header h_t {
    bit<8>  a;
    Op      op;
    bit<16> w;
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
        switch (hdr.h.op) {
            Op.Inc: { hdr.h.a = hdr.h.a + 1; }
            Op.Dec: { hdr.h.a = hdr.h.a - 1; }
            Op.Twice: { hdr.h.a = hdr.h.a << 1; }
            default: { }
        }
        switch (hdr.h.a) {
            0:
            1: { sm.egress_spec = 1; }
            8w0xFF: { sm.egress_spec = 2; }
            default: { sm.egress_spec = 3; }
        }
        hdr.h.w = (bit<16>)(op_t)hdr.h.op;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
