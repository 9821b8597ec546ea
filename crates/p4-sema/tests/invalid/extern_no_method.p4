#include <core.p4>
extern E {
E();
void m();
} control C() {
E() e;
apply {
e.n();
} }
