#include <core.p4>
header h_t { bit<8> f; } control c(inout h_t h) { apply { h_t h = h; } }
