/*
 * mdp.p4 -- a market-data feed handler for a CME-style Market Data Protocol.
 *
 * The second application of the P4FPGA chapter of the source dissertation
 * ("mdp.p4 implements a variable packet length, financial trading protocol
 * parser"; header layout after its Figure 2.4).  An exchange publishes each
 * channel twice (feeds A and B) so a lost packet on one feed can be recovered
 * from the other; this program keeps the first copy of every packet and drops
 * the second, forwards each subscribed channel to its port, and keeps a few
 * per-channel statistics taken from inside the messages.
 *
 * Packet layout (all fields in network byte order; the real protocol uses
 * little-endian SBE encoding, which changes nothing here but readability):
 *
 *   Ethernet / IPv4 / UDP (destination port 14310..14399)
 *   packet header   msgSeqNum:32 sendingTime:64
 *   1..4 messages   msgSize:16 blockLength:16 templateID:16 schemaID:16 version:16
 *                   then, when templateID == 32 (refreshBook):
 *                       transactTime:64 matchEventIndicator:16 blockLength:16 numEntries:16
 *                       numEntries x entry (32 bytes: price, size, security id, ...)
 *                   otherwise msgSize - 10 bytes of body (kept opaque, at most 128)
 *
 * msgSize counts the whole message including its own 10-byte header.  The
 * messages fill the UDP payload exactly; bytes after a fifth message boundary
 * are left unparsed (forwarded but not inspected).
 *
 * Invariants the parser enforces (any violation ends in a parser error and the
 * packet is dropped): at most MAX_ENTRIES entries per refreshBook, msgSize of
 * a refreshBook equals 24 + 32 * numEntries, opaque bodies fit in 128 bytes.
 *
 * Ingress:
 *   channel table   (IPv4 destination, UDP port) -> channel id, output port;
 *                   unsubscribed feeds are dropped.
 *   de-duplication  register highest_seq[channel] holds the highest msgSeqNum
 *                   forwarded; a packet at or below it is a duplicate (the
 *                   copy from the other feed, or a late retransmission) and is
 *                   dropped and counted in `duplicates`.
 *   statistics      book_entries[channel] += entries in all refreshBooks;
 *                   last_px[channel] = price of the first entry of the last
 *                   non-empty refreshBook in the packet.
 */

#include <core.p4>
#include <v1model.p4>

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<8>  IPPROTO_UDP = 17;
const bit<16> TEMPLATE_REFRESH_BOOK = 32;
const bit<16> MDP_MSG_HEADER_BYTES = 10;
const bit<16> REFRESH_BOOK_FIXED_BYTES = 24;   // message header + book header
#define MAX_ENTRIES 4
#define NUM_CHANNELS 16

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
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

header udp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

/* Binary packet header: one per UDP datagram. */
header mdp_packet_t {
    bit<32> msgSeqNum;
    bit<64> sendingTime;
}

/* Message header: one per message. */
header mdp_message_t {
    bit<16> msgSize;
    bit<16> blockLength;
    bit<16> templateID;
    bit<16> schemaID;
    bit<16> version;
}

header refresh_book_t {
    bit<64> transactTime;
    bit<16> matchEventIndicator;
    bit<16> blockLength;
    bit<16> numEntries;
}

header refresh_book_entry_t {
    bit<64> mdEntryPx;
    bit<32> mdEntrySize;
    bit<32> securityID;
    bit<32> rptSeq;
    bit<32> numberOfOrders;
    bit<8>  mdPriceLevel;
    bit<8>  mdUpdateAction;
    bit<8>  mdEntryType;
    bit<40> padding;
}

/* Body of any message this program does not interpret. */
header opaque_body_t {
    varbit<1024> data;
}

/* One message slot; exactly one of `book` / `other` is valid in a parsed message. */
struct message_t {
    mdp_message_t                     hdr;
    refresh_book_t                    book;
    refresh_book_entry_t[MAX_ENTRIES] entries;
    opaque_body_t                     other;
}

struct headers_t {
    ethernet_t   ethernet;
    ipv4_t       ipv4;
    udp_t        udp;
    mdp_packet_t mdp;
    message_t    msg0;
    message_t    msg1;
    message_t    msg2;
    message_t    msg3;
}

struct metadata_t {
    bit<16> remaining;   // message bytes not parsed yet
    bit<8>  channel;
}

error {
    MdpTooShort,
    MdpBadLength
}

/* Parses one message into a slot. */
parser MessageParser(packet_in pkt, out message_t msg) {
    bit<16> left;    // entries still to extract

    state start {
        pkt.extract(msg.hdr);
        transition select(msg.hdr.templateID) {
            TEMPLATE_REFRESH_BOOK: parse_book;
            default: parse_other;
        }
    }

    state parse_book {
        pkt.extract(msg.book);
        verify(msg.hdr.msgSize == REFRESH_BOOK_FIXED_BYTES + (msg.book.numEntries << 5),
               error.MdpBadLength);
        left = msg.book.numEntries;
        transition select(left) {
            0: accept;
            default: parse_entry;
        }
    }

    /* More than MAX_ENTRIES entries overflow the stack: StackOutOfBounds. */
    state parse_entry {
        pkt.extract(msg.entries.next);
        left = left - 1;
        transition select(left) {
            0: accept;
            default: parse_entry;
        }
    }

    state parse_other {
        verify(msg.hdr.msgSize >= MDP_MSG_HEADER_BYTES, error.MdpBadLength);
        pkt.extract(msg.other, ((bit<32>)(msg.hdr.msgSize - MDP_MSG_HEADER_BYTES)) << 3);
        transition accept;
    }
}

parser MdpParser(packet_in pkt,
                 out headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    MessageParser() message0;
    MessageParser() message1;
    MessageParser() message2;
    MessageParser() message3;

    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.protocol) {
            (5, IPPROTO_UDP): parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port) {
            14310 .. 14399: parse_mdp;
            default: accept;
        }
    }

    state parse_mdp {
        pkt.extract(hdr.mdp);
        // UDP header, packet header and at least one message header.
        verify(hdr.udp.length >= 8 + 12 + MDP_MSG_HEADER_BYTES, error.MdpTooShort);
        meta.remaining = hdr.udp.length - (8 + 12);
        transition parse_msg0;
    }

    state parse_msg0 {
        message0.apply(pkt, hdr.msg0);
        meta.remaining = meta.remaining - hdr.msg0.hdr.msgSize;
        transition select(meta.remaining) {
            0: accept;
            default: parse_msg1;
        }
    }

    state parse_msg1 {
        message1.apply(pkt, hdr.msg1);
        meta.remaining = meta.remaining - hdr.msg1.hdr.msgSize;
        transition select(meta.remaining) {
            0: accept;
            default: parse_msg2;
        }
    }

    state parse_msg2 {
        message2.apply(pkt, hdr.msg2);
        meta.remaining = meta.remaining - hdr.msg2.hdr.msgSize;
        transition select(meta.remaining) {
            0: accept;
            default: parse_msg3;
        }
    }

    state parse_msg3 {
        message3.apply(pkt, hdr.msg3);
        transition accept;
    }
}

control MdpVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

/* Entries carried by one message (0 unless it is a refreshBook). */
bit<32> book_entries_in(in message_t m) {
    if (m.book.isValid()) {
        return (bit<32>)m.book.numEntries;
    }
    return 0;
}

/* The first entry's price of a non-empty refreshBook replaces `px`. */
void take_first_price(in message_t m, inout bit<64> px) {
    if (m.book.isValid() && m.book.numEntries != 0) {
        px = m.entries[0].mdEntryPx;
    }
}

control MdpIngress(inout headers_t hdr,
                   inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) {
    register<bit<32>>(NUM_CHANNELS) highest_seq;
    register<bit<32>>(NUM_CHANNELS) book_entries;
    register<bit<64>>(NUM_CHANNELS) last_px;
    counter(NUM_CHANNELS, CounterType.packets) duplicates;

    action drop() {
        mark_to_drop(standard_metadata);
    }

    action set_channel(bit<8> id, bit<9> port) {
        meta.channel = id;
        standard_metadata.egress_spec = port;
    }

    table channel {
        key = {
            hdr.ipv4.dst_addr: exact;
            hdr.udp.dst_port:  exact;
        }
        actions = { set_channel; drop; }
        default_action = drop();
        size = NUM_CHANNELS;
    }

    apply {
        if (standard_metadata.parser_error != error.NoError || !hdr.mdp.isValid()) {
            drop();
            return;
        }
        if (channel.apply().miss) {
            return;    // not subscribed: the default action dropped it
        }
        bit<32> index = (bit<32>)meta.channel;

        bit<32> highest;
        highest_seq.read(highest, index);
        if (hdr.mdp.msgSeqNum <= highest) {
            duplicates.count(index);
            drop();
            return;
        }
        highest_seq.write(index, hdr.mdp.msgSeqNum);

        bit<32> entries;
        book_entries.read(entries, index);
        entries = entries + book_entries_in(hdr.msg0) + book_entries_in(hdr.msg1)
                          + book_entries_in(hdr.msg2) + book_entries_in(hdr.msg3);
        book_entries.write(index, entries);

        bit<64> px;
        last_px.read(px, index);
        take_first_price(hdr.msg0, px);
        take_first_price(hdr.msg1, px);
        take_first_price(hdr.msg2, px);
        take_first_price(hdr.msg3, px);
        last_px.write(index, px);
    }
}

control MdpEgress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    apply { }
}

/* Nothing is rewritten, so no checksum changes. */
control MdpComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control MdpDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
        pkt.emit(hdr.mdp);
        pkt.emit(hdr.msg0);
        pkt.emit(hdr.msg1);
        pkt.emit(hdr.msg2);
        pkt.emit(hdr.msg3);
    }
}

V1Switch(MdpParser(),
         MdpVerifyChecksum(),
         MdpIngress(),
         MdpEgress(),
         MdpComputeChecksum(),
         MdpDeparser()) main;
