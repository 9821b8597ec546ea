// inline-parsers: one sub-parser instance applied from two states (each apply gets its own copy of
// the sub-parser's states and locals), with an `inout` struct bound by reference; the local's
// value after the first apply does not leak into the second, whose states continue differently.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> kind;   // 1: the sub-parser runs in state one; 2: in state two
    bit<8> mark;   // which continuation ran: 0x11 (after state one) or 0x22 (after state two)
}
header opt_t { bit<8> v; }
struct headers_t {
    h_t h;
    opt_t opt;
}
struct counts_t { bit<8> n; }
struct meta_t { }

parser OptParser(packet_in pkt, out opt_t o, inout counts_t c) {
    bit<8> local = 0;
    state start {
        local = local + 1;       // 1 on every apply: the local starts at 0 each time
        pkt.extract(o);
        o.v = o.v + local;
        c.n = c.n + local;
        transition accept;
    }
}

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    OptParser() opt_parser;
    counts_t counts;
    state start {
        pkt.extract(hdr.h);
        counts.n = 0x40;
        transition select(hdr.h.kind) {
            1: one;
            2: two;
            default: accept;
        }
    }
    state one {
        opt_parser.apply(pkt, hdr.opt, counts);
        hdr.h.mark = 0x11;
        transition accept;
    }
    state two {
        opt_parser.apply(pkt, hdr.opt, counts);
        hdr.h.mark = 0x20 + counts.n;
        transition accept;
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
        pkt.emit(hdr.h);
        pkt.emit(hdr.opt);
    }
}

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
