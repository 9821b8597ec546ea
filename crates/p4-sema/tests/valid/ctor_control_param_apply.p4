#include <core.p4>
// A control received as a constructor parameter is applied like a local instance; two users
// may share one instance.
control Step(inout bit<16> x);
control AddOne(inout bit<16> x) { apply { x = x + 1; } }
control Twice(inout bit<16> x)(Step s) {
    apply {
        s.apply(x);
        s.apply(x);
    }
}
control Top(inout bit<16> x) {
    AddOne() one;
    Twice(one) t1;
    Twice(AddOne()) t2;
    apply {
        t1.apply(x);
        t2.apply(x);
    }
}
package P(Step s);
P(Top()) main;
