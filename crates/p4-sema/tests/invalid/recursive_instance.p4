#include <core.p4>
control c(inout bit<8> x) { c() inner; apply { inner.apply(x); } }
