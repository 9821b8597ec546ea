#include <core.p4>
control C() {
apply {
int x = 1;
} }
