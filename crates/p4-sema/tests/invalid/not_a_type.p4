#include <core.p4>
const bit<8> K = 1;
struct S {
K f;
}
