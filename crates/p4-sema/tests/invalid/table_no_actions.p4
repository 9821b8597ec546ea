#include <core.p4>
control C(in bit<8> x) {
table t {
key = {
x: exact;
} } apply {
t.apply();
} }
