#include <core.p4>
control C(inout bit<8> x) {
apply {
x[3:0] = x[8:5];
} }
