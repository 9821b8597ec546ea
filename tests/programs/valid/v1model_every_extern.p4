// Every extern, function and deprecated form v1model.p4 declares, called with the argument types
// BMv2 programs use: a compile test for the include file itself.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> w;
    bit<32> l;
}
struct headers_t { h_t h; }
struct meta_t {
    @field_list(1)
    bit<8> kept;
    bit<8> color;
}
struct digest_t {
    bit<8> a;
    bit<9> port;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control VC(inout headers_t hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.h.isValid(), { hdr.h.a, hdr.h.b }, hdr.h.w, HashAlgorithm.csum16);
        verify_checksum_with_payload(true, { hdr.h.l }, hdr.h.w, HashAlgorithm.crc16);
    }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter(8, CounterType.packets_and_bytes) c;
    direct_counter(CounterType.bytes) dc;
    meter(8, MeterType.bytes) m;
    direct_meter<bit<8>>(MeterType.packets) dm;
    register<bit<32>>(8) r;
    Checksum16() legacy_checksum;

    action with_direct() {
        dm.read(meta.color);
    }
    table t_direct {
        key = { hdr.h.a: exact; }
        actions = { with_direct; NoAction; }
        counters = dc;
        meters = dm;
        default_action = NoAction();
    }
    action pick(bit<9> port) {
        sm.egress_spec = port;
    }
    table t_profile {
        key = { hdr.h.a: exact; }
        actions = { pick; NoAction; }
        implementation = action_profile(16);
        default_action = NoAction();
    }
    table t_selector {
        key = {
            hdr.h.a: exact;
            hdr.h.b: selector;
            hdr.h.w: selector;
        }
        actions = { pick; NoAction; }
        implementation = action_selector(HashAlgorithm.crc16, 32w64, 32w14);
        default_action = NoAction();
    }

    apply {
        c.count((bit<32>)hdr.h.a);
        m.execute_meter((bit<32>)hdr.h.b, meta.color);
        bit<32> v;
        r.read(v, 0);
        r.write(0, v + 1);
        t_direct.apply();
        t_profile.apply();
        t_selector.apply();
        bit<16> rnd;
        random(rnd, 16w0, 16w1023);
        hash(hdr.h.l, HashAlgorithm.crc32, 32w0, { hdr.h.a, hdr.h.b }, 32w0xFFFFFFFF);
        hash(hdr.h.w, HashAlgorithm.crc16_custom, 16w0, { hdr.h.l }, 32w1024);
        hash(hdr.h.w, HashAlgorithm.crc32_custom, 16w0, { hdr.h.l }, 32w1024);
        hash(hdr.h.w, HashAlgorithm.random, 16w0, { hdr.h.l }, 32w1024);
        hdr.h.w = legacy_checksum.get({ hdr.h.a, hdr.h.b });
        digest<digest_t>(1, { hdr.h.a, sm.ingress_port });
        log_msg("message only");
        log_msg("a={} b={}", { hdr.h.a, hdr.h.b });
        assert(hdr.h.a != 0xFF);
        assume(hdr.h.b != 0xFF);
        clone(CloneType.I2E, 1);
        clone3(CloneType.I2E, 2, { meta.kept });
        clone_preserving_field_list(CloneType.I2E, 3, 1);
        resubmit({ meta.kept });
        resubmit_preserving_field_list(1);
        truncate(64);
        if (hdr.h.a == 0) {
            mark_to_drop();
        }
        if (hdr.h.a == 1) {
            mark_to_drop(sm);
        }
        sm.mcast_grp = 1;
        sm.priority = 3w7;
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        recirculate({ meta.kept });
        recirculate_preserving_field_list(1);
        clone(CloneType.E2E, 4);
        hdr.h.l = sm.enq_timestamp + sm.deq_timedelta + (bit<32>)sm.enq_qdepth + (bit<32>)sm.deq_qdepth
                + sm.instance_type + sm.packet_length + (bit<32>)sm.egress_rid + (bit<32>)sm.egress_port
                + (bit<32>)sm.checksum_error;
        hdr.h.w = (bit<16>)(sm.egress_global_timestamp - sm.ingress_global_timestamp);
        if (sm.parser_error != error.NoError) {
            mark_to_drop(sm);
        }
    }
}

control CC(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.h.isValid(), { hdr.h.a, hdr.h.b }, hdr.h.w, HashAlgorithm.csum16);
        update_checksum_with_payload(true, { hdr.h.l }, hdr.h.w, HashAlgorithm.csum16);
    }
}

control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

const bool V1MODEL_NEW_ENOUGH = static_assert(__v1model_version >= 20180101);

V1Switch(P(), VC(), I(), E(), CC(), D()) main;
