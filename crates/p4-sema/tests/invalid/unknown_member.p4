#include <core.p4>
header H {
bit<8> a;
} control C(inout H h) {
apply {
h.b = 1;
} }
