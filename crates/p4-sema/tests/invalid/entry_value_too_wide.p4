#include <core.p4>
control c(in bit<8> k) { action a() { } table t { key = { k: exact; } actions = { a; } const entries = { 0x100: a(); } } apply { t.apply(); } }
