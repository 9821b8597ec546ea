#include <core.p4>
parser p(packet_in pkt, out bit<32> h) { state start { pkt.extract(h); transition accept; } }
