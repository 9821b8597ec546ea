#include <core.p4>
control sub() { apply { } }
control c() { sub() s; action a() { s.apply(); } apply { a(); } }
