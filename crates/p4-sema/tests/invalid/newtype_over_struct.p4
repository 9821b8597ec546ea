#include <core.p4>
struct S { bit<8> f; } type S T;
