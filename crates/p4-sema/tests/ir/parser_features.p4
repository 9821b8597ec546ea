#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header vlan_t { bit<3> pcp; bit<1> cfi; bit<12> vid; bit<16> type; }
header opt_t { bit<8> len; varbit<64> data; }
struct headers_t { eth_t eth; vlan_t[2] vlans; opt_t opt; }
struct meta_t { bit<8> depth; }
error { TooDeep }

parser Vlans(packet_in pkt, inout headers_t hdr, inout meta_t meta) {
    state start {
        pkt.extract(hdr.vlans.next);
        meta.depth = meta.depth + 1;
        verify(meta.depth < 3, error.TooDeep);
        transition select(hdr.vlans.last.type) {
            0x8100 &&& 0xEFFF: start;
            default: accept;
        }
    }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Vlans() vlans;
    value_set<bit<16>>(4) custom;
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x8100: parse_vlans;
            custom: parse_opt;
            0x0800 .. 0x08FF: accept;
            default: reject;
        }
    }
    state parse_vlans {
        vlans.apply(pkt, hdr, meta);
        transition accept;
    }
    state parse_opt {
        bit<8> len = pkt.lookahead<bit<8>>();
        pkt.extract(hdr.opt, (bit<32>) len * 8);
        transition accept;
    }
}

control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { if (sm.parser_error == error.TooDeep) { mark_to_drop(sm); } }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
