#include <core.p4>
typedef bit<32> word_t;
header data_h { bit<32> da; bit<16> db; }
struct one_t { bit<32> field; }
struct two_t { bit<32> a; bit<16> b; }
parser p(packet_in pkt, out data_h d) {
    value_set<one_t>(4) single;
    value_set<two_t>(4) pair;
    value_set<bit<16>>(2) plain;
    state start {
        pkt.extract(d);
        transition select(d.da) { single: next; 0x810: next; default: accept; }
    }
    state next {
        transition select(d.da, d.db) { pair: accept; (_, plain): accept; default: reject; }
    }
}
control c(out bit<32> v) {
    apply {
        bit<32> b = 0;
        v = b.minSizeInBits() + word_t.maxSizeInBits() + (bit<32>) data_h.minSizeInBytes();
    }
}
const int w = word_t.maxSizeInBits();
