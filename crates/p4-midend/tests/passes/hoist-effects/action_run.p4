// hoist-effects: `switch (t.apply().action_run)` becomes `init t_action_run = t.apply().action_run;`
// and a switch on that value labelled with action ids (a default case, a case for an action the
// default runs, an action without a case); a table with an action that may `exit` keeps its
// `SwitchAction` form (the dataplane sees an action's `exit` only there).
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> r;
    bit<8> s;
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
    action a1() { hdr.h.r = 1; }
    action a2() { hdr.h.r = 2; }
    action a3() { hdr.h.r = 3; }
    action quit() { hdr.h.r = 9; exit; }
    table t {
        key = { hdr.h.k: exact; }
        actions = { a1; a2; a3; }
        const entries = { 1: a1(); 2: a2(); 3: a3(); }
        default_action = a2();
    }
    table u {
        key = { hdr.h.k: exact; }
        actions = { a1; quit; }
        const entries = { 4: quit(); }
        default_action = a1();
    }
    apply {
        sm.egress_spec = 1;
        switch (t.apply().action_run) {
            a1: { hdr.h.s = 0x11; }
            a2: { hdr.h.s = 0x22; }
            default: { hdr.h.s = 0xDD; }
        }
        switch (u.apply().action_run) {
            quit: { hdr.h.s = 0x99; }
            default: { hdr.h.s = hdr.h.s + 1; }
        }
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
