#include <core.p4>
control C();
package P(C c);
control inner()(P p) { apply { } }
