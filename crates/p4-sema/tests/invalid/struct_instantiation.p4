#include <core.p4>
struct S { bit<8> f; } control c() { S() s; apply { } }
