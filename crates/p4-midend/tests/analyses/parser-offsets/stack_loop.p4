// parser offsets of an unrolled stack loop: each copy of parse_item at its own fixed offset; the
// overflow state reads nothing.
#include <core.p4>
#include <v1model.p4>

header ctl_t {
    bit<8> count;   // written by the parser: lastIndex after the last item
    bit<8> err;     // written by ingress: 1 on StackOutOfBounds
}
header item_t { bit<8> v; }
struct headers_t {
    ctl_t     ctl;
    item_t[3] items;
}
struct meta_t { }

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ctl);
        transition parse_item;
    }
    state parse_item {
        pkt.extract(hdr.items.next);
        hdr.ctl.count = (bit<8>)hdr.items.lastIndex;
        transition select(hdr.items.last.v[7:7]) {
            1: accept;
            default: parse_item;
        }
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.StackOutOfBounds) {
            hdr.ctl.err = 1;
        }
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ctl);
        pkt.emit(hdr.items);
    }
}

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
