#include <core.p4>
control c(in bit<8> k) {
    action a() { }
    action b() { }
    table t { key = { k: exact; } actions = { a; @defaultonly b; } const entries = { 1: b(); } }
    apply { t.apply(); }
}
