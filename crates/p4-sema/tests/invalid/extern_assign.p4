#include <core.p4>
extern Thing { Thing(); } control c() { Thing() t1; Thing() t2; apply { t1 = t2; } }
