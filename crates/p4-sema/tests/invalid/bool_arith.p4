#include <core.p4>
control C(inout bool b) {
apply {
b = b + b;
} }
