#include <core.p4>
// Generic parsers/controls are checked with opaque type parameters, then again once elaborated.
header h_t { bit<8> x; bit<8> y; }
struct hs_t { h_t h; }
parser GP<H>(packet_in pkt, out H hdr) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control GC<H>(inout H hdr) {
    apply {
        hdr.h.x = hdr.h.y + 1;
        hdr.h.setValid();
        if (hdr.h.isValid()) { hdr.h.y = 0; }
    }
}
parser Prs<H>(packet_in pkt, out H hdr);
control Ctl<H>(inout H hdr);
package Top<H>(Prs<H> p, Ctl<H> c);
Top(GP<hs_t>(), GC<hs_t>()) main;
