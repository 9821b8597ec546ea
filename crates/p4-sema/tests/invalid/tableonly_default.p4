#include <core.p4>
control c(in bit<8> k) {
    action a() { }
    table t { key = { k: exact; } actions = { @tableonly a; NoAction; } default_action = a(); }
    apply { t.apply(); }
}
