#include <core.p4>
control C() {
action a(in bit<8> v) {} apply {
a();
} }
