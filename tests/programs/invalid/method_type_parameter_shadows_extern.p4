// error: type parameter `T` of method `put` shadows the type parameter `T` of extern `Box`
// A generic method of a generic extern reuses the extern's type parameter name.
#include <core.p4>
extern Box<T> {
    Box();
    void put<T>(in T value);
}
control C(inout bit<8> x) { Box<bit<8>>() b; apply { b.put(x); } }
control Proto(inout bit<8> x);
package Top(Proto c);
Top(C()) main;
