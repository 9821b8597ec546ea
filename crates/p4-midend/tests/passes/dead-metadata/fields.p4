// dead-metadata: fields written but never read go (one only read to write another dead one goes on
// the second round), a dead field inside a nested struct goes, a @field_list field and the fields
// that reach the packet stay; standard_metadata_t is never touched.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> k;
    bit<8> a;   // meta.live: 5 + 1 if t hits, else 0
    bit<8> b;   // meta.inner.used = k + 2
}
struct headers_t { h_t h; }
struct inner_t {
    bit<8> used;
    bit<8> unused;
}
struct meta_t {
    bit<8> dead_a;
    bit<8> chain;
    bit<8> dead_b;
    bit<8> live;
    inner_t inner;
    @field_list(1) bit<8> kept;
    bit<8> never;
}

parser TestParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control TestVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control TestIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set(bit<8> v) {
        meta.dead_a = v;
        meta.live = v + 1;
    }
    table t {
        key = { hdr.h.k : exact; }
        actions = { set; NoAction; }
        const entries = {
            1 : set(5);
        }
        default_action = NoAction();
    }
    apply {
        meta.chain = hdr.h.k;
        meta.dead_b = meta.chain;
        meta.inner.unused = 3;
        meta.inner.used = hdr.h.k + 2;
        meta.kept = 9;
        t.apply();
        hdr.h.a = meta.live;
        hdr.h.b = meta.inner.used;
        sm.egress_spec = 1;
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
