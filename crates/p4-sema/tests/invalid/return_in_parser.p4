#include <core.p4>
parser P() {
state start {
return;
} }
