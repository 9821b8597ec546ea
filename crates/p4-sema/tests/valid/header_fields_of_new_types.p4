// Header fields may be of a `type` over bit<W> or bool, directly or through other `type`s and
// typedefs (spec: a `type` introduces a new type with the same representation).
#include <core.p4>

typedef bit<32> addr_bits_t;
type addr_bits_t addr_t;
type addr_t outer_addr_t;
type bool flag_t;
type flag_t outer_flag_t;
header ip_t { outer_addr_t src; addr_t dst; outer_flag_t f; bit<7> pad; }
struct flat_t { outer_addr_t a; }
header wrap_t { flat_t inner; }

const bool ok = static_assert(ip_t.minSizeInBits() == 72 && wrap_t.minSizeInBits() == 32);
