#include <core.p4>
control C(in bool a, in bool b, out bool c) {
apply {
c = a < b;
} }
