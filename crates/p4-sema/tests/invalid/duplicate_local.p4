#include <core.p4>
control C() {
apply {
bit<8> a;
bit<8> a;
} }
