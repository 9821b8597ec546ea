#include <core.p4>
control C(inout bit<8> x, in bit<16> y) {
apply {
x = (bit<8>) (int<16>) y;
bool b = (bool) x;
} }
