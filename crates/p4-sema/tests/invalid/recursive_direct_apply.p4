#include <core.p4>
control c(inout bit<8> x) { apply { if (x > 0) { x = x - 1; c.apply(x); } } }
control proto(inout bit<8> x);
package top(proto p);
top(c()) main;
