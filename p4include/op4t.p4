/*
 * op4t.p4: the OP4T timestamping NIC architecture, as p4forge runs it (software and hardware).
 *
 * A static shell -- network ports with RX and TX queues, the host port, an input arbiter and the
 * output lookup -- around one packet processor: a parser, a control and a deparser. As a packet
 * arrives, the shell writes the processor's input metadata (its port, its length, t1: when its
 * first byte arrived). After the processor it reads the output metadata: dst_port says where the
 * packet goes (OP4T_DROP_PORT drops it), and with tx_ts set the port's TX queue writes t2, the
 * time the packet leaves, into it: 8 bytes, big-endian, at byte offset ts_pos of the packet as it
 * leaves (bytes past its end are not written).
 *
 * Times are 64 bits: whole microseconds above bit 10, nanoseconds within the microsecond (0 to
 * 999) below. Nanoseconds = (t >> 10) * 1000 + (t & 1023).
 */
#ifndef P4FORGE_OP4T_P4
#define P4FORGE_OP4T_P4

#include <core.p4>

typedef bit<4> PortId_t;
/* Network ports are 0 .. OP4T_NET_PORTS - 1; the host (DMA) port comes after them. */
const PortId_t OP4T_NET_PORTS = 4;
const PortId_t OP4T_HOST_PORT = 4;
/* All ones: the packet is dropped. */
const PortId_t OP4T_DROP_PORT = 0xF;

typedef bit<64> Op4tTime_t;

struct op4t_metadata_t {
    /* Input: written by the shell as the packet arrives. */
    PortId_t   src_port;     /* the port it arrived on */
    bit<16>    pkt_len;      /* its length in bytes */
    Op4tTime_t t1;           /* when its first byte arrived (0 from the host port) */
    error      parser_error; /* the parser's error; the processor runs in any case */
    /* Output: read by the shell after the processor. */
    PortId_t   dst_port;     /* where it goes (starts as 0); OP4T_DROP_PORT drops it */
    bit<1>     tx_ts;        /* 1: the TX queue writes t2 at ts_pos as the packet leaves */
    bit<16>    ts_pos;       /* byte offset of t2 in the packet as it leaves */
}

parser Op4tParser<H, M>(packet_in pkt, out H hdr, inout M meta, inout op4t_metadata_t om);
control Op4tProcessor<H, M>(inout H hdr, inout M meta, inout op4t_metadata_t om);
control Op4tDeparser<H>(packet_out pkt, in H hdr);

package OP4T<H, M>(Op4tParser<H, M> p, Op4tProcessor<H, M> processor, Op4tDeparser<H> d);

#endif
