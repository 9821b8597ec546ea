#include <core.p4>
// Extern instances declared in an action body or created inside an expression are hoisted into
// the enclosing control.
extern Cell<T> {
    Cell();
    T read();
    void write(in T v);
}
extern Mixer<O> {
    Mixer(bit<16> seed);
    O mix<D>(in D data);
}
control C(inout bit<16> x);
package P(C c);
control Use(inout bit<16> x) {
    action bump() {
        Cell<bit<16>>() cell;
        cell.write(cell.read() + 1);
    }
    apply {
        bump();
        x = Mixer<bit<16>>(16w7).mix(x);
    }
}
P(Use()) main;
