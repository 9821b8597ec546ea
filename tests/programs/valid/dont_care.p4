// The don't-care `_`: as an out argument, in select keysets and in const table entries.
#include <core.p4>
#include <v1model.p4>

void two_results(out bit<8> x, out bit<8> y) {
    x = 1;
    y = 2;
}

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> w;
}
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.a, hdr.h.b) {
            (_, 0): accept;
            (1, _): accept;
            _: accept;
        }
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set(bit<8> v) { hdr.h.a = v; }
    table t {
        key = {
            hdr.h.a: exact;
            hdr.h.b: ternary;
        }
        actions = { set; }
        const entries = {
            (1, _) : set(10);
            (2, 0x0F &&& 0x0F) : set(20);
        }
        default_action = set(0);
    }
    apply {
        two_results(hdr.h.b, _);
        t.apply();
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
