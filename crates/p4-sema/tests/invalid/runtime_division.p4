#include <core.p4>
// The specification defines no `/` or `%` on bit<W>; like the reference compiler, p4forge computes
// them at compile time or, for a constant power-of-two divisor, as a shift and a mask.
control c(inout bit<8> x, in bit<8> y) { apply { x = x / 4; x = x % y; } }
