#include <core.p4>
control C(in bit<8> x, in bit<8> y) {
action a() {} table t {
key = {
x: lpm;
y: lpm;
} actions = {
a;
} } apply {
t.apply();
} }
