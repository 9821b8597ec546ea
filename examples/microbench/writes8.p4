#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}
header data_t {
    bit<16> f0;
    bit<16> f1;
    bit<16> f2;
    bit<16> f3;
    bit<16> f4;
    bit<16> f5;
    bit<16> f6;
    bit<16> f7;
}

struct headers_t {
    ethernet_t ethernet;
    data_t     data;
}

struct metadata_t { }

// Fig. 3.10 of the P4FPGA dissertation: one action that makes 8 independent writes (each field gets
// its own constant), applied by a keyless table to every packet.
parser MbParser(packet_in packet, out headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    state start {
        packet.extract(hdr.ethernet);
        packet.extract(hdr.data);
        transition accept;
    }
}

control MbIngress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    action write_all() {
        hdr.data.f0 = 16w7;
        hdr.data.f1 = 16w263;
        hdr.data.f2 = 16w519;
        hdr.data.f3 = 16w775;
        hdr.data.f4 = 16w1031;
        hdr.data.f5 = 16w1287;
        hdr.data.f6 = 16w1543;
        hdr.data.f7 = 16w1799;
        sm.egress_spec = 9w1;
    }
    table writes {
        actions = { write_all; }
        const default_action = write_all();
    }
    apply {
        writes.apply();
    }
}

control MbVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }
control MbEgress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) { apply { } }
control MbCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control MbDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.data);
    }
}

V1Switch(MbParser(), MbVerify(), MbIngress(), MbEgress(), MbCompute(), MbDeparser()) main;
