#include <core.p4>
control inner(inout bit<8> x)(bit<8> k) { apply { x = k; } } control outer(inout bit<8> x) { apply { inner.apply(x); } }
