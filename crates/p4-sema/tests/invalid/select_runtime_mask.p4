#include <core.p4>
parser p(in bit<8> k) { bit<8> x; state start { transition select(k) { x &&& x: accept; default: reject; } } }
