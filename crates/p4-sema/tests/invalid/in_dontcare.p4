#include <core.p4>
extern void f(in bit<8> x);
control C() {
apply {
f(_);
} }
