#include <core.p4>
// Older p4c accepted an `in` block parameter where the package's block type says `inout`.
control C<H>(inout H h);
package P<H>(C<H> c);
struct hdr_t { bit<8> f; }
control MyC(in hdr_t h) { apply { } }
P(MyC()) main;
