#include <core.p4>
control c(inout bit<8> x) { action a() { switch (x) { 1: { } } } apply { a(); } }
