#include <core.p4>
parser P() {
state start {
transition accept;
} state start {
transition accept;
} }
