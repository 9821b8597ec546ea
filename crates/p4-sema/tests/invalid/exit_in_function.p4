#include <core.p4>
void f() {
exit;
}
