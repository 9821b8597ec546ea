#include <core.p4>
control inner() { apply { } }
void f(string s) { }
