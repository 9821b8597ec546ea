#include <core.p4>
// A constant list passed to an extern stays a list of constants in the IR.
extern void digest_fields<T>(in T data);
control C(inout bit<8> x);
package P(C c);
control Use(inout bit<8> x) {
    apply {
        digest_fields({ 16w1, 8w2 });
        digest_fields({ x, 8w2 });
    }
}
P(Use()) main;
