#include <core.p4>
control c(in bit<8> x) {
    @tag[x] action a() { }
    apply { }
}
