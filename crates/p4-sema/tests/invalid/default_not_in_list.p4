#include <core.p4>
control C(in bit<8> x) {
action a() {} action b() {} table t {
key = {
x: exact;
} actions = {
a;
} default_action = b();
} apply {
t.apply();
} }
