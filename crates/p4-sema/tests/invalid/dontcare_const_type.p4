#include <core.p4>
const _ k = 8w1;
