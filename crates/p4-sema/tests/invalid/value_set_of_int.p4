#include <core.p4>
parser p(in bit<8> k) { value_set<int>(4) vs; state start { transition select(k) { vs: accept; default: reject; } } }
