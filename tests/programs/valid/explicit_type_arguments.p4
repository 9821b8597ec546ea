// Generic methods and functions called with explicit type arguments, and with inferred ones.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<16> c; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
extern Store<T> { Store(); void save<U>(in U tag, in T value); R load<R>(in T key); }
extern R convert<R, S>(in S s);
T choose<T>(in bool first, in T a, in T b) { if (first) { return a; } return b; }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Store<bit<8>>() store;
    apply {
        store.save<bit<16>>(hdr.h.c, hdr.h.a);
        hdr.h.c = store.load<bit<16>>(hdr.h.a);
        hdr.h.a = convert<bit<8>, bit<16>>(hdr.h.c);
        hdr.h.b = choose<bit<8>>(true, 1, 2);
        hdr.h.b = choose(false, hdr.h.a, hdr.h.b);
    }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
