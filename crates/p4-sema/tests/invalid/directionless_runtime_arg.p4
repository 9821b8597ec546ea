#include <core.p4>
control c(inout bit<16> y) { bit<16> v; action a(bit<16> arg) { y = arg; } apply { a(5); a(v); } }
