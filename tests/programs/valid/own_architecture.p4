// A program that declares its own architecture with only core.p4 included:
// a two-stage switch with a parser, one pipeline and a deparser.
#include <core.p4>

struct tiny_meta_t {
    bit<16> port_in;
    bit<16> port_out;
    bool    drop;
}

parser TinyParser<H>(packet_in pkt, out H hdr, inout tiny_meta_t meta);
control TinyPipe<H>(inout H hdr, inout tiny_meta_t meta);
control TinyDeparser<H>(packet_out pkt, in H hdr);
package TinySwitch<H>(TinyParser<H> p, TinyPipe<H> pipe, TinyDeparser<H> d);

header eth_t {
    bit<48> dst;
    bit<48> src;
    bit<16> type;
}
struct hdrs_t {
    eth_t eth;
}

parser MyParser(packet_in pkt, out hdrs_t hdr, inout tiny_meta_t meta) {
    state start {
        pkt.extract(hdr.eth);
        transition accept;
    }
}

control MyPipe(inout hdrs_t hdr, inout tiny_meta_t meta) {
    action to(bit<16> port) {
        meta.port_out = port;
    }
    table fwd {
        key = { hdr.eth.dst: exact; }
        actions = { to; NoAction; }
        default_action = NoAction();
    }
    apply {
        meta.drop = !fwd.apply().hit;
    }
}

control MyDeparser(packet_out pkt, in hdrs_t hdr) {
    apply {
        pkt.emit(hdr);
    }
}

TinySwitch(MyParser(), MyPipe(), MyDeparser()) main;
