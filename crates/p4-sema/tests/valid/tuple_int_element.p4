#include <core.p4>
typedef tuple<int, bit<8>> pair_t;
