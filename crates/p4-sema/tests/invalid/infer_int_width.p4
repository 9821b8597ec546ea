#include <core.p4>
extern void pick<T>(out T r, in T lo); control c() { apply { pick(_, 0); } }
