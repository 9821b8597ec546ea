#include <core.p4>
// Valid since p4forge follows the spec: run-time unsigned division is legal (a target may refuse it).
control c(inout bit<8> x, in bit<8> y) { apply { x = x / 4; x = x % y; } }
