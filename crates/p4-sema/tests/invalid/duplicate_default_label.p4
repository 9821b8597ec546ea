#include <core.p4>
control c(inout bit<8> x) { apply { switch (x) { default: { } 1: { } } } }
