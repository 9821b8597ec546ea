#include <core.p4>
parser p() { state start { transition accept; } state accept { transition reject; } }
