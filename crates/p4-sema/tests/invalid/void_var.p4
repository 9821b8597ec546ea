#include <core.p4>
control C() {
apply {
void v;
} }
