#include <core.p4>
// Direct invocation, generic constructor inference, default package arguments, externs without
// declared constructors, optional parameters.
extern Counter<T> {
    Counter(T start);
    T next();
}
extern Plain { bit<32> get(in bit<32> x); }
extern void note<T, U>(in T first, @optional in U second);

control Inc(inout bit<8> x) { apply { x = x + 1; } }
control Gen<T>(out T v)(T seed) {
    Counter<T>(seed) c;
    apply { v = c.next(); }
}
control Top(inout bit<8> x, out bit<16> y) {
    Gen(16w7) g;
    Plain() p;
    apply {
        Inc.apply(x);
        Inc.apply(x);
        g.apply(y);
        y = y + (bit<16>) p.get(4)[15:0];
        note(x);
        note(x, y);
    }
}
control Pipe(inout bit<8> x, out bit<16> y);
package Sw(Pipe p = Top());
Sw() main;
