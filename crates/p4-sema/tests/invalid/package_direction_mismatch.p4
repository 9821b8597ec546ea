#include <core.p4>
control C<H>(inout H h);
package P<H>(C<H> c);
struct hdr_t { bit<8> f; }
control MyC(out hdr_t h) { apply { } }
P(MyC()) main;
