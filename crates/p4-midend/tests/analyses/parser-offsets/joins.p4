// parser offsets where paths join: ipv4 after ethernet (112) or after ethernet + vlan (144); a
// lookahead reads without consuming; options of run-time length (a varbit extract) make what
// follows unknown; a constant advance is known, and a loop without a stack stays unknown.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header vlan_t { bit<16> tci; bit<16> type; }
header ipv4_t { bit<4> version; bit<4> ihl; bit<8> tos; bit<16> len; bit<32> rest1; bit<32> rest2; bit<32> src; bit<32> dst; }
header opts_t { varbit<320> data; }
header tail_t { bit<8> v; }
header pad_t { bit<8> v; }
struct headers_t { eth_t eth; vlan_t vlan; ipv4_t ipv4; opts_t opts; tail_t tail; pad_t pad; }
struct meta_t { bit<8> peek; }

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x8100: parse_vlan;
            0x0800: parse_ipv4;
            0x0801: skip;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        meta.peek = pkt.lookahead<bit<8>>();
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl) {
            5: parse_tail;
            default: parse_opts;
        }
    }
    state parse_opts {
        pkt.extract(hdr.opts, ((bit<32>)hdr.ipv4.ihl - 5) * 32);
        transition parse_tail;
    }
    state parse_tail {
        pkt.extract(hdr.tail);
        transition accept;
    }
    state skip {
        pkt.advance(16);
        transition pad;
    }
    state pad {
        pkt.extract(hdr.pad);
        transition select(hdr.pad.v) {
            0: pad;
            default: accept;
        }
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; hdr.eth.src[7:0] = meta.peek; }
}
control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) {
    apply { pkt.emit(hdr.eth); pkt.emit(hdr.vlan); pkt.emit(hdr.ipv4); pkt.emit(hdr.opts); pkt.emit(hdr.tail); pkt.emit(hdr.pad); }
}

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
