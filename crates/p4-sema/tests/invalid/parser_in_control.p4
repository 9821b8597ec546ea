#include <core.p4>
parser P() {
state start {
transition accept;
} } control C() {
P() p;
apply {} }
