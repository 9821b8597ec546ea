#include <core.p4>
control c(in bit<8> k) { action a() { } table t { key = { k: lpm; } actions = { a; } const entries = { 0x11 &&& 0xE1: a(); } } apply { t.apply(); } }
