#include <core.p4>
control C(inout bit<8> x) {
apply {
x = y;
} }
