#include <core.p4>
extern void f(@optional in bit<32> y = 0);
