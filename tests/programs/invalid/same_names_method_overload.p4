// error: duplicate method `put` with 1 parameter(s) and the same parameter names
// Two methods with one name, one number of parameters and the same parameter names cannot be
// told apart by any call.
#include <core.p4>
extern Box {
    Box();
    void put(in bit<8> v);
    void put(in bit<16> v);
}
control C(inout bit<8> x) { Box() b; apply { b.put(v = x); } }
control Proto(inout bit<8> x);
package Top(Proto c);
Top(C()) main;
