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
    bit<16> f32;
    bit<16> f33;
    bit<16> f34;
    bit<16> f35;
    bit<16> f36;
    bit<16> f37;
    bit<16> f38;
    bit<16> f39;
    bit<16> f40;
    bit<16> f41;
    bit<16> f42;
    bit<16> f43;
    bit<16> f44;
    bit<16> f45;
    bit<16> f46;
    bit<16> f47;
    bit<16> f48;
    bit<16> f49;
    bit<16> f50;
    bit<16> f51;
    bit<16> f52;
    bit<16> f53;
    bit<16> f54;
    bit<16> f55;
    bit<16> f56;
    bit<16> f57;
    bit<16> f58;
    bit<16> f59;
    bit<16> f60;
    bit<16> f61;
    bit<16> f62;
    bit<16> f63;
}

struct headers_t {
    ethernet_t ethernet;
    data_t     data;
}

struct metadata_t { }

// Fig. 3.10 of the P4FPGA dissertation: one action that makes 64 independent writes (each field gets
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
        hdr.data.f32 = 16w8199;
        hdr.data.f33 = 16w8455;
        hdr.data.f34 = 16w8711;
        hdr.data.f35 = 16w8967;
        hdr.data.f36 = 16w9223;
        hdr.data.f37 = 16w9479;
        hdr.data.f38 = 16w9735;
        hdr.data.f39 = 16w9991;
        hdr.data.f40 = 16w10247;
        hdr.data.f41 = 16w10503;
        hdr.data.f42 = 16w10759;
        hdr.data.f43 = 16w11015;
        hdr.data.f44 = 16w11271;
        hdr.data.f45 = 16w11527;
        hdr.data.f46 = 16w11783;
        hdr.data.f47 = 16w12039;
        hdr.data.f48 = 16w12295;
        hdr.data.f49 = 16w12551;
        hdr.data.f50 = 16w12807;
        hdr.data.f51 = 16w13063;
        hdr.data.f52 = 16w13319;
        hdr.data.f53 = 16w13575;
        hdr.data.f54 = 16w13831;
        hdr.data.f55 = 16w14087;
        hdr.data.f56 = 16w14343;
        hdr.data.f57 = 16w14599;
        hdr.data.f58 = 16w14855;
        hdr.data.f59 = 16w15111;
        hdr.data.f60 = 16w15367;
        hdr.data.f61 = 16w15623;
        hdr.data.f62 = 16w15879;
        hdr.data.f63 = 16w16135;
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
