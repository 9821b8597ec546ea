#include <core.p4>
action a(int x) { }
