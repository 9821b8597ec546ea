#include <core.p4>
control c(in bit<8> k) { bit<8> v; action a() { } table t { key = { k: exact; } actions = { a; } const entries = { v: a(); } } apply { t.apply(); } }
