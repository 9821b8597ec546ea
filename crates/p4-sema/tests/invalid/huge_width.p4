#include <core.p4>
header h_t { bit<4000000> f; }
