#include <core.p4>
enum E {
A } control C(in E e, out bool b) {
apply {
b = e == 1;
} }
