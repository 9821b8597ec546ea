#include <core.p4>
control c(inout bit<8> x, in bit<8> y) { apply { x = x / 4; x = x % y; } }
