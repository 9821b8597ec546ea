#include <core.p4>
// In `a[f(x)] op= e` the index is evaluated once (f has a side effect).
header w_t { bit<8> v; }
struct hs_t { w_t[4] w; bit<8> n; }
bit<8> next_slot(inout bit<8> n) {
    bit<8> cur = n;
    n = n + 1;
    return cur;
}
control C(inout hs_t h);
package P(C c);
control Use(inout hs_t h) {
    apply {
        h.w[next_slot(h.n) & 3].v |= 8w0x10;
        h.w[h.n & 3].v += 1;
    }
}
P(Use()) main;
