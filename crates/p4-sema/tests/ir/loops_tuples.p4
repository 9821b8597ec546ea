#include <core.p4>

header item_t { bit<8> v; }
struct pair_t { bit<8> a; bit<8> b; }
control Sum(inout item_t[3] items, inout pair_t p, out bit<8> total);
package Top(Sum s);

control MySum(inout item_t[3] items, inout pair_t p, out bit<8> total) {
    apply {
        total = 0;
        for (item_t it in items) {
            if (!it.isValid()) { continue; }
            total = total + it.v;
        }
        for (bit<8> k in { 1, 2, 3 }) { total = total + k; }
        tuple<bit<8>, bool> t = { p.a, true };
        if (t[1] && p == { 1, 2 }) { total = total + t[0]; }
    }
}

Top(MySum()) main;
