#include <core.p4>
control C(inout bit<16> x) {
apply {
x = 8w1 ++ 1;
} }
