// Preprocessor use seen in real programs: include guards of the include files (v1model.p4
// pulls in core.p4 itself), object- and function-like macros, conditionals on macros and on
// V1MODEL_VERSION, #undef, and a macro continued over two lines.
#include <v1model.p4>
#include <core.p4>

#define TABLE_SIZE 1024
#define PORT_OF(x) ((bit<9>)(x) + 9w1)
#define SET_BOTH(a, b, v) a = v; \
                          b = v
#ifndef ENABLE_DEBUG
#define DEBUG_VALUE 0
#else
#define DEBUG_VALUE 1
#endif

#if V1MODEL_VERSION >= 20180101
typedef bit<9> egress_port_t;
#else
#error "v1model too old"
#endif

#define TEMPORARY 5
#undef TEMPORARY
#ifdef TEMPORARY
#error "TEMPORARY should be undefined"
#endif

header h_t {
    bit<8> a;
    bit<8> b;
}
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    table t {
        key = { hdr.h.a: exact; }
        actions = { NoAction; }
        size = TABLE_SIZE;
        default_action = NoAction();
    }
    apply {
        t.apply();
        SET_BOTH(hdr.h.a, hdr.h.b, DEBUG_VALUE);
        egress_port_t port = PORT_OF(hdr.h.b);
        sm.egress_spec = port;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
