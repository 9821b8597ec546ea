// Functions and extern functions overloaded by number of parameters and, with the same number,
// by parameter names; calls that name their arguments pick the overload with those names.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<16> c; }
struct headers_t { h_t h; }
struct meta_t { }
bit<8> combine(in bit<8> x) { return x; }
bit<8> combine(in bit<8> x, in bit<8> y) { return x + y; }
bit<8> scale(in bit<8> twice) { return twice + twice; }
bit<8> scale(in bit<8> thrice) { return thrice + thrice + thrice; }
extern void note(in bit<8> small);
extern void note(in bit<16> wide);
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.a = combine(hdr.h.a) + combine(y = 1, x = hdr.h.b);
        hdr.h.b = scale(twice = hdr.h.a) + scale(thrice = 1);
        note(small = hdr.h.a);
        note(wide = hdr.h.c);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
