#include <core.p4>
enum E {
A = 1 }
