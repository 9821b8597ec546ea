// An unstructured annotation's body is free-form tokens: characters that are no P4 token (an
// apostrophe, `$`, `#`) are fine there and nowhere else.
#include <core.p4>

@note(it's free-form: $100 # not a comment, "a string" 0x2a)
header h_t { bit<8> a; }

@pragma doesn't matter
control C(inout h_t h) { apply { h.a = h.a + 1; } }

control CT(inout h_t h);
package Pkg(CT c);
Pkg(C()) main;
