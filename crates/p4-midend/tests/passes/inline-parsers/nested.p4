// inline-parsers: a sub-parser with a local, a select (whose missing default rejects with NoMatch),
// an `in` argument (copied), an `out` header and an `inout` header bound by reference (disjoint fields
// of one struct), and its own sub-parser; statements after the apply run in a continuation state.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> kind;
    bit<8> mark;   // | 0x10 after the sub-parser accepts; 0xEE if the parser rejected
}
header opt_t { bit<8> v; }
header tail_t { bit<8> t; }
struct headers_t {
    h_t h;
    opt_t opt;
    tail_t tail;
}
struct meta_t { }

parser TailParser(packet_in pkt, out tail_t tl) {
    state start {
        pkt.extract(tl);
        transition accept;
    }
}

parser OptParser(packet_in pkt, in bit<8> kind, out opt_t o, inout tail_t tl) {
    bit<8> seen = 0;
    TailParser() tail_parser;
    state start {
        seen = kind + 1;
        transition select(kind) {
            1: get;
            0: accept;
        }
    }
    state get {
        pkt.extract(o);
        o.v = o.v + seen;
        tail_parser.apply(pkt, tl);
        transition accept;
    }
}

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    OptParser() opt_parser;
    state start {
        pkt.extract(hdr.h);
        opt_parser.apply(pkt, hdr.h.kind, hdr.opt, hdr.tail);
        hdr.h.mark = hdr.h.mark | 0x10;
        transition accept;
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (sm.parser_error != error.NoError) {
            hdr.h.mark = 0xEE;
        }
        sm.egress_spec = 1;
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.h);
        pkt.emit(hdr.opt);
        pkt.emit(hdr.tail);
    }
}

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
