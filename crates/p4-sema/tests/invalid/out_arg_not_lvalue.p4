#include <core.p4>
extern void f(out bit<8> x);
control C() {
apply {
f(8w1);
} }
