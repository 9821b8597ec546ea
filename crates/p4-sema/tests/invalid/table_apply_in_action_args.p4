#include <core.p4>
control c(inout bit<8> x) { action a(in bool b) { } table t { actions = { } } apply { a(t.apply().hit); } }
