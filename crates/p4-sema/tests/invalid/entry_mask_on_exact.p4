#include <core.p4>
control c(in bit<8> k) { action a() { } table t { key = { k: exact; } actions = { a; } const entries = { 1 &&& 3: a(); } } apply { t.apply(); } }
