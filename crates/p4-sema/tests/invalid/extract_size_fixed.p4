#include <core.p4>
header h_t { bit<8> f; } parser p(packet_in pkt, out h_t h) { state start { pkt.extract(h, 32); transition accept; } }
