// error: integer constant too large
// An `int` constant shifted left by hundreds of millions of bits: refused (before computing it).
#include <core.p4>
control C(inout bit<16> x) { apply { x = 1985 << 903012108; } }
control Proto(inout bit<16> x);
package Top(Proto c);
Top(C()) main;
