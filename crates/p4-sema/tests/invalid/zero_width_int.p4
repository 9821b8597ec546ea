#include <core.p4>
header H {
int<0> a;
}
