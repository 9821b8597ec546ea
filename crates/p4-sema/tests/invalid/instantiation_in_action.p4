#include <core.p4>
control inner() { apply { } } control outer() { action a() { inner() i; i.apply(); } apply { a(); } }
