#include <core.p4>
control c(in bit<8> k) { action a() { } table t { default_action = a(); key = { k: exact; } actions = { a; } } apply { t.apply(); } }
