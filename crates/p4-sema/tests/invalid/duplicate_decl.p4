#include <core.p4>
const bit<8> A = 1;
const bit<8> A = 2;
