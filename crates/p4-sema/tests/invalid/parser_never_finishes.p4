#include <core.p4>
parser p() { state start { transition s1; } state s1 { transition s2; } state s2 { transition s1; } }
