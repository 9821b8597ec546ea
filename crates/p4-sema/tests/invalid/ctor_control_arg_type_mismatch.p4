#include <core.p4>
// A control passed as a constructor argument must match the parameter's control type.
control Step(inout bit<16> x);
control Twice(inout bit<16> x)(Step s) {
    apply { s.apply(x); s.apply(x); }
}
control Wrong(inout bit<8> y) { apply { } }
control Top(inout bit<16> x) {
    Wrong() w;
    Twice(w) t;
    apply { t.apply(x); }
}
package P(Step s);
P(Top()) main;
