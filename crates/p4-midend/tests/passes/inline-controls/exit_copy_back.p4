// inline-controls: a sub-control that may `exit` and has an `out` parameter (always copied): inlined,
// its `exit` sets a flag that skips the rest of its body, the copy-back runs (the dataplane performs
// it on the way out), then the flag exits.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> f;   // out parameter: 1 even when the sub-control exits
    bit<8> g;   // 7 unless the sub-control exited
}
struct headers_t { h_t h; }
struct meta_t { }

control MayExit(inout bit<8> a, out bit<8> flag) {
    apply {
        flag = 1;
        if (a == 0) {
            exit;
        }
        a = a + 1;
    }
}

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    MayExit() may_exit;
    apply {
        sm.egress_spec = 1;
        may_exit.apply(hdr.h.a, hdr.h.f);
        hdr.h.g = 7;
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
