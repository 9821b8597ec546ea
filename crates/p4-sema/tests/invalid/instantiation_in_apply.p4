#include <core.p4>
control inner() { apply { } } control outer() { apply { inner() i; i.apply(); } }
