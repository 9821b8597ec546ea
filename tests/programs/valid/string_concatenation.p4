// Strings concatenate with `++` at compile time: in constants, arguments and structured
// annotations (spec, "Operations on strings").
#include <core.p4>
#include <v1model.p4>

const string GREETING = "hello, " ++ "world";

header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control V(inout headers_t hdr, inout meta_t meta) { apply { } }

@Doc["ingress: " ++ "logs" ++ " twice", 2] @Owner[team = "net" ++ "ops"]
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        log_msg(GREETING);
        log_msg(GREETING ++ " (a = {})", {hdr.h.a});
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
