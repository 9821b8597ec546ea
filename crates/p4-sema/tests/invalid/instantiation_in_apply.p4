// A control cannot be instantiated in an apply block (p4c: "instances cannot be in a control
// 'apply' block"); the instance belongs among the control's local declarations.
#include <core.p4>

header h_t { bit<8> a; }
control Inc(inout h_t h) { apply { h.a = h.a + 1; } }
control Twice(inout h_t h) {
    apply {
        Inc() first;
        first.apply(h);
    }
}
control ControlT(inout h_t h);
package Pkg(ControlT c);
Pkg(Twice()) main;
