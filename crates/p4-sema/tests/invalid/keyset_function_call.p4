#include <core.p4>
header h_t { bit<8> v; }
bit<8> seven() { return 7; }
parser p(packet_in b, out h_t h) {
    state start {
        b.extract(h);
        transition select(h.v) {
            seven(): accept;
            default: reject;
        }
    }
}
