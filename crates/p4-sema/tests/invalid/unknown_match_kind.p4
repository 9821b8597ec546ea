#include <core.p4>
control C(in bit<8> x) {
action a() {} table t {
key = {
x: fuzzy;
} actions = {
a;
} } apply {
t.apply();
} }
