#include <core.p4>
// An extern function may return an extern object, which can be passed as a constructor argument.
extern gadget<T> { }
extern gadget<T> make_gadget<T, S>(S seed, T sample);
parser Q();
parser uses_gadget()(gadget<bit<4>> g) {
    state start { transition accept; }
}
package top(Q q);
top(uses_gadget(make_gadget(8w1, 4w0))) main;
