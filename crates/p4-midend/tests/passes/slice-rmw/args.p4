// slice-rmw: slices as `out`/`inout` arguments of an action and of an extern method go through a
// temporary, whose copy-back becomes a read-modify-write.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;    // a[3:0] read from the register (5)
    bit<16> w;   // w[15:12] = 0xA (out), w[3:0] incremented (inout)
    bit<8> c;
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
    register<bit<4>>(4) r;
    action set_nibbles(out bit<4> n, inout bit<4> m) {
        n = 0xA;
        m = m + 1;
    }
    apply {
        set_nibbles(hdr.h.w[15:12], hdr.h.w[3:0]);
        r.write(0, 4w5);
        r.read(hdr.h.a[3:0], 32w0);
        sm.egress_spec = 1;
    }
}

control TestEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control TestCompute(inout headers_t hdr, inout meta_t meta) { apply { } }
control TestDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(TestParser(), TestVerify(), TestIngress(), TestEgress(), TestCompute(), TestDeparser()) main;
