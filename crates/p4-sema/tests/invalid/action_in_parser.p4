#include <core.p4>
action a() {} parser P() {
state start {
a();
transition accept;
} }
