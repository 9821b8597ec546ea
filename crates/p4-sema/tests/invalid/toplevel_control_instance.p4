#include <core.p4>
control C() { apply { } }
C() c;
