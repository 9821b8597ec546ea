// Default values for constructor and apply parameters of a control, for extern constructor and
// method parameters, for function and action parameters; named arguments skipping defaults.
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
control Add(inout bit<8> v, in bit<8> extra = 0)(bit<8> step = 5, bool twice = false) {
    apply { v = v + step + extra; if (twice) { v = v + step; } }
}
extern Tally { Tally(bit<32> size = 16); void bump(in bit<32> idx, in bit<8> by = 1); }
bit<8> scaled(in bit<8> x, in bit<8> factor = 2) { return x * factor; }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Add() plain;
    Add(7) seven;
    Add(twice = true) doubled;
    Tally() small;
    Tally(size = 64) large;
    action set(bit<8> v = 3) { hdr.h.a = v; }
    apply {
        plain.apply(hdr.h.a);
        seven.apply(v = hdr.h.b, extra = 1);
        doubled.apply(hdr.h.a);
        small.bump(1);
        large.bump(by = 4, idx = 2);
        hdr.h.b = scaled(hdr.h.b) + scaled(factor = 3, x = hdr.h.a);
        set();
    }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
