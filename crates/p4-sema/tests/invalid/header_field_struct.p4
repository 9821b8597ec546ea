#include <core.p4>
struct S {
bit<8> a;
} header H {
S s;
bool b;
H2 x;
}
