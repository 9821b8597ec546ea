// Width-prefixed literals whose value does not fit wrap (the spec's table of literals: `1w10` is
// 0, `8w256` is 0, `4s8` is -8) with a warning, not an error.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<1> one; int<4> small; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
const bit<1> TEN = 1w10;
const bit<8> FULL = 8w256;
const int<4> EIGHT = 4s8;
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.one = TEN;
        hdr.h.a = FULL + 8w300;
        hdr.h.small = EIGHT;
    }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
// Decimal signed literals that do not fit wrap with a warning too (the spec's `2s3` is -1, `1s1`
// is -1); a binary or hex literal is a bit pattern (`8s0b1010_1010` is -86, no warning).
const int<2> MINUS_ONE = 2s3;
const int<1> ONE_BIT = 1s1;
const int<8> PATTERN = 8s0b1010_1010;
const int<8> HEX = 8s0xFF;
