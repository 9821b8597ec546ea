// Generic structs, generic functions with inferred and explicit type arguments.
#include <core.p4>
#include <v1model.p4>

struct pair_t<T> {
    T first;
    T second;
}

T pick<T>(in bool which, in T a, in T b) {
    return which ? a : b;
}

void swap_pair<T>(inout pair_t<T> p) {
    T t = p.first;
    p.first = p.second;
    p.second = t;
}

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> w;
}
struct headers_t { h_t h; }
struct meta_t { pair_t<bit<8>> p; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        meta.p = { hdr.h.a, hdr.h.b };
        swap_pair(meta.p);
        hdr.h.a = pick(hdr.h.a > hdr.h.b, meta.p.first, meta.p.second);
        hdr.h.w = pick<bit<16>>(true, hdr.h.w, 16w0);
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
