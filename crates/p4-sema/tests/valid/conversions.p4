#include <core.p4>
enum bit<8> Kind { A = 1, B = 2 }
header h_t { bit<8> a; bool b; bit<16> c; }
struct pair_t { bit<32> f; bool s; }
struct wrap_t { h_t h; pair_t p; bit<8> z; }
control c(inout wrap_t w, out bit<8> r) {
    apply {
        tuple<bit<32>, bool> t = { 10, false };
        w.p = { 10, false };
        w = { h = { 1, true, ... }, ... };
        w.h = { c = 3, ... };
        r = Kind.A + 1;
        r = Kind.A | Kind.B;
        bit<8> k = Kind.B;
        if (Kind.A == 1 && k > Kind.A) { r = 0; }
        if (w.p == { 10, false }) { r = 1; }
    }
}
parser p(out bit<8> v) {
    state start {
        bit<8> x = 5;
        pair_t s = { 0, true };
        transition select(x, {x, x}) {
            (0, {0, 0}): accept;
            (1, default): accept;
            (2, {(bit<8>) s.f, x}): accept;
            default: reject;
        }
    }
}
control pc(inout wrap_t w, out bit<8> r);
parser pp(out bit<8> v);
package top(pp a, pc b);
top(p(), c()) main;
