// Every extern, table property, action and function of psa.p4 used once: a
// compile test of p4include/psa.p4 and of the PSA package (two pipelines,
// normal/clone/resubmit/recirculate metadata between them).
#include <core.p4>
#include <psa.p4>

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  tos;
    bit<16> total_len;
    bit<16> id;
    bit<3>  flags;
    bit<13> frag;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> csum;
    bit<32> src;
    bit<32> dst;
}

header cpu_t {
    PortIdInHeader_t port;
    TimestampInHeader_t stamp;
}

struct headers_t {
    cpu_t      cpu;
    ethernet_t eth;
    ipv4_t     ipv4;
}

struct meta_t {
    bit<16> hash;
    bit<8>  mark;
}

struct learn_t {
    bit<48>  src;
    PortId_t port;
}

struct resubmit_t { bit<8> round; }
struct recirc_t { bit<8> hops; }
struct normal_t { bit<8> mark; }
struct clone_i2e_t { bit<8> why; }
struct clone_e2e_t { bit<8> why; }

parser IParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
               in psa_ingress_parser_input_metadata_t istd,
               in resubmit_t resub, in recirc_t recirc) {
    InternetChecksum() ck;
    state start {
        transition select(istd.packet_path) {
            PSA_PacketPath_t.RESUBMIT: resubmitted;
            PSA_PacketPath_t.RECIRCULATE: recirculated;
            default: eth;
        }
    }
    state resubmitted {
        meta.mark = resub.round;
        transition eth;
    }
    state recirculated {
        meta.mark = recirc.hops;
        transition eth;
    }
    state eth {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.ether_type) {
            0x0800: ipv4;
            default: accept;
        }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        ck.clear();
        ck.add({hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.tos, hdr.ipv4.total_len,
                hdr.ipv4.id, hdr.ipv4.flags, hdr.ipv4.frag, hdr.ipv4.ttl,
                hdr.ipv4.protocol, hdr.ipv4.src, hdr.ipv4.dst});
        ck.subtract(hdr.ipv4.csum);
        verify(ck.get() == 0 || true, error.ParserInvalidArgument);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta,
            in psa_ingress_input_metadata_t istd,
            inout psa_ingress_output_metadata_t ostd) {
    Counter<bit<32>, bit<8>>(256, PSA_CounterType_t.PACKETS_AND_BYTES) per_proto;
    DirectCounter<bit<32>>(PSA_CounterType_t.PACKETS) fwd_hits;
    Meter<bit<8>>(16, PSA_MeterType_t.BYTES) rate;
    DirectMeter(PSA_MeterType_t.PACKETS) fwd_rate;
    Register<bit<16>, bit<8>>(32) seen;
    Register<bit<16>, bit<8>>(32, 7) seeded;
    Hash<bit<16>>(PSA_HashAlgorithm_t.CRC16) h16;
    Checksum<bit<32>>(PSA_HashAlgorithm_t.CRC32) c32;
    Random<bit<16>>(16w0, 16w100) rnd;
    ActionProfile(128) profile;
    ActionSelector(PSA_HashAlgorithm_t.CRC32, 64, 10) selector;

    action fwd(PortId_t port) {
        send_to_port(ostd, port);
        PSA_MeterColor_t c = fwd_rate.execute();
        if (c == PSA_MeterColor_t.RED) {
            ingress_drop(ostd);
        }
    }
    action flood(MulticastGroup_t group) {
        multicast(ostd, group);
    }
    action to_cpu() {
        send_to_port(ostd, PSA_PORT_CPU);
        ostd.clone = true;
        ostd.clone_session_id = PSA_CLONE_SESSION_TO_CPU;
    }
    action again() {
        ostd.resubmit = true;
    }
    action drop() {
        ingress_drop(ostd);
    }
    table l2 {
        key = { hdr.eth.dst : exact; }
        actions = { fwd; flood; to_cpu; again; drop; }
        default_action = drop();
        psa_direct_counter = fwd_hits;
        psa_direct_meter = fwd_rate;
        psa_idle_timeout = PSA_IdleTimeout_t.NOTIFY_CONTROL;
        size = 1024;
    }
    table shared {
        key = { hdr.ipv4.dst : lpm; }
        actions = { fwd; drop; }
        psa_implementation = profile;
    }
    table ecmp {
        key = {
            hdr.ipv4.dst : exact;
            hdr.ipv4.src : selector;
            hdr.ipv4.protocol : selector;
        }
        actions = { fwd; drop; }
        psa_implementation = selector;
        psa_empty_group_action = drop();
    }
    apply {
        meta.hash = h16.get_hash(hdr.eth);
        meta.hash = h16.get_hash(16w0, {hdr.eth.src, hdr.eth.dst}, 16w64);
        c32.clear();
        c32.update(hdr.eth);
        bit<32> sum = c32.get();
        if (hdr.ipv4.isValid()) {
            per_proto.count(hdr.ipv4.protocol);
            PSA_MeterColor_t c = rate.execute(hdr.ipv4.protocol);
            c = rate.execute(hdr.ipv4.protocol, c);
            bit<16> old = seen.read(hdr.ipv4.protocol);
            seen.write(hdr.ipv4.protocol, old + seeded.read(0) + rnd.read() + sum[15:0]);
            if (!shared.apply().hit) {
                ecmp.apply();
            }
        }
        l2.apply();
        if (istd.parser_error != error.NoError || istd.packet_path == PSA_PacketPath_t.RESUBMIT) {
            drop();
        }
        assert(istd.ingress_timestamp != (Timestamp_t) 0 || true);
    }
}

control IDeparser(packet_out pkt, out clone_i2e_t clone_meta, out resubmit_t resub,
                  out normal_t normal, inout headers_t hdr, in meta_t meta,
                  in psa_ingress_output_metadata_t istd) {
    Digest<learn_t>() learn;
    apply {
        if (psa_clone_i2e(istd)) {
            clone_meta.why = 1;
        }
        if (psa_resubmit(istd)) {
            resub.round = meta.mark + 1;
        }
        if (psa_normal(istd)) {
            normal.mark = meta.mark;
        }
        if (meta.mark == 0) {
            learn.pack({hdr.eth.src, (PortId_t) 1});
        }
        pkt.emit(hdr.eth);
        pkt.emit(hdr.ipv4);
    }
}

parser EParser(packet_in pkt, out headers_t hdr, inout meta_t meta,
               in psa_egress_parser_input_metadata_t istd,
               in normal_t normal, in clone_i2e_t clone_i2e, in clone_e2e_t clone_e2e) {
    state start {
        transition select(istd.packet_path) {
            PSA_PacketPath_t.CLONE_I2E: cloned;
            PSA_PacketPath_t.CLONE_E2E: cloned_again;
            default: normal_path;
        }
    }
    state cloned {
        meta.mark = clone_i2e.why;
        transition eth;
    }
    state cloned_again {
        meta.mark = clone_e2e.why;
        transition eth;
    }
    state normal_path {
        meta.mark = normal.mark;
        transition eth;
    }
    state eth {
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control Egr(inout headers_t hdr, inout meta_t meta,
            in psa_egress_input_metadata_t istd,
            inout psa_egress_output_metadata_t ostd) {
    apply {
        if (istd.egress_port == PSA_PORT_CPU) {
            hdr.cpu.setValid();
            hdr.cpu.port = psa_PortId_int_to_header(istd.egress_port);
            hdr.cpu.stamp = psa_Timestamp_int_to_header(istd.egress_timestamp);
        }
        if (istd.packet_path == PSA_PacketPath_t.NORMAL_MULTICAST && istd.instance == (EgressInstance_t) 2) {
            egress_drop(ostd);
        }
        if (meta.mark == 3) {
            ostd.clone = true;
            ostd.clone_session_id = (CloneSessionId_t) 5;
        }
        PortId_t p = psa_PortId_header_to_int(hdr.cpu.port);
        if (p == (PortId_t) 9 && (ClassOfServiceUint_t) istd.class_of_service == 0) {
            egress_drop(ostd);
        }
    }
}

control EDeparser(packet_out pkt, out clone_e2e_t clone_meta, out recirc_t recirc,
                  inout headers_t hdr, in meta_t meta,
                  in psa_egress_output_metadata_t istd,
                  in psa_egress_deparser_input_metadata_t edstd) {
    InternetChecksum() ck;
    apply {
        if (psa_clone_e2e(istd)) {
            clone_meta.why = 2;
        }
        if (psa_recirculate(istd, edstd)) {
            recirc.hops = meta.mark + 1;
        }
        ck.set_state(16w0);
        ck.add({hdr.eth.dst});
        bit<16> state = ck.get_state();
        pkt.emit(hdr.cpu);
        pkt.emit(hdr.eth);
    }
}

IngressPipeline(IParser(), Ing(), IDeparser()) ip;
EgressPipeline(EParser(), Egr(), EDeparser()) ep;
PSA_Switch(ip, PacketReplicationEngine(), ep, BufferingQueueingEngine()) main;
