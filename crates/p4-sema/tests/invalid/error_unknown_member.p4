#include <core.p4>
control C(out error e) {
apply {
e = error.Nope;
} }
