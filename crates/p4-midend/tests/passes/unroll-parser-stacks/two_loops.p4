// unroll-parser-stacks: two stack loops one after the other. After the first loop its stack's
// nextIndex is never read again, so the states after it are copied once, not once per length the
// first loop ended with (mdp's four inlined sub-parsers in a row would otherwise multiply).
#include <core.p4>
#include <v1model.p4>

header item_t { bit<8> v; }   // the top bit ends a list
struct headers_t {
    item_t[3] a;
    item_t[2] b;
}
struct meta_t { }

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        transition parse_a;
    }
    state parse_a {
        pkt.extract(hdr.a.next);
        transition select(hdr.a.last.v[7:7]) {
            1: parse_b;
            default: parse_a;
        }
    }
    state parse_b {
        pkt.extract(hdr.b.next);
        transition select(hdr.b.last.v[7:7]) {
            1: accept;
            default: parse_b;
        }
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}
control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.a);
        pkt.emit(hdr.b);
    }
}

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
