// OP4T-SST: the seed's packet processor for testing a software switch (its Fig. 3), for the
// OP4T timestamping NIC (`op4t.p4`).
//
// A packet from the network gets t1, the time it arrived, in the shell's metadata. Its IPv4
// destination is looked up in `ts_streams`: a stream of interest (action `ts`) is stamped, any
// other (`no_ts`, the default) is not touched. Where it goes is `port_map`'s choice by arrival
// port: the host (the software switch under test) or, for the Xconnect baseline, straight back
// to a network port.
//   network -> host, stamped:       t1 goes in right after the UDP header.
//   host -> network, stamped:       8 zero bytes go in right after the UDP header (before the t1
//                                   the packet already carries) and the TX queue writes t2 there.
//   network -> network, stamped:    t2's room and t1 both go in (Xconnect: the NIC's own latency).
// Either way a stamped packet leaves with `UDP | t2 | t1 | data`, and a monitor reads the
// latency as t2 - t1. Lengths and the IPv4 checksum follow; the UDP checksum becomes 0 (none).
#include <core.p4>
#include <op4t.p4>

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  PROTO_UDP = 17;
// Where t2 goes: after Ethernet (14), IPv4 without options (20) and UDP (8).
const bit<16> T2_OFFSET = 42;

header ethernet_t { bit<48> dst_addr; bit<48> src_addr; bit<16> ether_type; }
header ipv4_t {
    bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> total_len;
    bit<16> identification; bit<3> flags; bit<13> frag_offset;
    bit<8> ttl; bit<8> protocol; bit<16> hdr_checksum;
    bit<32> src_addr; bit<32> dst_addr;
}
header udp_t { bit<16> src_port; bit<16> dst_port; bit<16> length; bit<16> checksum; }
header stamp_t { Op4tTime_t time; }

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
    stamp_t    t2;
    stamp_t    t1;
}
struct meta_t { }

parser SstParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout op4t_metadata_t om) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: ipv4;
            default: accept;
        }
    }
    state ipv4 {
        pkt.extract(hdr.ipv4);
        // Only option-less IPv4 over UDP is stamped (t2 sits at a fixed offset).
        transition select(hdr.ipv4.ihl, hdr.ipv4.protocol) {
            (5, PROTO_UDP): udp;
            default: accept;
        }
    }
    state udp {
        pkt.extract(hdr.udp);
        transition accept;
    }
}

// RFC 1624, eqn. 3: the checksum `sum` after a 16-bit word of the covered data changes from `old`
// to `new` (ones' complement arithmetic, carries folded back in).
bit<16> checksum_update(in bit<16> sum, in bit<16> old, in bit<16> new) {
    bit<32> s = (bit<32>)(~sum) + (bit<32>)(~old) + (bit<32>)new;
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    return ~(bit<16>)s;
}

control SstProcessor(inout headers_t hdr, inout meta_t meta, inout op4t_metadata_t om) {
    bool stamp = false;

    action forward(PortId_t port) { om.dst_port = port; }
    action drop() { om.dst_port = OP4T_DROP_PORT; }
    // Xconnect or to the host: where a packet from each port goes.
    table port_map {
        key = { om.src_port: exact; }
        actions = { forward; drop; }
        default_action = drop();
        size = 16;
    }

    action ts() { stamp = true; }
    action no_ts() { stamp = false; }
    // The streams of interest, by IPv4 destination.
    table ts_streams {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { ts; no_ts; }
        default_action = no_ts();
        size = 1024;
    }

    // `bytes` more after the UDP header: the lengths, the IPv4 checksum, no UDP checksum.
    action grow(bit<16> bytes) {
        bit<16> total = hdr.ipv4.total_len + bytes;
        hdr.ipv4.hdr_checksum = checksum_update(hdr.ipv4.hdr_checksum, hdr.ipv4.total_len, total);
        hdr.ipv4.total_len = total;
        hdr.udp.length = hdr.udp.length + bytes;
        hdr.udp.checksum = 0;
    }

    // t2's room, which the TX queue fills as the packet leaves.
    action room_for_t2() {
        hdr.t2.setValid();
        hdr.t2.time = 0;
        om.tx_ts = 1;
        om.ts_pos = T2_OFFSET;
    }

    apply {
        port_map.apply();
        if (hdr.udp.isValid()) {
            ts_streams.apply();
        }
        if (stamp && om.dst_port != OP4T_DROP_PORT) {
            bool from_host = om.src_port == OP4T_HOST_PORT;
            bool to_host = om.dst_port == OP4T_HOST_PORT;
            if (!from_host) {
                hdr.t1.setValid();
                hdr.t1.time = om.t1;
            }
            if (!to_host) {
                room_for_t2();
            }
            if (!from_host && !to_host) {
                grow(16);
            } else if (!(from_host && to_host)) {
                grow(8);
            }
        }
    }
}

control SstDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.t2);
        pkt.emit(hdr.t1);
    }
}

OP4T(SstParser(), SstProcessor(), SstDeparser()) main;
