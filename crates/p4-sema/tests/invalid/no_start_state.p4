#include <core.p4>
parser P() {
state s {
transition accept;
} }
