#include <core.p4>
const bit<8> K = 1;
control C() {
apply {
K = 2;
} }
