// parser offsets of the project test header_stack.p4: a stack loop (4 items) after a 3-byte header.
#include <core.p4>
#include <v1model.p4>

header ctl_t {
    bit<8> op;      // 1 push_front(1), 2 pop_front(1), 3 push_front(2)
    bit<8> size;    // written by ingress: hdr.items.size
    bit<8> first;   // written by ingress: hdr.items[0].v if valid, else 0xFF
}
header item_t { bit<8> v; }   // v[7:7] == 1 marks the last item
struct headers_t {
    ctl_t     ctl;
    item_t[4] items;
}
struct meta_t { }

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ctl);
        transition parse_item;
    }
    state parse_item {
        pkt.extract(hdr.items.next);
        transition select(hdr.items.last.v[7:7]) {
            1: accept;
            default: parse_item;
        }
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control TestIngress(inout headers_t hdr, inout meta_t meta,
                    inout standard_metadata_t sm) {
    apply {
        hdr.ctl.size = (bit<8>)hdr.items.size;
        sm.egress_spec = 1;
        if (sm.parser_error == error.StackOutOfBounds) {
            hdr.ctl.op = 0xEE;
            sm.egress_spec = 2;
            return;
        }
        if (hdr.ctl.op == 1) {
            hdr.items.push_front(1);
            hdr.items[0].setValid();
            hdr.items[0].v = 0x11;
        } else if (hdr.ctl.op == 2) {
            hdr.items.pop_front(1);
        } else if (hdr.ctl.op == 3) {
            hdr.items.push_front(2);
        }
        hdr.ctl.first = hdr.items[0].isValid() ? hdr.items[0].v : 8w0xFF;
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta,
                   inout standard_metadata_t sm) {
    apply { }
}

control TestCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control TestDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ctl);
        pkt.emit(hdr.items);
    }
}

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(),
         TestCompute(), TestDeparser()) main;
