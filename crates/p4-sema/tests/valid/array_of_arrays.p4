#include <core.p4>
// Arrays may have arrays as elements (p4c accepts them in headers and locals).
header grid_t {
    bit<8>[2][3] cells;
    bit<1> r;
    bit<2> c;
    bit<5> pad;
}
control C(inout grid_t g);
package P(C c);
control Use(inout grid_t g) {
    apply {
        bit<4>[2][2] local;
        local[0][1] = 4w3;
        g.cells[g.r][g.c] = g.cells[1][0] + (bit<8>)local[0][1];
    }
}
P(Use()) main;
