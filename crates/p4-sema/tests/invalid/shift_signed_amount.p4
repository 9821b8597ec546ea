#include <core.p4>
control C(inout bit<8> x, in int<8> y) {
apply {
x = x << y;
} }
