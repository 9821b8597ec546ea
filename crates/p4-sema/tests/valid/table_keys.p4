#include <core.p4>
header h_t { bit<8> a; bit<8> b; }
control c(inout h_t h, inout h_t[2] hs) {
    action act() { }
    table t {
        key = {
            h.a: exact;
            h.b & 0x0F: ternary;
            hs[1].a[3:0]: exact;
            h.isValid(): exact;
            h.a + h.b: exact @name("sum");
        }
        actions = { act; }
    }
    apply { t.apply(); }
}
