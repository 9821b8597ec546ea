#include "arch.p4"
#include "arch.p4"

typedef bit<48> macAddr_t;
const bit<16> TYPE_IPV4 = 0x800;
#define MAX_PORTS 511

header ethernet_t {
    macAddr_t dstAddr;
    macAddr_t srcAddr;
    bit<16>   etherType;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

struct metadata { bit<32> meta_x; }

struct headers {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    ipv4_t[2]  stack;
}

parser MyParser(packet_in packet, out headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    state start {
        transition parse_ethernet;
    }
    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.etherType) {
            TYPE_IPV4: parse_ipv4;
            0x86dd &&& 0xffff: accept;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition select(hdr.ipv4.version, hdr.ipv4.ihl) {
            (4, 5): accept;
            (4, _): accept;
            (0 .. 3, default): reject;
        }
    }
}

control MyIngress(inout headers hdr, inout metadata meta, inout standard_metadata_t standard_metadata) {
    counter<bit<32>>(1024, CounterType.packets) c;
    register<bit<32>, bit<32>>(MAX_PORTS) r;
    bit<32> tmp;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action ipv4_forward(macAddr_t dstAddr, bit<9> port) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.srcAddr = hdr.ethernet.dstAddr;
        hdr.ethernet.dstAddr = dstAddr;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        hdr.ipv4.ttl |-|= 8w1;
        tmp = (bit<32>) port + 32w0x10 >> 2;
        tmp = tmp[31:16] ++ tmp[15:0];
        tmp[7:0] = tmp[8 +: 8];
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dstAddr: lpm @name("dst");
        }
        actions = {
            ipv4_forward;
            drop;
            @defaultonly NoAction;
        }
        size = 1024;
        default_action = drop();
        const entries = {
            0x0a000001 &&& 0xffffffff : ipv4_forward(0x000000000001, 1);
            priority = 10 : _ : drop();
        }
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 0) {
            ipv4_lpm.apply();
        } else if (!hdr.ethernet.isValid()) {
            drop();
        }
        switch (ipv4_lpm.apply().action_run) {
            drop: {}
            ipv4_forward:
            default: { tmp = 1; }
        }
        c.count((bit<32>) standard_metadata.ingress_port);
        r.read(tmp, 0);
        hdr.stack[0].setValid();
        hdr.stack.next.ttl = tmp >= 3 ? 8w1 : 8w2;
        tmp = tmp << 1 | tmp >> 31;
        tmp >>= 1;
        bool b = tmp < 4 && tmp > 1;
        error e = error.NoMatch;
        exit;
    }
}

control MyDeparser(packet_out packet, in headers hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

Switch(MyParser(), MyIngress(), MyDeparser()) main;
