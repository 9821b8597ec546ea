// A signed literal whose digits exceed the positive range denotes the two's complement value:
// the P4_16 spec's own example says 8s0b1010_1010 is -86 (section "Integer literals").
#include <core.p4>

const int<8> WRAPPED = 8s0b1010_1010;
const bool IS_MINUS_86 = static_assert(WRAPPED == -86, "8s0b1010_1010 must be -86");
