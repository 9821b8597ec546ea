#include <core.p4>
control C() {
value_set<bit<8>>(4) vs;
apply {} }
