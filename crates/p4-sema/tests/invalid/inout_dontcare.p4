#include <core.p4>
extern void f(inout bit<8> x);
control C() {
apply {
f(_);
} }
