#include <core.p4>
extern Thing { Thing(); } const Thing t = Thing();
