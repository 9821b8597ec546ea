#include <core.p4>
struct S { bit<8> a; bit<8> b; } control c(out S s) { apply { s = { a = 1 }; } }
