#include <core.p4>
extern void f(out bit<32> x = 0);
