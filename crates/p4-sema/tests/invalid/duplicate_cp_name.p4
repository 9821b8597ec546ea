#include <core.p4>
@name("shared") action one() { }
@name(".shared") action two() { exit; }
control c(in bit<8> k) {
    table t { key = { k: exact; } actions = { one; two; } }
    apply { t.apply(); }
}
control proto(in bit<8> k);
package top(proto p);
top(c()) main;
