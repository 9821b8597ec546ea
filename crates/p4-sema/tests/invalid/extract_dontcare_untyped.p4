#include <core.p4>
parser p(packet_in pkt) { state start { pkt.extract(_); transition accept; } }
