#include <core.p4>
extern Hooked {
    Hooked();
    abstract bit<16> hook(in bit<16> ix);
}
control c() { Hooked() h; apply { } }
