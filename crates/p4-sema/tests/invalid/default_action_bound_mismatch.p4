#include <core.p4>
control c(inout bit<32> x) {
    bit<32> other;
    action a(inout bit<32> b, bit<32> d) { b = d; }
    table t {
        actions = { a(x); }
        default_action = a(other, 0);
    }
    apply { t.apply(); }
}
