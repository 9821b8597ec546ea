#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}
header hop_t {
    bit<16> v;
}

struct headers_t {
    ethernet_t ethernet;
    hop_t h0;
    hop_t h1;
    hop_t h2;
    hop_t h3;
    hop_t h4;
    hop_t h5;
    hop_t h6;
    hop_t h7;
    hop_t h8;
    hop_t h9;
    hop_t h10;
    hop_t h11;
    hop_t h12;
    hop_t h13;
    hop_t h14;
    hop_t h15;
}

struct metadata_t { }

// Fig. 3.7 of the P4FPGA dissertation: a packet with 16 stacked 16-bit headers after Ethernet, all
// parsed, the last one read by ingress (its low bit picks the port), all emitted again.
parser MbParser(packet_in packet, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    state start {
        packet.extract(hdr.ethernet);
        packet.extract(hdr.h0);
        packet.extract(hdr.h1);
        packet.extract(hdr.h2);
        packet.extract(hdr.h3);
        packet.extract(hdr.h4);
        packet.extract(hdr.h5);
        packet.extract(hdr.h6);
        packet.extract(hdr.h7);
        packet.extract(hdr.h8);
        packet.extract(hdr.h9);
        packet.extract(hdr.h10);
        packet.extract(hdr.h11);
        packet.extract(hdr.h12);
        packet.extract(hdr.h13);
        packet.extract(hdr.h14);
        packet.extract(hdr.h15);
        transition accept;
    }
}

control MbIngress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = (bit<9>)hdr.h15.v[0:0] + 9w1;
    }
}

control MbVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }
control MbEgress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply { } }
control MbCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MbDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.h0);
        packet.emit(hdr.h1);
        packet.emit(hdr.h2);
        packet.emit(hdr.h3);
        packet.emit(hdr.h4);
        packet.emit(hdr.h5);
        packet.emit(hdr.h6);
        packet.emit(hdr.h7);
        packet.emit(hdr.h8);
        packet.emit(hdr.h9);
        packet.emit(hdr.h10);
        packet.emit(hdr.h11);
        packet.emit(hdr.h12);
        packet.emit(hdr.h13);
        packet.emit(hdr.h14);
        packet.emit(hdr.h15);
    }
}

V1Switch(MbParser(), MbVerify(), MbIngress(), MbEgress(), MbCompute(), MbDeparser()) main;
