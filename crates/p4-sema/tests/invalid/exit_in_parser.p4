#include <core.p4>
parser P() {
state start {
exit;
} }
