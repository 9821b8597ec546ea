#include <core.p4>
struct S {
foo_t f;
}
