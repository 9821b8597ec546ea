#include <core.p4>
enum bit<8> E { A = 1 }
control c(in int<8> x, out E e) { apply { e = (E) x; } }
