#include <core.p4>
// Inside its declaration a table's name is the table's, not the parameter it shadows.
control c(in bit<8> t) {
    table t {
        key = { t : exact; }
        actions = { }
    }
    apply { }
}
control ctl(in bit<8> t);
package top(ctl c);
top(c()) main;
