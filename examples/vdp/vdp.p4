/*
 * vdp.p4 -- virtual data planes: many tenants time-share one pipeline of two TCAM lookups.
 *
 * The pipeline of the VDP seed (sections 4.1 and 4.2), on v1model:
 *   1. VDP mapping: a ternary lookup (vdp_map) on the packet's 10-tuple -- ingress port, Ethernet
 *      destination and source, VLAN id, EtherType, IPv4 source and destination, IP protocol,
 *      L4 source and destination ports -- gives the packet's VDP id. No match: the software VDP
 *      (SOFTWARE_VDP), whose packets go to the host.
 *   2. Action matching: a ternary lookup (vdp_action) on the VDP id and the 10-tuple gives the
 *      action result. Each VDP has a default rule (its VDP id, every other field wildcard, its
 *      lowest priority), usually "to software"; no match at all also goes to software.
 *   3. Action processing by the result's bitmap (ACT_*): drop; change the MACs; decrement the TTL
 *      (the IPv4 checksum recomputed); forward out of the result's port, or else send the packet
 *      to the host on the result's DMA channel.
 *   4. Software processing: the host port (HOST_PORT) is the DMA engine. A packet to the host
 *      carries a dma_t header in front (its DMA channel, its VDP id, the port it came in on); the
 *      host's software answers with dma_t in front too, naming the port to send it out of.
 *   5. Forwarding: out of the chosen port; a packet from the host leaves by its dma_t's port
 *      without dma_t.
 *
 * Fields a packet does not have are 0 in the 10-tuple (no VLAN tag: VLAN 0; not IPv4: addresses
 * and protocol 0; neither TCP nor UDP: ports 0). The supervisor (`p4forge vdp`) gives each VDP
 * its slice of both tables and writes its rules there; examples/vdp/README.md has the details.
 */

#include <core.p4>
#include <v1model.p4>

typedef bit<9>  port_t;
typedef bit<12> vid_t;
typedef bit<48> mac_t;

/* The network ports are 0..3; the host's DMA engine is this port. */
const port_t HOST_PORT = 4;
/* The VDP of packets no mapping rule claims: processed in software. */
const vid_t SOFTWARE_VDP = 0;

/* The action result's bitmap (the seed's port-valid, change-MAC, TTL, forward and drop bits). */
const bit<5> ACT_PORT_VALID = 0b00001;
const bit<5> ACT_CHANGE_MAC = 0b00010;
const bit<5> ACT_TTL        = 0b00100;
const bit<5> ACT_FORWARD    = 0b01000;
const bit<5> ACT_DROP       = 0b10000;

const bit<16> ETHERTYPE_VLAN = 0x8100;
const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  PROTO_TCP = 6;
const bit<8>  PROTO_UDP = 17;

/* Between the pipeline and the host's DMA engine, in front of the Ethernet header. */
header dma_t {
    bit<2>  channel;  /* the DMA channel (one of the engine's 4 ring pairs) */
    bit<2>  _pad;
    vid_t   vid;      /* the packet's VDP */
    bit<7>  _pad2;
    port_t  port;     /* to the host: the port it came in on; from the host: the port to send it out of */
}

header ethernet_t {
    mac_t   dst_addr;
    mac_t   src_addr;
    bit<16> ether_type;
}

header vlan_t {
    bit<3>  pcp;
    bit<1>  dei;
    bit<12> vid;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

/* The first four bytes of TCP and UDP alike. */
header l4_ports_t {
    bit<16> src_port;
    bit<16> dst_port;
}

struct headers_t {
    dma_t      dma;
    ethernet_t ethernet;
    vlan_t     vlan;
    ipv4_t     ipv4;
    l4_ports_t l4;
}

/* The 10-tuple both lookups match on. */
struct tuple_t {
    port_t  in_port;
    mac_t   dst_mac;
    mac_t   src_mac;
    bit<12> vlan;
    bit<16> ether_type;
    bit<32> src_ip;
    bit<32> dst_ip;
    bit<8>  proto;
    bit<16> src_port;
    bit<16> dst_port;
}

/* The action result (stage 2) that stage 3 carries out. */
struct result_t {
    bit<5>  flags;    /* ACT_* */
    port_t  port;
    mac_t   dst_mac;
    mac_t   src_mac;
    bit<2>  channel;  /* DMA channel to the host */
}

struct metadata_t {
    tuple_t  t;
    result_t r;
    vid_t   vid;
    bit<1>  ttl_changed;
}

parser VdpParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t sm) {
    state start {
        transition select(sm.ingress_port) {
            HOST_PORT: parse_dma;
            default: parse_ethernet;
        }
    }
    state parse_dma {
        pkt.extract(hdr.dma);
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_VLAN: parse_vlan;
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_vlan {
        pkt.extract(hdr.vlan);
        transition select(hdr.vlan.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        /* Options and fragments after the first keep the L4 ports out of the tuple. */
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (5, 0, PROTO_TCP): parse_l4;
            (5, 0, PROTO_UDP): parse_l4;
            default: accept;
        }
    }
    state parse_l4 {
        pkt.extract(hdr.l4);
        transition accept;
    }
}

control VdpVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control VdpIngress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    /* Packets and bytes per VDP (index: the VDP id), as they leave the mapping stage. */
    counter(4096, CounterType.packets_and_bytes) vdp_packets;

    /* ---- 1. VDP mapping */
    action set_vdp(vid_t vid) {
        meta.vid = vid;
    }
    action to_software_vdp() {
        meta.vid = SOFTWARE_VDP;
    }
    table vdp_map {
        key = {
            meta.t.in_port    : ternary;
            meta.t.dst_mac    : ternary;
            meta.t.src_mac    : ternary;
            meta.t.vlan       : ternary;
            meta.t.ether_type : ternary;
            meta.t.src_ip     : ternary;
            meta.t.dst_ip     : ternary;
            meta.t.proto      : ternary;
            meta.t.src_port   : ternary;
            meta.t.dst_port   : ternary;
        }
        actions = { set_vdp; to_software_vdp; }
        default_action = to_software_vdp();
        size = 1024;
    }

    /* ---- 2. Action matching: the action result */
    action process(bit<5> flags, port_t port, mac_t dst_mac, mac_t src_mac, bit<2> channel) {
        meta.r.flags = flags;
        meta.r.port = port;
        meta.r.dst_mac = dst_mac;
        meta.r.src_mac = src_mac;
        meta.r.channel = channel;
    }
    action to_software(bit<2> channel) {
        meta.r.flags = 0;
        meta.r.port = 0;
        meta.r.dst_mac = 0;
        meta.r.src_mac = 0;
        meta.r.channel = channel;
    }
    table vdp_action {
        key = {
            meta.vid          : ternary;
            meta.t.in_port    : ternary;
            meta.t.dst_mac    : ternary;
            meta.t.src_mac    : ternary;
            meta.t.vlan       : ternary;
            meta.t.ether_type : ternary;
            meta.t.src_ip     : ternary;
            meta.t.dst_ip     : ternary;
            meta.t.proto      : ternary;
            meta.t.src_port   : ternary;
            meta.t.dst_port   : ternary;
        }
        actions = { process; to_software; }
        default_action = to_software(0);
        size = 2048;
    }

    apply {
        meta.ttl_changed = 0;
        if (sm.parser_error != error.NoError) {
            mark_to_drop(sm);
            return;
        }
        if (hdr.dma.isValid()) {
            /* ---- 5. From the host's software path: out of the port it names. */
            sm.egress_spec = hdr.dma.port;
            hdr.dma.setInvalid();
            return;
        }
        /* The 10-tuple, 0 where the packet has no such field. */
        meta.t.in_port = sm.ingress_port;
        meta.t.dst_mac = hdr.ethernet.dst_addr;
        meta.t.src_mac = hdr.ethernet.src_addr;
        meta.t.vlan = 0;
        meta.t.ether_type = hdr.ethernet.ether_type;
        if (hdr.vlan.isValid()) {
            meta.t.vlan = hdr.vlan.vid;
            meta.t.ether_type = hdr.vlan.ether_type;
        }
        meta.t.src_ip = 0;
        meta.t.dst_ip = 0;
        meta.t.proto = 0;
        if (hdr.ipv4.isValid()) {
            meta.t.src_ip = hdr.ipv4.src_addr;
            meta.t.dst_ip = hdr.ipv4.dst_addr;
            meta.t.proto = hdr.ipv4.protocol;
        }
        meta.t.src_port = 0;
        meta.t.dst_port = 0;
        if (hdr.l4.isValid()) {
            meta.t.src_port = hdr.l4.src_port;
            meta.t.dst_port = hdr.l4.dst_port;
        }
        vdp_map.apply();
        vdp_packets.count((bit<32>)meta.vid);
        vdp_action.apply();

        /* ---- 3. Action processing by the bitmap, then the way out */
        if (meta.r.flags & ACT_CHANGE_MAC != 0) {
            hdr.ethernet.dst_addr = meta.r.dst_mac;
            hdr.ethernet.src_addr = meta.r.src_mac;
        }
        if (meta.r.flags & ACT_TTL != 0 && hdr.ipv4.isValid()) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            meta.ttl_changed = 1;
        }
        if (meta.r.flags & ACT_DROP != 0) {
            mark_to_drop(sm);
        } else if (meta.r.flags & ACT_FORWARD == 0) {
            /* ---- 4. To the host's software path on the result's DMA channel. */
            hdr.dma.setValid();
            hdr.dma.channel = meta.r.channel;
            hdr.dma._pad = 0;
            hdr.dma.vid = meta.vid;
            hdr.dma._pad2 = 0;
            hdr.dma.port = sm.ingress_port;
            sm.egress_spec = HOST_PORT;
        } else if (meta.r.flags & ACT_PORT_VALID != 0) {
            sm.egress_spec = meta.r.port;
        } else {
            /* Forward, but to no port: nowhere to go. */
            mark_to_drop(sm);
        }
    }
}

control VdpEgress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t sm) {
    apply { }
}

control VdpComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        /* Only a decremented TTL changes the IPv4 header. */
        update_checksum(hdr.ipv4.isValid() && meta.ttl_changed == 1,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv,
              hdr.ipv4.total_len, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.frag_offset,
              hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum,
            HashAlgorithm.csum16);
    }
}

control VdpDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.dma);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.vlan);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.l4);
    }
}

V1Switch(VdpParser(), VdpVerifyChecksum(), VdpIngress(), VdpEgress(),
         VdpComputeChecksum(), VdpDeparser()) main;
