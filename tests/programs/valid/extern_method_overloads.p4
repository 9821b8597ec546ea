// Extern methods and extern functions overloaded with the same number of parameters, told apart
// by the names of the call's arguments (spec, "Extern objects": argument names, never types).
#include <core.p4>
extern Box {
    Box();
    void put();
    void put(in bit<8> small);
    void put(in bit<16> wide);
    void put(in bit<8> small, in bit<16> wide);
}
extern void note(in bit<8> small);
extern void note(in bit<16> wide);
control C(inout bit<8> x) {
    Box() b;
    apply {
        b.put();
        b.put(small = x);
        b.put(wide = 16w7);
        b.put(wide = 16w7, small = x);
        note(small = x);
        note(wide = (bit<16>)x);
    }
}
control Proto(inout bit<8> x);
package Top(Proto c);
Top(C()) main;
