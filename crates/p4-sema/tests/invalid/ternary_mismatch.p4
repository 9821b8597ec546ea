#include <core.p4>
control C(inout bit<8> x, in bit<16> y, in bool c) {
apply {
x = c ? x : y;
} }
