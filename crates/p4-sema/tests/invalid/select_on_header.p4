#include <core.p4>
header h_t { bit<8> f; } parser p(in h_t h) { state start { transition select(h) { default: accept; } } }
