#include <core.p4>
@tag[k = 1, k = 2]
const bit<8> a = 1;
