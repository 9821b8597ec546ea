#include <core.p4>
control C(inout bit<8> x);
package top(C c);
control MyC(inout bit<8> x) {
    bit<8> bias = 3;
    bit<8> shifted(in bit<8> v) { return (v << 1) + bias; }
    apply { x = shifted(x); }
}
top(MyC()) main;
