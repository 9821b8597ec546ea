// v1model from version 20200408 on: counters, meters and registers take their index type as a type
// argument.
#define V1MODEL_VERSION 20200408
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter<bit<8>>(16, CounterType.packets) c;
    register<bit<8>, bit<4>>(16) r;
    meter<bit<8>>(16, MeterType.packets) m;
    apply {
        c.count(hdr.h.a);
        bit<8> v;
        r.read(v, hdr.h.a[3:0]);
        r.write(hdr.h.a[3:0], v + 1);
        hdr.h.b = v;
        m.execute_meter(hdr.h.a, hdr.h.a);
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
