#include <core.p4>
// Entries for a serializable-enum key may use values of the enum's underlying type.
enum bit<16> Kind { A = 0x0a00, B = 0xab00 }
header h_t { Kind k; bit<8> out; }
control C(inout h_t h);
package P(C c);
control Use(inout h_t h) {
    action set(bit<8> v) { h.out = v; }
    table t {
        key = { h.k : ternary; }
        actions = { set; }
        const entries = {
            Kind.A : set(1);
            ((bit<16>)Kind.B) &&& 0xff00 : set(2);
            0x0c00 &&& 0xff00 : set(3);
        }
    }
    apply { t.apply(); }
}
P(Use()) main;
