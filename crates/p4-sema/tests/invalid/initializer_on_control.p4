#include <core.p4>
control c() { apply { } } control proto(); package top(proto p); top(c()) main = { };
