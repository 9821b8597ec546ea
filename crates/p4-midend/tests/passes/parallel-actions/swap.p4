// parallel-actions: a local, a swap through it (a cycle: one old value goes to a temporary), an `if`
// that becomes a select and reads a location written before it, and a write after the `if` that reads
// what the `if` wrote. An action calling an extern (mark_to_drop) stays as it is.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}
struct headers_t { h_t h; }
struct meta_t { }

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action swap_and(bit<8> k) {
        bit<8> t = hdr.h.a;
        hdr.h.a = hdr.h.b;
        hdr.h.b = t;
        if (k == 1) {
            hdr.h.c = hdr.h.a + 1;
        } else {
            hdr.h.c = 0;
        }
        hdr.h.d = hdr.h.c;
    }
    action drop() {
        mark_to_drop(sm);
    }
    table t {
        key = { hdr.h.d : exact; }
        actions = { swap_and; drop; NoAction; }
        const entries = {
            0 : swap_and(1);
            1 : swap_and(2);
            7 : drop();
        }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
