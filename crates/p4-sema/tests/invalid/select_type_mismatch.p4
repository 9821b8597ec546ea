#include <core.p4>
header H {
bit<8> a;
} parser P(in H h) {
state start {
transition select(h.a) {
true: accept;
default: reject;
} } }
