#include <core.p4>
// Abstract methods implemented by an instance: checked, but p4forge does not elaborate them
// (an `unsupported:` warning, and no IR).
extern Hooked {
    Hooked();
    void run(in bit<16> ix);
    abstract bit<16> hook(in bit<16> ix);
}
control c(inout bit<16> p) {
    Hooked() h = {
        bit<16> hook(in bit<16> ix) {
            return ix + 1;
        }
    };
    apply { h.run(p); }
}
control ctr(inout bit<16> x);
package top(ctr ctrl);
top(c()) main;
