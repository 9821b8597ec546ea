// A parser instantiated in a parser state is an instance of the enclosing parser, as if declared
// among its locals (the grammar allows instantiations among a block statement's declarations).
#include <core.p4>

header h_t { bit<8> a; }
parser Sub(packet_in pkt, out h_t h) { state start { pkt.extract(h); transition accept; } }
parser Top(packet_in pkt, out h_t h) {
    state start {
        Sub() sub;
        sub.apply(pkt, h);
        transition accept;
    }
}
control Inc(inout h_t h) { apply { h.a = h.a + 1; } }
control Twice(inout h_t h) {
    Inc() first;
    Inc() second;
    apply {
        first.apply(h);
        second.apply(h);
    }
}
parser ParserT(packet_in pkt, out h_t h);
control ControlT(inout h_t h);
package Pkg(ParserT p, ControlT c);
Pkg(Top(), Twice()) main;
