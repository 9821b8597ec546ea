#include <core.p4>
header h_t { bit<8> f; } control c(inout h_t[2] s, out bit<32> i) { apply { i = s.lastIndex; } }
