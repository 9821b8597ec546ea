#include <core.p4>
enum E {
A, A }
