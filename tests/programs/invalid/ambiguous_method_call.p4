// error: call of `put` is ambiguous: 2 overloads take 1 argument(s)
// Overloads with the same number of parameters are told apart only by argument names; a call
// with positional arguments cannot pick one (argument types are not used).
#include <core.p4>
extern Box {
    Box();
    void put(in bit<8> small);
    void put(in bit<16> wide);
}
control C(inout bit<8> x) { Box() b; apply { b.put(x); } }
control Proto(inout bit<8> x);
package Top(Proto c);
Top(C()) main;
