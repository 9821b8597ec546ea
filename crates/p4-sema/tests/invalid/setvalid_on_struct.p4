#include <core.p4>
struct S {
bit<8> a;
} control C(inout S s) {
apply {
s.setValid();
} }
