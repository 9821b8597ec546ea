// inline-controls: a sub-control instance with a table, a counter and a local, applied twice with
// different arguments, is inlined at both applies: its code is copied, while the table, its actions
// and the counter stay one object (an instance applied twice shares them); each apply copies its
// arguments into the shared parameter variables. Quitter's action exits; its one apply passes a
// plain field, which is substituted by reference, so no copy-back is due and it is inlined too (with
// a copy-back due it would stay an apply: an action's exit cannot be turned into a flag).
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

control Bump(inout bit<8> v, in bit<8> by) {
    counter(4, CounterType.packets) hits;
    bit<8> seen = 0;
    action add(bit<8> k) { v = v + k + by; seen = seen + 1; hits.count(0); }
    table t {
        key = { v: exact; }
        actions = { add; NoAction; }
        const entries = { 1: add(0x10); 2: add(0x20); }
        default_action = NoAction();
    }
    apply {
        if (!t.apply().hit) {
            v = v + seen;
        }
    }
}

control Quitter(inout bit<8> v) {
    action quit() { v = 0xEE; exit; }
    table q {
        key = { v: exact; }
        actions = { quit; NoAction; }
        const entries = { 0xFF: quit(); }
        default_action = NoAction();
    }
    apply { q.apply(); }
}

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Bump() bump;
    Quitter() quitter;
    apply {
        sm.egress_spec = 1;
        bump.apply(hdr.h.a, 1);
        bump.apply(hdr.h.b, hdr.h.a);
        quitter.apply(hdr.h.c);
        hdr.h.d = 0x77;
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
