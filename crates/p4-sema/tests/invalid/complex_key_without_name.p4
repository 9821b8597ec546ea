#include <core.p4>
control c(in bit<8> a, in bit<8> b) {
    action act() { }
    table t { key = { a + b: exact; } actions = { act; } }
    apply { t.apply(); }
}
