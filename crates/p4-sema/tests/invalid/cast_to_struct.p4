#include <core.p4>
struct s_t { bit<8> f; } control c(inout s_t a) { apply { a = (s_t) a; } }
