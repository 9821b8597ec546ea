// error: duplicate method `put` with 1 parameter(s) in extern `Box`
// Two methods with the same name and number of parameters are ambiguous (p4c refuses them), even
// with different parameter names; only constructors may be overloaded by names.
#include <core.p4>
extern Box {
    Box();
    void put(in bit<8> small);
    void put(in bit<16> wide);
}
control C(inout bit<8> x) { Box() b; apply { b.put(small = x); } }
control Proto(inout bit<8> x);
package Top(Proto c);
Top(C()) main;
