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
    bit<16> f8;
    bit<16> f9;
    bit<16> f10;
    bit<16> f11;
    bit<16> f12;
    bit<16> f13;
    bit<16> f14;
    bit<16> f15;
    bit<16> f16;
    bit<16> f17;
    bit<16> f18;
    bit<16> f19;
    bit<16> f20;
    bit<16> f21;
    bit<16> f22;
    bit<16> f23;
    bit<16> f24;
    bit<16> f25;
    bit<16> f26;
    bit<16> f27;
    bit<16> f28;
    bit<16> f29;
    bit<16> f30;
    bit<16> f31;
}

struct headers_t {
    ethernet_t ethernet;
    data_t     data;
}

struct metadata_t { }

// Fig. 3.10 of the P4FPGA dissertation: one action that makes 32 independent writes (each field gets
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
        hdr.data.f8 = 16w2055;
        hdr.data.f9 = 16w2311;
        hdr.data.f10 = 16w2567;
        hdr.data.f11 = 16w2823;
        hdr.data.f12 = 16w3079;
        hdr.data.f13 = 16w3335;
        hdr.data.f14 = 16w3591;
        hdr.data.f15 = 16w3847;
        hdr.data.f16 = 16w4103;
        hdr.data.f17 = 16w4359;
        hdr.data.f18 = 16w4615;
        hdr.data.f19 = 16w4871;
        hdr.data.f20 = 16w5127;
        hdr.data.f21 = 16w5383;
        hdr.data.f22 = 16w5639;
        hdr.data.f23 = 16w5895;
        hdr.data.f24 = 16w6151;
        hdr.data.f25 = 16w6407;
        hdr.data.f26 = 16w6663;
        hdr.data.f27 = 16w6919;
        hdr.data.f28 = 16w7175;
        hdr.data.f29 = 16w7431;
        hdr.data.f30 = 16w7687;
        hdr.data.f31 = 16w7943;
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
