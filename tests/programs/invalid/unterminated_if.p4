// error: unterminated conditional
// A conditional that is never closed.
#include <v1model.p4>

#if 1
const bit<8> X = 1;
