#include <core.p4>
const bool B = static_assert(1 == 2, "bad");
