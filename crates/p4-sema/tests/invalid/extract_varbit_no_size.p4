#include <core.p4>
header h_t { bit<8> f; varbit<8> g; } parser p(packet_in pkt, out h_t h) { state start { pkt.extract(h); transition accept; } }
