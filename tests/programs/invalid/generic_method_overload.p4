// error: duplicate method `add` with 1 parameter(s) where one is generic in extern `Sum`
// A generic method shares its name and number of parameters with no other method, even one whose
// parameter has another name.
#include <core.p4>
extern Sum {
    Sum();
    void add<D>(in D data);
    void add(in bit<8> byte);
}
control C(inout bit<8> x) { Sum() s; apply { s.add(byte = x); } }
control Proto(inout bit<8> x);
package Top(Proto c);
Top(C()) main;
