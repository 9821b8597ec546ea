// The switch experiments' forwarding program (the seed's Fig. 3.6 setup): nothing but
// forwarding, with no tables to fill, so every port's traffic leaves on its neighbour: egress
// port = ingress port xor 1 (0 <-> 1, 2 <-> 3, 4 <-> 5). Ethernet is parsed and emitted unchanged.
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

struct headers_t {
    ethernet_t ethernet;
}

struct meta_t {}

parser Xor1Parser(packet_in pkt, out headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t std) {
    state start {
        pkt.extract(hdr.ethernet);
        transition accept;
    }
}

control Xor1Verify(inout headers_t hdr, inout meta_t meta) {
    apply {}
}

control Xor1Ingress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {
        std.egress_spec = std.ingress_port ^ 1;
    }
}

control Xor1Egress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    apply {}
}

control Xor1Compute(inout headers_t hdr, inout meta_t meta) {
    apply {}
}

control Xor1Deparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
    }
}

V1Switch(Xor1Parser(), Xor1Verify(), Xor1Ingress(), Xor1Egress(), Xor1Compute(), Xor1Deparser()) main;
