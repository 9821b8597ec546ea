#include <core.p4>
const bit<8> k = 8w256;
