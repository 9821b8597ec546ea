// A package instantiated at the top level and passed to `main` by name (with an @optional
// parameter left out), in an architecture declared here.
#include <core.p4>
parser Prs<H>(packet_in pkt, out H h);
control Ctl<H>(inout H h);
package Pipe<H>(Prs<H> p, Ctl<H> c);
package Top<H0, H1>(Pipe<H0> first, @optional Pipe<H1> second);
header h_t { bit<8> a; }
struct headers_t { h_t h; }
parser MyP(packet_in pkt, out headers_t h) { state start { pkt.extract(h.h); transition accept; } }
control MyC(inout headers_t h) { apply { h.h.a = h.h.a + 1; } }
Pipe(MyP(), MyC()) pipe0;
Top<headers_t, _>(pipe0) main;
