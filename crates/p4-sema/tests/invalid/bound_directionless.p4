#include <core.p4>
control C(in bit<8> x) {
action a(bit<8> v) {} table t {
key = {
x: exact;
} actions = {
a(1);
} } apply {
t.apply();
} }
