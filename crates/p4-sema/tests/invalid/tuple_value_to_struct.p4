#include <core.p4>
// A list expression converts to a struct; a value of tuple type does not.
struct pair_t { bit<32> f; bool s; }
control c(inout pair_t p) {
    apply {
        tuple<bit<32>, bool> t = { 10, false };
        p = t;
    }
}
control pc(inout pair_t p);
package top(pc b);
top(c()) main;
