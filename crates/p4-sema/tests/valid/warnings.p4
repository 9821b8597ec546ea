#include <core.p4>
// Valid, with warnings: shadowing, possibly uninitialized reads, truncated constants.
control c(inout bit<8> x) {
    bit<8> y;
    apply {
        bit<8> fresh;
        x = fresh;
        bit<8> x2 = 300;
        bit<8> y = x2;
        x = y;
    }
}
control proto(inout bit<8> x);
package top(proto p);
top(c()) main;
