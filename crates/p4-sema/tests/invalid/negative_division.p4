#include <core.p4>
control c(out bit<8> a) { apply { a = -8 / -2; } }
