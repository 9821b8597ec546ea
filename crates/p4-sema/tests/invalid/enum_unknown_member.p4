#include <core.p4>
enum E {
A, B } control C(out E e) {
apply {
e = E.C;
} }
