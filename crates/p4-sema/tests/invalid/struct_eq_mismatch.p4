#include <core.p4>
struct S {
bit<8> a;
} struct T {
bit<8> a;
} control C(in S s, in T t, out bool b) {
apply {
b = s == t;
} }
