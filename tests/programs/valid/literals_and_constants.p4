// Literal forms and compile-time constant expressions, including widths computed from constants.
#include <core.p4>
#include <v1model.p4>

const int WIDTH = 2 * 8;
const bit<WIDTH> ALL_ONES = ~(bit<WIDTH>)0;
const bit<8> BIN = 0b1010_0101;
const bit<8> OCT = 0o17;
const bit<8> DEC = 0d99;
const bit<8> HEX = 8w0xF0;
const int<8> NEG = -8s5;
const int<8> SMAX = 8s127;
const bit<8> OVERFLOW = 8w0 | 0xFFF;        // the int is cast to bit<8> (a warning, not an error)
const bit<32> SHIFTED = 32w1 << 31;
const int BIG = 1 << 100;          // arbitrary-precision int
const bit<8> FROM_BIG = (bit<8>)(BIG >> 96);
const bool OK = static_assert(WIDTH == 16, "WIDTH must be 16");
const bit<4> NIBBLE = (BIN >> 4)[3:0];

header h_t {
    bit<WIDTH>       w;
    bit<(WIDTH / 2)> half;
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
        hdr.h.w = ALL_ONES ^ (bit<16>)BIN;
        hdr.h.half = OCT + DEC + HEX + FROM_BIG + (bit<8>)NEG + (bit<8>)SMAX + (bit<8>)NIBBLE
                   + OVERFLOW;
        if (SHIFTED[31:31] == 1 && OK) {
            sm.egress_spec = 1;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
