#include <core.p4>
const bit<8> K = 8w1 / 8w0;
