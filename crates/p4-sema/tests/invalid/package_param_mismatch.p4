#include <core.p4>
control C<H>(inout H h, in bit<8> extra);
package P<H>(C<H> c);
struct hdr_t { bit<8> f; }
control MyC(inout hdr_t h) { apply { } }
P(MyC()) main;
