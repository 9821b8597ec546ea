#include <core.p4>
extern Hooked {
    Hooked();
    abstract bit<16> hook(in bit<16> ix);
}
control c() {
    Hooked() h = {
        bit<16> hook(in bit<16> ix) { return ix == 1; }
        bit<16> other(in bit<16> ix) { return ix; }
    };
    apply { }
}
