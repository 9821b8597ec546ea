// A header-union stack, varbit fields copied between headers, and the compile-time size
// methods minSizeInBits / minSizeInBytes.
#include <core.p4>
#include <v1model.p4>

header v4_t { bit<32> addr; }
header v6_t { bit<128> addr; }
header_union ip_u {
    v4_t v4;
    v6_t v6;
}
header opts_t { varbit<320> data; }
header h_t {
    bit<8>  kind;
    bit<8>  len;
    bit<16> w;
}
struct headers_t {
    h_t     h;
    ip_u[2] ips;
    opts_t  opts;
    opts_t  copy;
}
struct meta_t { }

const bit<32> H_BITS = h_t.minSizeInBits();

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.kind) {
            4: one_v4;
            6: one_v6;
            default: options;
        }
    }
    state one_v4 {
        pkt.extract(hdr.ips[0].v4);
        transition options;
    }
    state one_v6 {
        pkt.extract(hdr.ips[0].v6);
        transition options;
    }
    state options {
        pkt.extract(hdr.opts, (bit<32>)hdr.h.len * 8);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.copy = hdr.opts;
        if (hdr.ips[0].isValid()) {
            hdr.ips[1] = hdr.ips[0];
        }
        hdr.h.w = (bit<16>)hdr.h.minSizeInBytes() + (bit<16>)H_BITS;
        sm.egress_spec = 1;
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
