/*
 * l2l3.p4 -- an L2 switch and IPv4 router in one v1model pipeline.
 *
 * Behaviour (see README.md for the walk-through):
 *   - Every frame is parsed as Ethernet; EtherType 0x0800 continues into an
 *     IPv4 header.  Only 20-byte IPv4 headers (IHL 5, version 4) are accepted;
 *     anything else, or a frame too short for its headers, ends the parser
 *     with an error and the frame is dropped in ingress.
 *   - The IPv4 header checksum is verified before ingress; a frame with a bad
 *     checksum is dropped.
 *   - A valid IPv4 packet whose destination MAC is one of the router's own
 *     MACs (table router_mac) is routed: longest-prefix match on the
 *     destination address picks the next hop, which rewrites both MACs, picks
 *     the output port and decrements the TTL.  A packet whose TTL would reach
 *     0 is dropped, as is one with no route.
 *   - Every other frame (ARP, IPv6, IPv4 not addressed to the router) is
 *     switched: exact match on the destination MAC picks the output port;
 *     an unknown destination is dropped.
 *   - The IPv4 checksum of a routed packet is recomputed before the deparser.
 */

#include <core.p4>
#include <v1model.p4>

const bit<16> ETHERTYPE_IPV4 = 0x0800;

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;
typedef bit<9>  port_t;

header ethernet_t {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

header ipv4_t {
    bit<4>      version;
    bit<4>      ihl;
    bit<8>      diffserv;
    bit<16>     total_len;
    bit<16>     identification;
    bit<3>      flags;
    bit<13>     frag_offset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdr_checksum;
    ipv4_addr_t src_addr;
    ipv4_addr_t dst_addr;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
}

struct metadata_t {
    bit<1> routed;   // set when ingress routed the packet: its IPv4 header changed
}

error {
    IPv4BadVersion,
    IPv4OptionsNotSupported
}

parser L2L3Parser(packet_in packet,
                  out headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        verify(hdr.ipv4.version == 4, error.IPv4BadVersion);
        verify(hdr.ipv4.ihl == 5, error.IPv4OptionsNotSupported);
        transition accept;
    }
}

control L2L3VerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
              hdr.ipv4.total_len, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.frag_offset,
              hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum,
            HashAlgorithm.csum16);
    }
}

control L2L3Ingress(inout headers_t hdr,
                    inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {

    action drop() {
        mark_to_drop(standard_metadata);
    }

    // ---- L3: routing

    /* The frame is addressed to this router: route it. */
    action routable() {
    }

    table router_mac {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { routable; NoAction; }
        default_action = NoAction();
        size = 16;
    }

    /* Forward to the next hop: new MACs, output port, one hop fewer. */
    action set_nexthop(mac_addr_t dmac, mac_addr_t smac, port_t port) {
        hdr.ethernet.dst_addr = dmac;
        hdr.ethernet.src_addr = smac;
        standard_metadata.egress_spec = port;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        meta.routed = 1;
    }

    table ipv4_lpm {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { set_nexthop; drop; }
        default_action = drop();
        size = 1024;
    }

    // ---- L2: switching

    action forward(port_t port) {
        standard_metadata.egress_spec = port;
    }

    table mac_table {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { forward; drop; }
        default_action = drop();
        size = 1024;
    }

    apply {
        meta.routed = 0;
        if (standard_metadata.parser_error != error.NoError) {
            drop();
            return;
        }
        if (hdr.ipv4.isValid() && router_mac.apply().hit) {
            if (standard_metadata.checksum_error == 1) {
                drop();
            } else if (hdr.ipv4.ttl <= 1) {
                // Decrementing would leave 0: the packet expires here.
                drop();
            } else {
                ipv4_lpm.apply();
            }
        } else {
            mac_table.apply();
        }
    }
}

control L2L3Egress(inout headers_t hdr,
                   inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) {
    apply { }
}

control L2L3ComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        // Only a routed packet changed its IPv4 header; switched frames leave
        // as they came, even with a wrong checksum.
        update_checksum(hdr.ipv4.isValid() && meta.routed == 1,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
              hdr.ipv4.total_len, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.frag_offset,
              hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum,
            HashAlgorithm.csum16);
    }
}

control L2L3Deparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
    }
}

V1Switch(L2L3Parser(),
         L2L3VerifyChecksum(),
         L2L3Ingress(),
         L2L3Egress(),
         L2L3ComputeChecksum(),
         L2L3Deparser()) main;
