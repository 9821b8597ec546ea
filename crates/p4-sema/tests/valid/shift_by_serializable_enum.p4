// A serializable enum converts implicitly to its underlying type, a shift amount included.
#include <core.p4>

enum bit<8> Amount { ONE = 1, FOUR = 4 }
const bit<16> SHIFTED = 16w3 << Amount.FOUR;
const bool ok = static_assert(SHIFTED == 48 && (8w0x80 >> Amount.ONE) == 0x40);
