#include <core.p4>
// Programs without `main` are valid.
extern Box<T> {
    Box(T init);
    T get();
    void put(in T v);
}
extern void sink<T>(in T v);
extern bool probe<T, U>(in T a, out U b);
control Inner<H>(inout H h) { apply { sink(h); } }
parser Sub(packet_in pkt, out bit<8> v) { state start { v = pkt.lookahead<bit<8>>(); transition accept; } }
parser Top(packet_in pkt, out bit<8> v) {
    Sub() sub;
    value_set<bit<8>>(4) vs;
    state start {
        sub.apply(pkt, v);
        transition select(v, pkt.lookahead<bit<8>>()) {
            (1, _): one;
            (2 &&& 0xF, 3 .. 4): accept;
            (vs, default): accept;
            default: reject;
        }
    }
    state one {
        verify(v == 1, error.NoMatch);
        pkt.advance(8);
        transition accept;
    }
}
control Outer(inout bit<8> x) {
    Box<bit<8>>(8w3) b;
    Inner<bit<8>>() inner;
    apply {
        bit<16> y;
        bool ok = probe(x, y);
        b.put(b.get() + x);
        inner.apply(x);
        sink<bit<8>>(1);
        sink({x, x});
    }
}
