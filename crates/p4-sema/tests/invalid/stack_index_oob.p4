#include <core.p4>
header H {
bit<8> a;
} control C(inout H[2] s) {
apply {
s[2].a = 1;
} }
