// An extern call under an `if` in an action is legal P4; only bmv2 (v1model) cannot predicate it,
// so p4forge refuses it only in v1model programs. Here the architecture is declared in the program.
#include <core.p4>
extern Counter1 { Counter1(); void bump(); }
control Pipe<H>(inout H h);
package Top<H>(Pipe<H> p);
header h_t { bit<8> a; }
struct hdrs_t { h_t h; }
control MyPipe(inout hdrs_t hdr) {
    Counter1() c;
    action maybe_count() {
        if (hdr.h.a > 10) {
            c.bump();
        }
    }
    apply { maybe_count(); }
}
Top(MyPipe()) main;
