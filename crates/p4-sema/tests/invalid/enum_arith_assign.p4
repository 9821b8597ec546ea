#include <core.p4>
enum bit<8> E { A = 1, B = 2 } control c(inout E e) { apply { e = E.A + 1; } }
