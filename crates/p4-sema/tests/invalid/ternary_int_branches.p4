#include <core.p4>
control c(in bit<9> port, out bit<1> r) { apply { bit<1> is_internal = (port == 1) ? 1 : 0; r = is_internal; } }
