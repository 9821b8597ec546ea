#include <core.p4>
struct s_t { bit<8> f; } action a(s_t data) { }
