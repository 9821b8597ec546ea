#include <core.p4>
control C(in bit<8> x) {
apply {
x = 1;
} }
