// error: duplicate table property `key`
// Two `key` properties (and no `actions`): the duplicate is the first error, not the missing actions.
#include <core.p4>
control C(in bit<8> k) {
    table t {
        key = { }
        key = { k : exact; }
    }
    apply { t.apply(); }
}
control Proto(in bit<8> k);
package Top(Proto c);
Top(C()) main;
